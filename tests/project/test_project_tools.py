"""The project world's 54 tools (project-world.md §6-7), called through ``Tool.execute`` as an agent
would: the registry and schema contract, outputs and projections, guards and their messages, the
order of effects (partial writes), audit entries, paging, and read-only tools leaving the world
byte-identical."""

from __future__ import annotations

import pytest

from silo_gym import canonical

from . import World, load_project, submodule


@pytest.fixture(scope="module")
def env():
    return load_project()


@pytest.fixture
def w(env) -> World:
    return World(env)


TOOL_NAMES = [
    "get_current_date",
    "list_members", "search_members", "get_member", "create_member", "update_member", "deactivate_member",
    "reactivate_member", "list_teams", "get_team", "create_team", "reassign_team_lead",
    "list_projects", "search_projects", "get_project", "create_project", "update_project", "close_project",
    "reassign_project_lead", "get_project_lead",
    "list_sprints", "get_sprint", "create_sprint", "start_sprint", "complete_sprint",
    "list_workflow_states", "list_work_items", "search_work_items", "get_work_item", "create_work_item",
    "update_work_item", "assign_work_item", "unassign_work_item", "set_work_item_status",
    "add_work_item_dependency", "remove_work_item_dependency", "add_comment", "list_comments",
    "move_work_item_to_sprint", "remove_work_item_from_sprint", "set_work_item_due_date",
    "log_time", "list_time_logs", "update_time_log", "member_time_summary", "work_item_time_summary",
    "sprint_burndown", "member_load", "blocked_items", "overdue_items", "velocity_report", "project_time_report",
    "workload_forecast", "member_capacity_check",
]
MUTATING = {
    "create_member", "update_member", "deactivate_member", "reactivate_member", "create_team", "reassign_team_lead",
    "create_project", "update_project", "close_project", "reassign_project_lead", "create_sprint", "start_sprint",
    "complete_sprint", "create_work_item", "update_work_item", "assign_work_item", "unassign_work_item",
    "set_work_item_status", "add_work_item_dependency", "remove_work_item_dependency", "add_comment",
    "move_work_item_to_sprint", "remove_work_item_from_sprint", "set_work_item_due_date", "log_time",
    "update_time_log",
}
PAGED = {"list_members", "search_members", "list_teams", "list_projects", "search_projects", "list_sprints",
         "list_work_items", "search_work_items", "list_time_logs"}

# ---------------------------------------------------------------------------------------------
# Registry and schemas


def test_registry_order_and_counts(env):
    names = [t.name for t in env.bind_tools(env.create_state())]
    assert names == TOOL_NAMES and len(names) == 54 and len(set(names)) == 54
    assert len(MUTATING) == 26


def test_schema_shape_and_property_order(env):
    for tool in env.bind_tools(env.create_state()):
        schema = tool.input_schema
        assert list(schema) == ["type", "properties", "required", "additionalProperties"], tool.name
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        props = list(schema["properties"])
        assert schema["required"] == [p for p in props if p in schema["required"]], tool.name
        for name, prop in schema["properties"].items():
            order = [k for k in ("type", "enum", "description", "minimum", "maximum", "default") if k in prop]
            assert list(prop) == order, (tool.name, name)
            assert prop["description"].strip(), (tool.name, name)
            if prop["type"] == "boolean":
                assert prop["default"] is False, (tool.name, name)
        if tool.name in MUTATING:
            assert props[-1] == "actorMemberId" and "actorMemberId" in schema["required"], tool.name
        else:
            assert "actorMemberId" not in props, tool.name
        if tool.name in PAGED:
            assert props[-2:] == ["limit", "offset"], tool.name
            assert schema["properties"]["limit"] == {
                "type": "integer", "description": schema["properties"]["limit"]["description"], "minimum": 1,
                "maximum": 500, "default": 50}
        assert len(tool.description) > 40, tool.name


def test_date_properties_name_the_format(env):
    tool = {t.name: t for t in env.bind_tools(env.create_state())}
    for name, field in (("create_sprint", "startDate"), ("log_time", "date"), ("list_time_logs", "from"),
                        ("update_project", "targetDate")):
        assert "YYYY-MM-DD" in tool[name].input_schema["properties"][field]["description"]
    assert "enum" not in tool["set_work_item_status"].input_schema["properties"]["status"]
    assert tool["log_time"].input_schema["properties"]["hours"]["minimum"] == 0.1
    assert tool["log_time"].input_schema["properties"]["hours"]["maximum"] == 24


READ_CALLS = [
    ("get_current_date", {}), ("list_members", {"activeOnly": True}), ("search_members", {"query": "an"}),
    ("get_member", {"memberId": "MEM-003"}), ("list_teams", {}), ("get_team", {"teamId": "TEAM-002"}),
    ("list_projects", {}), ("search_projects", {"query": "a"}), ("get_project", {"projectId": "PROJ-001"}),
    ("get_project_lead", {"projectId": "PROJ-003"}), ("list_sprints", {}), ("get_sprint", {"sprintId": "SPR-002"}),
    ("list_workflow_states", {}), ("list_work_items", {"blockedOnly": True}), ("search_work_items", {"query": "e"}),
    ("get_work_item", {"workItemId": "WI-004"}), ("list_comments", {"workItemId": "WI-006"}),
    ("list_time_logs", {"memberId": "MEM-002"}), ("member_time_summary", {"memberId": "MEM-003"}),
    ("work_item_time_summary", {"workItemId": "WI-002"}), ("sprint_burndown", {"sprintId": "SPR-002"}),
    ("member_load", {}), ("blocked_items", {}), ("overdue_items", {}), ("velocity_report", {}),
    ("project_time_report", {"projectId": "PROJ-002"}), ("workload_forecast", {}),
    ("member_capacity_check", {"memberId": "MEM-006", "additionalPoints": 16}),
]


