"""Opportunity tools: the pipeline of deals, their stages and how they close."""

from __future__ import annotations

from typing import Any

from silo_gym import format_number, kit

from ..state import STALE_STAGE_DAYS, State, is_stale, lost_stage, money, next_stage, won_stage
from .contract import C
from .helpers import (
    ACCOUNTS,
    ACTIVITIES,
    CONTACTS,
    OPPORTUNITIES,
    OPPORTUNITY,
    STAGES,
    activity_summary,
    assert_assignable,
    assert_open,
    opportunity_summary,
    stage_summary,
)
from .leads import opening_stage

OPP_STATUSES = ("open", "won", "lost")


list_stages = kit.catalog_tool(
    name="list_stages", description=(
        "List the pipeline stages in order, each with its id, name, order, win probability "
        "(percent) and whether it is a closed stage (Closed Won / Closed Lost). An open "
        "opportunity's probability comes from its stage. Read-only."
    ), collection=STAGES, summary=lambda state, stage: stage_summary(stage)
)


@OPPORTUNITY.list
def list_opportunities() -> dict[str, kit.Filter]:
    """List opportunities (deals), sorted by id, one page at a time, filtered by any of owner, account, stage
    and status. Each entry gives the deal's account, owner, stage, probability (percent), amount and
    probability-weighted amount (USD), expected close date, daysInStage, pastDue, status and close details.
    staleOnly keeps open deals that have sat in their current stage for more than 30 days. Read-only."""
    return {
        "ownerId": kit.Filter(kit.String("Only deals owned by this user id."), link="ownerId"),
        "accountId": kit.Filter(kit.String("Only deals on this account id."), link="accountId"),
        "stageId": kit.Filter(kit.String("Only deals currently in this stage id."), field="stageId"),
        "status": kit.Filter(kit.Enum(OPP_STATUSES, "Only deals with this status."), field="status"),
        "staleOnly": kit.Filter(
            kit.Boolean("When true, only open deals that have been in their stage for more than 30 days.", default=False),
            test=lambda state, opp, v: is_stale(state, opp, STALE_STAGE_DAYS),
        ),
    }


@OPPORTUNITY.list
def search_opportunities() -> dict[str, kit.Filter]:
    """Find opportunities whose id, name or account name contains the query text (case-insensitive). Returns a
    page of opportunity summaries sorted by id. Read-only."""
    return {
        "query": kit.search_filter(
            "Text to look for, for example a company or deal name.",
            lambda state, o: (o["id"], o["name"], ACCOUNTS.field_of(state, o["accountId"])),
        )
    }


@OPPORTUNITY.get("The opportunity's id, for example OPP-001.")
def get_opportunity(state: State, opp: kit.Record) -> Any:
    """Get one opportunity by id with its full summary, whether it is stale (open and more than 30 days in its
    stage) and every activity logged against it, sorted by id. Read-only."""
    out = opportunity_summary(state, opp)
    out["stale"] = is_stale(state, opp, STALE_STAGE_DAYS)
    out["activities"] = [
        activity_summary(state, a)
        for a in ACTIVITIES.linked(state, "relatedTo", opp["id"])
        if a["relatedTo"]["type"] == "opportunity"
    ]
    return out


