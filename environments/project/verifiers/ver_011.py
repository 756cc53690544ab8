"""VER-011 (TASK-011): the hours logged on the Atlas project (project-world.md §9.12)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import time_logs_for_work_item, total_hours_for, work_items_for_project
from .shared import final_number, project_id_by_key, show, states_number, untouched_check

KEY = "ATL"


def hours_on(state: Any, project_id: str) -> float:
    """``total_hours_for`` the logs on a project's items: items by id, each item's logs by id."""
    return total_hours_for(
        log
        for item in work_items_for_project(state, project_id)
        for log in time_logs_for_work_item(state, item["id"])
    )


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    project = project_id_by_key(initial, KEY)
    last = final_number(out)
    last_text = show(last) if last is not None else "none"
    same, same_detail = untouched_check(final, initial)
    if project is None:
        missing = f'no project has the key "{KEY}"'
        return [
            check("The answer states the project's hours", False, missing),
            optional("The answer ends on the figure", False, missing),
            optional("The project totals are distinct", False, missing),
            optional("The world is left untouched", same, same_detail),
        ]
    expected = hours_on(initial, project)
    others = [(p, hours_on(initial, p)) for p in sorted(initial["projects"]) if p != project]
    close = [p for p, hours in others if abs(hours - expected) <= 0.01]
    return [
        check(
            "The answer states the project's hours",
            states_number(out, expected),
            f"the answer's final number is {last_text}; expected {show(expected)}",
        ),
        optional(
            "The answer ends on the figure",
            last is not None and abs(last - expected) <= 0.01,
            f"last number found: {last_text}",
        ),
        optional(
            "The project totals are distinct",
            not close,
            "every other project's total differs" if not close else f"same total on: {', '.join(close)}",
        ),
        optional("The world is left untouched", same, same_detail),
    ]


ver_011 = define_verifier(id="VER-011", task_id="TASK-011", name="Hours logged on Atlas billing", check=_check)
