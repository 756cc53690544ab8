"""Builds the orders world from data/orders.json."""

import copy
import json
from pathlib import Path

_SEED = None


def create_state():
    global _SEED
    if _SEED is None:
        rows = json.loads((Path(__file__).parent / "data" / "orders.json").read_text())
        _SEED = {"now": "2026-09-15", "orders": {r["id"]: r for r in rows}, "shipments": [], "sequences": {"SHP": 0}}
    return copy.deepcopy(_SEED)
