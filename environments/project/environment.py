"""Builds the project world (project-world.md §1, §11).

``create_state()`` is a fresh copy of the nine data files' world, byte for byte (read once per
process, kept as JSON bytes), keys in the order ``now, projects, workItems, sprints, members,
teams, workflowStates, timeLogs, auditLog, sequences``. ``create_state(k)`` for an int ``k >= 0``
is variant ``k`` (``variants.generate``, imported on first use): a world of the same shape, the
same in every process. The 32 most recent variants are kept as bytes, so resetting several tasks on
one variant generates it once. Anything else (a bool included) raises ``ValueError``.
"""

from __future__ import annotations

from pathlib import Path

from silo_gym import kit

__all__ = ["SIMULATION_NOW", "create_state"]

#: The simulated "today" (a date-only string). No tool moves it.
SIMULATION_NOW = "2026-03-16"

create_state = kit.StateMaker.from_data(
    Path(__file__).resolve().parent / "data", SIMULATION_NOW,
    ("projects", "workItems", "sprints", "members", "teams", "workflowStates", "timeLogs"),
    ".variants:generate", package=__package__, cache=32,
    refuse="variant must be None or an int >= 0, got {variant!r}.",
)
