"""VER-015 (TASK-015): the completed sprint that was closed with unfinished work
(project-world.md §9.16)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import remaining_for_sprint
from .shared import mentions, show, states_number, untouched_check


def carried_over(state: Any) -> list[tuple[dict[str, Any], int]]:
    """``(sprint, unfinished points)`` of the completed sprints with unfinished work, by id."""
    rows = []
    for s in sorted(state["sprints"].values(), key=lambda s: s["id"]):
        if s["status"] == "completed":
            remaining = remaining_for_sprint(state, s["id"])
            if remaining > 0:
                rows.append((s, remaining))
    return rows


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    rows = carried_over(initial)
    same, same_detail = untouched_check(final, initial)
    if not rows:
        none = "no sprint was closed with unfinished work"
        return [
            check("The answer names the sprint", False, none),
            check("The answer gives the unfinished points", False, none),
            optional("Exactly one sprint was closed with unfinished work", False, none),
            optional("The world is left untouched", same, same_detail),
        ]
    sprint, remaining = rows[0]
    return [
        check("The answer names the sprint", mentions(out, sprint["name"]), f"expected {sprint['name']}"),
        check("The answer gives the unfinished points", states_number(out, remaining), f"expected {show(remaining)} points"),
        optional(
            "Exactly one sprint was closed with unfinished work",
            len(rows) == 1,
            f"{len(rows)} such sprint(s)",
        ),
        optional("The world is left untouched", same, same_detail),
    ]


ver_015 = define_verifier(
    id="VER-015", task_id="TASK-015", name="Completed sprint closed with unfinished work", check=_check
)
