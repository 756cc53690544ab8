"""Lookups and guards (project-world.md §6.4), audit (§6.5) and output projections (§6.7)."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import (
    AUDIT,
    MEMBERS,
    PROJECTS,
    SPRINTS,
    TEAMS,
    TIME_LOGS,
    WORK_ITEMS,
    WORLD,
    State,
    days_between,
    days_in_status,
    is_done,
    is_overdue,
    load_for,
    members_for_team,
    scope_for_sprint,
    unresolved_dependencies,
    velocity_for_sprint,
    work_items_for_project,
    work_items_for_sprint,
)
from .contract import ACTOR_DESCRIPTION, C

__all__ = [
    "ITEM",
    "MEMBER",
    "PROJECT",
    "SPRINT",
    "TEAM",
    "TIME_LOG",
    "WRITES",
    "actor",
    "assert_assignable",
    "assert_dependencies_resolved",
    "assert_within_capacity",
    "comment_with_author",
    "ids_text",
    "member_summary",
    "name_of",
    "project_summary",
    "sprint_summary",
    "team_summary",
    "time_log_summary",
    "work_item_summary",
]

Record = dict[str, Any]

# ---------------------------------------------------------------------------------------------
# Guards

ACTOR = kit.Actor(MEMBERS, "actorMemberId", ACTOR_DESCRIPTION, contract=C)
actor = ACTOR.read  # read ``actorMemberId``; the member must exist and be active
#: Every write tool reads ``actorMemberId`` first and writes one audit entry last (§6.5).
WRITES = kit.Writes(ACTOR, AUDIT)


def assert_assignable(state: State, member_id: str) -> Record:
    """The member must exist and be active to be given work (or lead a team or project)."""
    return ACTOR.require_active(
        state, member_id, '{label} "{id}" ({name}) is deactivated and cannot be assigned work.'
    )


def assert_within_capacity(state: State, member: Record, extra: int) -> None:
    """Refuse work that would push the member's open load past their weekly capacity."""
    load = load_for(state, member["id"])
    capacity = member["weeklyCapacityPoints"]
    if load + extra > capacity:
        raise ToolError(
            "not_allowed",
            f"{member['name']} ({member['id']}) is committed to {load} of {capacity} points; adding "
            f"{extra} more would over-commit them by {load + extra - capacity}.",
            {
                "memberId": member["id"],
                "currentLoad": load,
                "weeklyCapacityPoints": capacity,
                "additionalPoints": extra,
            },
        )


def ids_text(ids: list[str]) -> str:
    """Ids joined by ``", "``."""
    return ", ".join(ids)


def assert_dependencies_resolved(state: State, item: Record) -> None:
    """Refuse to finish an item while something it depends on is not done."""
    unresolved = [dep["id"] for dep in unresolved_dependencies(state, item)]
    if unresolved:
        verb = "is" if len(unresolved) == 1 else "are"
        raise ToolError(
            "not_allowed",
            f"{item['id']} depends on {ids_text(unresolved)}, which {verb} not done yet.",
            {"workItemId": item["id"], "unresolved": unresolved},
        )


# ---------------------------------------------------------------------------------------------
# Projections


def name_of(state: State, collection: str, record_id: str | None, field: str = "name") -> Any:
    """``state[collection][record_id][field]``, or ``None`` when the id is null or dangles."""
    return WORLD[collection].field_of(state, record_id, field)


def member_summary(state: State, member: Record) -> Record:
    load = load_for(state, member["id"])
    capacity = member["weeklyCapacityPoints"]
    return {
        "id": member["id"],
        "name": member["name"],
        "email": member["email"],
        "role": member["role"],
        "teamId": member["teamId"],
        "teamName": name_of(state, "teams", member["teamId"]),
        "weeklyCapacityPoints": capacity,
        "assignedPoints": load,
        "remainingCapacityPoints": capacity - load,
        "overCapacity": load > capacity,
        "active": member["active"],
    }


