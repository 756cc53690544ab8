"""Clock tool: the simulated date (project-world.md §7, tool 1)."""

from __future__ import annotations

from typing import Any

from silo_gym import define_tool

from ..state import State
from .contract import schema


def _get_current_date(state: State, args: dict[str, Any]) -> Any:
    return {"today": state["now"]}


get_current_date = define_tool(
    name="get_current_date",
    description=(
        'Return today\'s date in the tracker as {"today": "YYYY-MM-DD"}. The tracker runs on a fixed '
        "simulated calendar: judge due dates, overdue work, sprint ends and days in status against "
        "this date, not against your own idea of today. Read-only."
    ),
    input_schema=schema({}),
    run=_get_current_date,
)
