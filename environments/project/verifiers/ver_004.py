"""VER-004 (TASK-004): usage metering given to the Platform member it fits most tightly
(project-world.md §9.5)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import load_for
from .shared import id_list, show, work_item_by_title

TITLE = "Usage metering"
TEAM = "Platform"


def tightest_fit(state: Any, estimate: int) -> tuple[str, int] | None:
    """``(member id, room)`` of the active member of the team named Platform left with the least
    room (capacity - load - estimate >= 0) after taking ``estimate``; ties by id; ``None`` when
    nobody fits or there is no such team."""
    team = next((t for t in state["teams"].values() if t["name"] == TEAM), None)
    if team is None:
        return None
    fits = []
    for m in state["members"].values():
        if m["teamId"] == team["id"] and m["active"]:
            room = m["weeklyCapacityPoints"] - load_for(state, m["id"]) - estimate
            if room >= 0:
                fits.append((room, m["id"]))
    if not fits:
        return None
    room, member_id = min(fits)
    return member_id, room


def _check(final: Any, initial: Any, context: Any) -> list:
    target = work_item_by_title(initial, TITLE)
    if target is None:
        missing = f'no work item is titled "{TITLE}"'
        return [
            check("Usage metering went to the tightest-fitting Platform member", False, missing),
            check("Usage metering started unassigned", False, missing),
            optional("Nobody was pushed further over capacity", False, missing),
            optional("The estimate was left as it stood", False, missing),
        ]
    item_id = target["id"]
    after = final["workItems"].get(item_id)
    fit = tightest_fit(initial, target["estimatePoints"])
    expected = None if fit is None else fit[0]
    assignee = None if after is None else after["assigneeId"]
    pushed = []
    for m in final["members"].values():
        if not m["active"]:
            continue
        capacity = m["weeklyCapacityPoints"]
        before = load_for(initial, m["id"]) - capacity
        if load_for(final, m["id"]) - capacity > max(0, before):
            pushed.append(m["id"])
    return [
        check(
            "Usage metering went to the tightest-fitting Platform member",
            expected is not None and assignee == expected,
            f"{item_id} is assigned to {show(assignee) if assignee is not None else 'nobody'}; expected "
            + (f"{expected} (room left {show(fit[1])})" if fit is not None else "a fitting member, but none fits"),
        ),
        check(
            "Usage metering started unassigned",
            target["assigneeId"] is None,
            "it started unassigned"
            if target["assigneeId"] is None
            else f"it started with {target['assigneeId']}",
        ),
        optional(
            "Nobody was pushed further over capacity",
            not pushed,
            "nobody was pushed further over capacity" if not pushed else f"over-committed: {id_list(pushed)}",
        ),
        optional(
            "The estimate was left as it stood",
            after is not None and after["estimatePoints"] == target["estimatePoints"],
            f"final estimate {show(after['estimatePoints'])}; it was {show(target['estimatePoints'])}"
            if after is not None
            else f"{item_id} is missing from the final state",
        ),
    ]


ver_004 = define_verifier(
    id="VER-004", task_id="TASK-004", name="Usage metering given to the tightest-fitting Platform member", check=_check
)