def test_read_only_tools_leave_the_world_untouched(w):
    assert {name for name, _ in READ_CALLS} == set(TOOL_NAMES) - MUTATING
    before = canonical(w.state)
    for name, args in READ_CALLS:
        w.ok(name, args)
    assert canonical(w.state) == before


# ---------------------------------------------------------------------------------------------
# Reading: outputs and projections


def test_member_projections(w):
    page = w.ok("list_members", {"overCapacityOnly": True})
    assert page["total"] == 1 and page["results"][0] == {
        "id": "MEM-003", "name": "Carla Nunez", "email": "carla.nunez@example.com", "role": "engineer",
        "teamId": "TEAM-001", "teamName": "Platform", "weeklyCapacityPoints": 18, "assignedPoints": 21,
        "remainingCapacityPoints": -3, "overCapacity": True, "active": True}
    assert [m["id"] for m in w.ok("list_members", {"role": "lead"})["results"]] == ["MEM-001", "MEM-005"]
    assert [m["id"] for m in w.ok("list_members", {"teamId": "TEAM-002", "activeOnly": True})["results"]] == [
        "MEM-005", "MEM-006"]
    assert [m["id"] for m in w.ok("search_members", {"query": "DEVON"})["results"]] == ["MEM-004"]
    assert [m["id"] for m in w.ok("search_members", {"query": "example.com", "limit": 2, "offset": 6})["results"]] \
        == ["MEM-007", "MEM-008"]
    member = w.ok("get_member", {"memberId": "MEM-004"})
    assert member["openWorkItemCount"] == 3 and [i["id"] for i in member["workItems"]] == ["WI-014", "WI-015", "WI-016"]
    assert list(member)[-2:] == ["openWorkItemCount", "workItems"]
    assert w.ok("get_member", {"memberId": "MEM-007"})["teamName"] is None


def test_team_and_project_projections(w):
    assert w.ok("list_teams", {})["results"][1] == {"id": "TEAM-002", "name": "Mobile", "leadId": "MEM-005",
                                                   "leadName": "Elena Petrov", "memberCount": 3}
    team = w.ok("get_team", {"teamId": "TEAM-001"})
    assert [m["id"] for m in team["members"]] == ["MEM-001", "MEM-002", "MEM-003", "MEM-008"]
    assert w.ok("list_projects", {"status": "active", "leadId": "MEM-007"})["results"] == [{
        "id": "PROJ-003", "name": "Ledger Data Migration", "key": "LED", "status": "active", "leadId": "MEM-007",
        "leadName": "Grace Kim", "startDate": "2025-09-01", "targetDate": "2026-03-31", "workItemCount": 3,
        "openWorkItemCount": 1, "openPoints": 3}]
    assert [p["key"] for p in w.ok("search_projects", {"query": "led"})["results"]] == ["LED"]
    project = w.ok("get_project", {"projectId": "PROJ-001"})
    assert (project["workItemCount"], project["openWorkItemCount"], project["openPoints"]) == (12, 10, 50)
    assert [s["id"] for s in project["sprints"]] == ["SPR-001", "SPR-002", "SPR-003"]
    assert len(project["workItems"]) == 12
    lead = w.ok("get_project_lead", {"projectId": "PROJ-002"})
    assert lead["projectId"] == "PROJ-002" and lead["lead"]["name"] == "Elena Petrov"


def test_sprint_projections(w):
    sprints = w.ok("list_sprints", {})["results"]
    assert [s["id"] for s in sprints] == ["SPR-001", "SPR-004", "SPR-002", "SPR-005", "SPR-003"]
    assert sprints[1] == {"id": "SPR-004", "name": "Nimbus Sprint 4", "projectId": "PROJ-002",
                          "projectName": "Nimbus Mobile App", "startDate": "2026-02-16", "endDate": "2026-03-01",
                          "status": "completed", "workItemCount": 3, "completedWorkItemCount": 2, "scopePoints": 10,
                          "completedPoints": 8, "daysRemaining": -15}
    assert [s["id"] for s in w.ok("list_sprints", {"projectId": "PROJ-001", "status": "active"})["results"]] == [
        "SPR-002"]
    sprint = w.ok("get_sprint", {"sprintId": "SPR-005"})
    assert sprint["remainingPoints"] == 21 and sprint["daysRemaining"] == -1
    assert [i["id"] for i in sprint["workItems"]] == ["WI-014", "WI-015", "WI-016", "WI-019"]


def test_work_item_projection(w):
    item = w.ok("get_work_item", {"workItemId": "WI-004"})
    assert list(item) == [
        "id", "title", "type", "status", "statusName", "done", "priority", "assigneeId", "assigneeName", "projectId",
        "projectKey", "sprintId", "sprintName", "estimatePoints", "createdDate", "statusEnteredDate", "daysInStatus",
        "dueDate", "overdue", "parentId", "dependsOn", "blocked", "unresolvedDependencies", "commentCount", "comments",
        "children", "hoursLogged", "timeLogs"]
    assert (item["statusName"], item["done"], item["projectKey"], item["sprintName"]) == (
        "In Progress", False, "ATL", "Atlas Sprint 12")
    assert (item["daysInStatus"], item["overdue"], item["blocked"], item["unresolvedDependencies"]) == (
        11, True, True, ["WI-005"])
    assert item["comments"] == [{**w.state["workItems"]["WI-004"]["comments"][0], "authorName": "Carla Nunez"}]
    assert item["hoursLogged"] == 5 and [t["id"] for t in item["timeLogs"]] == ["TL-005"]
    epic = w.ok("get_work_item", {"workItemId": "WI-001"})
    assert epic["children"] == ["WI-002", "WI-003", "WI-004", "WI-005", "WI-008", "WI-009"]
    assert epic["sprintName"] is None and epic["hoursLogged"] == 0
    # the projection copies dependsOn: changing the output never reaches the world
    item["dependsOn"].append("WI-999")
    assert w.state["workItems"]["WI-004"]["dependsOn"] == ["WI-005"]


