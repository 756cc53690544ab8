"""The project world's types and the helpers shared by tools and verifiers (project-world.md §2-3).

Blocked-ness, load, velocity, overdue and hours are never stored: they are always computed here
from the facts and ``state["now"]``. Nothing reads the wall clock. Rounding follows JavaScript
(``silo_gym.js_round``), never Python's ``round``. "Sorted by id" is code-point order of the id
strings.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any, Literal, TypedDict

from silo_gym import js_round

__all__ = [
    "AuditEvent",
    "Comment",
    "Member",
    "Project",
    "Sprint",
    "State",
    "Team",
    "TimeLog",
    "WorkItem",
    "WorkflowState",
    "age_in_days",
    "days_between",
    "days_in_status",
    "done_state",
    "format_id",
    "hours_on_work_item",
    "is_blocked",
    "is_done",
    "is_overdue",
    "load_for",
    "members_for_team",
    "next_id",
    "over_capacity_by",
    "percent",
    "record_audit",
    "remaining_for_sprint",
    "round1",
    "round1_plain",
    "scope_for_sprint",
    "sprints_for_project",
    "time_logs_for_member",
    "time_logs_for_work_item",
    "total_hours_for",
    "unresolved_dependencies",
    "velocity_for_sprint",
    "work_items_for_assignee",
    "work_items_for_project",
    "whole",
    "work_items_for_sprint",
    "workflow_state_of",
    "workflow_states_in_order",
]


# ---------------------------------------------------------------------------------------------
# Entity types (fields in stored order, §2)


class Project(TypedDict):
    id: str
    name: str
    key: str
    status: Literal["active", "on_hold", "completed"]
    leadId: str
    startDate: str
    targetDate: str


class Comment(TypedDict):
    id: str
    authorId: str
    body: str
    createdDate: str


class WorkItem(TypedDict):
    id: str
    title: str
    type: Literal["epic", "story", "bug", "task"]
    status: str
    priority: Literal["low", "medium", "high", "urgent"]
    assigneeId: str | None
    projectId: str
    sprintId: str | None
    estimatePoints: int
    createdDate: str
    statusEnteredDate: str
    dueDate: str | None
    parentId: str | None
    dependsOn: list[str]
    comments: list[Comment]


class WorkflowState(TypedDict):
    id: str
    name: str
    order: int
    isDone: bool
    isBlockedState: bool


class Sprint(TypedDict):
    id: str
    name: str
    projectId: str
    startDate: str
    endDate: str
    status: Literal["planned", "active", "completed"]


class Member(TypedDict):
    id: str
    name: str
    email: str
    role: Literal["engineer", "lead", "manager"]
    teamId: str | None
    weeklyCapacityPoints: int
    active: bool


class Team(TypedDict):
    id: str
    name: str
    leadId: str | None


class TimeLog(TypedDict):
    id: str
    workItemId: str
    memberId: str
    date: str
    hours: float


class AuditEvent(TypedDict):
    id: str
    at: str
    actorMemberId: str
    action: str
    entityType: str
    entityId: str
    detail: str


#: The world: ``now, projects, workItems, sprints, members, teams, workflowStates, timeLogs,
#: auditLog, sequences`` (§1). Entity collections are dicts keyed by id; ``auditLog`` is a list;
#: ``sequences`` maps an id prefix to its last issued number.
State = dict[str, Any]
Record = dict[str, Any]

_EPSILON = 2.220446049250313e-16


# ---------------------------------------------------------------------------------------------
# Dates


def days_between(a: str, b: str) -> int:
    """Whole days from date ``a`` to date ``b`` (the first 10 characters of each)."""
    return (date.fromisoformat(b[:10]) - date.fromisoformat(a[:10])).days


def age_in_days(state: State, d: str) -> int:
    """Days from ``d`` to today."""
    return days_between(d, state["now"])


# ---------------------------------------------------------------------------------------------
# Workflow


def workflow_states_in_order(state: State) -> list[Record]:
    """The workflow states sorted by ``order``, ascending (stable)."""
    return sorted(state["workflowStates"].values(), key=lambda s: s["order"])


def workflow_state_of(state: State, item: Record) -> Record | None:
    """The item's workflow state, or ``None`` when its status id dangles."""
    return state["workflowStates"].get(item["status"])


def done_state(state: State) -> Record | None:
    """The first workflow state in order that has ``isDone``, or ``None``."""
    for s in workflow_states_in_order(state):
        if s["isDone"]:
            return s
    return None


def is_done(state: State, item: Record) -> bool:
    """True when the item's workflow state exists and has ``isDone`` (false for a dangling status)."""
    s = state["workflowStates"].get(item["status"])
    return s is not None and s["isDone"] is True


def unresolved_dependencies(state: State, item: Record) -> list[Record]:
    """The items named in ``dependsOn`` that exist and are not done, in ``dependsOn`` order.

    Dangling ids are ignored.
    """
    items = state["workItems"]
    out = []
    for dep_id in item["dependsOn"]:
        dep = items.get(dep_id)
        if dep is not None and not is_done(state, dep):
            out.append(dep)
    return out


def is_blocked(state: State, item: Record) -> bool:
    """An item with at least one unresolved dependency, whatever its own status (§3)."""
    return bool(unresolved_dependencies(state, item))


def days_in_status(state: State, item: Record) -> int:
    """Days since the item entered its current status."""
    return days_between(item["statusEnteredDate"], state["now"])


def is_overdue(state: State, item: Record) -> bool:
    """Not done, with a due date strictly before today."""
    due = item["dueDate"]
    return due is not None and not is_done(state, item) and days_between(due, state["now"]) > 0


