"""Lead tools: prospects before they become customers, and their conversion."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import State, first_open_stage, full_name, money, next_id
from .contract import C, actor_prop, schema
from .helpers import (
    ACCOUNTS,
    LEADS,
    STAGES,
    account_summary,
    actor,
    assert_assignable,
    audit,
    contact_summary,
    lead_summary,
    opportunity_summary,
)
from .index import relinked

STATUSES = ("new", "working", "qualified", "disqualified", "converted")
SOURCES = ("web_form", "referral", "event", "outbound", "partner", "inbound_call")


def opening_stage(state: State, stage_id: str | None) -> dict[str, Any]:
    """The stage a new opportunity starts in: the given one (which must be open), else the first
    open stage of the pipeline."""
    stage = STAGES.require(state, stage_id) if stage_id is not None else first_open_stage(state)
    if stage is None:
        raise ToolError("invalid_state", "No open pipeline stage is defined.")
    if stage["isClosed"]:
        raise ToolError(
            "invalid_input", f"Stage {stage['id']} is a closed stage; a new opportunity cannot start there."
        )
    return stage


list_leads = kit.list_tool(
    name="list_leads",
    description=(
        "List sales leads (prospective customers not yet converted into accounts), sorted by id, one "
        "page at a time, optionally filtered by status, owner or source. Each entry gives the "
        "person's name, company, contact details, status, owner, createdDate, ageDays (days since "
        "creation), lastContactedDate, any disqualify reason and, once converted, the ids of the "
        "account, contact and opportunity it became. Read-only."
    ),
    collection=LEADS,
    summary=lead_summary,
    filters={
        "status": kit.Filter(kit.Enum(STATUSES, "Only leads in this status."), field="status"),
        "ownerId": kit.Filter(kit.String("Only leads owned by this user id."), link="ownerId"),
        "source": kit.Filter(kit.Enum(SOURCES, "Only leads that came from this source."), field="source"),
    },
    contract=C,
)


search_leads = kit.list_tool(
    name="search_leads",
    description=(
        "Find leads whose id, full name, company or email contains the query text "
        "(case-insensitive). Returns a page of lead summaries sorted by id. Read-only."
    ),
    collection=LEADS,
    summary=lead_summary,
    filters={"query": kit.search_filter(
        "Text to look for, for example a company or person name.",
        lambda s, lead: (lead["id"], full_name(lead), lead["company"], lead["email"]),
    )},
    contract=C,
)


get_lead = kit.get_tool(
    name="get_lead",
    description="Get one lead by id, with its status, owner, age in days and conversion links. Read-only.",
    collection=LEADS,
    id_key="leadId",
    id_description="The lead's id, for example LEAD-001.",
    show=lead_summary,
    contract=C,
)


def _create_lead(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    lead_id = next_id(state, "LEAD")
    lead = {
        "id": lead_id,
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
    state["leads"][lead_id] = lead
    audit(state, acting, "create_lead", "lead", lead_id, f"Created lead {full_name(lead)}.")
    return {"created": lead_summary(state, lead)}


create_lead = kit.write_tool(
    name="create_lead",
    description=(
        "Record a new sales lead. It gets the next LEAD- id, status new and today's date as "
        "createdDate. The owner must be an active user. Writes one audit entry. Returns "
        '{"created": <lead summary>}.'
    ),
    input_schema=schema(
        {
            "firstName": C.string_prop("The prospect's first name."),
            "lastName": C.string_prop("The prospect's last name."),
            "company": C.string_prop("The company the prospect works for."),
            "email": C.string_prop("The prospect's email address."),
            "source": C.enum_prop(SOURCES, "Where the lead came from."),
            "ownerId": C.string_prop("Id of the active user who will work the lead."),
            "phone": C.string_prop("Phone number. Optional."),
            "title": C.string_prop("Job title. Optional."),
            "actorUserId": actor_prop(),
        },
        required=["firstName", "lastName", "company", "email", "source", "ownerId", "actorUserId"],
    ),
    run=_create_lead,
)


def _update_lead(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    lead = LEADS.require(state, C.read_string(args, "leadId"))
    email = C.read_optional_string(args, "email")
    phone = C.read_optional_string(args, "phone")
    title = C.read_optional_string(args, "title")
    owner_id = C.read_optional_string(args, "ownerId")
    if owner_id is not None:
        assert_assignable(state, owner_id)
    mark_contacted = C.read_boolean(args, "markContacted", False)
    if email is not None:
        lead["email"] = email
    if phone is not None:
        lead["phone"] = phone
    if title is not None:
        lead["title"] = title
    if owner_id is not None:
        old_owner_id = lead["ownerId"]
        lead["ownerId"] = owner_id
        relinked(state["leads"], lead["id"], "ownerId", old_owner_id)
    if mark_contacted:
        lead["lastContactedDate"] = state["now"]
    audit(state, acting, "update_lead", "lead", lead["id"], f"Updated lead {full_name(lead)}.")
    return {"updated": lead_summary(state, lead)}


update_lead = kit.write_tool(
    name="update_lead",
    description=(
        "Change a lead's email, phone, title or owner, and/or mark that it was contacted today "
        "(markContacted sets lastContactedDate to today). Only the fields you pass are changed. "
        "Status changes go through qualify_lead, disqualify_lead and convert_lead instead. Writes "
        'one audit entry. Returns {"updated": <lead summary>}.'
    ),
    input_schema=schema(
        {
            "leadId": C.string_prop("Id of the lead to change."),
            "email": C.string_prop("New email address."),
            "phone": C.string_prop("New phone number."),
            "title": C.string_prop("New job title."),
            "ownerId": C.string_prop("Id of the active user who should own the lead from now on."),
            "markContacted": C.boolean_prop("Record that the lead was contacted today.", default=False),
            "actorUserId": actor_prop(),
        },
        required=["leadId", "actorUserId"],
    ),
    run=_update_lead,
)


def _qualify_lead(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    lead = LEADS.require(state, C.read_string(args, "leadId"))
    if lead["status"] not in ("new", "working"):
        raise ToolError(
            "invalid_state",
            f"Lead {lead['id']} is {lead['status']}; only a new or working lead can be qualified.",
        )
    lead["status"] = "qualified"
    audit(state, acting, "qualify_lead", "lead", lead["id"], f"Qualified {full_name(lead)}.")
    return {"updated": lead_summary(state, lead)}


qualify_lead = kit.write_tool(
    name="qualify_lead",
    description=(
        "Mark a new or working lead as qualified (a real buying opportunity), which makes it "
        'eligible for convert_lead. Writes one audit entry. Returns {"updated": <lead summary>}.'
    ),
    input_schema=schema(
        {"leadId": C.string_prop("Id of the lead to qualify."), "actorUserId": actor_prop()},
        required=["leadId", "actorUserId"],
    ),
    run=_qualify_lead,
)


def _disqualify_lead(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    lead = LEADS.require(state, C.read_string(args, "leadId"))
    reason = C.read_string(args, "reason")
    if lead["status"] == "converted":
        raise ToolError(
            "invalid_state", f"Lead {lead['id']} has already been converted and cannot be disqualified."
        )
    lead["status"] = "disqualified"
    lead["disqualifyReason"] = reason
    audit(state, acting, "disqualify_lead", "lead", lead["id"], f"Disqualified {full_name(lead)}: {reason}")
    return {"updated": lead_summary(state, lead)}


disqualify_lead = kit.write_tool(
    name="disqualify_lead",
    description=(
        "Close out a lead that will not buy: sets its status to disqualified and stores the "
        "reason. A converted lead cannot be disqualified. Writes one audit entry. Returns "
        '{"updated": <lead summary>}.'
    ),
    input_schema=schema(
        {
            "leadId": C.string_prop("Id of the lead to disqualify."),
            "reason": C.string_prop("Why the lead is being disqualified."),
            "actorUserId": actor_prop(),
        },
        required=["leadId", "reason", "actorUserId"],
    ),
    run=_disqualify_lead,
)


def _convert_lead(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    lead = LEADS.require(state, C.read_string(args, "leadId"))
    if lead["status"] != "qualified":
        raise ToolError(
            "invalid_state", f"Lead {lead['id']} is {lead['status']}; only a qualified lead can be converted."
        )
    assert_assignable(state, lead["ownerId"])
    create_opportunity = C.read_boolean(args, "createOpportunity", True)
    account_id = C.read_optional_string(args, "accountId")

    # 5. Account: an existing one, or a new one stored right away.
    if account_id is not None:
        account = ACCOUNTS.require(state, account_id)
    else:
        new_account_id = next_id(state, "ACC")
        account = {
            "id": new_account_id,
            "name": lead["company"],
            "industry": "Unknown",
            "tier": "smb",
            "ownerId": lead["ownerId"],
            "website": None,
            "createdDate": state["now"],
        }
        state["accounts"][new_account_id] = account

    # 6. Contact, copied from the lead; stored before any opportunity field is read.
    contact_id = next_id(state, "CON")
    contact = {
        "id": contact_id,
        "accountId": account["id"],
        "firstName": lead["firstName"],
        "lastName": lead["lastName"],
        "email": lead["email"],
        "phone": lead["phone"],
        "title": lead["title"],
        "isPrimary": False,
    }
    state["contacts"][contact_id] = contact

    # 7. Opportunity.
    opportunity = None
    if create_opportunity:
        amount = C.read_number(args, "amount", minimum=0)
        expected_close = C.read_date(args, "expectedCloseDate")
        stage = opening_stage(state, C.read_optional_string(args, "stageId"))
        name = C.read_optional_string(args, "opportunityName")
        if name is None:
            name = f"{lead['company']} opportunity"
        opportunity_id = next_id(state, "OPP")
        opportunity = {
            "id": opportunity_id,
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
        state["opportunities"][opportunity_id] = opportunity

    # 8. Lead.
    lead["status"] = "converted"
    lead["convertedAccountId"] = account["id"]
    lead["convertedContactId"] = contact_id
    lead["convertedOpportunityId"] = None if opportunity is None else opportunity["id"]

    targets = f"{account['id']} / {contact_id}"
    if opportunity is not None:
        targets += f" / {opportunity['id']}"
    audit(state, acting, "convert_lead", "lead", lead["id"], f"Converted {full_name(lead)} into {targets}.")
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
    input_schema=schema(
        {
            "leadId": C.string_prop("Id of the qualified lead to convert."),
            "accountId": C.string_prop(
                "Id of an existing account to attach the new contact (and opportunity) to. Leave it "
                "out to create a new account from the lead's company."
            ),
            "createOpportunity": C.boolean_prop(
                "Whether to open an opportunity as part of the conversion.", default=True
            ),
            "opportunityName": C.string_prop(
                'Name of the new opportunity. Defaults to "<company> opportunity".'
            ),
            "amount": C.number_prop(
                "Deal value of the new opportunity in US dollars. Required when an opportunity is created.",
                minimum=0,
            ),
            "expectedCloseDate": C.date_prop(
                "Date the new opportunity is expected to close, YYYY-MM-DD. Required when an "
                "opportunity is created."
            ),
            "stageId": C.string_prop(
                "Open pipeline stage the new opportunity starts in (see list_stages). Defaults to "
                "the first open stage."
            ),
            "actorUserId": actor_prop(),
        },
        required=["leadId", "actorUserId"],
    ),
    run=_convert_lead,
)