def test_list_work_items_filters(w):
    def ids(args):
        return [i["id"] for i in w.ok("list_work_items", {**args, "limit": 500})["results"]]

    assert ids({"status": "WFS-001"}) == ["WI-008", "WI-009", "WI-020"]
    assert ids({"projectId": "PROJ-001", "status": "WFS-001", "unassigned": True}) == ["WI-008", "WI-009"]
    assert ids({"assigneeId": "MEM-004", "openOnly": True}) == ["WI-014", "WI-015", "WI-016"]
    assert ids({"blockedOnly": True}) == ["WI-004", "WI-006"]
    assert ids({"overdueOnly": True}) == ["WI-004", "WI-006", "WI-011", "WI-012", "WI-015", "WI-021"]
    assert ids({"type": "epic"}) == ["WI-001", "WI-013"] and ids({"priority": "urgent", "sprintId": "SPR-005"}) == [
        "WI-016"]
    assert ids({"status": "no-such-state"}) == [] and ids({"projectId": "PROJ-404"}) == []
    page = w.ok("list_work_items", {"limit": 5, "offset": 20})
    assert (page["total"], page["count"], page["offset"]) == (24, 4, 20)
    assert [i["id"] for i in w.ok("search_work_items", {"query": "LEDGER"})["results"]] == [
        "WI-022", "WI-023", "WI-024"]
    assert w.ok("search_work_items", {"query": "wi-02"})["total"] == 5


def test_reports(w):
    assert w.ok("sprint_burndown", {"sprintId": "SPR-004"}) == {
        "sprintId": "SPR-004", "name": "Nimbus Sprint 4", "projectId": "PROJ-002", "status": "completed",
        "startDate": "2026-02-16", "endDate": "2026-03-01", "daysRemaining": -15, "scopePoints": 10,
        "completedPoints": 8, "remainingPoints": 2, "percentComplete": 80,
        "remainingWorkItems": [{"id": "WI-021", "title": "Release notes for v1.9", "status": "WFS-002",
                                "statusName": "To Do", "assigneeId": "MEM-005", "estimatePoints": 2,
                                "blocked": False}]}
    assert w.ok("sprint_burndown", {"sprintId": "SPR-003"})["percentComplete"] is None
    load = w.ok("member_load", {"teamId": "TEAM-002", "activeOnly": True})
    assert (load["teamId"], load["activeOnly"]) == ("TEAM-002", True)
    assert [(r["memberId"], r["overCapacityBy"], r["utilisationPercent"]) for r in load["results"]] == [
        ("MEM-005", 0, 10), ("MEM-006", 0, 22.7)]
    blocked = w.ok("blocked_items", {})
    assert (blocked["count"], blocked["blockedPoints"]) == (2, 11)
    assert blocked["countByProject"] == [{"projectId": "PROJ-001", "projectName": "Atlas Billing Platform",
                                          "count": 2}]
    assert [(r["id"], r["daysInStatus"], r["blockedBy"]) for r in blocked["workItems"]] == [
        ("WI-004", 11, ["WI-005"]), ("WI-006", 7, ["WI-007"])]
    assert w.ok("blocked_items", {"projectId": "PROJ-002"})["count"] == 0
    overdue = w.ok("overdue_items", {})
    assert (overdue["count"], overdue["overduePoints"]) == (6, 26)
    assert [(r["id"], r["daysOverdue"]) for r in overdue["workItems"]] == [
        ("WI-021", 14), ("WI-006", 6), ("WI-011", 5), ("WI-015", 4), ("WI-004", 3), ("WI-012", 2)]
    assert overdue["countByAssignee"][0] == {"memberId": "MEM-003", "name": "Carla Nunez", "active": True, "count": 3}
    active = w.ok("overdue_items", {"activeAssigneesOnly": True})
    assert (active["count"], active["overduePoints"], active["activeAssigneesOnly"]) == (5, 21, True)
    velocity = w.ok("velocity_report", {})
    assert velocity["averageDeliveredPoints"] == 7.5 and velocity["count"] == 5
    assert [(r["sprintId"], r["deliveredPoints"], r["carriedOverPoints"]) for r in velocity["sprints"]] == [
        ("SPR-001", 7, 0), ("SPR-004", 8, 2), ("SPR-002", 0, 37), ("SPR-005", 0, 21), ("SPR-003", 0, 0)]
    done_only = w.ok("velocity_report", {"completedOnly": True, "projectId": "PROJ-002"})
    assert [r["carriedOverWorkItemIds"] for r in done_only["sprints"]] == [["WI-021"]]
    assert w.ok("velocity_report", {"projectId": "PROJ-003"})["averageDeliveredPoints"] is None
    hours = w.ok("project_time_report", {"projectId": "PROJ-001"})
    assert hours["totalHours"] == 44 and hours["byMember"] == [
        {"memberId": "MEM-002", "name": "Brian Osei", "hours": 21},
        {"memberId": "MEM-003", "name": "Carla Nunez", "hours": 17.5},
        {"memberId": "MEM-008", "name": "Hassan Ali", "hours": 5.5}]
    assert [r["workItemId"] for r in hours["byWorkItem"]] == ["WI-002", "WI-003", "WI-004", "WI-005", "WI-006",
                                                               "WI-007", "WI-010", "WI-011"]
    forecast = w.ok("workload_forecast", {})["results"]
    assert [tuple(r.values())[3:] for r in forecast] == [(10, 50, 11, 19, 13, 0), (7, 25, 0, 7, 2, 16),
                                                         (1, 3, 0, 0, 0, 0)]
    assert w.ok("member_capacity_check", {"memberId": "MEM-006", "additionalPoints": 17}) == {
        "memberId": "MEM-006", "name": "Farid Haddad", "active": True, "weeklyCapacityPoints": 22,
        "assignedPoints": 5, "additionalPoints": 17, "wouldFit": True, "remainingCapacityPoints": 17}
    assert w.ok("member_capacity_check", {"memberId": "MEM-004", "additionalPoints": 0})["wouldFit"] is False


