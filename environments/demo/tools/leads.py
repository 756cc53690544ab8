"""Lead tools: prospects before they become customers, and their conversion."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State, first_open_stage, full_name, money
from .contract import C
from .helpers import (
    ACCOUNTS,
    CONTACTS,
    LEAD,
    LEADS,
    OPPORTUNITIES,
    STAGES,
    WRITES,
    account_summary,
    actor,
    assert_assignable,
    contact_summary,
    lead_summary,
    opportunity_summary,
)

STATUSES = ("new", "working", "qualified", "disqualified", "converted")
SOURCES = ("web_form", "referral", "event", "outbound", "partner", "inbound_call")


def opening_stage(state: State, stage_id: str | None) -> dict[str, Any]:
    """The stage a new opportunity starts in: the given one (which must be open), else the first
    open stage of the pipeline."""
    stage = STAGES.require(state, stage_id) if stage_id is not None else first_open_stage(state)
    if stage is None:
        raise kit.invalid_state("No open pipeline stage is defined.")
    if stage["isClosed"]:
        raise kit.invalid_input(
            f"Stage {stage['id']} is a closed stage; a new opportunity cannot start there."
        )
    return stage


@LEAD.list
def list_leads() -> dict[str, kit.Filter]:
    """List sales leads (prospective customers not yet converted into accounts), sorted by id, one page at a
    time, optionally filtered by status, owner or source. Each entry gives the person's name, company,
    contact details, status, owner, createdDate, ageDays (days since creation), lastContactedDate, any
    disqualify reason and, once converted, the ids of the account, contact and opportunity it became.
    Read-only."""
    return {
        "status": kit.Filter(kit.Enum(STATUSES, "Only leads in this status."), field="status"),
        "ownerId": kit.Filter(kit.String("Only leads owned by this user id."), link="ownerId"),
        "source": kit.Filter(kit.Enum(SOURCES, "Only leads that came from this source."), field="source"),
    }


@LEAD.list
def search_leads() -> dict[str, kit.Filter]:
    """Find leads whose id, full name, company or email contains the query text (case-insensitive). Returns a
    page of lead summaries sorted by id. Read-only."""
    return {
        "query": kit.search_filter(
            "Text to look for, for example a company or person name.",
            lambda s, lead: (lead["id"], full_name(lead), lead["company"], lead["email"]),
        )
    }


@LEAD.get("The lead's id, for example LEAD-001.")
def get_lead(state: State, lead: kit.Record) -> Any:
    """Get one lead by id, with its status, owner, age in days and conversion links. Read-only."""
    return lead_summary(state, lead)


@LEAD.create(
    {
        "firstName": kit.String("The prospect's first name.", required=True),
        "lastName": kit.String("The prospect's last name.", required=True),
        "company": kit.String("The company the prospect works for.", required=True),
        "email": kit.String("The prospect's email address.", required=True),
        "source": kit.Enum(SOURCES, "Where the lead came from.", required=True),
        "ownerId": kit.String("Id of the active user who will work the lead.", required=True),
        "phone": kit.String("Phone number. Optional."),
        "title": kit.String("Job title. Optional."),
    },
)
def create_lead(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Record a new sales lead. It gets the next LEAD- id, status new and today's date as createdDate. The
    owner must be an active user. Writes one audit entry. Returns {"created": <lead summary>}."""
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    lead = {
        "id": LEADS.new_id(state),
        "firstName": C.read_string(args, "firstName"),
        "lastName": C.read_string(args, "lastName"),
        "company": C.read_string(args, "company"),
        "email": C.read_string(args, "email"),
        "phone": C.read_optional_string(args, "phone"),
        "title": C.read_optional_string(args, "title"),
        "source": C.read_enum(args, "source", SOURCES),
        "status": "new",
        "ownerId": owner_id,
        "createdDate": state["now"],
        "lastContactedDate": None,
        "disqualifyReason": None,
        "convertedAccountId": None,
        "convertedContactId": None,
        "convertedOpportunityId": None,
    }
    return lead, f"Created lead {full_name(lead)}."


