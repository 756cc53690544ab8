"""Builds the project world (project-world.md §1, §11).

``create_state()`` is the canonical world of the nine data files, byte for byte. The files are read
and parsed once per process; the assembled seed is cached as compact JSON bytes, and every call
parses those bytes again, so each world is brand new and shares no dict or list with any other
call. orjson keeps key order, ints as ints and floats as floats.

``create_state(k)`` for an int ``k >= 0`` is variant ``k`` (variants.py): a world of the same shape,
the same in every process. A few recent variants are kept as bytes, so resetting several tasks on
one variant generates it once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

import orjson

from .state import State

__all__ = ["SIMULATION_NOW", "create_state"]

#: The simulated "today" (a date-only string). No tool moves it.
SIMULATION_NOW = "2026-03-16"

_DATA_DIR = Path(__file__).resolve().parent / "data"

#: Entity collections in state order; each file is a JSON array of records in id order.
_COLLECTIONS = ("projects", "workItems", "sprints", "members", "teams", "workflowStates", "timeLogs")

#: How many generated variants are kept (as bytes, about 20 kB each).
_VARIANT_CACHE_SIZE = 32

_seed: bytes | None = None
_variants: OrderedDict[int, bytes] = OrderedDict()
_variants_lock = threading.Lock()


def _read(name: str) -> object:
    return orjson.loads((_DATA_DIR / f"{name}.json").read_bytes())


def _build_seed() -> bytes:
    world: dict[str, object] = {"now": SIMULATION_NOW}
    for key in _COLLECTIONS:
        world[key] = {record["id"]: record for record in _read(key)}  # type: ignore[attr-defined]
    world["auditLog"] = _read("auditLog")
    world["sequences"] = _read("sequences")
    return orjson.dumps(world)


def canonical_seed() -> bytes:
    """The canonical world as compact JSON bytes (read once per process)."""
    global _seed
    seed = _seed
    if seed is None:
        seed = _seed = _build_seed()
    return seed


def create_state(variant: int | None = None) -> State:
    """A fresh world: the canonical one for ``None``, else variant ``variant`` (an int >= 0).

    Keys in the order ``now, projects, workItems, sprints, members, teams, workflowStates,
    timeLogs, auditLog, sequences``.

    Raises:
        ValueError: ``variant`` is not ``None`` or an int >= 0 (a bool is refused).
    """
    if variant is None:
        return orjson.loads(canonical_seed())
    if isinstance(variant, bool) or not isinstance(variant, int) or variant < 0:
        raise ValueError(f"variant must be None or an int >= 0, got {variant!r}.")
    with _variants_lock:
        data = _variants.get(variant)
        if data is not None:
            _variants.move_to_end(variant)
    if data is None:
        from .variants import generate

        data = orjson.dumps(generate(variant))
        with _variants_lock:
            _variants[variant] = data
            while len(_variants) > _VARIANT_CACHE_SIZE:
                _variants.popitem(last=False)
    return orjson.loads(data)