def test_time_reads(w):
    logs = w.ok("list_time_logs", {"workItemId": "WI-002", "limit": 1})
    assert (logs["total"], logs["count"], logs["totalHours"]) == (2, 1, 10.5)
    assert list(logs) == ["total", "count", "offset", "results", "totalHours"]
    assert w.ok("list_time_logs", {"from": "2026-03-09", "to": "2026-03-10"})["totalHours"] == 14
    assert w.ok("member_time_summary", {"memberId": "MEM-002"})["byWorkItem"][0] == {
        "workItemId": "WI-002", "title": "Invoice PDF renderer", "hours": 10.5}
    assert w.ok("work_item_time_summary", {"workItemId": "WI-003"}) == {
        "workItemId": "WI-003", "title": "Tax rules engine", "totalHours": 10.5,
        "byMember": [{"memberId": "MEM-002", "name": "Brian Osei", "hours": 10.5}]}
    assert w.err("list_time_logs", {"memberId": "MEM-404"})["message"] == 'Member "MEM-404" was not found.'
    assert w.err("list_time_logs", {"to": "2026-02-30", "memberId": "MEM-404"})["message"] == (
        '"to" must be a date in YYYY-MM-DD format.')


# ---------------------------------------------------------------------------------------------
# Guards, messages and the order of effects


def test_actor_guard(w):
    args = {"workItemId": "WI-008", "body": "x"}
    assert w.err("add_comment", args)["message"] == 'Invalid arguments for "add_comment": "actorMemberId" is required.'
    assert w.err("add_comment", {**args, "actorMemberId": "   "})["message"] == (
        '"actorMemberId" must be a non-empty string.')
    assert w.err("add_comment", {**args, "actorMemberId": "MEM-404"}) == {
        "code": "not_found", "message": 'Member "MEM-404" was not found.'}
    assert w.err("add_comment", {**args, "actorMemberId": "MEM-004"}) == {
        "code": "not_allowed", "message": 'Member "MEM-004" (Devon Ito) is deactivated and cannot act.'}
    assert w.state["sequences"]["CMT"] == 3 and len(w.state["auditLog"]) == 2


def test_assign_guards_and_effect(w):
    base = {"actorMemberId": "MEM-001"}
    assert w.err("assign_work_item", {"workItemId": "WI-002", "assigneeId": "MEM-003", **base})["message"] == (
        "WI-002 is done and no longer needs an assignee.")
    assert w.err("assign_work_item", {"workItemId": "WI-008", "assigneeId": "MEM-004", **base})["message"] == (
        'Member "MEM-004" (Devon Ito) is deactivated and cannot be assigned work.')
    assert w.err("assign_work_item", {"workItemId": "WI-007", "assigneeId": "MEM-008", **base})["message"] == (
        "WI-007 is already assigned to MEM-008.")
    assert w.err("assign_work_item", {"workItemId": "WI-008", "assigneeId": "MEM-003", **base}) == {
        "code": "not_allowed",
        "message": "Carla Nunez (MEM-003) is committed to 21 of 18 points; adding 8 more would over-commit them by 11.",
        "details": {"memberId": "MEM-003", "currentLoad": 21, "weeklyCapacityPoints": 18, "additionalPoints": 8}}
    out = w.ok("assign_work_item", {"workItemId": "WI-008", "assigneeId": "MEM-002", **base})
    assert out["updated"]["assigneeId"] == "MEM-002" and out["updated"]["assigneeName"] == "Brian Osei"
    assert w.state["auditLog"][-1] == {"id": "AUD-0003", "at": "2026-03-16", "actorMemberId": "MEM-001",
                                       "action": "assign_work_item", "entityType": "work_item",
                                       "entityId": "WI-008", "detail": "Assigned WI-008 from nobody to MEM-002."}
    w.ok("assign_work_item", {"workItemId": "WI-016", "assigneeId": "MEM-006", **base})
    assert w.state["auditLog"][-1]["detail"] == "Assigned WI-016 from MEM-004 to MEM-006."