@LEAD.change(
    "Id of the lead to change.",
    {
        "email": kit.String("New email address."),
        "phone": kit.String("New phone number."),
        "title": kit.String("New job title."),
        "ownerId": kit.String("Id of the active user who should own the lead from now on."),
        "markContacted": kit.Boolean("Record that the lead was contacted today.", default=False),
    },
)
def update_lead(state: State, acting: kit.Record, lead: kit.Record, args: kit.Args) -> str:
    """Change a lead's email, phone, title or owner, and/or mark that it was contacted today (markContacted
    sets lastContactedDate to today). Only the fields you pass are changed. Status changes go through
    qualify_lead, disqualify_lead and convert_lead instead. Writes one audit entry. Returns {"updated":
    <lead summary>}."""
    email = C.read_optional_string(args, "email")
    phone = C.read_optional_string(args, "phone")
    title = C.read_optional_string(args, "title")
    owner_id = C.read_optional_string(args, "ownerId")
    if owner_id is not None:
        assert_assignable(state, owner_id)
    mark_contacted = C.read_boolean(args, "markContacted", False)
    kit.set_given(lead, {"email": email, "phone": phone, "title": title})
    if owner_id is not None:
        LEADS.set_link(state, lead, "ownerId", owner_id)
    if mark_contacted:
        lead["lastContactedDate"] = state["now"]
    return f"Updated lead {full_name(lead)}."


@LEAD.change("Id of the lead to qualify.")
def qualify_lead(state: State, acting: kit.Record, lead: kit.Record, args: kit.Args) -> str:
    """Mark a new or working lead as qualified (a real buying opportunity), which makes it eligible for
    convert_lead. Writes one audit entry. Returns {"updated": <lead summary>}."""
    if lead["status"] not in ("new", "working"):
        raise kit.invalid_state(
            f"Lead {lead['id']} is {lead['status']}; only a new or working lead can be qualified."
        )
    lead["status"] = "qualified"
    return f"Qualified {full_name(lead)}."


@LEAD.change(
    "Id of the lead to disqualify.",
    {"reason": kit.String("Why the lead is being disqualified.", required=True)},
)
def disqualify_lead(state: State, acting: kit.Record, lead: kit.Record, args: kit.Args) -> str:
    """Close out a lead that will not buy: sets its status to disqualified and stores the reason. A converted
    lead cannot be disqualified. Writes one audit entry. Returns {"updated": <lead summary>}."""
    reason = C.read_string(args, "reason")
    if lead["status"] == "converted":
        raise kit.invalid_state(f"Lead {lead['id']} has already been converted and cannot be disqualified.")
    lead["status"] = "disqualified"
    lead["disqualifyReason"] = reason
    return f"Disqualified {full_name(lead)}: {reason}"


