"""Builds the CRM world from ``data/`` (demo-crm.md §1).

The nine data files are read and parsed once per process; the assembled seed is cached as
compact JSON bytes, and every ``create_state()`` call parses those bytes again, which yields a
brand-new world that shares no dict or list with any other call. orjson keeps key order, ints
as ints and floats as floats.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from .state import State

__all__ = ["SIMULATION_NOW", "create_state"]

#: The simulated "today". No tool moves it.
SIMULATION_NOW = "2026-03-16"

_DATA_DIR = Path(__file__).resolve().parent / "data"

#: Entity collections: state key -> data file; each file is a JSON array in id order.
_COLLECTIONS = ("users", "accounts", "contacts", "leads", "opportunities", "activities", "stages")

_seed: bytes | None = None


def _read(name: str) -> object:
    return orjson.loads((_DATA_DIR / f"{name}.json").read_bytes())


def _build_seed() -> bytes:
    world: dict[str, object] = {"now": SIMULATION_NOW}
    for key in _COLLECTIONS:
        world[key] = {record["id"]: record for record in _read(key)}  # type: ignore[attr-defined]
    world["auditLog"] = _read("auditLog")
    world["sequences"] = _read("sequences")
    return orjson.dumps(world)


def create_state() -> State:
    """A fresh deep copy of the seed world, keys in the order
    ``now, users, accounts, contacts, leads, opportunities, activities, stages, auditLog, sequences``."""
    global _seed
    seed = _seed
    if seed is None:
        seed = _seed = _build_seed()
    return orjson.loads(seed)
