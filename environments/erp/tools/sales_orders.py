"""Sales order tools (erp-tools.md §7.15): orders, stock reservations, shipments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, add_days, available_quantity, find_inventory, money, next_id
from .helpers import (
    SO_STATUS,
    actor,
    apply_stock_change,
    array_prop,
    assert_status,
    audit,
    document_totals,
    enum_prop,
    fmt,
    integer_prop,
    line_total,
    linked_ids,
    linked_records,
    matches_text,
    number_prop,
    object_prop,
    page_records,
    paginate,
    paging_props,
    read_number,
    read_object_array,
    read_optional_string,
    read_string,
    recompute_sales_order_status,
    require_customer,
    require_fulfillment,
    require_inventory,
    require_product,
    require_sales_order,
    require_warehouse,
    sales_order_summary,
    schema,
    string_prop,
)

Args = dict[str, Any]
_ACTOR = "Id of the active user doing this (for example USR-004); recorded in the audit log."
_ORDER = "The sales order id, for example SO-307."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def assert_customer_can_trade(state: State, customer_id: str, action: str) -> dict[str, Any]:
    """The customer, unless it is blocked or on credit hold (not_allowed naming ``action``)."""
    customer = require_customer(state, customer_id)
    if customer["status"] in ("blocked", "credit_hold"):
        raise ToolError(
            "not_allowed",
            f"Customer {customer['id']} is {customer['status']}: {customer['statusReason'] or 'no reason recorded'}. "
            f"Cannot {action}.",
            {"customerStatus": customer["status"]},
        )
    return customer


def _build_lines(
    state: State, specs: list[dict[str, Any]], order_id: str, fallback: str, creating: bool
) -> list[Any]:
    lines = []
    for i, spec in enumerate(specs, start=1):
        product = require_product(state, read_string(spec, "productId"))
        quantity = read_number(spec, "quantity", minimum=1, integer=True)
        warehouse_id = read_optional_string(spec, "warehouseId") or fallback
        require_warehouse(state, warehouse_id)
        if creating and product["status"] == "discontinued":
            raise ToolError("not_allowed", f"Product {product['id']} is discontinued and cannot be sold.")
        price = (
            read_number(spec, "unitPrice", minimum=0)
            if _is_number(spec.get("unitPrice"))
            else product["listPrice"]["amount"]
        )
        lines.append(
            {
                "id": f"{order_id}-L{i}",
                "productId": product["id"],
                "quantityOrdered": quantity,
                "quantityReserved": 0,
                "quantityFulfilled": 0,
                "unitPrice": money(price),
                "lineTotal": line_total(quantity, price),
                "warehouseId": warehouse_id,
            }
        )
    return lines


def _summary_page(
    state: State, args: Args, keep: Callable[[Any], bool] | None, ids: list[str] | None = None
) -> dict[str, Any]:
    """A page of the sales orders ``keep`` accepts (of ``ids``, else all) in id order, only the
    page's rows projected to ``sales_order_summary``."""
    page = page_records(state, "salesOrders", args, keep, ids)
    page["results"] = [sales_order_summary(o) for o in page["results"]]
    return page


def _list_sales_orders(state: State, args: Args) -> Any:
    status = read_optional_string(args, "status")
    customer = read_optional_string(args, "customerId")

    def keep(o: Any) -> bool:
        return status is None or o["status"] == status

    ids = None if customer is None else linked_ids(state, "salesOrders", "customerId", customer)
    return _summary_page(state, args, None if status is None else keep, ids)


list_sales_orders = define_tool(
    name="list_sales_orders",
    description="List sales orders sorted by id, optionally by status or customer. Read-only.",
    input_schema=schema(
        {
            "status": enum_prop(SO_STATUS, "Only orders in this status."),
            "customerId": string_prop("Only orders of this customer (for example CUS-007)."),
            **paging_props(),
        },
        [],
    ),
    run=_list_sales_orders,
)


def _search_sales_orders(state: State, args: Args) -> Any:
    query = read_string(args, "query")
    customers = state["customers"]

    def keep(o: Any) -> bool:
        customer = customers.get(o["customerId"])
        return (
            matches_text(o["id"], query)
            or matches_text(o["customerPoNumber"], query)
            or matches_text(customer["name"] if customer else None, query)
        )

    return _summary_page(state, args, keep)


