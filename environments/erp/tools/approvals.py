"""Approval tools (erp-tools.md §7.8, tools 54-60): the approval inbox. Decisions are taken by each
domain's own approve/reject tool; these tools list, annotate and reroute approvals."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State
from .helpers import (
    APPROVAL_ENTITY,
    APPROVAL_STATUS,
    actor,
    audit,
    decide_with,
    enum_prop,
    linked_records,
    number_prop,
    page_records,
    paginate,
    paging_props,
    read_number,
    read_optional_enum,
    read_optional_string,
    read_string,
    require_approval,
    require_user,
    schema,
    string_prop,
    within_approval_limit,
)

Args = dict[str, Any]

_ACTOR = "Id of the user making the change (for example USR-001); must be an active user."
_APPROVAL_ID = "The approval's id, for example APR-001."


def _list_pending_approvals(state: State, args: Args) -> Any:
    assignee = read_optional_string(args, "assignedToUserId")
    entity_type = read_optional_enum(args, "entityType", APPROVAL_ENTITY)
    if assignee is not None:
        require_user(state, assignee)
    pending = [
        a
        for a in state["approvals"].values()
        if a["status"] == "pending"
        and (assignee is None or a["assignedToUserId"] == assignee)
        and (entity_type is None or a["entityType"] == entity_type)
    ]
    pending.sort(key=lambda a: a["requestedAt"])
    page = paginate(pending, args)
    page["results"] = [
        {
            "id": a["id"],
            "entityType": a["entityType"],
            "entityId": a["entityId"],
            "amount": a["amount"],
            "requestedByUserId": a["requestedByUserId"],
            "assignedToUserId": a["assignedToUserId"],
            "requestedAt": a["requestedAt"],
            "decideWith": decide_with(a["entityType"]),
        }
        for a in page["results"]
    ]
    return page


list_pending_approvals = define_tool(
    name="list_pending_approvals",
    description=(
        "Approvals still waiting for a decision, oldest request first, a page at a time, optionally "
        "for one assignee or one document type; each row names the tools that decide it. Read-only."
    ),
    input_schema=schema(
        {
            "assignedToUserId": string_prop("Only approvals assigned to this user."),
            "entityType": enum_prop(APPROVAL_ENTITY, "Only approvals of this document type."),
            **paging_props(),
        },
        [],
    ),
    run=_list_pending_approvals,
)


def _get_approval(state: State, args: Args) -> Any:
    approval = require_approval(state, read_string(args, "approvalId"))
    return {**approval, "decideWith": decide_with(approval["entityType"])}


get_approval = define_tool(
    name="get_approval",
    description=(
        "One approval in full (document, amount, requester, assignee, status, decision and notes) "
        "plus the tools that decide it. Read-only."
    ),
    input_schema=schema({"approvalId": string_prop(_APPROVAL_ID)}, ["approvalId"]),
    run=_get_approval,
)


def _list_approvals_for_entity(state: State, args: Args) -> Any:
    entity_type = read_optional_enum(args, "entityType", APPROVAL_ENTITY)
    entity_id = read_string(args, "entityId")
    rows = [
        a
        for a in linked_records(state, "approvals", "entityId", entity_id, sort=False)
        if a["entityType"] == entity_type
    ]
    rows.sort(key=lambda a: a["requestedAt"])
    return rows


list_approvals_for_entity = define_tool(
    name="list_approvals_for_entity",
    description="The approval history of one document, oldest request first (a plain list). Read-only.",
    input_schema=schema(
        {
            "entityType": enum_prop(APPROVAL_ENTITY, "The document type."),
            "entityId": string_prop("The document's id, for example PO-203."),
        },
        ["entityType", "entityId"],
    ),
    run=_list_approvals_for_entity,
)


def _list_approvals(state: State, args: Args) -> Any:
    status = read_optional_enum(args, "status", APPROVAL_STATUS)
    assignee = read_optional_string(args, "assignedToUserId")

    def keep(a: Any) -> bool:
        return (status is None or a["status"] == status) and (assignee is None or a["assignedToUserId"] == assignee)

    return page_records(state, "approvals", args, None if status is None and assignee is None else keep)


list_approvals = define_tool(
    name="list_approvals",
    description=(
        "All approvals sorted by id, a page at a time, optionally one status or one assignee. "
        "Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(APPROVAL_STATUS, "Only approvals with this status."),
            "assignedToUserId": string_prop("Only approvals assigned to this user."),
            **paging_props(),
        },
        [],
    ),
    run=_list_approvals,
)


def _add_approval_note(state: State, args: Args) -> Any:
    user = actor(state, args)
    approval = require_approval(state, read_string(args, "approvalId"))
    note = read_string(args, "note")
    approval["notes"].append(note)
    audit(state, user["id"], "approval.note_added", "approval", approval["id"], f"Note added to {approval['id']}")
    return approval


add_approval_note = define_tool(
    name="add_approval_note",
    description="Append a note to an approval (decided or not) without deciding it. Audited.",
    input_schema=schema(
        {
            "approvalId": string_prop(_APPROVAL_ID),
            "note": string_prop("The note."),
            "actorUserId": string_prop("Id of the user adding the note; must be an active user."),
        },
        ["approvalId", "note", "actorUserId"],
    ),
    run=_add_approval_note,
)


def _reassign_approval(state: State, args: Args) -> Any:
    user = actor(state, args)
    approval = require_approval(state, read_string(args, "approvalId"))
    assignee = require_user(state, read_string(args, "assignToUserId"))
    reason = read_optional_string(args, "reason") or "Reassigned"
    aid = approval["id"]
    if approval["status"] != "pending":
        raise ToolError("invalid_state", f"Approval {aid} was already {approval['status']}.")
    previous = approval["assignedToUserId"]
    if previous == assignee["id"]:
        raise ToolError("invalid_input", f"Approval {aid} is already assigned to {assignee['id']}.")
    approval["assignedToUserId"] = assignee["id"]
    approval["notes"].append(f"Reassigned from {previous} to {assignee['id']}: {reason}")
    audit(
        state, user["id"], "approval.reassigned", "approval", aid, f"Reassigned {aid} to {assignee['name']}",
        [{"field": "assignedToUserId", "from": previous, "to": assignee["id"]}],
    )
    return approval


reassign_approval = define_tool(
    name="reassign_approval",
    description=(
        "Route a pending approval to another approver (for example one with a higher approval "
        "limit); the reason is added to its notes. Audited."
    ),
    input_schema=schema(
        {
            "approvalId": string_prop(_APPROVAL_ID),
            "assignToUserId": string_prop("Id of the user who should decide instead."),
            "reason": string_prop("Why it is rerouted."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["approvalId", "assignToUserId", "actorUserId"],
    ),
    run=_reassign_approval,
)


def _authority_row(user: dict[str, Any]) -> dict[str, Any]:
    return {"userId": user["id"], "name": user["name"], "role": user["role"], "approvalLimit": user["approvalLimit"]}


def _check_approval_authority(state: State, args: Args) -> Any:
    user = require_user(state, read_string(args, "userId"))
    amount = read_number(args, "amount")
    requested = {"amount": amount, "currency": state["company"]["baseCurrency"]}
    authorised = within_approval_limit(user, requested)
    candidates = [u for u in state["users"].values() if u["isActive"] and within_approval_limit(u, requested)]
    candidates.sort(key=lambda u: u["approvalLimit"]["amount"])
    return {
        "userId": user["id"],
        "name": user["name"],
        "role": user["role"],
        "approvalLimit": user["approvalLimit"],
        "requestedAmount": requested,
        "authorised": authorised,
        "escalateTo": [] if authorised else [_authority_row(u) for u in candidates],
    }


check_approval_authority = define_tool(
    name="check_approval_authority",
    description=(
        "Whether a user's approval limit covers an amount, and if not, the active users whose limit "
        "does (lowest limit first), to reassign the approval to. Read-only."
    ),
    input_schema=schema(
        {
            "userId": string_prop("The user to check, for example USR-003."),
            "amount": number_prop("The amount to approve, in company currency.", minimum=0),
        },
        ["userId", "amount"],
    ),
    run=_check_approval_authority,
)

TOOLS = [
    list_pending_approvals,
    get_approval,
    list_approvals_for_entity,
    list_approvals,
    add_approval_note,
    reassign_approval,
    check_approval_authority,
]
