"""VER-004 (TASK-004): the answer states the probability-weighted value of the open pipeline,
derived from the initial state (demo-crm.md §9.5). A variant's task may limit it to the deals
expected to close on or before a cut-off date (``scenario.task_parameters``); the canonical task
has none."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from ..state import sum_money, weighted_amount
from .shared import final_number, show, states_number, untouched


def expected_weighted_pipeline(state: Any, closing_on_or_before: str | None = None) -> float:
    """The sum of the rounded weighted amounts of the open opportunities, in id order; only those
    expected to close on or before ``closing_on_or_before`` when it is given."""
    open_opps = [
        o
        for o in state["opportunities"].values()
        if o.get("status") == "open"
        and (closing_on_or_before is None or str(o.get("expectedCloseDate")) <= closing_on_or_before)
    ]
    return sum_money([weighted_amount(state, o)["amount"] for o in open_opps])["amount"]


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    cutoff = task_parameters("TASK-004", initial)["closingOnOrBefore"]
    expected = expected_weighted_pipeline(initial, cutoff)
    last = final_number(out)
    last_text = show(last) if last is not None else "none"
    same = untouched(final, initial)
    return [
        check(
            "The answer states the weighted open pipeline",
            states_number(out, expected),
            (
                f"the answer's final number is {last_text}; expected {show(expected)}"
                if last is not None
                else f"the answer has no number; expected {show(expected)}"
            ),
        ),
        optional(
            "The figure is the last number in the answer",
            last is not None and abs(last - expected) <= 0.01,
            f"last number found: {last_text}",
        ),
        optional(
            "The world is left untouched",
            same,
            "nothing in the world changed" if same else "the final state differs from the initial state",
        ),
    ]


ver_004 = define_verifier(
    id="VER-004",
    task_id="TASK-004",
    name="Board figure for probability-weighted open pipeline",
    check=_check,
)
