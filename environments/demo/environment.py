"""Builds the CRM world: the canonical one from ``data/`` (demo-crm.md §1), or a variant.

The nine data files are read and parsed once per process; the assembled seed is cached as
compact JSON bytes, and every ``create_state()`` call parses those bytes again, which yields a
brand-new world that shares no dict or list with any other call. orjson keeps key order, ints
as ints and floats as floats.

``create_state(k)`` for an int ``k >= 0`` builds variant ``k`` instead (``variants.py``,
docs/variants.md): a different world of the same shape, the same in every process.
"""

from __future__ import annotations

from collections.abc import Callable
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
_build_variant: Callable[[int], State] | None = None


def _generator() -> Callable[[int], State]:
    """``variants.build_variant``, imported on first use: canonical runs never load it."""
    global _build_variant
    if _build_variant is None:
        from .variants import build_variant

        _build_variant = build_variant
    return _build_variant


def _read(name: str) -> object:
    return orjson.loads((_DATA_DIR / f"{name}.json").read_bytes())


def _build_seed() -> bytes:
    world: dict[str, object] = {"now": SIMULATION_NOW}
    for key in _COLLECTIONS:
        world[key] = {record["id"]: record for record in _read(key)}  # type: ignore[attr-defined]
    world["auditLog"] = _read("auditLog")
    world["sequences"] = _read("sequences")
    return orjson.dumps(world)


def create_state(variant: int | None = None) -> State:
    """A fresh world, keys in the order
    ``now, users, accounts, contacts, leads, opportunities, activities, stages, auditLog, sequences``.

    ``variant=None`` (the default) is a deep copy of the canonical seed world; an int ``>= 0`` is
    that variant of it (docs/variants.md).

    Raises:
        ValueError: ``variant`` is neither ``None`` nor an int ``>= 0``.
    """
    if variant is not None:
        return _generator()(variant)
    global _seed
    seed = _seed
    if seed is None:
        seed = _seed = _build_seed()
    return orjson.loads(seed)