def _convert_lead(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    lead = LEADS.require(state, C.read_string(args, "leadId"))
    if lead["status"] != "qualified":
        raise kit.invalid_state(
            f"Lead {lead['id']} is {lead['status']}; only a qualified lead can be converted."
        )
    assert_assignable(state, lead["ownerId"])
    create_opportunity = C.read_boolean(args, "createOpportunity", True)
    account_id = C.read_optional_string(args, "accountId")

    # 5. Account: an existing one, or a new one stored right away.
    if account_id is not None:
        account = ACCOUNTS.require(state, account_id)
    else:
        account = {
            "id": ACCOUNTS.new_id(state),
            "name": lead["company"],
            "industry": "Unknown",
            "tier": "smb",
            "ownerId": lead["ownerId"],
            "website": None,
            "createdDate": state["now"],
        }
        ACCOUNTS.add(state, account)

    # 6. Contact, copied from the lead; stored before any opportunity field is read.
    contact = {
        "id": CONTACTS.new_id(state),
        "accountId": account["id"],
        "firstName": lead["firstName"],
        "lastName": lead["lastName"],
        "email": lead["email"],
        "phone": lead["phone"],
        "title": lead["title"],
        "isPrimary": False,
    }
    CONTACTS.add(state, contact)
    contact_id = contact["id"]

    # 7. Opportunity.
    opportunity = None
    if create_opportunity:
        amount = C.read_number(args, "amount", minimum=0)
        expected_close = C.read_date(args, "expectedCloseDate")
        stage = opening_stage(state, C.read_optional_string(args, "stageId"))
        name = C.read_optional_string(args, "opportunityName")
        if name is None:
            name = f"{lead['company']} opportunity"
        opportunity = {
            "id": OPPORTUNITIES.new_id(state),
            "name": name,
            "accountId": account["id"],
            "primaryContactId": contact_id,
            "ownerId": lead["ownerId"],
            "stageId": stage["id"],
            "amount": money(amount),
            "expectedCloseDate": expected_close,
            "createdDate": state["now"],
            "stageEnteredDate": state["now"],
            "status": "open",
            "closedDate": None,
            "lostReason": None,
            "sourceLeadId": lead["id"],
        }
        OPPORTUNITIES.add(state, opportunity)

    # 8. Lead.
    lead["status"] = "converted"
    lead["convertedAccountId"] = account["id"]
    lead["convertedContactId"] = contact_id
    lead["convertedOpportunityId"] = None if opportunity is None else opportunity["id"]

    targets = f"{account['id']} / {contact_id}"
    if opportunity is not None:
        targets += f" / {opportunity['id']}"
    WRITES.audit(
        state, acting, "convert_lead", "lead", lead["id"], f"Converted {full_name(lead)} into {targets}."
    )
    return {
        "lead": lead_summary(state, lead),
        "account": account_summary(state, account),
        "contact": contact_summary(state, contact),
        "opportunity": None if opportunity is None else opportunity_summary(state, opportunity),
    }


convert_lead = kit.write_tool(
    name="convert_lead",
    description=(
        "Convert a qualified lead into a customer. Creates a contact copied from the lead (not "
        "primary) on either an existing account (pass accountId) or a brand-new account named after "
        "the lead's company (industry Unknown, tier smb, owned by the lead's owner). By default it "
        "also opens an opportunity owned by the lead's owner, with the new contact as primary "
        "contact; amount and expectedCloseDate are then required, and the deal starts in the first "
        "open pipeline stage unless stageId names another open stage. The lead's status becomes "
        "converted and it records the new ids. Writes one audit entry on the lead. Returns "
        '{"lead", "account", "contact", "opportunity" (or null)}. Not transactional: if the '
        "opportunity fields are invalid, the account and contact already created are kept and the "
        "lead stays unconverted."
    ),
    input_schema=WRITES.schema(
        {
            "leadId": kit.String("Id of the qualified lead to convert.", required=True),
            "accountId": kit.String(
                "Id of an existing account to attach the new contact (and opportunity) to. Leave it "
                "out to create a new account from the lead's company."
            ),
            "createOpportunity": kit.Boolean(
                "Whether to open an opportunity as part of the conversion.", default=True
            ),
            "opportunityName": kit.String(
                'Name of the new opportunity. Defaults to "<company> opportunity".'
            ),
            "amount": kit.Number(
                "Deal value of the new opportunity in US dollars. Required when an opportunity is created.",
                minimum=0,
            ),
            "expectedCloseDate": kit.Date(
                "Date the new opportunity is expected to close, YYYY-MM-DD. Required when an "
                "opportunity is created."
            ),
            "stageId": kit.String(
                "Open pipeline stage the new opportunity starts in (see list_stages). Defaults to "
                "the first open stage."
            ),
        }
    ),
    run=_convert_lead,
)