def team_summary(state: State, team: Record) -> Record:
    """A team's stored fields, its lead's name and how many members it has (of every status)."""
    return {
        **kit.pick(team, TEAMS.fields),
        "leadName": name_of(state, "members", team["leadId"]),
        "memberCount": len(members_for_team(state, team["id"])),
    }


def project_summary(state: State, project: Record) -> Record:
    items = work_items_for_project(state, project["id"])
    open_items = [i for i in items if not is_done(state, i)]
    return {
        "id": project["id"],
        "name": project["name"],
        "key": project["key"],
        "status": project["status"],
        "leadId": project["leadId"],
        "leadName": name_of(state, "members", project["leadId"]),
        "startDate": project["startDate"],
        "targetDate": project["targetDate"],
        "workItemCount": len(items),
        "openWorkItemCount": len(open_items),
        "openPoints": sum(i["estimatePoints"] for i in open_items),
    }


def sprint_summary(state: State, sprint: Record) -> Record:
    sprint_id = sprint["id"]
    items = work_items_for_sprint(state, sprint_id)
    return {
        "id": sprint_id,
        "name": sprint["name"],
        "projectId": sprint["projectId"],
        "projectName": name_of(state, "projects", sprint["projectId"]),
        "startDate": sprint["startDate"],
        "endDate": sprint["endDate"],
        "status": sprint["status"],
        "workItemCount": len(items),
        "completedWorkItemCount": sum(1 for i in items if is_done(state, i)),
        "scopePoints": scope_for_sprint(state, sprint_id),
        "completedPoints": velocity_for_sprint(state, sprint_id),
        "daysRemaining": days_between(state["now"], sprint["endDate"]),
    }


def work_item_summary(state: State, item: Record) -> Record:
    unresolved = [dep["id"] for dep in unresolved_dependencies(state, item)]
    return {
        "id": item["id"],
        "title": item["title"],
        "type": item["type"],
        "status": item["status"],
        "statusName": name_of(state, "workflowStates", item["status"]),
        "done": is_done(state, item),
        "priority": item["priority"],
        "assigneeId": item["assigneeId"],
        "assigneeName": name_of(state, "members", item["assigneeId"]),
        "projectId": item["projectId"],
        "projectKey": name_of(state, "projects", item["projectId"], "key"),
        "sprintId": item["sprintId"],
        "sprintName": name_of(state, "sprints", item["sprintId"]),
        "estimatePoints": item["estimatePoints"],
        "createdDate": item["createdDate"],
        "statusEnteredDate": item["statusEnteredDate"],
        "daysInStatus": days_in_status(state, item),
        "dueDate": item["dueDate"],
        "overdue": is_overdue(state, item),
        "parentId": item["parentId"],
        "dependsOn": list(item["dependsOn"]),
        "blocked": bool(unresolved),
        "unresolvedDependencies": unresolved,
        "commentCount": len(item["comments"]),
    }


def time_log_summary(state: State, log: Record) -> Record:
    """A time log with the title of its work item and the name of its member."""
    return {
        "id": log["id"],
        "workItemId": log["workItemId"],
        "workItemTitle": name_of(state, "workItems", log["workItemId"], "title"),
        "memberId": log["memberId"],
        "memberName": name_of(state, "members", log["memberId"]),
        "date": log["date"],
        "hours": log["hours"],
    }


def comment_with_author(state: State, comment: Record) -> Record:
    """The stored comment's four keys followed by ``authorName``."""
    out = dict(comment)
    out["authorName"] = name_of(state, "members", comment["authorId"])
    return out


# ---------------------------------------------------------------------------------------------
# Write tools per collection: the input key of the record's id, and the summary a result shows

MEMBER = WRITES.on(MEMBERS, "memberId", member_summary)
TEAM = WRITES.on(TEAMS, "teamId", team_summary)
PROJECT = WRITES.on(PROJECTS, "projectId", project_summary)
SPRINT = WRITES.on(SPRINTS, "sprintId", sprint_summary)
ITEM = WRITES.on(WORK_ITEMS, "workItemId", work_item_summary)
TIME_LOG = WRITES.on(TIME_LOGS, "timeLogId", time_log_summary)