# ---------------------------------------------------------------------------------------------
# Collections (each sorted by id unless said otherwise)


def _by_id(records: Iterable[Record]) -> list[Record]:
    return sorted(records, key=lambda r: r["id"])


def work_items_for_project(state: State, project_id: str) -> list[Record]:
    return _by_id(i for i in state["workItems"].values() if i["projectId"] == project_id)


def work_items_for_sprint(state: State, sprint_id: str) -> list[Record]:
    return _by_id(i for i in state["workItems"].values() if i["sprintId"] == sprint_id)


def work_items_for_assignee(state: State, member_id: str) -> list[Record]:
    return _by_id(i for i in state["workItems"].values() if i["assigneeId"] == member_id)


def time_logs_for_work_item(state: State, work_item_id: str) -> list[Record]:
    return _by_id(t for t in state["timeLogs"].values() if t["workItemId"] == work_item_id)


def time_logs_for_member(state: State, member_id: str) -> list[Record]:
    return _by_id(t for t in state["timeLogs"].values() if t["memberId"] == member_id)


def members_for_team(state: State, team_id: str) -> list[Record]:
    """The members of a team, active or not."""
    return _by_id(m for m in state["members"].values() if m["teamId"] == team_id)


def sprints_for_project(state: State, project_id: str) -> list[Record]:
    """A project's sprints sorted by ``startDate`` only (stable on collection order)."""
    return sorted(
        (s for s in state["sprints"].values() if s["projectId"] == project_id), key=lambda s: s["startDate"]
    )


# ---------------------------------------------------------------------------------------------
# Capacity and sprint figures


def load_for(state: State, member_id: str) -> int:
    """Estimate points of the member's assigned items that are not done (0 for an unknown member)."""
    return sum(
        i["estimatePoints"]
        for i in state["workItems"].values()
        if i["assigneeId"] == member_id and not is_done(state, i)
    )


def over_capacity_by(state: State, member_id: str, extra: int = 0) -> int:
    """``max(0, load + extra - weeklyCapacityPoints)``; 0 for an unknown member."""
    member = state["members"].get(member_id)
    if member is None:
        return 0
    return max(0, load_for(state, member_id) + extra - member["weeklyCapacityPoints"])


def velocity_for_sprint(state: State, sprint_id: str) -> int:
    """Estimate points of the sprint's done items."""
    return sum(
        i["estimatePoints"]
        for i in state["workItems"].values()
        if i["sprintId"] == sprint_id and is_done(state, i)
    )


def scope_for_sprint(state: State, sprint_id: str) -> int:
    """Estimate points of all the sprint's items."""
    return sum(i["estimatePoints"] for i in state["workItems"].values() if i["sprintId"] == sprint_id)


def remaining_for_sprint(state: State, sprint_id: str) -> int:
    """Estimate points of the sprint's items that are not done (scope minus velocity)."""
    return sum(
        i["estimatePoints"]
        for i in state["workItems"].values()
        if i["sprintId"] == sprint_id and not is_done(state, i)
    )


# ---------------------------------------------------------------------------------------------
# Numbers


def whole(x: float) -> float:
    """``x`` as an ``int`` when it is a whole number (JSON writes ``44`` either way; ints keep tool
    outputs on the observation writer's fast path), else ``x`` unchanged."""
    if isinstance(x, float) and x.is_integer() and -(2**53) < x < 2**53:
        return int(x)
    return x


def round1(x: float) -> float:
    """One decimal, half up, with Silo's epsilon: ``js_round((x + 2.220446049250313e-16) * 10) / 10``."""
    return whole(js_round((x + _EPSILON) * 10) / 10)


def round1_plain(x: float) -> float:
    """One decimal, half up, without epsilon: ``js_round(x * 10) / 10`` (per-member and per-item
    hours, average velocity)."""
    return whole(js_round(x * 10) / 10)


def total_hours_for(logs: Iterable[Record]) -> float:
    """``round1`` of the hours, summed in the order given."""
    total: float = 0
    for log in logs:
        total = total + log["hours"]
    return round1(total)


def hours_on_work_item(state: State, work_item_id: str) -> float:
    return total_hours_for(time_logs_for_work_item(state, work_item_id))


def percent(a: float, b: float) -> float | None:
    """``None`` when ``b`` is 0; else ``js_round(a / b * 1000) / 10`` (no epsilon)."""
    if b == 0:
        return None
    return whole(js_round(a / b * 1000) / 10)


# ---------------------------------------------------------------------------------------------
# Ids and audit


def format_id(prefix: str, n: int, pad: int = 3) -> str:
    """``<prefix>-<n zero-padded to at least pad digits>``."""
    return f"{prefix}-{str(n).rjust(pad, '0')}"


def next_id(state: State, prefix: str, pad: int = 3) -> str:
    """Advance ``sequences[prefix]`` (a new prefix is appended at the end) and format the id."""
    sequences = state["sequences"]
    n = sequences.get(prefix, 0) + 1
    sequences[prefix] = n
    return format_id(prefix, n, pad)


def record_audit(
    state: State, actor: str, action: str, entity_type: str, entity_id: str, detail: str
) -> None:
    """Append one audit event, stamped with ``now`` and the next ``AUD-`` id (4 digits)."""
    state["auditLog"].append(
        {
            "id": next_id(state, "AUD", 4),
            "at": state["now"],
            "actorMemberId": actor,
            "action": action,
            "entityType": entity_type,
            "entityId": entity_id,
            "detail": detail,
        }
    )