search_sales_orders = define_tool(
    name="search_sales_orders",
    description=(
        "Find sales orders whose id, customer purchase order number or customer name contains the text "
        "(case-insensitive). Read-only."
    ),
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_sales_orders,
)


def _get_sales_order(state: State, args: Args) -> Any:
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    lines = [
        {**line, "quantityOutstanding": line["quantityOrdered"] - line["quantityFulfilled"]}
        for line in order["lines"]
    ]
    fulfillments = [
        {"id": f["id"], "status": f["status"], "warehouseId": f["warehouseId"], "shippedAt": f["shippedAt"]}
        for f in linked_records(state, "fulfillments", "salesOrderId", order["id"], sort=False)
    ]
    invoices = [
        {"id": c["id"], "status": c["status"], "totalAmount": c["totalAmount"]}
        for c in linked_records(state, "customerInvoices", "salesOrderId", order["id"], sort=False)
    ]
    return {**order, "lines": lines, "fulfillments": fulfillments, "customerInvoices": invoices}


get_sales_order = define_tool(
    name="get_sales_order",
    description=(
        "Get one sales order with reserved, fulfilled and outstanding quantities per line, its "
        "shipments and its customer invoices. Read-only."
    ),
    input_schema=schema({"salesOrderId": string_prop(_ORDER)}, ["salesOrderId"]),
    run=_get_sales_order,
)


def _create_sales_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    customer = require_customer(state, read_string(args, "customerId"))
    warehouse = require_warehouse(state, read_string(args, "warehouseId"))
    if customer["status"] == "blocked":
        raise ToolError(
            "not_allowed",
            f"Customer {customer['id']} is blocked: {customer['statusReason'] or 'no reason recorded'}.",
        )
    so_id = next_id(state, "SO")
    lines = _build_lines(state, read_object_array(args, "lines"), so_id, warehouse["id"], True)
    totals = document_totals(lines)
    record = {
        "id": so_id,
        "number": so_id,
        "customerId": customer["id"],
        "status": "draft",
        "lines": lines,
        "currency": state["company"]["baseCurrency"],
        "subtotal": totals["subtotal"],
        "taxAmount": totals["taxAmount"],
        "totalAmount": totals["totalAmount"],
        "customerPoNumber": read_optional_string(args, "customerPoNumber") or "",
        "orderDate": state["now"],
        "requestedDeliveryDate": read_optional_string(args, "requestedDeliveryDate")
        or add_days(state["now"], 14),
        "createdByUserId": user["id"],
        "confirmedAt": None,
        "cancelledAt": None,
        "cancelReason": None,
        "closedAt": None,
    }
    state["salesOrders"][so_id] = record
    audit(
        state,
        user["id"],
        "sales_order.created",
        "sales_order",
        so_id,
        f"Created {so_id} for {customer['name']}",
        [],
    )
    return record


_SO_LINE = object_prop(
    "One product ordered.",
    {
        "productId": string_prop("The product, for example PRD-003."),
        "quantity": integer_prop("Units ordered.", minimum=1),
        "unitPrice": number_prop("Price per unit in USD; default the product's list price."),
        "warehouseId": string_prop("Warehouse this line ships from; default the order's warehouse."),
    },
    ["productId", "quantity"],
)

create_sales_order = define_tool(
    name="create_sales_order",
    description=(
        "Raise a draft sales order for a customer. Blocked customers are refused; customers on credit "
        "hold may order but cannot have stock reserved or shipped. Returns the order."
    ),
    input_schema=schema(
        {
            "customerId": string_prop("The customer, for example CUS-007."),
            "warehouseId": string_prop("Default warehouse the lines ship from, for example WH-001."),
            "lines": array_prop("The products ordered.", _SO_LINE),
            "customerPoNumber": string_prop("The customer's own purchase order number."),
            "requestedDeliveryDate": string_prop(
                "When the customer wants delivery; default 14 days from now."
            ),
            "actorUserId": string_prop(_ACTOR),
        },
        ["customerId", "warehouseId", "lines", "actorUserId"],
    ),
    run=_create_sales_order,
)


