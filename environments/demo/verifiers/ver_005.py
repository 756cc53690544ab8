"""VER-005 (TASK-005): the answer names the rep with the most deals stuck in stage for over the
task's threshold (30 days in the canonical task, a variant's own otherwise:
``scenario.task_parameters``), and the count, derived from the initial state (demo-crm.md §9.6)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from ..state import STALE_STAGE_DAYS, is_stale
from .shared import mentions, numbers_in, show, states_number, untouched


def stale_counts(state: Any, threshold_days: int = STALE_STAGE_DAYS) -> list[tuple[str, int]]:
    """``(ownerId, count)`` of the opportunities stale at ``threshold_days``, per owner: count
    descending, then owner id."""
    counts: dict[str, int] = {}
    for opp in state["opportunities"].values():
        if is_stale(state, opp, threshold_days):
            owner = opp.get("ownerId")
            counts[owner] = counts.get(owner, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))


def _numbers_text(text: str) -> str:
    found = numbers_in(text)
    return ", ".join(show(n) for n in found) if found else "none"


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    ranking = stale_counts(initial, task_parameters("TASK-005", initial)["thresholdDays"])
    top = ranking[0] if ranking else None
    runner_up = ranking[1] if len(ranking) > 1 else None
    expected_name = ""
    if top is not None:
        user = initial["users"].get(top[0])
        expected_name = (
            user.get("name") if isinstance(user, dict) and user.get("name") is not None else top[0]
        )
    top_count = top[1] if top else 0
    runner_count = runner_up[1] if runner_up else 0
    answer_text = f'"{out}"' if out else "the answer was empty"
    same = untouched(final, initial)
    return [
        check(
            "The answer names the rep with the most stalled deals",
            bool(expected_name) and mentions(out, expected_name),
            f"expected {expected_name or 'no rep'}; {answer_text}",
        ),
        check(
            "The answer states how many stalled deals that rep has",
            top is not None and states_number(out, top[1]),
            (
                f"expected {show(top[1])}; numbers in the answer: {_numbers_text(out)}"
                if top
                else "no rep has a stalled deal"
            ),
        ),
        optional(
            "The top rep is not tied",
            runner_count < top_count,
            f"top count {show(top_count)}; runner-up count {show(runner_count)}",
        ),
        optional(
            "The world is left untouched",
            same,
            "nothing in the world changed" if same else "the final state differs from the initial state",
        ),
    ]


ver_005 = define_verifier(
    id="VER-005",
    task_id="TASK-005",
    name="Rep with the most deals stuck in stage",
    check=_check,
)
