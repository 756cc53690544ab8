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

from silo_gym import kit

from .state import State

__all__ = ["SIMULATION_NOW", "create_state"]

#: The simulated "today" (a date-only string). No tool moves it.
SIMULATION_NOW = "2026-03-16"

#: The canonical world: the data files (entity collections in state order, keyed by id), read once.
_SEED = kit.SeedWorld(
    Path(__file__).resolve().parent / "data",
    SIMULATION_NOW,
    ("projects", "workItems", "sprints", "members", "teams", "workflowStates", "timeLogs"),
)

#: How many generated variants are kept (as bytes, about 20 kB each).
_VARIANT_CACHE_SIZE = 32

_variants: OrderedDict[int, bytes] = OrderedDict()
_variants_lock = threading.Lock()


def create_state(variant: int | None = None) -> State:
    """A fresh world: the canonical one for ``None``, else variant ``variant`` (an int >= 0).

    Keys in the order ``now, projects, workItems, sprints, members, teams, workflowStates,
    timeLogs, auditLog, sequences``.

    Raises:
        ValueError: ``variant`` is not ``None`` or an int >= 0 (a bool is refused).
    """
    if variant is None:
        return _SEED.create()
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
