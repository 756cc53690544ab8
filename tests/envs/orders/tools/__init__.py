"""Tool registry of the orders world."""

from silo_gym import ToolError, define_tool


def _get_order(state, input):
    order = state["orders"].get(input["orderId"])
    if order is None:
        raise ToolError("not_found", f'Order "{input["orderId"]}" was not found.')
    return order


def _ship_order(state, input):
    order = _get_order(state, input)
    if order["status"] != "pending":
        raise ToolError("invalid_state", f"Order {order['id']} is {order['status']}.", {"status": order["status"]})
    state["sequences"]["SHP"] += 1
    shipment = {"id": f"SHP-{state['sequences']['SHP']}", "orderId": order["id"], "carrier": input["carrier"]}
    state["shipments"].append(shipment)
    order["status"] = "shipped"
    order["carrier"] = input["carrier"]
    if input.get("express"):
        order["express"] = True
    return {"order": order, "shipment": shipment}


def _explode(state, input):
    raise RuntimeError("the warehouse is on fire")


get_order = define_tool(
    name="get_order",
    description="Read one order by id.",
    input_schema={
        "type": "object",
        "properties": {"orderId": {"type": "string"}},
        "required": ["orderId"],
        "additionalProperties": False,
    },
    run=_get_order,
)

ship_order = define_tool(
    name="ship_order",
    description="Ship a pending order with a carrier.",
    input_schema={
        "type": "object",
        "properties": {
            "orderId": {"type": "string"},
            "carrier": {"type": "string", "enum": ["ground", "express"]},
            "express": {"type": "boolean"},
        },
        "required": ["orderId", "carrier"],
        "additionalProperties": False,
    },
    run=_ship_order,
)

explode = define_tool(
    name="explode",
    description="Always fails with a plain exception (for tests).",
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    run=_explode,
)

tools = [
    get_order,
    ship_order,
    explode,
]
