"""Scripted agent for the inventory world: lists the items and sums their units."""


def agent(task, tools, call_tool, signal):
    items = call_tool("list_items", {})["output"]["items"]
    return {"output": f"There are {sum(i['units'] for i in items)} units in stock."}