def test_status_guards_and_effect(w):
    base = {"actorMemberId": "MEM-001"}
    assert w.err("set_work_item_status", {"workItemId": "WI-004", "status": "WFS-009", **base})["message"] == (
        'Workflow state "WFS-009" was not found.')
    assert w.err("set_work_item_status", {"workItemId": "WI-004", "status": "WFS-003", **base}) == {
        "code": "conflict", "message": "WI-004 is already in In Progress."}
    w.state["workItems"]["WI-004"]["dependsOn"].append("WI-011")
    assert w.err("set_work_item_status", {"workItemId": "WI-004", "status": "WFS-006", **base}) == {
        "code": "not_allowed", "message": "WI-004 depends on WI-005, WI-011, which are not done yet.",
        "details": {"workItemId": "WI-004", "unresolved": ["WI-005", "WI-011"]}}
    # any other move is allowed, including into Blocked and reopening a done item
    out = w.ok("set_work_item_status", {"workItemId": "WI-004", "status": "WFS-004", **base})["updated"]
    assert (out["status"], out["statusEnteredDate"], out["daysInStatus"]) == ("WFS-004", "2026-03-16", 0)
    w.ok("set_work_item_status", {"workItemId": "WI-002", "status": "WFS-002", **base})
    assert w.state["auditLog"][-1]["detail"] == "Moved WI-002 from WFS-006 to WFS-002."
    # reopening WI-002 holds up WI-003 again
    assert w.err("set_work_item_status", {"workItemId": "WI-003", "status": "WFS-006", **base})["details"] == {
        "workItemId": "WI-003", "unresolved": ["WI-002"]}


def test_dependency_tools(w):
    base = {"actorMemberId": "MEM-001"}
    assert w.err("add_work_item_dependency", {"workItemId": "WI-009", "dependsOnId": "WI-009", **base})[
        "message"] == "A work item cannot depend on itself."
    assert w.err("add_work_item_dependency", {"workItemId": "WI-004", "dependsOnId": "WI-005", **base})[
        "message"] == "WI-004 already depends on WI-005."
    assert w.err("add_work_item_dependency", {"workItemId": "WI-005", "dependsOnId": "WI-004", **base}) == {
        "code": "not_allowed", "message": "WI-004 already depends on WI-005; this would create a cycle."}
    assert w.err("add_work_item_dependency", {"workItemId": "WI-404", "dependsOnId": "WI-004", **base})[
        "code"] == "not_found"
    out = w.ok("add_work_item_dependency", {"workItemId": "WI-009", "dependsOnId": "WI-008", **base})
    assert out["updated"]["dependsOn"] == ["WI-008"] and out["updated"]["blocked"] is True
    assert w.state["auditLog"][-1]["detail"] == "WI-009 now depends on WI-008."
    assert w.err("remove_work_item_dependency", {"workItemId": "WI-009", "dependsOnId": "WI-404", **base}) == {
        "code": "not_found", "message": "WI-009 does not depend on WI-404."}
    assert w.ok("remove_work_item_dependency", {"workItemId": "WI-009", "dependsOnId": "WI-008", **base})[
        "updated"]["dependsOn"] == []


def test_comments(w):
    out = w.ok("add_comment", {"workItemId": "WI-002", "body": "  Shipped.  ", "actorMemberId": "MEM-002"})
    assert out == {"workItemId": "WI-002", "created": {"id": "CMT-004", "authorId": "MEM-002", "body": "Shipped.",
                                                        "createdDate": "2026-03-16"}, "commentCount": 1}
    assert w.state["auditLog"][-1]["detail"] == "Commented on WI-002." and w.state["auditLog"][-1]["entityType"] \
        == "work_item"
    listed = w.ok("list_comments", {"workItemId": "WI-002"})
    assert listed["count"] == 1 and listed["results"][0]["authorName"] == "Brian Osei"
    # the id is drawn before the body is read: a blank body burns CMT-005 and stores nothing
    assert w.err("add_comment", {"workItemId": "WI-002", "body": " ", "actorMemberId": "MEM-002"})["message"] == (
        '"body" must be a non-empty string.')
    assert w.state["sequences"]["CMT"] == 5 and len(w.state["workItems"]["WI-002"]["comments"]) == 1
    assert w.ok("add_comment", {"workItemId": "WI-002", "body": "x", "actorMemberId": "MEM-002"})["created"]["id"] \
        == "CMT-006"


def test_sprint_tools(w):
    base = {"actorMemberId": "MEM-001"}
    assert w.err("start_sprint", {"sprintId": "SPR-003", **base}) == {
        "code": "not_allowed", "message": "Sprint SPR-002 (Atlas Sprint 12) is still running on PROJ-001; complete it "
        "first.", "details": {"activeSprintId": "SPR-002"}}
    assert w.err("start_sprint", {"sprintId": "SPR-002", **base})["message"] == (
        "Sprint SPR-002 is active; only a planned sprint can be started.")
    assert w.err("complete_sprint", {"sprintId": "SPR-003", **base}) == {
        "code": "invalid_state", "message": "Sprint SPR-003 is planned; only a running sprint can be completed."}
    done = w.ok("complete_sprint", {"sprintId": "SPR-002", **base})
    assert done["updated"]["status"] == "completed" and done["carriedOver"] == [
        "WI-003", "WI-004", "WI-005", "WI-006", "WI-007", "WI-011", "WI-012"]
    assert w.state["auditLog"][-1]["detail"] == "Completed Atlas Sprint 12 with 7 item(s) unfinished."
    assert w.state["workItems"]["WI-004"]["sprintId"] == "SPR-002"
    assert w.ok("start_sprint", {"sprintId": "SPR-003", **base})["updated"]["status"] == "active"
    assert w.state["auditLog"][-1]["detail"] == "Started Atlas Sprint 13."
    assert w.err("create_sprint", {"name": "S", "projectId": "PROJ-002", "startDate": "2026-03-20",
                                   "endDate": "2026-03-19", **base})["message"] == "A sprint cannot end before it starts."
    created = w.ok("create_sprint", {"name": "Nimbus Sprint 6", "projectId": "PROJ-002", "startDate": "2026-03-16",
                                     "endDate": "2026-03-29", **base})["created"]
    assert (created["id"], created["status"], created["daysRemaining"]) == ("SPR-006", "planned", 13)
    assert list(w.state["sprints"]["SPR-006"]) == ["id", "name", "projectId", "startDate", "endDate", "status"]


