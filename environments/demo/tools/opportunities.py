"""Opportunity tools: the pipeline of deals, their stages and how they close."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, format_number, kit

from ..state import (
    STALE_STAGE_DAYS,
    State,
    is_stale,
    lost_stage,
    money,
    next_id,
    next_stage,
    won_stage,
)
from .contract import C, actor_prop, schema
from .helpers import (
    ACCOUNTS,
    CONTACTS,
    OPPORTUNITIES,
    STAGES,
    activity_summary,
    actor,
    assert_assignable,
    assert_open,
    audit,
    opportunity_summary,
    stage_summary,
)
from .index import linked_ids, relinked
from .leads import opening_stage

OPP_STATUSES = ("open", "won", "lost")


list_stages = kit.catalog_tool(
    name="list_stages", description=(
        "List the pipeline stages in order, each with its id, name, order, win probability "
        "(percent) and whether it is a closed stage (Closed Won / Closed Lost). An open "
        "opportunity's probability comes from its stage. Read-only."
    ), collection=STAGES, summary=lambda state, stage: stage_summary(stage)
)


list_opportunities = kit.list_tool(
    name="list_opportunities",
    description=(
        "List opportunities (deals), sorted by id, one page at a time, filtered by any of owner, "
        "account, stage and status. Each entry gives the deal's account, owner, stage, probability "
        "(percent), amount and probability-weighted amount (USD), expected close date, daysInStage, "
        "pastDue, status and close details. staleOnly keeps open deals that have sat in their "
        "current stage for more than 30 days. Read-only."
    ),
    collection=OPPORTUNITIES,
    summary=opportunity_summary,
    filters={
        "ownerId": kit.Filter(kit.String("Only deals owned by this user id."), link="ownerId"),
        "accountId": kit.Filter(kit.String("Only deals on this account id."), link="accountId"),
        "stageId": kit.Filter(kit.String("Only deals currently in this stage id."), field="stageId"),
        "status": kit.Filter(kit.Enum(OPP_STATUSES, "Only deals with this status."), field="status"),
        "staleOnly": kit.Filter(
            kit.Boolean("When true, only open deals that have been in their stage for more than 30 days.", default=False),
            test=lambda state, opp, v: is_stale(state, opp, STALE_STAGE_DAYS),
        ),
    },
    contract=C,
)


search_opportunities = kit.list_tool(
    name="search_opportunities",
    description=(
        "Find opportunities whose id, name or account name contains the query text "
        "(case-insensitive). Returns a page of opportunity summaries sorted by id. Read-only."
    ),
    collection=OPPORTUNITIES,
    summary=opportunity_summary,
    filters={"query": kit.search_filter(
        "Text to look for, for example a company or deal name.",
        lambda state, o: (o["id"], o["name"], ACCOUNTS.field_of(state, o["accountId"])),
    )},
    contract=C,
)


def _get_opportunity(state: State, args: dict[str, Any]) -> Any:
    opp = OPPORTUNITIES.require(state, C.read_string(args, "opportunityId"))
    out = opportunity_summary(state, opp)
    out["stale"] = is_stale(state, opp, STALE_STAGE_DAYS)
    activities = state["activities"]
    out["activities"] = [
        activity_summary(state, activities[i])
        for i in sorted(linked_ids(activities, "relatedTo", opp["id"]))
        if activities[i]["relatedTo"]["type"] == "opportunity"
    ]
    return out


get_opportunity = kit.read_tool(
    name="get_opportunity",
    description=(
        "Get one opportunity by id with its full summary, whether it is stale (open and more than "
        "30 days in its stage) and every activity logged against it, sorted by id. Read-only."
    ),
    input_schema=schema(
        {"opportunityId": C.string_prop("The opportunity's id, for example OPP-001.")},
        required=["opportunityId"],
    ),
    run=_get_opportunity,
)


def _create_opportunity(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    account = ACCOUNTS.require(state, C.read_string(args, "accountId"))
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    stage = opening_stage(state, C.read_optional_string(args, "stageId"))
    primary_contact_id = C.read_optional_string(args, "primaryContactId")
    if primary_contact_id is not None:
        CONTACTS.require(state, primary_contact_id)
    opp_id = next_id(state, "OPP")
    opp = {
        "id": opp_id,
        "name": C.read_string(args, "name"),
        "accountId": account["id"],
        "primaryContactId": primary_contact_id,
        "ownerId": owner_id,
        "stageId": stage["id"],
        "amount": money(C.read_number(args, "amount", minimum=0)),
        "expectedCloseDate": C.read_date(args, "expectedCloseDate"),
        "createdDate": state["now"],
        "stageEnteredDate": state["now"],
        "status": "open",
        "closedDate": None,
        "lostReason": None,
        "sourceLeadId": None,
    }
    state["opportunities"][opp_id] = opp
    audit(
        state,
        acting,
        "create_opportunity",
        "opportunity",
        opp_id,
        f"Created {opp['name']} on {account['name']}.",
    )
    return {"created": opportunity_summary(state, opp)}


create_opportunity = kit.write_tool(
    name="create_opportunity",
    description=(
        "Open a new opportunity (deal) on an existing account. It gets the next OPP- id, status "
        "open, and today as its created and stage-entered date; it starts in the first open "
        "pipeline stage unless stageId names another open stage. The owner must be an active user. "
        'Writes one audit entry. Returns {"created": <opportunity summary>}.'
    ),
    input_schema=schema(
        {
            "name": C.string_prop("Short name of the deal."),
            "accountId": C.string_prop("Id of the account the deal is with."),
            "ownerId": C.string_prop("Id of the active user who will own the deal."),
            "amount": C.number_prop("Deal value in US dollars.", minimum=0),
            "expectedCloseDate": C.date_prop("Date the deal is expected to close, YYYY-MM-DD."),
            "stageId": C.string_prop(
                "Open pipeline stage to start in (see list_stages). Defaults to the first open stage."
            ),
            "primaryContactId": C.string_prop("Id of the main contact person for this deal. Optional."),
            "actorUserId": actor_prop(),
        },
        required=["name", "accountId", "ownerId", "amount", "expectedCloseDate", "actorUserId"],
    ),
    run=_create_opportunity,
)


def _update_opportunity(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    opp = OPPORTUNITIES.require(state, C.read_string(args, "opportunityId"))
    assert_open(opp)
    name = C.read_optional_string(args, "name")
    amount = C.read_optional_number(args, "amount", minimum=0)
    expected_close = C.read_optional_date(args, "expectedCloseDate")
    primary_contact_id = C.read_optional_string(args, "primaryContactId")
    if primary_contact_id is not None:
        CONTACTS.require(state, primary_contact_id)
    if name is not None:
        opp["name"] = name
    if amount is not None:
        opp["amount"] = money(amount)
    if expected_close is not None:
        opp["expectedCloseDate"] = expected_close
    if primary_contact_id is not None:
        opp["primaryContactId"] = primary_contact_id
    audit(state, acting, "update_opportunity", "opportunity", opp["id"], f"Updated {opp['name']}.")
    return {"updated": opportunity_summary(state, opp)}


update_opportunity = kit.write_tool(
    name="update_opportunity",
    description=(
        "Change an open opportunity's name, amount (USD), expected close date or primary contact. "
        "Only the fields you pass are changed; won or lost deals cannot be edited. Use the stage "
        "and close tools to move a deal through the pipeline. Writes one audit entry. Returns "
        '{"updated": <opportunity summary>}.'
    ),
    input_schema=schema(
        {
            "opportunityId": C.string_prop("Id of the open opportunity to change."),
            "name": C.string_prop("New deal name."),
            "amount": C.number_prop("New deal value in US dollars.", minimum=0),
            "expectedCloseDate": C.date_prop("New expected close date, YYYY-MM-DD."),
            "primaryContactId": C.string_prop("Id of the new main contact person."),
            "actorUserId": actor_prop(),
        },
        required=["opportunityId", "actorUserId"],
    ),
    run=_update_opportunity,
)


def _enter_stage(state: State, acting: Any, opp: Any, stage: Any, tool: str, verb: str) -> Any:
    """Put an open deal into ``stage`` as of today, audit the move, return the updated summary."""
    old_stage_id = opp["stageId"]
    opp["stageId"] = stage["id"]
    opp["stageEnteredDate"] = state["now"]
    audit(state, acting, tool, "opportunity", opp["id"], f"{verb} {opp['id']} from {old_stage_id} to {stage['id']}.")
    return {"updated": opportunity_summary(state, opp)}


def _set_opportunity_stage(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    opp = OPPORTUNITIES.require(state, C.read_string(args, "opportunityId"))
    assert_open(opp)
    stage = STAGES.require(state, C.read_string(args, "stageId"))
    if stage["isClosed"]:
        raise ToolError(
            "not_allowed",
            f"Stage {stage['id']} is a closed stage. Use close_opportunity_won or close_opportunity_lost.",
        )
    return _enter_stage(state, acting, opp, stage, "set_opportunity_stage", "Moved")


set_opportunity_stage = kit.write_tool(
    name="set_opportunity_stage",
    description=(
        "Move an open opportunity to any open pipeline stage (forward or back). The deal's "
        "stage-entered date becomes today, which resets its days in stage. Closed stages are not "
        "allowed here: use close_opportunity_won or close_opportunity_lost. Writes one audit entry. "
        'Returns {"updated": <opportunity summary>}.'
    ),
    input_schema=schema(
        {
            "opportunityId": C.string_prop("Id of the open opportunity to move."),
            "stageId": C.string_prop("Id of the open stage to move it to (see list_stages)."),
            "actorUserId": actor_prop(),
        },
        required=["opportunityId", "stageId", "actorUserId"],
    ),
    run=_set_opportunity_stage,
)


def _advance_opportunity_stage(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    opp = OPPORTUNITIES.require(state, C.read_string(args, "opportunityId"))
    assert_open(opp)
    stage = next_stage(state, opp["stageId"])
    if stage is None:
        raise ToolError(
            "invalid_state", f"{opp['id']} is already in the last open stage. Close it won or lost instead."
        )
    return _enter_stage(state, acting, opp, stage, "advance_opportunity_stage", "Advanced")


advance_opportunity_stage = kit.write_tool(
    name="advance_opportunity_stage",
    description=(
        "Move an open opportunity one step forward to the next open pipeline stage, with today as "
        "its stage-entered date. From the last open stage it cannot advance: close it won or lost "
        'instead. Writes one audit entry. Returns {"updated": <opportunity summary>}.'
    ),
    input_schema=schema(
        {"opportunityId": C.string_prop("Id of the open opportunity to advance."), "actorUserId": actor_prop()},
        required=["opportunityId", "actorUserId"],
    ),
    run=_advance_opportunity_stage,
)


def _close_opportunity_won(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    opp = OPPORTUNITIES.require(state, C.read_string(args, "opportunityId"))
    assert_open(opp)
    stage = won_stage(state)
    if stage is None:
        raise ToolError("invalid_state", "No closed-won stage is defined.")
    final_amount = C.read_optional_number(args, "finalAmount", minimum=0)
    if final_amount is not None:
        opp["amount"] = money(final_amount)
    opp["stageId"] = stage["id"]
    opp["stageEnteredDate"] = state["now"]
    opp["status"] = "won"
    opp["closedDate"] = state["now"]
    audit(
        state,
        acting,
        "close_opportunity_won",
        "opportunity",
        opp["id"],
        f"Closed {opp['id']} won at {format_number(opp['amount']['amount'])}.",
    )
    return {"updated": opportunity_summary(state, opp)}


close_opportunity_won = kit.write_tool(
    name="close_opportunity_won",
    description=(
        "Record that an open opportunity was won: it moves to the Closed Won stage with status won "
        "and today as its close date. Pass finalAmount when the signed value differs from the "
        "amount on the deal; otherwise the current amount is kept. Writes one audit entry. Returns "
        '{"updated": <opportunity summary>}.'
    ),
    input_schema=schema(
        {
            "opportunityId": C.string_prop("Id of the open opportunity that was won."),
            "finalAmount": C.number_prop(
                "Final contracted value in US dollars, if it differs from the current amount.", minimum=0
            ),
            "actorUserId": actor_prop(),
        },
        required=["opportunityId", "actorUserId"],
    ),
    run=_close_opportunity_won,
)


def _close_opportunity_lost(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    opp = OPPORTUNITIES.require(state, C.read_string(args, "opportunityId"))
    assert_open(opp)
    reason = C.read_string(args, "reason")
    stage = lost_stage(state)
    if stage is None:
        raise ToolError("invalid_state", "No closed-lost stage is defined.")
    opp["stageId"] = stage["id"]
    opp["stageEnteredDate"] = state["now"]
    opp["status"] = "lost"
    opp["closedDate"] = state["now"]
    opp["lostReason"] = reason
    audit(
        state,
        acting,
        "close_opportunity_lost",
        "opportunity",
        opp["id"],
        f"Closed {opp['id']} lost: {reason}",
    )
    return {"updated": opportunity_summary(state, opp)}


close_opportunity_lost = kit.write_tool(
    name="close_opportunity_lost",
    description=(
        "Record that an open opportunity was lost: it moves to the Closed Lost stage with status "
        "lost, today as its close date, and the reason stored as lostReason. Writes one audit "
        'entry. Returns {"updated": <opportunity summary>}.'
    ),
    input_schema=schema(
        {
            "opportunityId": C.string_prop("Id of the open opportunity that was lost."),
            "reason": C.string_prop("Why the deal was lost."),
            "actorUserId": actor_prop(),
        },
        required=["opportunityId", "reason", "actorUserId"],
    ),
    run=_close_opportunity_lost,
)


def _reassign_opportunity(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    opp = OPPORTUNITIES.require(state, C.read_string(args, "opportunityId"))
    assert_open(opp)
    new_owner = assert_assignable(state, C.read_string(args, "newOwnerId"))
    if opp["ownerId"] == new_owner["id"]:
        raise ToolError(
            "conflict", f"{opp['id']} is already owned by {new_owner['id']} ({new_owner['name']})."
        )
    old_owner_id = opp["ownerId"]
    opp["ownerId"] = new_owner["id"]
    relinked(state["opportunities"], opp["id"], "ownerId", old_owner_id)
    audit(
        state,
        acting,
        "reassign_opportunity",
        "opportunity",
        opp["id"],
        f"Reassigned {opp['id']} from {old_owner_id} to {new_owner['id']}.",
    )
    return {"updated": opportunity_summary(state, opp)}


reassign_opportunity = kit.write_tool(
    name="reassign_opportunity",
    description=(
        "Hand an open opportunity to a different owner. The new owner must be an active user other "
        "than the current owner; won and lost deals keep their owner. Writes one audit entry. "
        'Returns {"updated": <opportunity summary>}.'
    ),
    input_schema=schema(
        {
            "opportunityId": C.string_prop("Id of the open opportunity to reassign."),
            "newOwnerId": C.string_prop("Id of the active user who should own it from now on."),
            "actorUserId": actor_prop(),
        },
        required=["opportunityId", "newOwnerId", "actorUserId"],
    ),
    run=_reassign_opportunity,
)
