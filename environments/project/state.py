"""The project world's types and the helpers shared by tools and verifiers (project-world.md §2-3).

Blocked-ness, load, velocity, overdue and hours are never stored: they are always computed here
from the facts and ``state["now"]``. Nothing reads the wall clock. Rounding follows JavaScript
(``silo_gym.js_round``), never Python's ``round``. "Sorted by id" is code-point order of the id
strings.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from silo_gym import kit

__all__ = [
    "AUDIT",
    "MEMBERS",
    "PROJECTS",
    "SPRINTS",
    "TEAMS",
    "TIME_LOGS",
    "WORKFLOW_STATES",
    "WORK_ITEMS",
    "WORLD",
    "State",
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


#: The world: ``now, projects, workItems, sprints, members, teams, workflowStates, timeLogs,
#: auditLog, sequences`` (§1). Entity collections are dicts keyed by id; ``auditLog`` is a list;
#: ``sequences`` maps an id prefix to its last issued number.
State = dict[str, Any]
Record = kit.Record


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


WORK_ITEMS = kit.Collection("workItems", "WI", "Work item", links=("projectId", "sprintId", "assigneeId", "parentId"),
                            fields=("id", "title", "type", "status", "priority", "assigneeId", "projectId", "sprintId",
                                    "estimatePoints", "createdDate", "statusEnteredDate", "dueDate", "parentId",
                                    "dependsOn", "comments"))  # a comment: id, authorId, body, createdDate
TIME_LOGS = kit.Collection("timeLogs", "TL", "Time log", links=("workItemId", "memberId"),
                           fields=("id", "workItemId", "memberId", "date", "hours"))
MEMBERS = kit.Collection("members", "MEM", "Member", links=("teamId",),
                         fields=("id", "name", "email", "role", "teamId", "weeklyCapacityPoints", "active"))
SPRINTS = kit.Collection("sprints", "SPR", "Sprint", links=("projectId",),
                         fields=("id", "name", "projectId", "startDate", "endDate", "status"))
TEAMS = kit.Collection("teams", "TEAM", "Team", fields=("id", "name", "leadId"))
PROJECTS = kit.Collection("projects", "PROJ", "Project",
                          fields=("id", "name", "key", "status", "leadId", "startDate", "targetDate"))
WORKFLOW_STATES = kit.Collection("workflowStates", None, "Workflow state",
                                 fields=("id", "name", "order", "isDone", "isBlockedState"))
#: The world's collections; a tool that changes a link field of a stored record goes through
#: ``Collection.set_link`` so the link indexes stay current. Each declares its records' fields in
#: stored order (the record kinds' one declaration; project-world.md §2 gives their types).
WORLD = kit.World(PROJECTS, WORK_ITEMS, SPRINTS, MEMBERS, TEAMS, WORKFLOW_STATES, TIME_LOGS)


def work_items_for_project(state: State, project_id: str) -> list[Record]:
    return WORK_ITEMS.linked(state, "projectId", project_id)


def work_items_for_sprint(state: State, sprint_id: str) -> list[Record]:
    return WORK_ITEMS.linked(state, "sprintId", sprint_id)


def work_items_for_assignee(state: State, member_id: str) -> list[Record]:
    return WORK_ITEMS.linked(state, "assigneeId", member_id)


def time_logs_for_work_item(state: State, work_item_id: str) -> list[Record]:
    return TIME_LOGS.linked(state, "workItemId", work_item_id)


def time_logs_for_member(state: State, member_id: str) -> list[Record]:
    return TIME_LOGS.linked(state, "memberId", member_id)


def members_for_team(state: State, team_id: str) -> list[Record]:
    """The members of a team, active or not."""
    return MEMBERS.linked(state, "teamId", team_id)


def sprints_for_project(state: State, project_id: str) -> list[Record]:
    """A project's sprints sorted by ``startDate`` only (stable on collection order)."""
    return sorted(SPRINTS.linked(state, "projectId", project_id, sort=False), key=lambda s: s["startDate"])


# ---------------------------------------------------------------------------------------------
# Capacity and sprint figures


def load_for(state: State, member_id: str) -> int:
    """Estimate points of the member's assigned items that are not done (0 for an unknown member)."""
    return sum(
        i["estimatePoints"]
        for i in WORK_ITEMS.linked(state, "assigneeId", member_id, sort=False)
        if not is_done(state, i)
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
        for i in WORK_ITEMS.linked(state, "sprintId", sprint_id, sort=False)
        if is_done(state, i)
    )


def scope_for_sprint(state: State, sprint_id: str) -> int:
    """Estimate points of all the sprint's items."""
    return sum(i["estimatePoints"] for i in WORK_ITEMS.linked(state, "sprintId", sprint_id, sort=False))


def remaining_for_sprint(state: State, sprint_id: str) -> int:
    """Estimate points of the sprint's items that are not done (scope minus velocity)."""
    return sum(
        i["estimatePoints"]
        for i in WORK_ITEMS.linked(state, "sprintId", sprint_id, sort=False)
        if not is_done(state, i)
    )


# ---------------------------------------------------------------------------------------------
# Numbers


whole = kit.whole  # a whole float as an int (ints keep outputs on the writer's fast path)
round1 = kit.round1  # one decimal, half up, with Silo's epsilon
round1_plain = kit.round1_plain  # one decimal, half up, without epsilon (per-member/per-item hours)


def total_hours_for(logs: Iterable[Record]) -> float:
    """``round1`` of the hours, summed in the order given."""
    total: float = 0
    for log in logs:
        total = total + log["hours"]
    return round1(total)


def hours_on_work_item(state: State, work_item_id: str) -> float:
    return total_hours_for(time_logs_for_work_item(state, work_item_id))


percent = kit.percent  # None when b is 0; else js_round(a / b * 1000) / 10 (no epsilon)


# ---------------------------------------------------------------------------------------------
# Ids and audit


format_id = kit.format_id  # <prefix>-<n zero-padded to at least pad digits>
next_id = kit.next_id  # advance sequences[prefix] (a new prefix is appended) and format the id
#: The audit log: one event per write, stamped with ``now`` and the next ``AUD-`` id (4 digits).
AUDIT = kit.AuditLog("actorMemberId")


def record_audit(
    state: State, actor: str, action: str, entity_type: str, entity_id: str, detail: str
) -> None:
    """Append one audit event (what every write tool does last)."""
    AUDIT.record(state, actor, action, entity_type, entity_id, detail)