def test_move_to_sprint(w):
    base = {"actorMemberId": "MEM-001"}
    assert w.err("move_work_item_to_sprint", {"workItemId": "WI-020", "sprintId": "SPR-003", **base})["message"] \
        == "Sprint SPR-003 belongs to PROJ-001, but WI-020 belongs to PROJ-002."
    assert w.err("move_work_item_to_sprint", {"workItemId": "WI-008", "sprintId": "SPR-001", **base})["message"] \
        == "Sprint SPR-001 is completed and cannot take new work."
    w.ok("move_work_item_to_sprint", {"workItemId": "WI-008", "sprintId": "SPR-003", **base})
    assert w.state["auditLog"][-1]["detail"] == "Moved WI-008 from the backlog to SPR-003."
    w.ok("move_work_item_to_sprint", {"workItemId": "WI-008", "sprintId": "SPR-002", **base})
    assert w.state["auditLog"][-1]["detail"] == "Moved WI-008 from SPR-003 to SPR-002."
    assert w.state["workItems"]["WI-008"]["status"] == "WFS-001"
    w.ok("remove_work_item_from_sprint", {"workItemId": "WI-008", **base})
    assert w.state["auditLog"][-1]["detail"] == "Removed WI-008 from SPR-002."
    assert w.err("remove_work_item_from_sprint", {"workItemId": "WI-008", **base})["message"] == (
        "WI-008 is not in a sprint.")


def test_due_dates_and_unassign(w):
    base = {"actorMemberId": "MEM-001"}
    assert w.err("set_work_item_due_date", {"workItemId": "WI-009", **base})["message"] == (
        '"dueDate" must be a non-empty string.')
    assert w.err("set_work_item_due_date", {"workItemId": "WI-009", "dueDate": "2026-02-30", **base}) == {
        "code": "invalid_input", "message": '"dueDate" must be a date in YYYY-MM-DD format.',
        "details": {"received": "2026-02-30"}}
    assert w.ok("set_work_item_due_date", {"workItemId": "WI-009", "dueDate": "2026-03-01", **base})["updated"][
        "overdue"] is True
    w.ok("set_work_item_due_date", {"workItemId": "WI-009", "clear": True, "dueDate": "2026-04-01", **base})
    assert w.state["workItems"]["WI-009"]["dueDate"] is None
    assert w.state["auditLog"][-1]["detail"] == "Due date for WI-009 set to none."
    assert w.err("unassign_work_item", {"workItemId": "WI-009", **base})["message"] == "WI-009 has no assignee."
    w.ok("unassign_work_item", {"workItemId": "WI-002", **base})
    assert w.state["auditLog"][-1]["detail"] == "Unassigned WI-002 from MEM-002."


def test_create_work_item(w):
    base = {"actorMemberId": "MEM-001"}
    out = w.ok("create_work_item", {"title": "Refund API", "type": "story", "projectId": "PROJ-001",
                                    "estimatePoints": 3, "assigneeId": "MEM-002", "sprintId": "SPR-003",
                                    "parentId": "WI-001", **base})["created"]
    assert (out["id"], out["status"], out["priority"], out["createdDate"]) == ("WI-025", "WFS-001", "medium",
                                                                               "2026-03-16")
    assert list(w.state["workItems"]["WI-025"]) == list(w.state["workItems"]["WI-001"])
    assert w.state["auditLog"][-1]["detail"] == "Created Refund API."
    assert w.err("create_work_item", {"title": "x", "type": "bug", "projectId": "PROJ-002", "estimatePoints": 1,
                                      "sprintId": "SPR-003", **base})["message"] == (
        "Sprint SPR-003 belongs to PROJ-001, not to PROJ-002.")
    assert w.err("create_work_item", {"title": "x", "type": "bug", "projectId": "PROJ-001", "estimatePoints": 9,
                                      "assigneeId": "MEM-003", **base})["code"] == "not_allowed"
    # a done start state skips the capacity check
    assert w.ok("create_work_item", {"title": "Old fix", "type": "bug", "projectId": "PROJ-001", "estimatePoints": 9,
                                     "assigneeId": "MEM-003", "status": "WFS-006", **base})["created"]["done"] is True
    # checks come before the id is drawn; the title is read after
    seq = w.state["sequences"]["WI"]
    assert w.err("create_work_item", {"title": "x", "type": "bug", "projectId": "PROJ-001", "estimatePoints": 1,
                                      "parentId": "WI-404", **base})["code"] == "not_found"
    assert w.state["sequences"]["WI"] == seq
    assert w.err("create_work_item", {"title": "  ", "type": "bug", "projectId": "PROJ-001", "estimatePoints": 1,
                                      **base})["message"] == '"title" must be a non-empty string.'
    assert w.state["sequences"]["WI"] == seq + 1 and f"WI-{seq + 1:03d}" not in w.state["workItems"]


