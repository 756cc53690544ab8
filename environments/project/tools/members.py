"""Member and team tools (project-world.md §7, tools 2-12): who works here, their capacity and teams."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import MEMBERS, TEAMS, State, is_done, load_for, members_for_team, work_items_for_assignee
from .contract import C
from .helpers import MEMBER, TEAM, assert_assignable, member_summary, team_summary, work_item_summary

ROLES = ("engineer", "lead", "manager")


# ---------------------------------------------------------------------------------------------
# Members


@MEMBER.list
def list_members() -> dict[str, kit.Filter]:
    """List the people in the tracker, sorted by id, one page at a time. Each entry gives id, name, email,
    role, team, weeklyCapacityPoints, assignedPoints (estimate points of the unfinished work items assigned
    to them), remainingCapacityPoints (capacity minus assigned; negative when over-committed), overCapacity
    and active. Deactivated members have left: they cannot act or take new work. Read-only."""
    return {
        "role": kit.Filter(kit.Enum(ROLES, "Only members with this role."), field="role"),
        "teamId": kit.Filter(kit.String("Only members of this team id (for example TEAM-001)."), link="teamId"),
        "activeOnly": kit.Filter(kit.Boolean("When true, leave out deactivated members."), field="active"),
        "overCapacityOnly": kit.Filter(
            kit.Boolean("When true, only members whose assigned points exceed their weekly capacity."),
            test=lambda state, m, v: load_for(state, m["id"]) > m["weeklyCapacityPoints"],
        ),
    }


@MEMBER.list
def search_members() -> dict[str, kit.Filter]:
    """Find members whose id, name or email contains the query text (case-insensitive). Returns a page of
    member entries, as list_members gives them, sorted by id. Read-only."""
    return {
        "query": kit.search_filter(
            "Text to look for, for example part of a person's name.",
            lambda s, m: (m["id"], m["name"], m["email"]),
        )
    }


@MEMBER.get("The member's id, for example MEM-002.")
def get_member(state: State, member: kit.Record) -> Any:
    """Get one member by id with their capacity figures, openWorkItemCount and every work item assigned to
    them (finished or not), sorted by id. Read-only."""
    items = work_items_for_assignee(state, member["id"])
    out = member_summary(state, member)
    out["openWorkItemCount"] = sum(1 for i in items if not is_done(state, i))
    out["workItems"] = [work_item_summary(state, i) for i in items]
    return out


@MEMBER.create(
    {
        "name": kit.String("Full name, for example Jamie Rivera.", required=True),
        "email": kit.String("E-mail address.", required=True),
        "role": kit.Enum(ROLES, "The member's role.", required=True),
        "weeklyCapacityPoints": kit.Integer(
            "How many estimate points of work the member can carry at once.", required=True, minimum=0
        ),
        "teamId": kit.String("Team to join (for example TEAM-001); leave out for no team."),
    },
)
def create_member(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Add a new, active member. Give their name, email, role and weekly capacity in estimate points, and
    optionally the team they join (the team must exist). Returns the new member. Recorded in the audit log
    under actorMemberId."""
    team_id = C.read_optional_string(args, "teamId")
    TEAMS.require_given(state, team_id)
    member = {
        "id": MEMBERS.new_id(state),
        "name": C.read_string(args, "name"),
        "email": C.read_string(args, "email"),
        "role": C.read_enum(args, "role", ROLES),
        "teamId": team_id,
        "weeklyCapacityPoints": C.read_number(args, "weeklyCapacityPoints", integer=True, minimum=0),
        "active": True,
    }
    return member, f"Added {member['name']}."