@OPPORTUNITY.create(
    {
        "name": kit.String("Short name of the deal.", required=True),
        "accountId": kit.String("Id of the account the deal is with.", required=True),
        "ownerId": kit.String("Id of the active user who will own the deal.", required=True),
        "amount": kit.Number("Deal value in US dollars.", required=True, minimum=0),
        "expectedCloseDate": kit.Date("Date the deal is expected to close, YYYY-MM-DD.", required=True),
        "stageId": kit.String(
            "Open pipeline stage to start in (see list_stages). Defaults to the first open stage."
        ),
        "primaryContactId": kit.String("Id of the main contact person for this deal. Optional."),
    },
)
def create_opportunity(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Open a new opportunity (deal) on an existing account. It gets the next OPP- id, status open, and today
    as its created and stage-entered date; it starts in the first open pipeline stage unless stageId names
    another open stage. The owner must be an active user. Writes one audit entry. Returns {"created":
    <opportunity summary>}."""
    account = ACCOUNTS.require(state, C.read_string(args, "accountId"))
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    stage = opening_stage(state, C.read_optional_string(args, "stageId"))
    primary_contact_id = C.read_optional_string(args, "primaryContactId")
    CONTACTS.require_given(state, primary_contact_id)
    opp = {
        "id": OPPORTUNITIES.new_id(state),
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
    return opp, f"Created {opp['name']} on {account['name']}."


@OPPORTUNITY.change(
    "Id of the open opportunity to change.",
    {
        "name": kit.String("New deal name."),
        "amount": kit.Number("New deal value in US dollars.", minimum=0),
        "expectedCloseDate": kit.Date("New expected close date, YYYY-MM-DD."),
        "primaryContactId": kit.String("Id of the new main contact person."),
    },
)
def update_opportunity(state: State, acting: kit.Record, opp: kit.Record, args: kit.Args) -> str:
    """Change an open opportunity's name, amount (USD), expected close date or primary contact. Only the
    fields you pass are changed; won or lost deals cannot be edited. Use the stage and close tools to move
    a deal through the pipeline. Writes one audit entry. Returns {"updated": <opportunity summary>}."""
    assert_open(opp)
    name = C.read_optional_string(args, "name")
    amount = C.read_optional_number(args, "amount", minimum=0)
    expected_close = C.read_optional_date(args, "expectedCloseDate")
    primary_contact_id = C.read_optional_string(args, "primaryContactId")
    CONTACTS.require_given(state, primary_contact_id)
    kit.set_given(opp, {"name": name, "amount": None if amount is None else money(amount)})
    kit.set_given(opp, {"expectedCloseDate": expected_close, "primaryContactId": primary_contact_id})
    return f"Updated {opp['name']}."


@OPPORTUNITY.change(
    "Id of the open opportunity to move.",
    {"stageId": kit.String("Id of the open stage to move it to (see list_stages).", required=True)},
)
def set_opportunity_stage(state: State, acting: kit.Record, opp: kit.Record, args: kit.Args) -> str:
    """Move an open opportunity to any open pipeline stage (forward or back). The deal's stage-entered date
    becomes today, which resets its days in stage. Closed stages are not allowed here: use
    close_opportunity_won or close_opportunity_lost. Writes one audit entry. Returns {"updated":
    <opportunity summary>}."""
    assert_open(opp)
    stage = STAGES.require(state, C.read_string(args, "stageId"))
    if stage["isClosed"]:
        raise kit.not_allowed(
            f"Stage {stage['id']} is a closed stage. Use close_opportunity_won or close_opportunity_lost."
        )
    return _enter_stage(state, opp, stage, "Moved")


def _enter_stage(state: State, opp: kit.Record, stage: kit.Record, verb: str) -> str:
    """Put an open deal into ``stage`` as of today; the audit detail of the move."""
    previous = kit.transition(opp, "stageId", stage["id"], "stageEnteredDate", state["now"])
    return f"{verb} {opp['id']} from {previous} to {stage['id']}."


@OPPORTUNITY.change("Id of the open opportunity to advance.")
def advance_opportunity_stage(state: State, acting: kit.Record, opp: kit.Record, args: kit.Args) -> str:
    """Move an open opportunity one step forward to the next open pipeline stage, with today as its
    stage-entered date. From the last open stage it cannot advance: close it won or lost instead. Writes
    one audit entry. Returns {"updated": <opportunity summary>}."""
    assert_open(opp)
    stage = next_stage(state, opp["stageId"])
    if stage is None:
        raise kit.invalid_state(
            f"{opp['id']} is already in the last open stage. Close it won or lost instead."
        )
    return _enter_stage(state, opp, stage, "Advanced")


def _closing_stage(stage: kit.Record | None, status: str) -> kit.Record:
    """The Closed Won or Closed Lost stage, which the pipeline must define."""
    if stage is None:
        raise kit.invalid_state(f"No closed-{status} stage is defined.")
    return stage


def _close(state: State, opp: kit.Record, stage: kit.Record, status: str) -> None:
    """Move an open deal into its closed ``stage`` as of today, with ``status`` won or lost."""
    kit.transition(opp, "stageId", stage["id"], "stageEnteredDate", state["now"])
    opp["status"] = status
    opp["closedDate"] = state["now"]


@OPPORTUNITY.change(
    "Id of the open opportunity that was won.",
    {
        "finalAmount": kit.Number(
            "Final contracted value in US dollars, if it differs from the current amount.", minimum=0
        )
    },
)
def close_opportunity_won(state: State, acting: kit.Record, opp: kit.Record, args: kit.Args) -> str:
    """Record that an open opportunity was won: it moves to the Closed Won stage with status won and today as
    its close date. Pass finalAmount when the signed value differs from the amount on the deal; otherwise
    the current amount is kept. Writes one audit entry. Returns {"updated": <opportunity summary>}."""
    assert_open(opp)
    stage = _closing_stage(won_stage(state), "won")
    final_amount = C.read_optional_number(args, "finalAmount", minimum=0)
    if final_amount is not None:
        opp["amount"] = money(final_amount)
    _close(state, opp, stage, "won")
    return f"Closed {opp['id']} won at {format_number(opp['amount']['amount'])}."


@OPPORTUNITY.change(
    "Id of the open opportunity that was lost.",
    {"reason": kit.String("Why the deal was lost.", required=True)},
)
def close_opportunity_lost(state: State, acting: kit.Record, opp: kit.Record, args: kit.Args) -> str:
    """Record that an open opportunity was lost: it moves to the Closed Lost stage with status lost, today as
    its close date, and the reason stored as lostReason. Writes one audit entry. Returns {"updated":
    <opportunity summary>}."""
    assert_open(opp)
    reason = C.read_string(args, "reason")
    _close(state, opp, _closing_stage(lost_stage(state), "lost"), "lost")
    opp["lostReason"] = reason
    return f"Closed {opp['id']} lost: {reason}"


@OPPORTUNITY.change(
    "Id of the open opportunity to reassign.",
    {"newOwnerId": kit.String("Id of the active user who should own it from now on.", required=True)},
)
def reassign_opportunity(state: State, acting: kit.Record, opp: kit.Record, args: kit.Args) -> str:
    """Hand an open opportunity to a different owner. The new owner must be an active user other than the
    current owner; won and lost deals keep their owner. Writes one audit entry. Returns {"updated":
    <opportunity summary>}."""
    assert_open(opp)
    new_owner = assert_assignable(state, C.read_string(args, "newOwnerId"))
    if opp["ownerId"] == new_owner["id"]:
        raise kit.conflict(f"{opp['id']} is already owned by {new_owner['id']} ({new_owner['name']}).")
    old_owner_id = opp["ownerId"]
    opp["ownerId"] = new_owner["id"]
    OPPORTUNITIES.relinked(state, opp["id"], "ownerId", old_owner_id)
    return f"Reassigned {opp['id']} from {old_owner_id} to {new_owner['id']}."