def test_update_work_item_partial_writes(w):
    base = {"actorMemberId": "MEM-001"}
    # the title, type, priority and due date are written before the capacity check refuses
    out = w.err("update_work_item", {"workItemId": "WI-012", "title": "Drift", "priority": "low",
                                     "dueDate": "2026-04-01", "estimatePoints": 5, **base})
    assert out["code"] == "not_allowed" and out["details"]["additionalPoints"] == 2
    item = w.state["workItems"]["WI-012"]
    assert (item["title"], item["priority"], item["dueDate"], item["estimatePoints"]) == (
        "Drift", "low", "2026-04-01", 3)
    assert len(w.state["auditLog"]) == 2
    assert w.err("update_work_item", {"workItemId": "WI-012", "parentId": "WI-012", **base})["message"] == (
        "A work item cannot be its own parent.")
    # a lower estimate, or any estimate of an unassigned item, passes
    assert w.ok("update_work_item", {"workItemId": "WI-008", "estimatePoints": 13, **base})["updated"][
        "estimatePoints"] == 13
    assert w.state["auditLog"][-1]["detail"] == "Updated Usage metering."


def test_member_tools(w):
    base = {"actorMemberId": "MEM-007"}
    created = w.ok("create_member", {"name": "Iris Novak", "email": "iris.novak@example.com", "role": "engineer",
                                     "weeklyCapacityPoints": 20, "teamId": "TEAM-002", **base})["created"]
    assert (created["id"], created["teamName"], created["active"]) == ("MEM-009", "Mobile", True)
    assert w.state["auditLog"][-1]["detail"] == "Added Iris Novak."
    assert w.err("create_member", {"name": "X", "email": "x", "role": "lead", "weeklyCapacityPoints": 1,
                                   "teamId": "TEAM-404", **base})["message"] == 'Team "TEAM-404" was not found.'
    assert w.state["sequences"]["MEM"] == 9
    # update_member writes role and capacity before it looks up the team
    assert w.err("update_member", {"memberId": "MEM-002", "role": "lead", "weeklyCapacityPoints": 30,
                                   "teamId": "TEAM-404", **base})["code"] == "not_found"
    assert (w.state["members"]["MEM-002"]["role"], w.state["members"]["MEM-002"]["weeklyCapacityPoints"]) == (
        "lead", 30)
    assert len(w.state["auditLog"]) == 3
    out = w.ok("deactivate_member", {"memberId": "MEM-003", **base})
    assert out["openWorkItemIds"] == ["WI-004", "WI-005", "WI-011", "WI-012"]
    assert w.state["auditLog"][-1]["detail"] == "Deactivated Carla Nunez with 4 open item(s) still assigned."
    assert w.err("deactivate_member", {"memberId": "MEM-003", **base}) == {
        "code": "conflict", "message": "MEM-003 (Carla Nunez) is already deactivated."}
    assert w.err("reactivate_member", {"memberId": "MEM-002", **base})["message"] == (
        "MEM-002 (Brian Osei) is already active.")
    w.ok("reactivate_member", {"memberId": "MEM-004", **base})
    assert w.state["members"]["MEM-004"]["active"] is True


def test_team_and_project_tools(w):
    base = {"actorMemberId": "MEM-007"}
    assert w.ok("create_team", {"name": "Data", **base})["created"] == {
        "id": "TEAM-003", "name": "Data", "leadId": None, "leadName": None, "memberCount": 0}
    assert w.err("reassign_team_lead", {"teamId": "TEAM-001", "newLeadId": "MEM-001", **base})["message"] == (
        "TEAM-001 is already led by MEM-001 (Alice Chen).")
    w.ok("reassign_team_lead", {"teamId": "TEAM-003", "newLeadId": "MEM-002", **base})
    assert w.state["auditLog"][-1]["detail"] == "Lead changed from nobody to MEM-002."
    assert w.err("create_project", {"name": "N", "key": "atl", "leadId": "MEM-002", "startDate": "2026-03-16",
                                    "targetDate": "2026-04-01", **base})["message"] == (
        'A project with key "ATL" already exists.')
    created = w.ok("create_project", {"name": "Orion", "key": "orn", "leadId": "MEM-002", "startDate": "2026-03-16",
                                      "targetDate": "2026-04-01", **base})["created"]
    assert (created["id"], created["key"], created["status"]) == ("PROJ-004", "ORN", "active")
    # update_project writes the name before the target date is checked
    assert w.err("update_project", {"projectId": "PROJ-004", "name": "Orion Two", "targetDate": "soon", **base})[
        "message"] == '"targetDate" must be a date in YYYY-MM-DD format.'
    assert w.state["projects"]["PROJ-004"]["name"] == "Orion Two"
    assert w.err("close_project", {"projectId": "PROJ-003", **base}) == {
        "code": "not_allowed", "message": "Project PROJ-003 still has 1 unfinished work item(s): WI-024.",
        "details": {"projectId": "PROJ-003", "openWorkItemIds": ["WI-024"]}}
    w.ok("set_work_item_status", {"workItemId": "WI-024", "status": "WFS-006", **base})
    assert w.ok("close_project", {"projectId": "PROJ-003", **base})["updated"]["status"] == "completed"
    assert w.err("close_project", {"projectId": "PROJ-003", **base})["message"] == (
        "Project PROJ-003 is already completed.")
    assert w.err("update_project", {"projectId": "PROJ-003", "status": "active", **base})["message"] == (
        "Project PROJ-003 is completed and can no longer be changed.")
    assert w.err("create_work_item", {"title": "x", "type": "task", "projectId": "PROJ-003", "estimatePoints": 1,
                                      **base})["message"] == "Project PROJ-003 is completed; no new work can be added to it."
    w.ok("reassign_project_lead", {"projectId": "PROJ-003", "newLeadId": "MEM-001", **base})
    assert w.state["auditLog"][-1]["detail"] == "Lead changed from MEM-007 to MEM-001."


