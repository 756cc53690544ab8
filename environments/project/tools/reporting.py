"""Reporting tools (project-world.md §7, tools 47-54): burndown, load, blocked and overdue work,
velocity, hours and forecasts. All read-only."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import (
    MEMBERS,
    PROJECTS,
    State,
    days_between,
    days_in_status,
    hours_on_work_item,
    is_blocked,
    is_done,
    is_overdue,
    load_for,
    over_capacity_by,
    percent,
    remaining_for_sprint,
    round1_plain,
    scope_for_sprint,
    time_logs_for_work_item,
    total_hours_for,
    unresolved_dependencies,
    velocity_for_sprint,
    work_items_for_project,
    work_items_for_sprint,
)
from .contract import C, schema
from .helpers import PROJECT, SPRINT, name_of


def _items_by_id(state: State) -> list[kit.Record]:
    return sorted(state["workItems"].values(), key=lambda i: i["id"])


def _optional_project(state: State, args: kit.Args) -> str | None:
    project_id = C.read_optional_string(args, "projectId")
    if project_id is not None:
        PROJECTS.require(state, project_id)
    return project_id


_HEADING = ("name", "projectId", "status", "startDate", "endDate")


def _sprint_heading(sprint: kit.Record) -> kit.Record:
    """The fields a sprint's report starts with: its id as ``sprintId``, name, project, status and dates."""
    return {"sprintId": sprint["id"], **kit.pick(sprint, _HEADING)}


@SPRINT.get("The sprint, for example SPR-002.")
def sprint_burndown(state: State, sprint: kit.Record) -> Any:
    """Progress of one sprint: scopePoints, completedPoints (estimates of done items), remainingPoints,
    percentComplete (one decimal; null for an empty sprint), daysRemaining until its end date, and the
    unfinished items with their state, owner, estimate and whether they are blocked. Read-only."""
    sprint_id = sprint["id"]
    scope = scope_for_sprint(state, sprint_id)
    completed = velocity_for_sprint(state, sprint_id)
    return {
        **_sprint_heading(sprint),
        "daysRemaining": days_between(state["now"], sprint["endDate"]),
        "scopePoints": scope,
        "completedPoints": completed,
        "remainingPoints": remaining_for_sprint(state, sprint_id),
        "percentComplete": percent(completed, scope),
        "remainingWorkItems": [
            {
                "id": i["id"],
                "title": i["title"],
                "status": i["status"],
                "statusName": name_of(state, "workflowStates", i["status"]),
                "assigneeId": i["assigneeId"],
                "estimatePoints": i["estimatePoints"],
                "blocked": is_blocked(state, i),
            }
            for i in work_items_for_sprint(state, sprint_id)
            if not is_done(state, i)
        ],
    }


def _member_load(state: State, args: kit.Args) -> Any:
    team_id = C.read_optional_string(args, "teamId")
    active_only = C.read_boolean(args, "activeOnly")
    rows = []
    for m in sorted(state["members"].values(), key=lambda m: m["id"]):
        if (team_id is not None and m["teamId"] != team_id) or (active_only and not m["active"]):
            continue
        load = load_for(state, m["id"])
        capacity = m["weeklyCapacityPoints"]
        rows.append(
            {
                "memberId": m["id"],
                "name": m["name"],
                "role": m["role"],
                "teamId": m["teamId"],
                "active": m["active"],
                "weeklyCapacityPoints": capacity,
                "assignedPoints": load,
                "remainingCapacityPoints": capacity - load,
                "overCapacityBy": over_capacity_by(state, m["id"]),
                "utilisationPercent": percent(load, capacity),
            }
        )
    return {"teamId": team_id, "activeOnly": active_only, "results": rows}


member_load = kit.read_tool(
    name="member_load",
    description=(
        "Workload per member, sorted by member id: weekly capacity, assignedPoints (estimates of "
        "their unfinished items), remainingCapacityPoints (negative when over-committed), "
        "overCapacityBy (0 when within capacity) and utilisationPercent (one decimal; null for zero "
        "capacity). Filter by team id and to active members. Read-only."
    ),
    input_schema=schema(
        {
            "teamId": C.string_prop("Only members of this team id, for example TEAM-001."),
            "activeOnly": C.boolean_prop("When true, leave out deactivated members."),
        }
    ),
    run=_member_load,
)


