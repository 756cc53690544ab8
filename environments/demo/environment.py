"""Builds the CRM world: the canonical one from ``data/`` (demo-crm.md §1), or a variant.

``create_state()`` is a fresh copy of the nine data files' world (read once per process, kept as
JSON bytes), keys in the order ``now, users, accounts, contacts, leads, opportunities, activities,
stages, auditLog, sequences``. ``create_state(k)`` for an int ``k >= 0`` is variant ``k``
(``variants.build_variant``, imported on first use; docs/variants.md): a world of the same shape,
the same in every process; anything else raises ``ValueError``.
"""

from __future__ import annotations

from pathlib import Path

from silo_gym import kit

__all__ = ["SIMULATION_NOW", "create_state"]

#: The simulated "today". No tool moves it.
SIMULATION_NOW = "2026-03-16"

create_state = kit.StateMaker.from_data(
    Path(__file__).resolve().parent / "data", SIMULATION_NOW,
    ("users", "accounts", "contacts", "leads", "opportunities", "activities", "stages"),
    ".variants:build_variant", package=__package__,
)