def test_time_writes(w):
    base = {"actorMemberId": "MEM-001"}
    out = w.ok("log_time", {"workItemId": "WI-005", "memberId": "MEM-004", "hours": 2.5, **base})
    assert out == {"created": {"id": "TL-020", "workItemId": "WI-005", "workItemTitle": "Retry queue infrastructure",
                               "memberId": "MEM-004", "memberName": "Devon Ito", "date": "2026-03-16", "hours": 2.5},
                   "hoursOnWorkItem": 8.5}
    assert w.state["auditLog"][-1] == {"id": "AUD-0003", "at": "2026-03-16", "actorMemberId": "MEM-001",
                                       "action": "log_time", "entityType": "time_log", "entityId": "TL-020",
                                       "detail": "Devon Ito logged 2.5h on WI-005."}
    assert w.err("log_time", {"workItemId": "WI-002", "memberId": "MEM-002", "hours": 1, **base})["message"] == (
        "WI-002 is done; time cannot be logged against it.")
    assert w.err("log_time", {"workItemId": "WI-005", "memberId": "MEM-002", "hours": 25, **base})["message"] == (
        'Invalid arguments for "log_time": "hours" must be at most 24.')
    # the id is drawn before the date is read
    assert w.err("log_time", {"workItemId": "WI-005", "memberId": "MEM-002", "hours": 1, "date": "3/1", **base})[
        "code"] == "invalid_input"
    assert w.state["sequences"]["TL"] == 21 and "TL-021" not in w.state["timeLogs"]
    # update_time_log writes the hours before a bad date is refused
    assert w.err("update_time_log", {"timeLogId": "TL-001", "hours": 7, "date": "2026-13-01", **base})["code"] == (
        "invalid_input")
    assert w.state["timeLogs"]["TL-001"]["hours"] == 7
    w.ok("update_time_log", {"timeLogId": "TL-001", "date": "2026-02-23", **base})
    assert w.state["auditLog"][-1]["detail"] == "Corrected TL-001 to 7h on 2026-02-23."
    assert w.err("update_time_log", {"timeLogId": "TL-404", **base}) == {
        "code": "not_found", "message": 'Time log "TL-404" was not found.'}


def test_schema_stops_ranges_types_and_enums_before_run(w):
    assert w.err("member_capacity_check", {"memberId": "MEM-006", "additionalPoints": -1})["message"] == (
        'Invalid arguments for "member_capacity_check": "additionalPoints" must be at least 0.')
    assert w.err("list_members", {"role": "boss"})["message"].startswith(
        'Invalid arguments for "list_members": "role" must be one of: engineer, lead, manager')
    assert w.err("list_work_items", {"limit": 501})["message"].endswith('"limit" must be at most 500.')
    assert w.err("list_work_items", {"openOnly": "yes"})["message"].endswith(
        '"openOnly" must be boolean, received string.')


def test_reader_messages(env):
    contract = submodule(env, "tools.contract")
    from silo_gym import ToolError

    def message(fn, *args):
        with pytest.raises(ToolError) as info:
            fn(*args)
        return info.value.message, info.value.details

    assert message(contract.read_number, {"n": True}, "n") == ('"n" must be a number.', None)
    assert message(contract.read_number, {"n": 1.5}, "n", True) == ('"n" must be a whole number.', None)
    assert message(contract.read_number, {"n": 0.05}, "n", False, 0.1) == ('"n" must be at least 0.1.', None)
    assert message(contract.read_boolean, {"b": 1}, "b") == ('"b" must be true or false.', None)
    assert message(contract.read_enum, {"e": " x "}, "e", ("a", "b")) == ('"e" must be one of: a, b.',
                                                                          {"received": "x"})
    assert message(contract.read_date, {"d": ""}, "d") == ('"d" must be a non-empty string.', None)
    assert contract.read_date({"d": "2024-02-29"}, "d") == "2024-02-29"
    assert contract.read_number({"n": 5.0}, "n", True) == 5 and type(contract.read_number({"n": 5.0}, "n", True)) is int
    assert contract.paginate([1, 2, 3], {"limit": 2, "offset": 2}) == {"total": 3, "count": 1, "offset": 2,
                                                                        "results": [3]}


def test_every_mutation_writes_one_audit_entry_named_after_the_tool(w):
    calls = [
        ("update_member", {"memberId": "MEM-002", "weeklyCapacityPoints": 26}),
        ("create_team", {"name": "Ops"}),
        ("update_project", {"projectId": "PROJ-002", "status": "on_hold"}),
        ("create_work_item", {"title": "T", "type": "task", "projectId": "PROJ-002", "estimatePoints": 1}),
        ("set_work_item_due_date", {"workItemId": "WI-020", "dueDate": "2026-04-01"}),
        ("log_time", {"workItemId": "WI-020", "memberId": "MEM-006", "hours": 1}),
    ]
    for i, (name, args) in enumerate(calls, start=3):
        w.ok(name, {**args, "actorMemberId": "MEM-005"})
        entry = w.state["auditLog"][-1]
        assert (entry["id"], entry["action"], entry["actorMemberId"]) == (f"AUD-{i:04d}", name, "MEM-005")
    assert w.state["sequences"]["AUD"] == len(w.state["auditLog"]) == 8