def _blocked_items(state: State, args: kit.Args) -> Any:
    project_id = _optional_project(state, args)
    items = [
        i
        for i in _items_by_id(state)
        if (project_id is None or i["projectId"] == project_id) and is_blocked(state, i)
    ]
    counts: dict[str, int] = {}
    for i in items:
        counts[i["projectId"]] = counts.get(i["projectId"], 0) + 1
    by_project = [
        {"projectId": p, "projectName": name_of(state, "projects", p), "count": n}
        for p, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    rows = [
        {
            "id": i["id"],
            "title": i["title"],
            "projectId": i["projectId"],
            "assigneeId": i["assigneeId"],
            "assigneeName": name_of(state, "members", i["assigneeId"]),
            "estimatePoints": i["estimatePoints"],
            "daysInStatus": days_in_status(state, i),
            "blockedBy": [dep["id"] for dep in unresolved_dependencies(state, i)],
        }
        for i in items
    ]
    rows.sort(key=lambda r: (-r["daysInStatus"], r["id"]))
    return {
        "projectId": project_id,
        "count": len(items),
        "blockedPoints": sum(i["estimatePoints"] for i in items),
        "countByProject": by_project,
        "workItems": rows,
    }


blocked_items = kit.read_tool(
    name="blocked_items",
    description=(
        "Work items held up by a dependency that is not done yet (whatever the item's own state), "
        "across all projects or one: count, blockedPoints, counts per project, and the items with "
        "blockedBy (the unfinished dependencies), longest in their state first. Read-only."
    ),
    input_schema=schema({"projectId": C.string_prop("Only this project id, for example PROJ-001.")}),
    run=_blocked_items,
)


def _overdue_items(state: State, args: kit.Args) -> Any:
    project_id = _optional_project(state, args)
    active_only = C.read_boolean(args, "activeAssigneesOnly")
    members = state["members"]
    items = []
    for i in _items_by_id(state):
        if (project_id is not None and i["projectId"] != project_id) or not is_overdue(state, i):
            continue
        assignee = members.get(i["assigneeId"]) if i["assigneeId"] is not None else None
        if active_only and (assignee is None or not assignee["active"]):
            continue
        items.append(i)
    groups: dict[str, dict[str, Any]] = {}
    for i in items:
        key = i["assigneeId"] if i["assigneeId"] is not None else "unassigned"
        group = groups.get(key)
        if group is None:
            assignee = members.get(i["assigneeId"]) if i["assigneeId"] is not None else None
            group = groups[key] = {
                "memberId": key,
                "name": None if assignee is None else assignee["name"],
                "active": None if assignee is None else assignee["active"],
                "count": 0,
            }
        group["count"] += 1
    rows = []
    for i in items:
        assignee = members.get(i["assigneeId"]) if i["assigneeId"] is not None else None
        rows.append(
            {
                "id": i["id"],
                "title": i["title"],
                "projectId": i["projectId"],
                "assigneeId": i["assigneeId"],
                "assigneeName": None if assignee is None else assignee["name"],
                "assigneeActive": None if assignee is None else assignee["active"],
                "estimatePoints": i["estimatePoints"],
                "dueDate": i["dueDate"],
                "daysOverdue": days_between(i["dueDate"], state["now"]),
            }
        )
    rows.sort(key=lambda r: (r["daysOverdue"], r["id"]))
    rows.reverse()
    return {
        "projectId": project_id,
        "activeAssigneesOnly": active_only,
        "count": len(items),
        "overduePoints": sum(i["estimatePoints"] for i in items),
        "countByAssignee": sorted(groups.values(), key=lambda g: (-g["count"], g["memberId"])),
        "workItems": rows,
    }


overdue_items = kit.read_tool(
    name="overdue_items",
    description=(
        "Unfinished work items whose due date is before today, across all projects or one: count, "
        "overduePoints (sum of their estimates), counts per assignee (unassigned items grouped as "
        '"unassigned") and the items, most overdue first. activeAssigneesOnly keeps only items '
        "assigned to a member who is still active. Read-only."
    ),
    input_schema=schema(
        {
            "projectId": C.string_prop("Only this project id, for example PROJ-002."),
            "activeAssigneesOnly": C.boolean_prop(
                "When true, leave out items that are unassigned or assigned to a deactivated member."
            ),
        }
    ),
    run=_overdue_items,
)


def _velocity_report(state: State, args: kit.Args) -> Any:
    project_id = _optional_project(state, args)
    completed_only = C.read_boolean(args, "completedOnly")
    rows = []
    for s in sorted(state["sprints"].values(), key=lambda s: (s["startDate"], s["id"])):
        if (project_id is not None and s["projectId"] != project_id) or (
            completed_only and s["status"] != "completed"
        ):
            continue
        unfinished = [i for i in work_items_for_sprint(state, s["id"]) if not is_done(state, i)]
        rows.append(
            {
                **_sprint_heading(s),
                "scopePoints": scope_for_sprint(state, s["id"]),
                "deliveredPoints": velocity_for_sprint(state, s["id"]),
                "carriedOverPoints": sum(i["estimatePoints"] for i in unfinished),
                "carriedOverWorkItemIds": [i["id"] for i in unfinished],
            }
        )
    delivered = [r["deliveredPoints"] for r in rows if r["status"] == "completed"]
    average = round1_plain(sum(delivered) / len(delivered)) if delivered else None
    return {
        "projectId": project_id,
        "completedOnly": completed_only,
        "count": len(rows),
        "averageDeliveredPoints": average,
        "sprints": rows,
    }


velocity_report = kit.read_tool(
    name="velocity_report",
    description=(
        "Sprint by sprint (by start date), across all projects or one: scopePoints, deliveredPoints "
        "(estimates of the sprint's done items) and carriedOverPoints with the ids of its unfinished "
        "items, whatever the sprint's status; plus averageDeliveredPoints over completed sprints. "
        "completedOnly keeps only completed sprints. Read-only."
    ),
    input_schema=schema(
        {
            "projectId": C.string_prop("Only sprints of this project id."),
            "completedOnly": C.boolean_prop("When true, only completed sprints."),
        }
    ),
    run=_velocity_report,
)


@PROJECT.get("The project, for example PROJ-001.")
def project_time_report(state: State, project: kit.Record) -> Any:
    """Hours logged on one project's work items by everyone: totalHours, a breakdown per member and per work
    item (items with hours only). Read-only."""
    items = work_items_for_project(state, project["id"])
    logs = [log for i in items for log in time_logs_for_work_item(state, i["id"])]
    sums: dict[str, float] = {}
    for log in logs:
        sums[log["memberId"]] = sums.get(log["memberId"], 0) + log["hours"]
    by_item = []
    for i in items:
        hours = hours_on_work_item(state, i["id"])
        if hours > 0:
            by_item.append({"workItemId": i["id"], "title": i["title"], "hours": hours})
    return {
        "projectId": project["id"],
        "name": project["name"],
        "totalHours": total_hours_for(logs),
        "byMember": [
            {"memberId": m, "name": name_of(state, "members", m), "hours": round1_plain(sums[m])}
            for m in sorted(sums)
        ],
        "byWorkItem": by_item,
    }


def _workload_forecast(state: State, args: kit.Args) -> Any:
    members = state["members"]
    rows = []
    for p in sorted(state["projects"].values(), key=lambda p: p["id"]):
        open_items = [i for i in work_items_for_project(state, p["id"]) if not is_done(state, i)]

        def points(keep: Any, items: list[kit.Record] = open_items) -> int:
            return sum(i["estimatePoints"] for i in items if keep(i))

        def inactive(i: kit.Record) -> bool:
            if i["assigneeId"] is None:
                return False
            m = members.get(i["assigneeId"])
            return m is None or not m["active"]

        rows.append(
            {
                "projectId": p["id"],
                "name": p["name"],
                "status": p["status"],
                "openCount": len(open_items),
                "openPoints": points(lambda i: True),
                "blockedPoints": points(lambda i: is_blocked(state, i)),
                "overduePoints": points(lambda i: is_overdue(state, i)),
                "unassignedPoints": points(lambda i: i["assigneeId"] is None),
                "inactiveAssigneePoints": points(inactive),
            }
        )
    return {"results": rows}


workload_forecast = kit.read_tool(
    name="workload_forecast",
    description=(
        "One row per project (by id) summing the estimate points of its unfinished work: all of it, "
        "the blocked part, the overdue part, the unassigned part and the part held by members who are "
        "missing or deactivated. Read-only."
    ),
    input_schema=schema({}),
    run=_workload_forecast,
)


def _member_capacity_check(state: State, args: kit.Args) -> Any:
    member = MEMBERS.require(state, C.read_string(args, "memberId"))
    extra = args["additionalPoints"]
    load = load_for(state, member["id"])
    capacity = member["weeklyCapacityPoints"]
    return {
        "memberId": member["id"],
        "name": member["name"],
        "active": member["active"],
        "weeklyCapacityPoints": capacity,
        "assignedPoints": load,
        "additionalPoints": extra,
        "wouldFit": member["active"] and load + extra <= capacity,
        "remainingCapacityPoints": capacity - load,
    }


member_capacity_check = kit.read_tool(
    name="member_capacity_check",
    description=(
        "Would this member have room for additionalPoints more work? wouldFit is true when they are "
        "active and their assigned points plus the extra stay within weekly capacity; "
        "remainingCapacityPoints is the room before the extra. Read-only."
    ),
    input_schema=schema(
        {
            "memberId": C.string_prop("The member, for example MEM-006."),
            "additionalPoints": C.integer_prop("Estimate points you would like to add.", minimum=0),
        },
        required=["memberId", "additionalPoints"],
    ),
    run=_member_capacity_check,
)
