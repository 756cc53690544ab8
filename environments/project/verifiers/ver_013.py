"""VER-013 (TASK-013): the member committed beyond capacity (project-world.md §9.14)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import load_for
from .shared import mentions, show, states_number, untouched_check


def over_capacity(state: Any) -> list[tuple[int, dict[str, Any]]]:
    """``(overage, member)`` for every member, active or not, whose load exceeds capacity;
    largest overage first, ties by id."""
    rows = []
    for m in state["members"].values():
        over = load_for(state, m["id"]) - m["weeklyCapacityPoints"]
        if over > 0:
            rows.append((over, m))
    return sorted(rows, key=lambda r: (-r[0], r[1]["id"]))


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    rows = over_capacity(initial)
    same, same_detail = untouched_check(final, initial)
    if not rows:
        none = "nobody is over capacity"
        return [
            check("The answer names the over-committed member", False, none),
            check("The answer gives the overage", False, none),
            optional("Exactly one member is over capacity", False, none),
            optional("The world is left untouched", same, same_detail),
        ]
    over, member = rows[0]
    return [
        check("The answer names the over-committed member", mentions(out, member["name"]), f"expected {member['name']}"),
        check("The answer gives the overage", states_number(out, over), f"expected {show(over)} points"),
        optional("Exactly one member is over capacity", len(rows) == 1, f"{len(rows)} member(s) over capacity"),
        optional("The world is left untouched", same, same_detail),
    ]


ver_013 = define_verifier(id="VER-013", task_id="TASK-013", name="Member committed beyond capacity", check=_check)
