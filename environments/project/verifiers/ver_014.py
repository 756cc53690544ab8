"""VER-014 (TASK-014): the number of work items in the Backlog state (project-world.md §9.15)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import final_number, show, state_named, states_number, untouched_check

STATE = "Backlog"


def _check(final: Any, initial: Any, context: Any) -> list:
    out = context.agent_output
    backlog = state_named(initial, STATE)
    last = final_number(out)
    last_text = show(last) if last is not None else "none"
    same, same_detail = untouched_check(final, initial)
    if backlog is None:
        missing = f'no workflow state is named "{STATE}"'
        return [
            check("The answer states the backlog count", False, missing),
            optional("The answer ends on the count", False, missing),
            optional("The world is left untouched", same, same_detail),
        ]
    expected = sum(1 for i in initial["workItems"].values() if i["status"] == backlog["id"])
    return [
        check(
            "The answer states the backlog count",
            states_number(out, expected),
            f"the answer's final number is {last_text}; expected {show(expected)}",
        ),
        optional("The answer ends on the count", last == expected, f"last number found: {last_text}"),
        optional("The world is left untouched", same, same_detail),
    ]


ver_014 = define_verifier(id="VER-014", task_id="TASK-014", name="Backlog count", check=_check)
