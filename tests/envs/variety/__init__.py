"""A variant-capable test world (docs/variants.md): items with names and prices.

Variant k renames and reprices the items; every third variant drops item I-1, so TASK-001's
preconditions fail there.
"""

import copy
import json
import random
from pathlib import Path

from silo_gym import bind_tools as _bind
from silo_gym import check, define_tool, define_verifier

_ITEMS = json.loads((Path(__file__).parent / "data" / "items.json").read_text())
_NAMES = ["desk lamp", "floor lamp", "reading lamp", "office chair", "bar stool", "armchair"]


def create_state(variant=None):
    items = copy.deepcopy(_ITEMS)
    if variant is not None:
        rng = random.Random(variant)
        for item in items:
            item["name"] = rng.choice(_NAMES)
            item["price"] = rng.randint(1, 500)
        if variant % 3 == 0:
            items = [i for i in items if i["id"] != "I-1"]
    return {"now": "2026-09-15", "items": {i["id"]: i for i in items}}


def render_instruction(task, state):
    if task.id == "TASK-001":
        return f"What does the {state['items']['I-1']['name']} (I-1) cost? Answer with the price."
    return f"Cut the price of the {state['items']['I-2']['name']} (I-2) by 10."


def task_preconditions(task, state):
    needed = task.entities
    return [f"item {i} is missing" for i in needed if i not in state["items"]]


def _get_item(state, input):
    return state["items"][input["itemId"]]


def _set_price(state, input):
    state["items"][input["itemId"]]["price"] = input["price"]
    return state["items"][input["itemId"]]


_ID = {"type": "object", "properties": {"itemId": {"type": "string"}}, "required": ["itemId"],
       "additionalProperties": False}
tools = [
    define_tool(name="get_item", description="One item by id.", input_schema=_ID, run=_get_item),
    define_tool(
        name="set_price", description="Set an item's price.",
        input_schema={"type": "object", "properties": {"itemId": {"type": "string"}, "price": {"type": "number"}},
                      "required": ["itemId", "price"], "additionalProperties": False},
        run=_set_price),
]


def bind_tools(state):
    return _bind(state, tools)


def _ver_001(final, initial, context):
    price = initial["items"]["I-1"]["price"]
    return [check("The answer is the lamp's price", str(price) in context.agent_output, f"price = {price}")]


def _ver_002(final, initial, context):
    before, after = initial["items"]["I-2"]["price"], final["items"]["I-2"]["price"]
    return [check("The chair costs 10 less", after == before - 10, f"{before} -> {after}")]


verifiers = [
    define_verifier(id="VER-001", task_id="TASK-001", name="Lamp price", check=_ver_001),
    define_verifier(id="VER-002", task_id="TASK-002", name="Chair discount", check=_ver_002),
]
