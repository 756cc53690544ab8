"""Tool registry of the inventory world."""

from silo_gym import define_tool


def _list_items(state, input):
    limit = input.get("limit", 50)
    return {"items": state["items"][:limit], "total": len(state["items"])}


list_items = define_tool(
    name="list_items",
    description="List the stock items with their unit counts.",
    input_schema={
        "type": "object",
        "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 100}},
        "required": [],
        "additionalProperties": False,
    },
    run=_list_items,
)

tools = [
    list_items,
]
