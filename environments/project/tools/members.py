"""Member and team tools (project-world.md §7, tools 2-12): who works here, their capacity and teams."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import (
    MEMBERS,
    TEAMS,
    State,
    is_done,
    load_for,
    members_for_team,
    next_id,
    work_items_for_assignee,
)
from .contract import C, actor_prop, schema
from .helpers import (
    actor,
    assert_assignable,
    audit,
    member_summary,
    team_summary,
    work_item_summary,
)

ROLES = ("engineer", "lead", "manager")

Args = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Members


list_members = kit.list_tool(
    name="list_members",
    description=(
        "List the people in the tracker, sorted by id, one page at a time. Each entry gives id, name, "
        "email, role, team, weeklyCapacityPoints, assignedPoints (estimate points of the unfinished "
        "work items assigned to them), remainingCapacityPoints (capacity minus assigned; negative "
        "when over-committed), overCapacity and active. Deactivated members have left: they cannot "
        "act or take new work. Read-only."
    ),
    collection=MEMBERS,
    summary=member_summary,
    filters={
        "role": kit.Filter(kit.Enum(ROLES, "Only members with this role."), field="role"),
        "teamId": kit.Filter(kit.String("Only members of this team id (for example TEAM-001)."), link="teamId"),
        "activeOnly": kit.Filter(kit.Boolean("When true, leave out deactivated members."), field="active"),
        "overCapacityOnly": kit.Filter(
            kit.Boolean("When true, only members whose assigned points exceed their weekly capacity."),
            test=lambda state, m, v: load_for(state, m["id"]) > m["weeklyCapacityPoints"],
        ),
    },
    contract=C,
)


search_members = kit.list_tool(
    name="search_members",
    description=(
        "Find members whose id, name or email contains the query text (case-insensitive). Returns a "
        "page of member entries, as list_members gives them, sorted by id. Read-only."
    ),
    collection=MEMBERS,
    summary=member_summary,
    filters={"query": kit.search_filter(
        "Text to look for, for example part of a person's name.", lambda s, m: (m["id"], m["name"], m["email"])
    )},
    contract=C,
)


def _get_member(state: State, args: Args) -> Any:
    member = MEMBERS.require(state, C.read_string(args, "memberId"))
    items = work_items_for_assignee(state, member["id"])
    out = member_summary(state, member)
    out["openWorkItemCount"] = sum(1 for i in items if not is_done(state, i))
    out["workItems"] = [work_item_summary(state, i) for i in items]
    return out


get_member = kit.read_tool(
    name="get_member",
    description=(
        "Get one member by id with their capacity figures, openWorkItemCount and every work item "
        "assigned to them (finished or not), sorted by id. Read-only."
    ),
    input_schema=schema(
        {"memberId": C.string_prop("The member's id, for example MEM-002.")}, required=["memberId"]
    ),
    run=_get_member,
)


def _create_member(state: State, args: Args) -> Any:
    acting = actor(state, args)
    team_id = C.read_optional_string(args, "teamId")
    if team_id is not None:
        TEAMS.require(state, team_id)
    member_id = next_id(state, "MEM")
    name = C.read_string(args, "name")
    email = C.read_string(args, "email")
    role = C.read_enum(args, "role", ROLES)
    capacity = C.read_number(args, "weeklyCapacityPoints", integer=True, minimum=0)
    member = {
        "id": member_id,
        "name": name,
        "email": email,
        "role": role,
        "teamId": team_id,
        "weeklyCapacityPoints": capacity,
        "active": True,
    }
    state["members"][member_id] = member
    audit(state, acting, "create_member", "member", member_id, f"Added {name}.")
    return {"created": member_summary(state, member)}


create_member = kit.write_tool(
    name="create_member",
    description=(
        "Add a new, active member. Give their name, email, role and weekly capacity in estimate "
        "points, and optionally the team they join (the team must exist). Returns the new member. "
        "Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {
            "name": C.string_prop("Full name, for example Jamie Rivera."),
            "email": C.string_prop("E-mail address."),
            "role": C.enum_prop(ROLES, "The member's role."),
            "weeklyCapacityPoints": C.integer_prop(
                "How many estimate points of work the member can carry at once.", minimum=0
            ),
            "teamId": C.string_prop("Team to join (for example TEAM-001); leave out for no team."),
            "actorMemberId": actor_prop(),
        },
        required=["name", "email", "role", "weeklyCapacityPoints", "actorMemberId"],
    ),
    run=_create_member,
)


def _update_member(state: State, args: Args) -> Any:
    acting = actor(state, args)
    member = MEMBERS.require(state, C.read_string(args, "memberId"))
    role = C.read_optional_enum(args, "role", ROLES)
    team_id = C.read_optional_string(args, "teamId")
    capacity = C.read_optional_number(args, "weeklyCapacityPoints", integer=True, minimum=0)
    if role is not None:
        member["role"] = role
    if capacity is not None:
        member["weeklyCapacityPoints"] = capacity
    if team_id is not None:
        TEAMS.require(state, team_id)  # refused after the writes above (§6.6)
        MEMBERS.set_link(state, member, "teamId", team_id)
    audit(state, acting, "update_member", "member", member["id"], f"Updated {member['name']}.")
    return {"updated": member_summary(state, member)}


update_member = kit.write_tool(
    name="update_member",
    description=(
        "Change a member's role, team or weekly capacity; leave out what should stay. Deactivated "
        "members can be updated too. The team must exist, and it is checked only after the role and "
        "capacity were written. Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {
            "memberId": C.string_prop("The member to change, for example MEM-002."),
            "role": C.enum_prop(ROLES, "New role."),
            "teamId": C.string_prop("New team id, for example TEAM-002."),
            "weeklyCapacityPoints": C.integer_prop("New weekly capacity in estimate points.", minimum=0),
            "actorMemberId": actor_prop(),
        },
        required=["memberId", "actorMemberId"],
    ),
    run=_update_member,
)


def _deactivate_member(state: State, args: Args) -> Any:
    acting = actor(state, args)
    member = MEMBERS.require(state, C.read_string(args, "memberId"))
    if not member["active"]:
        raise ToolError("conflict", f"{member['id']} ({member['name']}) is already deactivated.")
    member["active"] = False
    open_ids = [i["id"] for i in work_items_for_assignee(state, member["id"]) if not is_done(state, i)]
    audit(
        state,
        acting,
        "deactivate_member",
        "member",
        member["id"],
        f"Deactivated {member['name']} with {len(open_ids)} open item(s) still assigned.",
    )
    return {"updated": member_summary(state, member), "openWorkItemIds": open_ids}


deactivate_member = kit.write_tool(
    name="deactivate_member",
    description=(
        "Mark a member as having left. Their unfinished work stays assigned to them (reassign it "
        "separately); the result lists those work item ids. A member who is already deactivated is "
        "refused. Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {"memberId": C.string_prop("The member who left, for example MEM-002."), "actorMemberId": actor_prop()},
        required=["memberId", "actorMemberId"],
    ),
    run=_deactivate_member,
)


def _reactivate_member(state: State, args: Args) -> Any:
    acting = actor(state, args)
    member = MEMBERS.require(state, C.read_string(args, "memberId"))
    if member["active"]:
        raise ToolError("conflict", f"{member['id']} ({member['name']}) is already active.")
    member["active"] = True
    audit(state, acting, "reactivate_member", "member", member["id"], f"Reactivated {member['name']}.")
    return {"updated": member_summary(state, member)}


reactivate_member = kit.write_tool(
    name="reactivate_member",
    description=(
        "Bring a deactivated member back, so they can act and take work again. An active member is "
        "refused. Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {
            "memberId": C.string_prop("The member returning, for example MEM-002."),
            "actorMemberId": actor_prop(),
        },
        required=["memberId", "actorMemberId"],
    ),
    run=_reactivate_member,
)


# ---------------------------------------------------------------------------------------------
# Teams


list_teams = kit.list_tool(
    name="list_teams", description=(
        "List the teams, sorted by id, one page at a time, each with its id, name, lead (id and name) "
        "and memberCount (members of every status). Read-only."
    ), collection=TEAMS, summary=team_summary, contract=C
)


def _get_team(state: State, args: Args) -> Any:
    team = TEAMS.require(state, C.read_string(args, "teamId"))
    out = team_summary(state, team)
    out["members"] = [member_summary(state, m) for m in members_for_team(state, team["id"])]
    return out


get_team = kit.read_tool(
    name="get_team",
    description=(
        "Get one team by id with all of its members (active or not, sorted by id) and their capacity "
        "figures. Read-only."
    ),
    input_schema=schema({"teamId": C.string_prop("The team's id, for example TEAM-001.")}, required=["teamId"]),
    run=_get_team,
)


def _create_team(state: State, args: Args) -> Any:
    acting = actor(state, args)
    lead_id = C.read_optional_string(args, "leadId")
    if lead_id is not None:
        assert_assignable(state, lead_id)
    team_id = next_id(state, "TEAM")
    name = C.read_string(args, "name")
    team = {"id": team_id, "name": name, "leadId": lead_id}
    state["teams"][team_id] = team
    audit(state, acting, "create_team", "team", team_id, f"Created {name}.")
    return {"created": team_summary(state, team)}


create_team = kit.write_tool(
    name="create_team",
    description=(
        "Create a team with a name and, optionally, an active lead. The lead's own team is not "
        "changed. Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {
            "name": C.string_prop("The team's name."),
            "leadId": C.string_prop("An active member to lead it, for example MEM-001."),
            "actorMemberId": actor_prop(),
        },
        required=["name", "actorMemberId"],
    ),
    run=_create_team,
)


def _reassign_team_lead(state: State, args: Args) -> Any:
    acting = actor(state, args)
    team = TEAMS.require(state, C.read_string(args, "teamId"))
    new_lead = assert_assignable(state, C.read_string(args, "newLeadId"))
    if team["leadId"] == new_lead["id"]:
        raise ToolError("conflict", f"{team['id']} is already led by {new_lead['id']} ({new_lead['name']}).")
    previous = team["leadId"]
    team["leadId"] = new_lead["id"]
    audit(
        state,
        acting,
        "reassign_team_lead",
        "team",
        team["id"],
        f"Lead changed from {previous if previous is not None else 'nobody'} to {new_lead['id']}.",
    )
    return {"updated": team_summary(state, team)}


reassign_team_lead = kit.write_tool(
    name="reassign_team_lead",
    description=(
        "Make another active member the lead of a team. Naming the current lead is refused. "
        "Recorded in the audit log under actorMemberId."
    ),
    input_schema=schema(
        {
            "teamId": C.string_prop("The team, for example TEAM-001."),
            "newLeadId": C.string_prop("The active member who takes over, for example MEM-003."),
            "actorMemberId": actor_prop(),
        },
        required=["teamId", "newLeadId", "actorMemberId"],
    ),
    run=_reassign_team_lead,
)