def _update_sales_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    assert_status(order["status"], ["draft"], f"Sales order {order['id']}")
    date = read_optional_string(args, "requestedDeliveryDate")
    if date is not None:
        order["requestedDeliveryDate"] = date
    if isinstance(args.get("lines"), list):
        specs = read_object_array(args, "lines")
        fallback = order["lines"][0]["warehouseId"] if order["lines"] else ""
        order["lines"] = _build_lines(state, specs, order["id"], fallback, False)
    totals = document_totals(order["lines"])
    order["subtotal"] = totals["subtotal"]
    order["taxAmount"] = totals["taxAmount"]
    order["totalAmount"] = totals["totalAmount"]
    audit(state, user["id"], "sales_order.updated", "sales_order", order["id"], f"Updated {order['id']}", [])
    return order


update_sales_order = define_tool(
    name="update_sales_order",
    description="Change the requested delivery date or replace the lines of a draft sales order. Returns the order.",
    input_schema=schema(
        {
            "salesOrderId": string_prop(_ORDER),
            "requestedDeliveryDate": string_prop("New requested delivery date."),
            "lines": array_prop("Replacement lines (all current lines are replaced).", _SO_LINE),
            "actorUserId": string_prop(_ACTOR),
        },
        ["salesOrderId", "actorUserId"],
    ),
    run=_update_sales_order,
)


def _confirm_sales_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    assert_status(order["status"], ["draft"], f"Sales order {order['id']}")
    assert_customer_can_trade(state, order["customerId"], "confirm the order")
    if not order["lines"]:
        raise ToolError("invalid_state", f"Sales order {order['id']} has no lines.")
    order["status"] = "confirmed"
    order["confirmedAt"] = state["now"]
    audit(
        state, user["id"], "sales_order.confirmed", "sales_order", order["id"], f"Confirmed {order['id']}", []
    )
    return order


confirm_sales_order = define_tool(
    name="confirm_sales_order",
    description="Confirm a draft sales order so stock can be reserved and shipped against it. Returns the order.",
    input_schema=schema(
        {"salesOrderId": string_prop(_ORDER), "actorUserId": string_prop(_ACTOR)},
        ["salesOrderId", "actorUserId"],
    ),
    run=_confirm_sales_order,
)


def _check_sales_order_stock(state: State, args: Args) -> Any:
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    rows = []
    for line in order["lines"]:
        record = find_inventory(state, line["productId"], line["warehouseId"])
        here = available_quantity(record) if record is not None else 0
        outstanding = line["quantityOrdered"] - line["quantityFulfilled"]
        elsewhere = [
            {"warehouseId": r["warehouseId"], "quantityAvailable": available_quantity(r)}
            for r in linked_records(state, "inventory", "productId", line["productId"], sort=False)
            if r["warehouseId"] != line["warehouseId"]
            and available_quantity(r) > 0
        ]
        elsewhere.sort(key=lambda r: r["quantityAvailable"], reverse=True)
        rows.append(
            {
                "salesOrderLineId": line["id"],
                "productId": line["productId"],
                "quantityOutstanding": outstanding,
                "quantityReserved": line["quantityReserved"],
                "nominatedWarehouseId": line["warehouseId"],
                "availableAtNominated": here,
                "canShipInFull": here >= outstanding,
                "shortfall": max(0, outstanding - here),
                "availableElsewhere": elsewhere,
                "totalAvailableAcrossWarehouses": here + sum(r["quantityAvailable"] for r in elsewhere),
            }
        )
    return {
        "salesOrderId": order["id"],
        "status": order["status"],
        "canFulfilInFull": all(r["canShipInFull"] for r in rows),
        "requiresTransferOrSplit": any(
            not r["canShipInFull"] and r["totalAvailableAcrossWarehouses"] >= r["quantityOutstanding"]
            for r in rows
        ),
        "lines": rows,
    }


check_sales_order_stock = define_tool(
    name="check_sales_order_stock",
    description=(
        "Check line by line whether each line's warehouse can ship what is outstanding, and which other "
        "warehouses hold available stock of the product. Read-only."
    ),
    input_schema=schema({"salesOrderId": string_prop(_ORDER)}, ["salesOrderId"]),
    run=_check_sales_order_stock,
)


