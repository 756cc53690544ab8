"""Sprint tools (project-world.md §7, tools 21-25): time boxes of work and their life cycle."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import PROJECTS, SPRINTS, State, is_done, remaining_for_sprint, work_items_for_sprint
from .contract import C, paginate, schema
from .helpers import SPRINT, sprint_summary, work_item_summary

SPRINT_STATUSES = ("planned", "active", "completed")


def _list_sprints(state: State, args: kit.Args) -> Any:
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


@SPRINT.get("The sprint's id, for example SPR-002.")
def get_sprint(state: State, sprint: kit.Record) -> Any:
    """Get one sprint by id with its figures, remainingPoints (estimates of its unfinished items) and every
    work item in it, sorted by id. Read-only."""
    out = sprint_summary(state, sprint)
    out["remainingPoints"] = remaining_for_sprint(state, sprint["id"])
    out["workItems"] = [work_item_summary(state, i) for i in work_items_for_sprint(state, sprint["id"])]
    return out


@SPRINT.create(
    {
        "name": kit.String("The sprint's name, for example Atlas Sprint 14.", required=True),
        "projectId": kit.String("The project it belongs to, for example PROJ-001.", required=True),
        "startDate": kit.Date("First day, YYYY-MM-DD.", required=True),
        "endDate": kit.Date("Last day, YYYY-MM-DD.", required=True),
    },
)
def create_sprint(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Plan a new sprint for a project, with a name and start and end dates (the end may not come before the
    start). The sprint starts out planned. Recorded in the audit log under actorMemberId."""
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    start = C.read_date(args, "startDate")
    end = C.read_date(args, "endDate")
    if end < start:
        raise kit.invalid_input("A sprint cannot end before it starts.")
    sprint = {
        "id": SPRINTS.new_id(state),
        "name": C.read_string(args, "name"),
        "projectId": project["id"],
        "startDate": start,
        "endDate": end,
        "status": "planned",
    }
    return sprint, f"Created {sprint['name']}."


@SPRINT.change("The planned sprint, for example SPR-003.")
def start_sprint(state: State, acting: kit.Record, sprint: kit.Record, args: kit.Args) -> str:
    """Start a planned sprint. Refused when the sprint is not planned, or while another sprint of the same
    project is still active (complete that one first). Dates are not checked. Recorded in the audit log
    under actorMemberId."""
    if sprint["status"] != "planned":
        raise kit.invalid_state(
            f"Sprint {sprint['id']} is {sprint['status']}; only a planned sprint can be started."
        )
    for other in state["sprints"].values():
        if other["id"] != sprint["id"] and other["projectId"] == sprint["projectId"] and other["status"] == "active":
            raise kit.not_allowed(
                f"Sprint {other['id']} ({other['name']}) is still running on {sprint['projectId']}; "
                "complete it first.",
                {"activeSprintId": other["id"]},
            )
    sprint["status"] = "active"
    return f"Started {sprint['name']}."


@SPRINT.change("The running sprint, for example SPR-002.")
def complete_sprint(state: State, acting: kit.Record, sprint: kit.Record, args: kit.Args) -> kit.Detail:
    """Close an active sprint. Its unfinished work items stay in it as carry-over (listed in carriedOver);
    move them on separately if needed. Only an active sprint can be completed. Recorded in the audit log
    under actorMemberId."""
    if sprint["status"] != "active":
        raise kit.invalid_state(
            f"Sprint {sprint['id']} is {sprint['status']}; only a running sprint can be completed."
        )
    sprint["status"] = "completed"
    carried = [i["id"] for i in work_items_for_sprint(state, sprint["id"]) if not is_done(state, i)]
    return f"Completed {sprint['name']} with {len(carried)} item(s) unfinished.", {"carriedOver": carried}
