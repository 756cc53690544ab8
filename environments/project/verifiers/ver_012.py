"""VER-012 (TASK-012): overdue points held by active members (project-world.md §9.13)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import is_overdue
from .shared import final_number, show, states_number, untouched_check


def overdue_points(state: Any, active_only: bool) -> int:
    """Estimate points of the overdue items; with ``active_only``, of those whose assignee exists
    and is active."""
    members = state["members"]
    total = 0
    for item in state["workItems"].values():
        if not is_overdue(state, item):
            continue
        member = members.get(item["assigneeId"]) if item["assigneeId"] is not None else None
        if active_only and (member is None or not member["active"]):
            continue
        total += item["estimatePoints"]
    return total


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    expected = overdue_points(initial, True)
    ignoring = overdue_points(initial, False)
    last = final_number(out)
    same, same_detail = untouched_check(final, initial)
    return [
        check(
            "The answer states the overdue points held by active members",
            states_number(out, expected),
            f"the answer's final number is {show(last) if last is not None else 'none'}; expected {show(expected)}",
        ),
        check(
            "The answer does not give the total that ignores who is active",
            ignoring == expected or not states_number(out, ignoring),
            f"ignoring the qualifier would give {show(ignoring)}",
        ),
        optional(
            "The qualifier matters in this data",
            ignoring != expected,
            f"active members only: {show(expected)}; everyone: {show(ignoring)}",
        ),
        optional("The world is left untouched", same, same_detail),
    ]


ver_012 = define_verifier(
    id="VER-012", task_id="TASK-012", name="Overdue points held by active members", check=_check
)
