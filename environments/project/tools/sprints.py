"""Sprint tools (project-world.md §7, tools 21-25): time boxes of work and their life cycle."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import PROJECTS, SPRINTS, State, is_done, next_id, remaining_for_sprint, work_items_for_sprint
from .contract import C, actor_prop, paginate, schema
from .helpers import actor, audit, sprint_summary, work_item_summary

SPRINT_STATUSES = ("planned", "active", "completed")

Args = dict[str, Any]


def _list_sprints(state: State, args: Args) -> Any:
    project_id = C.read_optional_string(args, "projectId")
    status = C.read_optional_enum(args, "status", SPRINT_STATUSES)
    sprints = sorted(state["sprints"].values(), key=lambda s: (s["startDate"], s["id"]))
    rows = [
        sprint_summary(state, s)
        for s in sprints
        if (project_id is None or s["projectId"] == project_id) and (status is None or s["status"] == status)
    ]
    return paginate(rows, args)


list_sprints = kit.read_tool(
    name="list_sprints",
    description=(
        "List sprints sorted by start date (then id), one page at a time, optionally for one project "
        "or one status (planned, active, completed). Each entry gives the sprint's dates, status, "
        "workItemCount, completedWorkItemCount, scopePoints (estimates of all its items), "
        "completedPoints (estimates of its done items) and daysRemaining until its end date "
        "(negative once it has passed). Read-only."
    ),
    input_schema=schema(
        {
            "projectId": C.string_prop("Only sprints of this project id."),
            "status": C.enum_prop(SPRINT_STATUSES, "Only sprints with this status."),
            **C.paging_props(),
        }
    ),
    run=_list_sprints,
)


def _get_sprint(state: State, args: Args) -> Any:
    sprint = SPRINTS.require(state, C.read_string(args, "sprintId"))
    out = sprint_summary(state, sprint)
    out["remainingPoints"] = remaining_for_sprint(state, sprint["id"])
    out["workItems"] = [work_item_summary(state, i) for i in work_items_for_sprint(state, sprint["id"])]
    return out


get_sprint = kit.read_tool(
    name="get_sprint",
    description=(
        "Get one sprint by id with its figures, remainingPoints (estimates of its unfinished items) "
        "and every work item in it, sorted by id. Read-only."
    ),
    input_schema=schema({"sprintId": C.string_prop("The sprint's id, for example SPR-002.")}, required=["sprintId"]),
    run=_get_sprint,
)


def _create_sprint(state: State, args: Args) -> Any:
    acting = actor(state, args)
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    start = C.read_date(args, "startDate")
    end = C.read_date(args, "endDate")
    if end < start:
        raise ToolError("invalid_input", "A sprint cannot end before it starts.")
    sprint_id = next_id(state, "SPR")
    name = C.read_string(args, "name")
    sprint = {
        "id": sprint_id,
        "name": name,
        "projectId": project["id"],
        "startDate": start,
        "endDate": end,
        "status": "planned",
    }
    state["sprints"][sprint_id] = sprint
    audit(state, acting, "create_sprint", "sprint", sprint_id, f"Created {name}.")
    return {"created": sprint_summary(state, sprint)}


create_sprint = kit.write_tool(
    name="create_sprint",
    description=(
        "Plan a new sprint for a project, with a name and start and end dates (the end may not come "
        "before the start). The sprint starts out planned. Recorded in the audit log under "
        "actorMemberId."
    ),
    input_schema=schema(
        {
            "name": C.string_prop("The sprint's name, for example Atlas Sprint 14."),
            "projectId": C.string_prop("The project it belongs to, for example PROJ-001."),
            "startDate": C.date_prop("First day, YYYY-MM-DD."),
            "endDate": C.date_prop("Last day, YYYY-MM-DD."),
            "actorMemberId": actor_prop(),
        },
        required=["name", "projectId", "startDate", "endDate", "actorMemberId"],
    ),
    run=_create_sprint,
)


def _start_sprint(state: State, args: Args) -> Any:
    acting = actor(state, args)
    sprint = SPRINTS.require(state, C.read_string(args, "sprintId"))
    if sprint["status"] != "planned":
        raise ToolError(
            "invalid_state", f"Sprint {sprint['id']} is {sprint['status']}; only a planned sprint can be started."
        )
    for other in state["sprints"].values():
        if other["id"] != sprint["id"] and other["projectId"] == sprint["projectId"] and other["status"] == "active":
            raise ToolError(
                "not_allowed",
                f"Sprint {other['id']} ({other['name']}) is still running on {sprint['projectId']}; "
                "complete it first.",
                {"activeSprintId": other["id"]},
            )
    sprint["status"] = "active"
    audit(state, acting, "start_sprint", "sprint", sprint["id"], f"Started {sprint['name']}.")
    return {"updated": sprint_summary(state, sprint)}


start_sprint = kit.write_tool(
    name="start_sprint",
    description=(
        "Start a planned sprint. Refused when the sprint is not planned, or while another sprint of "
        "the same project is still active (complete that one first). Dates are not checked. "
        "Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {"sprintId": C.string_prop("The planned sprint, for example SPR-003."), "actorMemberId": actor_prop()},
        required=["sprintId", "actorMemberId"],
    ),
    run=_start_sprint,
)


def _complete_sprint(state: State, args: Args) -> Any:
    acting = actor(state, args)
    sprint = SPRINTS.require(state, C.read_string(args, "sprintId"))
    if sprint["status"] != "active":
        raise ToolError(
            "invalid_state", f"Sprint {sprint['id']} is {sprint['status']}; only a running sprint can be completed."
        )
    sprint["status"] = "completed"
    carried = [i["id"] for i in work_items_for_sprint(state, sprint["id"]) if not is_done(state, i)]
    audit(
        state,
        acting,
        "complete_sprint",
        "sprint",
        sprint["id"],
        f"Completed {sprint['name']} with {len(carried)} item(s) unfinished.",
    )
    return {"updated": sprint_summary(state, sprint), "carriedOver": carried}


complete_sprint = kit.write_tool(
    name="complete_sprint",
    description=(
        "Close an active sprint. Its unfinished work items stay in it as carry-over (listed in "
        "carriedOver); move them on separately if needed. Only an active sprint can be completed. "
        "Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {"sprintId": C.string_prop("The running sprint, for example SPR-002."), "actorMemberId": actor_prop()},
        required=["sprintId", "actorMemberId"],
    ),
    run=_complete_sprint,
)
