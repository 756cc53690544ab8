"""VER-009 (TASK-009): the blocked work items, counted and named (project-world.md §9.10)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import is_blocked
from .shared import id_list, mentions, show, states_number, untouched_check


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    items = sorted(initial["workItems"].values(), key=lambda i: i["id"])
    blocked = [i["id"] for i in items if is_blocked(initial, i)]
    resolved = [i["id"] for i in items if i["dependsOn"] and i["id"] not in blocked]
    named = [i for i in blocked if mentions(out, i)]
    wrongly = [i for i in resolved if mentions(out, i)]
    same, same_detail = untouched_check(final, initial)
    return [
        check(
            "The answer gives the number of blocked items",
            states_number(out, len(blocked)),
            f"expected the count {show(len(blocked))}",
        ),
        check(
            "The answer names every blocked item",
            bool(blocked) and len(named) == len(blocked),
            f"{len(named)} of {len(blocked)} named ({id_list(blocked)})",
        ),
        optional(
            "No unblocked item is counted",
            not wrongly,
            "no unblocked item was named" if not wrongly else f"also named: {id_list(wrongly)}",
        ),
        optional("The world is left untouched", same, same_detail),
    ]


ver_009 = define_verifier(
    id="VER-009", task_id="TASK-009", name="Work items held up by dependencies, counted and named", check=_check
)
