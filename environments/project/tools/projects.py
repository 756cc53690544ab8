"""Project tools (project-world.md §7, tools 13-20): the projects, their leads and how they close."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import MEMBERS, PROJECTS, State, is_done, next_id, sprints_for_project, work_items_for_project
from .contract import C, actor_prop, schema
from .helpers import (
    actor,
    assert_assignable,
    audit,
    ids_text,
    member_summary,
    project_summary,
    sprint_summary,
    work_item_summary,
)

PROJECT_STATUSES = ("active", "on_hold", "completed")
OPEN_PROJECT_STATUSES = ("active", "on_hold")

Args = dict[str, Any]


list_projects = kit.list_tool(
    name="list_projects",
    description=(
        "List projects, sorted by id, one page at a time, optionally by status or lead. Each entry "
        "gives id, name, key (a short code such as ATL), status, lead, start and target dates, "
        "workItemCount, openWorkItemCount and openPoints (estimate points not yet done). Read-only."
    ),
    collection=PROJECTS,
    summary=project_summary,
    filters={
        "status": kit.Filter(kit.Enum(PROJECT_STATUSES, "Only projects with this status."), field="status"),
        "leadId": kit.Filter(kit.String("Only projects led by this member id."), field="leadId"),
    },
    contract=C,
)


search_projects = kit.list_tool(
    name="search_projects",
    description=(
        "Find projects whose id, name or key contains the query text (case-insensitive). Returns a "
        "page of project entries sorted by id. Read-only."
    ),
    collection=PROJECTS,
    summary=project_summary,
    filters={"query": kit.search_filter(
        "Text to look for: part of a project name, or its key.", lambda s, p: (p["id"], p["name"], p["key"])
    )},
    contract=C,
)


def _get_project(state: State, args: Args) -> Any:
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    out = project_summary(state, project)
    out["sprints"] = [sprint_summary(state, s) for s in sprints_for_project(state, project["id"])]
    out["workItems"] = [work_item_summary(state, i) for i in work_items_for_project(state, project["id"])]
    return out


get_project = kit.read_tool(
    name="get_project",
    description=(
        "Get one project by id with its sprints (by start date) and all of its work items (by id). Read-only."
    ),
    input_schema=schema(
        {"projectId": C.string_prop("The project's id, for example PROJ-001.")}, required=["projectId"]
    ),
    run=_get_project,
)


def _create_project(state: State, args: Args) -> Any:
    acting = actor(state, args)
    lead = assert_assignable(state, C.read_string(args, "leadId"))
    key = C.read_string(args, "key").upper()
    if any(p["key"] == key for p in state["projects"].values()):
        raise ToolError("conflict", f'A project with key "{key}" already exists.')
    project_id = next_id(state, "PROJ")
    name = C.read_string(args, "name")
    start = C.read_date(args, "startDate")
    target = C.read_date(args, "targetDate")
    project = {
        "id": project_id,
        "name": name,
        "key": key,
        "status": "active",
        "leadId": lead["id"],
        "startDate": start,
        "targetDate": target,
    }
    state["projects"][project_id] = project
    audit(state, acting, "create_project", "project", project_id, f"Created {name}.")
    return {"created": project_summary(state, project)}


create_project = kit.write_tool(
    name="create_project",
    description=(
        "Start a new, active project with a name, a unique key (stored upper-case), an active lead, "
        "a start date and a target date. A key already in use is refused. Recorded in the audit log "
        "under actorMemberId."
    ),
    input_schema=schema(
        {
            "name": C.string_prop("The project's name."),
            "key": C.string_prop("Short unique code, for example ORB."),
            "leadId": C.string_prop("The active member who leads it, for example MEM-001."),
            "startDate": C.date_prop("First day of the project, YYYY-MM-DD."),
            "targetDate": C.date_prop("Planned end date, YYYY-MM-DD."),
            "actorMemberId": actor_prop(),
        },
        required=["name", "key", "leadId", "startDate", "targetDate", "actorMemberId"],
    ),
    run=_create_project,
)


def _update_project(state: State, args: Args) -> Any:
    acting = actor(state, args)
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    if project["status"] == "completed":
        raise ToolError("not_allowed", f"Project {project['id']} is completed and can no longer be changed.")
    name = C.read_optional_string(args, "name")
    target = C.read_optional_string(args, "targetDate")
    status = C.read_optional_enum(args, "status", OPEN_PROJECT_STATUSES)
    if name is not None:
        project["name"] = name
    if target is not None:
        project["targetDate"] = C.read_date(args, "targetDate")  # refused after the name was written (§6.6)
    if status is not None:
        project["status"] = status
    audit(state, acting, "update_project", "project", project["id"], f"Updated {project['name']}.")
    return {"updated": project_summary(state, project)}


update_project = kit.write_tool(
    name="update_project",
    description=(
        "Rename a project, move its target date, or put it on hold and back to active; leave out what "
        "should stay. A completed project cannot be changed, and this tool cannot complete one (use "
        "close_project). Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {
            "projectId": C.string_prop("The project, for example PROJ-002."),
            "name": C.string_prop("New name."),
            "targetDate": C.date_prop("New target date, YYYY-MM-DD."),
            "status": C.enum_prop(OPEN_PROJECT_STATUSES, "active or on_hold."),
            "actorMemberId": actor_prop(),
        },
        required=["projectId", "actorMemberId"],
    ),
    run=_update_project,
)


def _close_project(state: State, args: Args) -> Any:
    acting = actor(state, args)
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    if project["status"] == "completed":
        raise ToolError("conflict", f"Project {project['id']} is already completed.")
    open_ids = [i["id"] for i in work_items_for_project(state, project["id"]) if not is_done(state, i)]
    if open_ids:
        raise ToolError(
            "not_allowed",
            f"Project {project['id']} still has {len(open_ids)} unfinished work item(s): {ids_text(open_ids)}.",
            {"projectId": project["id"], "openWorkItemIds": open_ids},
        )
    project["status"] = "completed"
    audit(state, acting, "close_project", "project", project["id"], f"Closed {project['name']}.")
    return {"updated": project_summary(state, project)}


close_project = kit.write_tool(
    name="close_project",
    description=(
        "Mark a project as completed. Every one of its work items must be done first; otherwise the "
        "call is refused and lists the unfinished ones. This is the only way a project becomes "
        "completed, and a completed project can no longer be edited. Recorded in the audit log under "
        "actorMemberId."
    ),
    input_schema=schema(
        {
            "projectId": C.string_prop("The project to close, for example PROJ-003."),
            "actorMemberId": actor_prop(),
        },
        required=["projectId", "actorMemberId"],
    ),
    run=_close_project,
)


def _reassign_project_lead(state: State, args: Args) -> Any:
    acting = actor(state, args)
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    new_lead = assert_assignable(state, C.read_string(args, "newLeadId"))
    if project["leadId"] == new_lead["id"]:
        raise ToolError(
            "conflict", f"{project['id']} is already led by {new_lead['id']} ({new_lead['name']})."
        )
    previous = project["leadId"]
    project["leadId"] = new_lead["id"]
    audit(
        state,
        acting,
        "reassign_project_lead",
        "project",
        project["id"],
        f"Lead changed from {previous} to {new_lead['id']}.",
    )
    return {"updated": project_summary(state, project)}


reassign_project_lead = kit.write_tool(
    name="reassign_project_lead",
    description=(
        "Hand a project's leadership to another active member. Naming the current lead is refused. "
        "Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {
            "projectId": C.string_prop("The project, for example PROJ-001."),
            "newLeadId": C.string_prop("The active member who takes over, for example MEM-002."),
            "actorMemberId": actor_prop(),
        },
        required=["projectId", "newLeadId", "actorMemberId"],
    ),
    run=_reassign_project_lead,
)


def _get_project_lead(state: State, args: Args) -> Any:
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    lead = MEMBERS.require(state, project["leadId"])
    return {"projectId": project["id"], "lead": member_summary(state, lead)}


get_project_lead = kit.read_tool(
    name="get_project_lead",
    description="Get the member who leads a project, with their capacity figures. Read-only.",
    input_schema=schema(
        {"projectId": C.string_prop("The project's id, for example PROJ-001.")}, required=["projectId"]
    ),
    run=_get_project_lead,
)
