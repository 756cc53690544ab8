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

from silo_gym import kit

from .state import State

__all__ = ["SIMULATION_NOW", "create_state"]

#: The simulated "today". No tool moves it.
SIMULATION_NOW = "2026-03-16"

#: The canonical world: the data files (entity collections in state order, keyed by id), read once.
_SEED = kit.SeedWorld(
    Path(__file__).resolve().parent / "data",
    SIMULATION_NOW,
    ("users", "accounts", "contacts", "leads", "opportunities", "activities", "stages"),
)

_build_variant: Callable[[int], State] | None = None


def _generator() -> Callable[[int], State]:
    """``variants.build_variant``, imported on first use: canonical runs never load it."""
    global _build_variant
    if _build_variant is None:
        from .variants import build_variant

        _build_variant = build_variant
    return _build_variant


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
    return _SEED.create()
