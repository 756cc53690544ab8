"""VER-010 (TASK-010): the completed sprint that delivered the most points (project-world.md §9.11)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import velocity_for_sprint
from .shared import mentions, show, states_number, untouched_check


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    ranked = sorted(
        ((velocity_for_sprint(initial, s["id"]), s) for s in initial["sprints"].values() if s["status"] == "completed"),
        key=lambda pair: (-pair[0], pair[1]["id"]),
    )
    same, same_detail = untouched_check(final, initial)
    if not ranked:
        none = "no sprint is completed"
        return [
            check("The answer names the top sprint", False, none),
            check("The answer gives its delivered points", False, none),
            optional("One sprint clearly delivered the most", False, none),
            optional("The world is left untouched", same, same_detail),
        ]
    best_points, best = ranked[0]
    runners_up = [points for points, _ in ranked[1:]]
    clear = all(points < best_points for points in runners_up)
    return [
        check("The answer names the top sprint", mentions(out, best["name"]), f"expected {best['name']}"),
        check(
            "The answer gives its delivered points",
            states_number(out, best_points),
            f"expected {show(best_points)} points",
        ),
        optional(
            "One sprint clearly delivered the most",
            clear,
            f"{best['name']} delivered {show(best_points)}; the next best delivered "
            + (show(max(runners_up)) if runners_up else "nothing (no other completed sprint)"),
        ),
        optional("The world is left untouched", same, same_detail),
    ]


ver_010 = define_verifier(
    id="VER-010", task_id="TASK-010", name="Completed sprint with the highest velocity", check=_check
)
