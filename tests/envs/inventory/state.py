"""State of the inventory world."""

import json
from pathlib import Path
from typing import Any

State = dict[str, Any]


def create_state() -> State:
    items = json.loads((Path(__file__).parent / "data" / "items.json").read_text())
    return {"now": "2026-09-15", "items": items}


def units_in_stock(state: State) -> int:
    return sum(item["units"] for item in state["items"])
