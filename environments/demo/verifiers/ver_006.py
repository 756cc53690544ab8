"""VER-006 (TASK-006): the answer names the active rep with the lowest quota attainment and the
percentage, and avoids the deactivated rep (demo-crm.md §9.7)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import quota_attainment_percent, won_amounts
from .shared import mentions, numbers_in, show, states_number, untouched


def attainment_ranking(state: Any) -> list[tuple[float, str, str]]:
    """``(percent, userId, name)`` for the active reps with a quota, lowest percent first, then id."""
    ranked = []
    won = won_amounts(state)
    for user in state["users"].values():
        quota = user.get("quota") or {}
        if user.get("role") == "rep" and user.get("active") is True and (quota.get("amount") or 0) > 0:
            ranked.append((quota_attainment_percent(state, user, won), user["id"], user.get("name")))
    return sorted(ranked, key=lambda item: (item[0], item[1]))


def first_inactive_rep(state: Any) -> dict | None:
    """The first user, in the state's order, with role ``rep`` and ``active`` false."""
    for user in state["users"].values():
        if user.get("role") == "rep" and user.get("active") is False:
            return user
    return None


def _numbers_text(text: str) -> str:
    found = numbers_in(text)
    return ", ".join(show(n) for n in found) if found else "none"


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    ranking = attainment_ranking(initial)
    lowest = ranking[0] if ranking else None
    nxt = ranking[1] if len(ranking) > 1 else None
    inactive = first_inactive_rep(initial)
    inactive_name = inactive.get("name") if inactive else None
    answer_text = f'"{out}"' if out else "the answer was empty"
    lowest_pct = lowest[0] if lowest else 0
    next_pct = nxt[0] if nxt else 0
    same = untouched(final, initial)
    return [
        check(
            "The answer names the active rep with the lowest attainment",
            lowest is not None and mentions(out, lowest[2]),
            f"expected {lowest[2] if lowest else 'no rep'}; {answer_text}",
        ),
        check(
            "The answer states that rep's attainment percentage",
            lowest is not None and states_number(out, lowest[0], tol=0.1),
            (
                f"expected {show(lowest[0])}%; numbers in the answer: {_numbers_text(out)}"
                if lowest
                else "no active rep has a quota"
            ),
        ),
        check(
            "The answer does not name the deactivated rep",
            inactive is None or not mentions(out, inactive_name),
            f"deactivated rep: {inactive_name}" if inactive else "there is no deactivated rep",
        ),
        optional(
            "The lowest attainment is not tied",
            next_pct > lowest_pct,
            f"lowest {show(lowest_pct)}%; next {show(next_pct)}%",
        ),
        optional(
            "The world is left untouched",
            same,
            "nothing in the world changed" if same else "the final state differs from the initial state",
        ),
    ]


ver_006 = define_verifier(
    id="VER-006",
    task_id="TASK-006",
    name="Weakest active rep measured against quota",
    check=_check,
)