def _reserve_sales_order_stock(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    assert_status(order["status"], ["confirmed", "partially_fulfilled"], f"Sales order {order['id']}")
    assert_customer_can_trade(state, order["customerId"], "reserve stock")
    rows = []
    for line in order["lines"]:
        needed = (line["quantityOrdered"] - line["quantityFulfilled"]) - line["quantityReserved"]
        if needed <= 0:
            continue
        record = require_inventory(state, line["productId"], line["warehouseId"])
        take = min(needed, available_quantity(record))
        if take <= 0:
            rows.append({"salesOrderLineId": line["id"], "reserved": 0, "shortfall": needed})
            continue
        apply_stock_change(
            state,
            product_id=line["productId"],
            warehouse_id=line["warehouseId"],
            quantity_delta=0,
            reserved_delta=take,
            type="reservation",
            reference_type="sales_order",
            reference_id=order["id"],
            actor_user_id=user["id"],
            note=f"Reserved for {order['id']}",
        )
        line["quantityReserved"] += take
        rows.append({"salesOrderLineId": line["id"], "reserved": take, "shortfall": needed - take})
    audit(
        state,
        user["id"],
        "sales_order.reserved",
        "sales_order",
        order["id"],
        f"Reserved stock for {order['id']}",
        [],
    )
    return {"salesOrderId": order["id"], "lines": rows}


reserve_sales_order_stock = define_tool(
    name="reserve_sales_order_stock",
    description=(
        "Reserve, at each line's warehouse, what every line of a confirmed order still needs, as far as "
        "stock is available. Returns per line the units reserved and any shortfall."
    ),
    input_schema=schema(
        {"salesOrderId": string_prop(_ORDER), "actorUserId": string_prop(_ACTOR)},
        ["salesOrderId", "actorUserId"],
    ),
    run=_reserve_sales_order_stock,
)


def _release_sales_order_stock(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    reason = read_optional_string(args, "reason") or "Reservation released"
    rows = []
    for line in order["lines"]:
        reserved = line["quantityReserved"]
        if reserved > 0:
            apply_stock_change(
                state,
                product_id=line["productId"],
                warehouse_id=line["warehouseId"],
                quantity_delta=0,
                reserved_delta=-reserved,
                type="release",
                reference_type="sales_order",
                reference_id=order["id"],
                actor_user_id=user["id"],
                note=reason,
            )
            rows.append({"salesOrderLineId": line["id"], "released": reserved})
            line["quantityReserved"] = 0
    audit(
        state,
        user["id"],
        "sales_order.reservation_released",
        "sales_order",
        order["id"],
        f"Released reservations on {order['id']}: {reason}",
        [],
    )
    return {"salesOrderId": order["id"], "released": rows}


release_sales_order_stock = define_tool(
    name="release_sales_order_stock",
    description="Release every stock reservation held for a sales order. Returns the units released per line.",
    input_schema=schema(
        {
            "salesOrderId": string_prop(_ORDER),
            "reason": string_prop("Why the reservations are released."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["salesOrderId", "actorUserId"],
    ),
    run=_release_sales_order_stock,
)


def _fulfill_sales_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    assert_status(order["status"], ["confirmed", "partially_fulfilled"], f"Sales order {order['id']}")
    assert_customer_can_trade(state, order["customerId"], "ship the order")
    specs: list[dict[str, Any]] = []
    if isinstance(args.get("lines"), list):
        for raw in read_object_array(args, "lines"):
            specs.append(
                {
                    "lineId": read_string(raw, "salesOrderLineId"),
                    "quantity": read_number(raw, "quantity", minimum=1, integer=True),
                    "warehouseId": read_optional_string(raw, "warehouseId"),
                }
            )
    else:
        for line in order["lines"]:
            outstanding = line["quantityOrdered"] - line["quantityFulfilled"]
            if outstanding > 0:
                specs.append({"lineId": line["id"], "quantity": outstanding, "warehouseId": None})
    if not specs:
        raise ToolError("invalid_state", f"Nothing is outstanding on {order['id']}.")
    ful_id = next_id(state, "FUL")
    by_id = {line["id"]: line for line in order["lines"]}
    used: list[str] = []
    lines = []
    for i, spec in enumerate(specs, start=1):
        line = by_id.get(spec["lineId"])
        if line is None:
            raise ToolError("not_found", f'Line "{spec["lineId"]}" is not on {order["id"]}.')
        quantity = spec["quantity"]
        product_id = line["productId"]
        outstanding = line["quantityOrdered"] - line["quantityFulfilled"]
        if quantity > outstanding:
            raise ToolError(
                "invalid_input",
                f"Cannot ship {fmt(quantity)} of {product_id}: only {fmt(outstanding)} outstanding on {line['id']}.",
                {"outstanding": outstanding},
            )
        warehouse_id = spec["warehouseId"] or line["warehouseId"]
        require_warehouse(state, warehouse_id)
        record = require_inventory(state, product_id, warehouse_id)
        reserved_here = line["quantityReserved"] if warehouse_id == line["warehouseId"] else 0
        shippable = available_quantity(record) + min(reserved_here, quantity)
        if shippable < quantity:
            raise ToolError(
                "insufficient_stock",
                f"Cannot ship {fmt(quantity)} of {product_id} from {warehouse_id}: {fmt(shippable)} available "
                f"(including {fmt(reserved_here)} reserved for this order).",
                {"available": shippable, "requested": quantity},
            )
        release = min(reserved_here, quantity)
        apply_stock_change(
            state,
            product_id=product_id,
            warehouse_id=warehouse_id,
            quantity_delta=-quantity,
            reserved_delta=-release,
            type="issue",
            reference_type="fulfillment",
            reference_id=ful_id,
            actor_user_id=user["id"],
            note=f"Shipped against {order['id']}",
        )
        line["quantityFulfilled"] += quantity
        line["quantityReserved"] -= release
        if warehouse_id not in used:
            used.append(warehouse_id)
        lines.append(
            {
                "id": f"{ful_id}-L{i}",
                "salesOrderLineId": line["id"],
                "productId": product_id,
                "quantity": quantity,
            }
        )
    record = {
        "id": ful_id,
        "number": ful_id,
        "salesOrderId": order["id"],
        "warehouseId": used[0],
        "status": "shipped",
        "lines": lines,
        "carrier": read_optional_string(args, "carrier") or "",
        "trackingNumber": read_optional_string(args, "trackingNumber") or "",
        "shippedByUserId": user["id"],
        "shippedAt": state["now"],
        "deliveredAt": None,
    }
    state["fulfillments"][ful_id] = record
    recompute_sales_order_status(order)
    audit(
        state,
        user["id"],
        "fulfillment.shipped",
        "fulfillment",
        ful_id,
        f"Shipped {ful_id} against {order['id']}",
        [],
    )
    return {"fulfillment": record, "salesOrderStatus": order["status"], "warehousesUsed": used}


_SHIP_LINE = object_prop(
    "Units of one order line shipped in this shipment.",
    {
        "salesOrderLineId": string_prop("The order line, for example SO-307-L1."),
        "quantity": integer_prop("Units shipped.", minimum=1),
        "warehouseId": string_prop("Ship from this warehouse instead of the line's own."),
    },
    ["salesOrderLineId", "quantity"],
)

fulfill_sales_order = define_tool(
    name="fulfill_sales_order",
    description=(
        "Ship stock against a confirmed sales order and record the shipment. Each line ships from its "
        "own warehouse unless a shipment line names another, so one order can be filled from several "
        "warehouses (name the same order line once per warehouse). Omit lines to ship everything "
        "outstanding. Returns the fulfillment, the order's status and the warehouses used."
    ),
    input_schema=schema(
        {
            "salesOrderId": string_prop(_ORDER),
            "lines": array_prop("What ships; omit to ship all outstanding units.", _SHIP_LINE),
            "carrier": string_prop("The carrier."),
            "trackingNumber": string_prop("The carrier's tracking number."),
            "actorUserId": string_prop("The user who ships it."),
        },
        ["salesOrderId", "actorUserId"],
    ),
    run=_fulfill_sales_order,
)


def _mark_fulfillment_delivered(state: State, args: Args) -> Any:
    user = actor(state, args)
    record = require_fulfillment(state, read_string(args, "fulfillmentId"))
    assert_status(record["status"], ["shipped"], f"Fulfillment {record['id']}")
    record["status"] = "delivered"
    record["deliveredAt"] = state["now"]
    audit(
        state,
        user["id"],
        "fulfillment.delivered",
        "fulfillment",
        record["id"],
        f"{record['id']} delivered",
        [],
    )
    return record


mark_fulfillment_delivered = define_tool(
    name="mark_fulfillment_delivered",
    description="Record that a shipped fulfillment reached the customer. Returns the fulfillment.",
    input_schema=schema(
        {
            "fulfillmentId": string_prop("The fulfillment id, for example FUL-002."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["fulfillmentId", "actorUserId"],
    ),
    run=_mark_fulfillment_delivered,
)


def _list_fulfillments(state: State, args: Args) -> Any:
    so = read_optional_string(args, "salesOrderId")
    wh = read_optional_string(args, "warehouseId")

    def keep(f: Any) -> bool:
        return wh is None or f["warehouseId"] == wh

    ids = None if so is None else linked_ids(state, "fulfillments", "salesOrderId", so)
    return page_records(state, "fulfillments", args, None if wh is None else keep, ids)


list_fulfillments = define_tool(
    name="list_fulfillments",
    description="List shipments (fulfillments) sorted by id, optionally of one sales order or from one warehouse. Read-only.",
    input_schema=schema(
        {
            "salesOrderId": string_prop("Only shipments of this sales order."),
            "warehouseId": string_prop("Only shipments from this warehouse."),
            **paging_props(),
        },
        [],
    ),
    run=_list_fulfillments,
)


def _cancel_sales_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_sales_order(state, read_string(args, "salesOrderId"))
    reason = read_string(args, "reason")
    assert_status(order["status"], ["draft", "confirmed"], f"Sales order {order['id']}")
    shipped = sum(line["quantityFulfilled"] for line in order["lines"])
    if shipped > 0:
        raise ToolError(
            "invalid_state",
            f"{order['id']} already has {fmt(shipped)} unit(s) shipped and cannot be cancelled.",
        )
    for line in order["lines"]:
        if line["quantityReserved"] > 0:
            apply_stock_change(
                state,
                product_id=line["productId"],
                warehouse_id=line["warehouseId"],
                quantity_delta=0,
                reserved_delta=-line["quantityReserved"],
                type="release",
                reference_type="sales_order",
                reference_id=order["id"],
                actor_user_id=user["id"],
                note=f"Order cancelled: {reason}",
            )
            line["quantityReserved"] = 0
    order["status"] = "cancelled"
    order["cancelledAt"] = state["now"]
    order["cancelReason"] = reason
    audit(
        state,
        user["id"],
        "sales_order.cancelled",
        "sales_order",
        order["id"],
        f"Cancelled {order['id']}: {reason}",
        [],
    )
    return order


cancel_sales_order = define_tool(
    name="cancel_sales_order",
    description="Cancel a draft or confirmed sales order with nothing shipped, releasing its reservations. Returns the order.",
    input_schema=schema(
        {
            "salesOrderId": string_prop(_ORDER),
            "reason": string_prop("Why it is cancelled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["salesOrderId", "reason", "actorUserId"],
    ),
    run=_cancel_sales_order,
)


def _list_unfulfilled_sales_orders(state: State, args: Args) -> Any:
    now = state["now"]
    rows = []
    for order in state["salesOrders"].values():
        if order["status"] not in ("confirmed", "partially_fulfilled"):
            continue
        outstanding = [line["quantityOrdered"] - line["quantityFulfilled"] for line in order["lines"]]
        if not any(q > 0 for q in outstanding):
            continue
        row = {
            **sales_order_summary(order),
            "unitsOutstanding": sum(outstanding),
            "isLate": order["requestedDeliveryDate"] < now,
        }
        customer = state["customers"].get(order["customerId"])
        if customer is not None:
            row["customerStatus"] = customer["status"]
        rows.append(row)
    rows.sort(key=lambda r: r["requestedDeliveryDate"])
    return paginate(rows, args)


list_unfulfilled_sales_orders = define_tool(
    name="list_unfulfilled_sales_orders",
    description=(
        "List confirmed sales orders with units still to ship, earliest requested delivery first, "
        "flagging late ones and giving the customer's status. Read-only."
    ),
    input_schema=schema({**paging_props()}, []),
    run=_list_unfulfilled_sales_orders,
)

TOOLS = [
    list_sales_orders,
    search_sales_orders,
    get_sales_order,
    create_sales_order,
    update_sales_order,
    confirm_sales_order,
    check_sales_order_stock,
    reserve_sales_order_stock,
    release_sales_order_stock,
    fulfill_sales_order,
    mark_fulfillment_delivered,
    list_fulfillments,
    cancel_sales_order,
    list_unfulfilled_sales_orders,
]
