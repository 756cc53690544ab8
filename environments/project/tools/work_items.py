"""Work item tools (project-world.md §7, tools 26-41): the workflow, the items, their owners,
dependencies, comments, sprints and due dates."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import (
    PROJECTS,
    SPRINTS,
    WORK_ITEMS,
    WORKFLOW_STATES,
    State,
    hours_on_work_item,
    is_blocked,
    is_done,
    is_overdue,
    next_id,
    time_logs_for_work_item,
    workflow_states_in_order,
)
from .contract import C
from .helpers import (
    ITEM,
    WRITES,
    actor,
    assert_assignable,
    assert_dependencies_resolved,
    assert_within_capacity,
    comment_with_author,
    time_log_summary,
    work_item_summary,
)

TYPES = ("epic", "story", "bug", "task")
PRIORITIES = ("low", "medium", "high", "urgent")


# ---------------------------------------------------------------------------------------------
# Reading


list_workflow_states = kit.catalog_tool(
    name="list_workflow_states",
    description=(
        "List the workflow states a work item moves through, in workflow order, each with its id, "
        "name, order, isDone (a done state finishes the item) and isBlockedState (informational "
        "only). Work items store the state's id in their status field. Read-only."
    ),
    collection=WORKFLOW_STATES,
    summary=lambda state, wfs: kit.pick(wfs, WORKFLOW_STATES.fields),
)


@ITEM.list
def list_work_items() -> dict[str, kit.Filter]:
    """List work items, sorted by id, one page at a time; every filter given must hold (none of the ids is
    checked for existence). Each entry gives title, type, status (a workflow state id) and statusName,
    done, priority, assignee, project and its key, sprint, estimatePoints, dates, daysInStatus, dueDate,
    overdue (not done and due before today), parentId, dependsOn, blocked and unresolvedDependencies
    (dependencies that are not done yet) and commentCount. Use total for counts; use a larger limit or
    offset to see more than one page. Read-only."""
    return {
        "projectId": kit.Filter(kit.String("Only items of this project id."), link="projectId"),
        "sprintId": kit.Filter(kit.String("Only items in this sprint id."), link="sprintId"),
        "assigneeId": kit.Filter(kit.String("Only items assigned to this member id."), link="assigneeId"),
        "unassigned": kit.Filter(
            kit.Boolean("When true, only items nobody is assigned to."), test=lambda s, i, v: i["assigneeId"] is None
        ),
        "status": kit.Filter(kit.String("Only items in this workflow state id (see list_workflow_states)."), field="status"),
        "type": kit.Filter(kit.Enum(TYPES, "Only items of this type."), field="type"),
        "priority": kit.Filter(kit.Enum(PRIORITIES, "Only items with this priority."), field="priority"),
        "openOnly": kit.Filter(
            kit.Boolean("When true, only items that are not done."), test=lambda state, i, v: not is_done(state, i)
        ),
        "blockedOnly": kit.Filter(
            kit.Boolean("When true, only items waiting on an unfinished dependency."),
            test=lambda state, i, v: is_blocked(state, i),
        ),
        "overdueOnly": kit.Filter(
            kit.Boolean("When true, only unfinished items whose due date has passed."),
            test=lambda state, i, v: is_overdue(state, i),
        ),
    }


@ITEM.list
def search_work_items() -> dict[str, kit.Filter]:
    """Find work items whose id or title contains the query text (case-insensitive). Returns a page of work
    item entries, as list_work_items gives them, sorted by id. Read-only."""
    return {
        "query": kit.search_filter(
            "Text to look for, for example words of a title.", lambda s, item: (item["id"], item["title"])
        )
    }


@ITEM.get("The work item's id, for example WI-003.")
def get_work_item(state: State, item: kit.Record) -> Any:
    """Get one work item by id with its full entry, its comments (oldest first, with author names), the ids of
    its child items, hoursLogged and its time logs. Read-only."""
    out = work_item_summary(state, item)
    out["comments"] = [comment_with_author(state, c) for c in item["comments"]]
    out["children"] = WORK_ITEMS.linked_ids(state, "parentId", item["id"], sort=True)
    out["hoursLogged"] = hours_on_work_item(state, item["id"])
    out["timeLogs"] = [time_log_summary(state, t) for t in time_logs_for_work_item(state, item["id"])]
    return out


# ---------------------------------------------------------------------------------------------
# Creating and editing


@ITEM.create(
    {
        "title": kit.String("Short title.", required=True),
        "type": kit.Enum(TYPES, "Kind of work.", required=True),
        "projectId": kit.String("The project, for example PROJ-001.", required=True),
        "estimatePoints": kit.Integer("Estimate in points.", required=True, minimum=0),
        "priority": kit.Enum(PRIORITIES, "Priority; medium when left out.", schema_default="medium"),
        "assigneeId": kit.String("Active member to own it, for example MEM-002."),
        "sprintId": kit.String("Sprint of the same project to put it in."),
        "status": kit.String("Workflow state id to start in (see list_workflow_states)."),
        "dueDate": kit.Date("Due date, YYYY-MM-DD."),
        "parentId": kit.String("Parent work item id, for example an epic."),
    },
)
def create_work_item(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Create a work item in a project that is not completed. It starts in the first workflow state unless
    status names another. An assignee must be active and, unless the item starts done, have room for its
    estimate within their weekly capacity; a sprint must belong to the same project; a parent must exist.
    Recorded in the audit log under actorMemberId."""
    project = PROJECTS.require(state, C.read_string(args, "projectId"))
    if project["status"] == "completed":
        raise kit.not_allowed(f"Project {project['id']} is completed; no new work can be added to it.")
    status_id = C.read_optional_string(args, "status")
    if status_id is not None:
        start = WORKFLOW_STATES.require(state, status_id)
    else:
        ordered = workflow_states_in_order(state)
        if not ordered:
            raise kit.invalid_state("The workflow has no states to start from.")
        start = ordered[0]
    estimate = C.read_number(args, "estimatePoints", integer=True, minimum=0)
    assignee_id = C.read_optional_string(args, "assigneeId")
    if assignee_id is not None:
        assignee = assert_assignable(state, assignee_id)
        if not start["isDone"]:
            assert_within_capacity(state, assignee, estimate)
    sprint_id = C.read_optional_string(args, "sprintId")
    if sprint_id is not None:
        _require_same_project(SPRINTS.require(state, sprint_id), project["id"], f"not to {project['id']}")
    parent_id = C.read_optional_string(args, "parentId")
    WORK_ITEMS.require_given(state, parent_id)
    item = {
        "id": WORK_ITEMS.new_id(state),
        "title": C.read_string(args, "title"),
        "type": C.read_enum(args, "type", TYPES),
        "status": start["id"],
        "priority": C.read_optional_enum(args, "priority", PRIORITIES) or "medium",
        "assigneeId": assignee_id,
        "projectId": project["id"],
        "sprintId": sprint_id,
        "estimatePoints": estimate,
        "createdDate": state["now"],
        "statusEnteredDate": state["now"],
        "dueDate": C.read_optional_date(args, "dueDate"),
        "parentId": parent_id,
        "dependsOn": [],
        "comments": [],
    }
    return item, f"Created {item['title']}."


