"""Clock tool: the simulated date."""

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
        'Return today\'s date in the CRM as {"today": "YYYY-MM-DD"}. The CRM runs on a fixed '
        "simulated calendar, so use this date (not your own sense of today) when judging ages, "
        "overdue items or close dates. Read-only."
    ),
    input_schema=schema({}),
    run=_get_current_date,
)