@MEMBER.change(
    "The member to change, for example MEM-002.",
    {
        "role": kit.Enum(ROLES, "New role."),
        "teamId": kit.String("New team id, for example TEAM-002."),
        "weeklyCapacityPoints": kit.Integer("New weekly capacity in estimate points.", minimum=0),
    },
)
def update_member(state: State, acting: kit.Record, member: kit.Record, args: kit.Args) -> str:
    """Change a member's role, team or weekly capacity; leave out what should stay. Deactivated members can be
    updated too. The team must exist, and it is checked only after the role and capacity were written.
    Recorded in the audit log under actorMemberId."""
    role = C.read_optional_enum(args, "role", ROLES)
    team_id = C.read_optional_string(args, "teamId")
    capacity = C.read_optional_number(args, "weeklyCapacityPoints", integer=True, minimum=0)
    kit.set_given(member, {"role": role, "weeklyCapacityPoints": capacity})
    if team_id is not None:
        TEAMS.require(state, team_id)  # refused after the writes above (§6.6)
        MEMBERS.set_link(state, member, "teamId", team_id)
    return f"Updated {member['name']}."


@MEMBER.change("The member who left, for example MEM-002.")
def deactivate_member(state: State, acting: kit.Record, member: kit.Record, args: kit.Args) -> kit.Detail:
    """Mark a member as having left. Their unfinished work stays assigned to them (reassign it separately);
    the result lists those work item ids. A member who is already deactivated is refused. Recorded in the
    audit log under actorMemberId."""
    if not member["active"]:
        raise kit.conflict(f"{member['id']} ({member['name']}) is already deactivated.")
    member["active"] = False
    open_ids = [i["id"] for i in work_items_for_assignee(state, member["id"]) if not is_done(state, i)]
    detail = f"Deactivated {member['name']} with {len(open_ids)} open item(s) still assigned."
    return detail, {"openWorkItemIds": open_ids}


@MEMBER.change("The member returning, for example MEM-002.")
def reactivate_member(state: State, acting: kit.Record, member: kit.Record, args: kit.Args) -> str:
    """Bring a deactivated member back, so they can act and take work again. An active member is refused.
    Recorded in the audit log under actorMemberId."""
    if member["active"]:
        raise kit.conflict(f"{member['id']} ({member['name']}) is already active.")
    member["active"] = True
    return f"Reactivated {member['name']}."


# ---------------------------------------------------------------------------------------------
# Teams


@TEAM.list
def list_teams() -> dict[str, kit.Filter]:
    """List the teams, sorted by id, one page at a time, each with its id, name, lead (id and name) and
    memberCount (members of every status). Read-only."""
    return {}


@TEAM.get("The team's id, for example TEAM-001.")
def get_team(state: State, team: kit.Record) -> Any:
    """Get one team by id with all of its members (active or not, sorted by id) and their capacity figures.
    Read-only."""
    out = team_summary(state, team)
    out["members"] = [member_summary(state, m) for m in members_for_team(state, team["id"])]
    return out


@TEAM.create(
    {
        "name": kit.String("The team's name.", required=True),
        "leadId": kit.String("An active member to lead it, for example MEM-001."),
    },
)
def create_team(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Create a team with a name and, optionally, an active lead. The lead's own team is not changed. Recorded
    in the audit log under actorMemberId."""
    lead_id = C.read_optional_string(args, "leadId")
    if lead_id is not None:
        assert_assignable(state, lead_id)
    team = {"id": TEAMS.new_id(state), "name": C.read_string(args, "name"), "leadId": lead_id}
    return team, f"Created {team['name']}."


@TEAM.change(
    "The team, for example TEAM-001.",
    {"newLeadId": kit.String("The active member who takes over, for example MEM-003.", required=True)},
)
def reassign_team_lead(state: State, acting: kit.Record, team: kit.Record, args: kit.Args) -> str:
    """Make another active member the lead of a team. Naming the current lead is refused. Recorded in the
    audit log under actorMemberId."""
    new_lead = assert_assignable(state, C.read_string(args, "newLeadId"))
    if team["leadId"] == new_lead["id"]:
        raise kit.conflict(f"{team['id']} is already led by {new_lead['id']} ({new_lead['name']}).")
    previous = team["leadId"]
    team["leadId"] = new_lead["id"]
    return f"Lead changed from {previous if previous is not None else 'nobody'} to {new_lead['id']}."
