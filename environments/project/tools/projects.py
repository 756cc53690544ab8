"""Project tools (project-world.md §7, tools 13-20): the projects, their leads and how they close."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import MEMBERS, PROJECTS, State, is_done, sprints_for_project, work_items_for_project
from .contract import C
from .helpers import (
    PROJECT,
    assert_assignable,
    ids_text,
    member_summary,
    project_summary,
    sprint_summary,
    work_item_summary,
)

PROJECT_STATUSES = ("active", "on_hold", "completed")
OPEN_PROJECT_STATUSES = ("active", "on_hold")


@PROJECT.list
def list_projects() -> dict[str, kit.Filter]:
    """List projects, sorted by id, one page at a time, optionally by status or lead. Each entry gives id,
    name, key (a short code such as ATL), status, lead, start and target dates, workItemCount,
    openWorkItemCount and openPoints (estimate points not yet done). Read-only."""
    return {
        "status": kit.Filter(kit.Enum(PROJECT_STATUSES, "Only projects with this status."), field="status"),
        "leadId": kit.Filter(kit.String("Only projects led by this member id."), field="leadId"),
    }


@PROJECT.list
def search_projects() -> dict[str, kit.Filter]:
    """Find projects whose id, name or key contains the query text (case-insensitive). Returns a page of
    project entries sorted by id. Read-only."""
    return {
        "query": kit.search_filter(
            "Text to look for: part of a project name, or its key.",
            lambda s, p: (p["id"], p["name"], p["key"]),
        )
    }


@PROJECT.get("The project's id, for example PROJ-001.")
def get_project(state: State, project: kit.Record) -> Any:
    """Get one project by id with its sprints (by start date) and all of its work items (by id). Read-only."""
    out = project_summary(state, project)
    out["sprints"] = [sprint_summary(state, s) for s in sprints_for_project(state, project["id"])]
    out["workItems"] = [work_item_summary(state, i) for i in work_items_for_project(state, project["id"])]
    return out


@PROJECT.create(
    {
        "name": kit.String("The project's name.", required=True),
        "key": kit.String("Short unique code, for example ORB.", required=True),
        "leadId": kit.String("The active member who leads it, for example MEM-001.", required=True),
        "startDate": kit.Date("First day of the project, YYYY-MM-DD.", required=True),
        "targetDate": kit.Date("Planned end date, YYYY-MM-DD.", required=True),
    },
)
def create_project(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Start a new, active project with a name, a unique key (stored upper-case), an active lead, a start date
    and a target date. A key already in use is refused. Recorded in the audit log under actorMemberId."""
    lead = assert_assignable(state, C.read_string(args, "leadId"))
    key = C.read_string(args, "key").upper()
    if any(p["key"] == key for p in state["projects"].values()):
        raise kit.conflict(f'A project with key "{key}" already exists.')
    project = {
        "id": PROJECTS.new_id(state),
        "name": C.read_string(args, "name"),
        "key": key,
        "status": "active",
        "leadId": lead["id"],
        "startDate": C.read_date(args, "startDate"),
        "targetDate": C.read_date(args, "targetDate"),
    }
    return project, f"Created {project['name']}."


@PROJECT.change(
    "The project, for example PROJ-002.",
    {
        "name": kit.String("New name."),
        "targetDate": kit.Date("New target date, YYYY-MM-DD."),
        "status": kit.Enum(OPEN_PROJECT_STATUSES, "active or on_hold."),
    },
)
def update_project(state: State, acting: kit.Record, project: kit.Record, args: kit.Args) -> str:
    """Rename a project, move its target date, or put it on hold and back to active; leave out what should
    stay. A completed project cannot be changed, and this tool cannot complete one (use close_project).
    Recorded in the audit log under actorMemberId."""
    if project["status"] == "completed":
        raise kit.not_allowed(f"Project {project['id']} is completed and can no longer be changed.")
    name = C.read_optional_string(args, "name")
    target = C.read_optional_string(args, "targetDate")
    status = C.read_optional_enum(args, "status", OPEN_PROJECT_STATUSES)
    kit.set_given(project, {"name": name})
    if target is not None:
        project["targetDate"] = C.read_date(args, "targetDate")  # refused after the name was written (§6.6)
    kit.set_given(project, {"status": status})
    return f"Updated {project['name']}."


@PROJECT.change(
    "The project, for example PROJ-001.",
    {"newLeadId": kit.String("The active member who takes over, for example MEM-002.", required=True)},
)
def reassign_project_lead(state: State, acting: kit.Record, project: kit.Record, args: kit.Args) -> str:
    """Hand a project's leadership to another active member. Naming the current lead is refused. Recorded in
    the audit log under actorMemberId."""
    new_lead = assert_assignable(state, C.read_string(args, "newLeadId"))
    if project["leadId"] == new_lead["id"]:
        raise kit.conflict(f"{project['id']} is already led by {new_lead['id']} ({new_lead['name']}).")
    previous = project["leadId"]
    project["leadId"] = new_lead["id"]
    return f"Lead changed from {previous} to {new_lead['id']}."


@PROJECT.change("The project to close, for example PROJ-003.")
def close_project(state: State, acting: kit.Record, project: kit.Record, args: kit.Args) -> str:
    """Mark a project as completed. Every one of its work items must be done first; otherwise the call is
    refused and lists the unfinished ones. This is the only way a project becomes completed, and a
    completed project can no longer be edited. Recorded in the audit log under actorMemberId."""
    if project["status"] == "completed":
        raise kit.conflict(f"Project {project['id']} is already completed.")
    open_ids = [i["id"] for i in work_items_for_project(state, project["id"]) if not is_done(state, i)]
    if open_ids:
        raise kit.not_allowed(
            f"Project {project['id']} still has {len(open_ids)} unfinished work item(s): {ids_text(open_ids)}.",
            {"projectId": project["id"], "openWorkItemIds": open_ids},
        )
    project["status"] = "completed"
    return f"Closed {project['name']}."


@PROJECT.get("The project's id, for example PROJ-001.")
def get_project_lead(state: State, project: kit.Record) -> Any:
    """Get the member who leads a project, with their capacity figures. Read-only."""
    lead = MEMBERS.require(state, project["leadId"])
    return {"projectId": project["id"], "lead": member_summary(state, lead)}

