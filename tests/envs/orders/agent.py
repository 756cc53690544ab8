"""Scripted agent for the orders world: reads O-1, ships it express, answers."""


def agent(task, tools, call_tool, signal):
    call_tool("get_order", {"orderId": "O-1"})
    result = call_tool("ship_order", {"orderId": "O-1", "carrier": "express"})
    return {"output": f"Shipped {result['output']['order']['id']}."}


def policy_actions():
    return [
        {"tool": "get_order", "input": {"orderId": "O-1"}},
        {"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "express"}},
        {"answer": "Shipped O-1."},
    ]