def _require_same_project(sprint: kit.Record, project_id: str, instead: str) -> None:
    """A work item only goes into a sprint of its own project."""
    if sprint["projectId"] != project_id:
        raise kit.invalid_input(f"Sprint {sprint['id']} belongs to {sprint['projectId']}, {instead}.")


@ITEM.change(
    "The work item, for example WI-003.",
    {
        "title": kit.String("New title."),
        "type": kit.Enum(TYPES, "New type."),
        "priority": kit.Enum(PRIORITIES, "New priority."),
        "estimatePoints": kit.Integer("New estimate in points.", minimum=0),
        "dueDate": kit.Date("New due date, YYYY-MM-DD."),
        "parentId": kit.String("New parent work item id."),
    },
)
def update_work_item(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Edit a work item's title, type, priority, estimate, due date or parent; leave out what should stay.
    Status, assignee and sprint have their own tools. Raising the estimate of an assigned, unfinished item
    must fit the assignee's capacity; that check runs after the title, type, priority and due date were
    written. Recorded in the audit log under actorMemberId."""
    title = C.read_optional_string(args, "title")
    type_ = C.read_optional_enum(args, "type", TYPES)
    priority = C.read_optional_enum(args, "priority", PRIORITIES)
    estimate = C.read_optional_number(args, "estimatePoints", integer=True, minimum=0)
    due = C.read_optional_date(args, "dueDate")
    parent_id = C.read_optional_string(args, "parentId")
    kit.set_given(item, {"title": title, "type": type_, "priority": priority, "dueDate": due})
    if estimate is not None:
        delta = estimate - item["estimatePoints"]
        assignee = state["members"].get(item["assigneeId"]) if item["assigneeId"] is not None else None
        if assignee is not None and not is_done(state, item) and delta > 0:
            assert_within_capacity(state, assignee, delta)  # refused after the writes above (§6.6)
        item["estimatePoints"] = estimate
    if parent_id is not None:
        if parent_id == item["id"]:
            raise kit.invalid_input("A work item cannot be its own parent.")
        WORK_ITEMS.require(state, parent_id)
        WORK_ITEMS.set_link(state, item, "parentId", parent_id)
    return f"Updated {item['title']}."


@ITEM.change(
    "The work item, for example WI-003.",
    {"assigneeId": kit.String("The active member who takes it, for example MEM-002.", required=True)},
)
def assign_work_item(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Give an unfinished work item to an active member (replacing any current assignee). Refused when the
    item is done, when it already belongs to that member, or when its estimate would push the member past
    their weekly capacity. Recorded in the audit log under actorMemberId."""
    if is_done(state, item):
        raise kit.not_allowed(f"{item['id']} is done and no longer needs an assignee.")
    assignee = assert_assignable(state, C.read_string(args, "assigneeId"))
    if item["assigneeId"] == assignee["id"]:
        raise kit.conflict(f"{item['id']} is already assigned to {assignee['id']}.")
    assert_within_capacity(state, assignee, item["estimatePoints"])
    previous = item["assigneeId"]
    item["assigneeId"] = assignee["id"]
    WORK_ITEMS.relinked(state, item["id"], "assigneeId", previous)
    return f"Assigned {item['id']} from {previous if previous is not None else 'nobody'} to {assignee['id']}."


@ITEM.change("The work item, for example WI-003.")
def unassign_work_item(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Remove the assignee from a work item (finished items too). Refused when nobody is assigned. Recorded in
    the audit log under actorMemberId."""
    previous = item["assigneeId"]
    if previous is None:
        raise kit.conflict(f"{item['id']} has no assignee.")
    WORK_ITEMS.set_link(state, item, "assigneeId", None)
    return f"Unassigned {item['id']} from {previous}."


@ITEM.change(
    "The work item, for example WI-003.",
    {"status": kit.String("The workflow state id to move it to.", required=True)},
)
def set_work_item_status(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Move a work item to another workflow state, given by its id (see list_workflow_states); the item's
    daysInStatus restarts today. Moving it into a done state is refused while any of its dependencies is
    unfinished. Any other move is allowed, including reopening a done item. Recorded in the audit log under
    actorMemberId."""
    target = WORKFLOW_STATES.require(state, C.read_string(args, "status"))
    if item["status"] == target["id"]:
        raise kit.conflict(f"{item['id']} is already in {target['name']}.")
    if target["isDone"]:
        assert_dependencies_resolved(state, item)
    previous = kit.transition(item, "status", target["id"], "statusEnteredDate", state["now"])
    return f"Moved {item['id']} from {previous} to {target['id']}."


@ITEM.change(
    "The item that waits, for example WI-004.",
    {"dependsOnId": kit.String("The item it waits for, for example WI-005.", required=True)},
)
def add_work_item_dependency(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Record that a work item cannot be finished before another one: workItemId depends on dependsOnId.
    Refused for the item itself, for a dependency already recorded, and when the other item already depends
    on this one. Recorded in the audit log under actorMemberId."""
    other = WORK_ITEMS.require(state, C.read_string(args, "dependsOnId"))
    if other["id"] == item["id"]:
        raise kit.invalid_input("A work item cannot depend on itself.")
    if other["id"] in item["dependsOn"]:
        raise kit.conflict(f"{item['id']} already depends on {other['id']}.")
    if item["id"] in other["dependsOn"]:
        raise kit.not_allowed(f"{other['id']} already depends on {item['id']}; this would create a cycle.")
    item["dependsOn"].append(other["id"])
    return f"{item['id']} now depends on {other['id']}."


@ITEM.change(
    "The item that waits, for example WI-004.",
    {"dependsOnId": kit.String("The item it should stop waiting for.", required=True)},
)
def remove_work_item_dependency(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Drop a recorded dependency: workItemId no longer waits for dependsOnId. Refused when no such dependency
    is recorded. Recorded in the audit log under actorMemberId."""
    other_id = C.read_string(args, "dependsOnId")
    if other_id not in item["dependsOn"]:
        raise ToolError("not_found", f"{item['id']} does not depend on {other_id}.")
    item["dependsOn"].remove(other_id)
    return f"{item['id']} no longer depends on {other_id}."


# ---------------------------------------------------------------------------------------------
# Comments


def _add_comment(state: State, args: kit.Args) -> Any:
    acting = actor(state, args)
    item = WORK_ITEMS.require(state, C.read_string(args, "workItemId"))
    comment_id = next_id(state, "CMT")
    body = C.read_string(args, "body")
    comment = {"id": comment_id, "authorId": acting["id"], "body": body, "createdDate": state["now"]}
    item["comments"].append(comment)
    WRITES.audit(state, acting, "add_comment", "work_item", item["id"], f"Commented on {item['id']}.")
    return {"workItemId": item["id"], "created": dict(comment), "commentCount": len(item["comments"])}


add_comment = kit.write_tool(
    name="add_comment",
    description=(
        "Add a comment to a work item (finished items too), written by the acting member and dated "
        "today. Comments cannot be edited or deleted afterwards. Recorded in the audit log under "
        "actorMemberId."
    ),
    input_schema=WRITES.schema(
        {
            "workItemId": kit.String("The work item, for example WI-006.", required=True),
            "body": kit.String("The comment text.", required=True),
        }
    ),
    run=_add_comment,
)


@ITEM.get("The work item, for example WI-006.")
def list_comments(state: State, item: kit.Record) -> Any:
    """List a work item's comments, oldest first, each with its author's name. Read-only."""
    results = [comment_with_author(state, c) for c in item["comments"]]
    return {"workItemId": item["id"], "count": len(results), "results": results}


# ---------------------------------------------------------------------------------------------
# Sprints and due dates


@ITEM.change(
    "The work item, for example WI-008.",
    {"sprintId": kit.String("The planned or active sprint, for example SPR-003.", required=True)},
)
def move_work_item_to_sprint(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Put a work item into a sprint of its own project (taking it out of any other sprint). The sprint must
    not be completed. Status, assignee and estimate are left as they are. Recorded in the audit log under
    actorMemberId."""
    sprint = SPRINTS.require(state, C.read_string(args, "sprintId"))
    _require_same_project(sprint, item["projectId"], f"but {item['id']} belongs to {item['projectId']}")
    if sprint["status"] == "completed":
        raise kit.not_allowed(f"Sprint {sprint['id']} is completed and cannot take new work.")
    previous = item["sprintId"]
    item["sprintId"] = sprint["id"]
    WORK_ITEMS.relinked(state, item["id"], "sprintId", previous)
    return f"Moved {item['id']} from {previous if previous is not None else 'the backlog'} to {sprint['id']}."


@ITEM.change("The work item, for example WI-008.")
def remove_work_item_from_sprint(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Take a work item out of its sprint, leaving it in no sprint. Refused when it is in none. Recorded in
    the audit log under actorMemberId."""
    previous = item["sprintId"]
    if previous is None:
        raise kit.conflict(f"{item['id']} is not in a sprint.")
    WORK_ITEMS.set_link(state, item, "sprintId", None)
    return f"Removed {item['id']} from {previous}."


@ITEM.change(
    "The work item, for example WI-011.",
    {
        "dueDate": kit.Date("New due date, YYYY-MM-DD."),
        "clear": kit.Boolean("When true, remove the due date instead of setting one."),
    },
)
def set_work_item_due_date(state: State, acting: kit.Record, item: kit.Record, args: kit.Args) -> str:
    """Set a work item's due date, or remove it with clear: true. Without clear, dueDate is required. Recorded
    in the audit log under actorMemberId."""
    item["dueDate"] = None if C.read_boolean(args, "clear") else C.read_date(args, "dueDate")
    return f"Due date for {item['id']} set to {item['dueDate'] if item['dueDate'] is not None else 'none'}."
