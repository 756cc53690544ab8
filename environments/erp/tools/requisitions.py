"""Requisition tools (erp-tools.md §7.7, tools 42-53): internal purchase requests, their approval
and budget check, and their conversion into an RFQ."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, add_days, money, next_id, sum_money
from .helpers import (
    REQUISITION_STATUS,
    actor,
    array_prop,
    assert_status,
    audit,
    budget_headroom,
    cancel_pending_approval,
    enum_prop,
    fmt,
    integer_prop,
    linked_ids,
    linked_records,
    matches_text,
    number_prop,
    object_prop,
    page_records,
    paging_props,
    read_number,
    read_object_array,
    read_optional_enum,
    read_optional_string,
    read_string,
    read_string_array,
    release_commitment,
    require_budget,
    require_department,
    require_product,
    require_requisition,
    require_user,
    require_vendor,
    requisition_summary,
    schema,
    string_prop,
)
from .steps import (
    approve_within_limit,
    decide_linked_approval,
    reject_document,
    submit_for_approval,
)

Args = dict[str, Any]
Record = dict[str, Any]

_ACTOR = "Id of the user making the change (for example USR-001); must be an active user."
_REQUISITION_ID = "The requisition's id, for example PR-001."
_DECIDABLE = ("pending_approval", "submitted")


def _line_schema() -> dict[str, Any]:
    return object_prop(
        "One requested item.",
        {
            "productId": string_prop("Product id, for example PRD-001."),
            "quantity": integer_prop("Units requested.", minimum=1),
            "estimatedUnitPrice": number_prop(
                "Expected price per unit (default: the product's standard cost).", minimum=0
            ),
        },
        ["productId", "quantity"],
    )


def _build_lines(state: State, doc_id: str, specs: list[Record], needed_by: Any) -> list[Record]:
    lines = []
    for i, spec in enumerate(specs, start=1):
        product = require_product(state, read_string(spec, "productId"))
        quantity = read_number(spec, "quantity", minimum=1, integer=True)
        price = spec.get("estimatedUnitPrice")
        currency = product["standardCost"]["currency"]
        if isinstance(price, (int, float)) and not isinstance(price, bool):
            unit = money(price, currency)
        else:
            unit = product["standardCost"]
        lines.append(
            {
                "id": f"{doc_id}-L{i}",
                "productId": product["id"],
                "quantity": quantity,
                "estimatedUnitPrice": unit,
                "neededBy": needed_by,
            }
        )
    return lines


def _recompute_estimate(requisition: Record) -> None:
    requisition["estimatedTotal"] = sum_money(
        [money(line["quantity"] * line["estimatedUnitPrice"]["amount"]) for line in requisition["lines"]],
        requisition["estimatedTotal"]["currency"],
    )


def _list_requisitions(state: State, args: Args) -> Any:
    status = read_optional_enum(args, "status", REQUISITION_STATUS)
    department = read_optional_string(args, "departmentId")
    requester = read_optional_string(args, "requesterUserId")

    def keep(r: Any) -> bool:
        return (
            (status is None or r["status"] == status)
            and (department is None or r["departmentId"] == department)
            and (requester is None or r["requesterUserId"] == requester)
        )

    unfiltered = status is None and department is None and requester is None
    ids = None
    if department is not None:
        ids = linked_ids(state, "requisitions", "departmentId", department)
    elif requester is not None:
        ids = linked_ids(state, "requisitions", "requesterUserId", requester)
    page = page_records(state, "requisitions", args, None if unfiltered else keep, ids)
    return {**page, "results": [requisition_summary(r) for r in page["results"]]}


list_requisitions = define_tool(
    name="list_requisitions",
    description=(
        "Purchase requisitions sorted by id, a page at a time, optionally one status, department or "
        "requester. Rows: id, requester, department, status, estimatedTotal, budgetId, createdAt. "
        "Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(REQUISITION_STATUS, "Only requisitions with this status."),
            "departmentId": string_prop("Only this department, e.g. DEPT-OPS."),
            "requesterUserId": string_prop("Only requisitions raised by this user."),
            **paging_props(),
        },
        [],
    ),
    run=_list_requisitions,
)


def _search_requisitions(state: State, args: Args) -> Any:
    query = read_string(args, "query")

    def keep(r: Any) -> bool:
        return matches_text(r["id"], query) or matches_text(r["justification"], query)

    page = page_records(state, "requisitions", args, keep)
    return {**page, "results": [requisition_summary(r) for r in page["results"]]}


search_requisitions = define_tool(
    name="search_requisitions",
    description=(
        "Find requisitions whose id or justification contains the text (case-insensitive); rows as "
        "in list_requisitions, sorted by id, paged. Read-only."
    ),
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_requisitions,
)


def _get_requisition(state: State, args: Args) -> Any:
    return require_requisition(state, read_string(args, "requisitionId"))


get_requisition = define_tool(
    name="get_requisition",
    description=(
        "One requisition in full: lines with estimated prices and need-by dates, status, budget, "
        "approval, and the RFQ or purchase order it led to. Read-only."
    ),
    input_schema=schema({"requisitionId": string_prop(_REQUISITION_ID)}, ["requisitionId"]),
    run=_get_requisition,
)


def _create_requisition(state: State, args: Args) -> Any:
    user = actor(state, args, "requesterUserId")
    department = read_string(args, "departmentId")
    require_department(state, department)
    budget_id = read_optional_string(args, "budgetId")
    if budget_id is not None:
        require_budget(state, budget_id)
    needed_by = read_optional_string(args, "neededBy")
    if needed_by is None:
        needed_by = add_days(state["now"], 30)
    requisition_id = next_id(state, "PR")
    lines = _build_lines(state, requisition_id, read_object_array(args, "lines"), needed_by)
    requisition = {
        "id": requisition_id,
        "number": requisition_id,
        "requesterUserId": user["id"],
        "departmentId": department,
        "status": "draft",
        "lines": lines,
        "justification": read_string(args, "justification"),
        "estimatedTotal": money(0),
        "budgetId": budget_id,
        "createdAt": state["now"],
        "submittedAt": None,
        "decidedAt": None,
        "approvalId": None,
        "rfqId": None,
        "purchaseOrderId": None,
    }
    _recompute_estimate(requisition)
    state["requisitions"][requisition_id] = requisition
    audit(state, user["id"], "requisition.created", "requisition", requisition_id, f"Raised requisition {requisition_id}")
    return requisition


create_requisition = define_tool(
    name="create_requisition",
    description=(
        "Raise a draft purchase requisition for a department, optionally charged to a budget; the "
        "requester is the acting user. Lines default to the product's standard cost; need-by "
        "defaults to 30 days from now. Submit it separately to start approval. Audited."
    ),
    input_schema=schema(
        {
            "requesterUserId": string_prop("Id of the user raising it; must be active."),
            "departmentId": string_prop("Department the spend belongs to, e.g. DEPT-OPS."),
            "budgetId": string_prop("Budget to charge, e.g. BUD-001."),
            "justification": string_prop("Why the items are needed."),
            "neededBy": string_prop("Date the items are needed (ISO)."),
            "lines": array_prop("Requested items.", _line_schema()),
        },
        ["requesterUserId", "departmentId", "justification", "lines"],
    ),
    run=_create_requisition,
)


def _update_requisition(state: State, args: Args) -> Any:
    user = actor(state, args)
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    rid = requisition["id"]
    assert_status(requisition["status"], ["draft"], f"Requisition {rid}")
    justification = read_optional_string(args, "justification")
    if justification is not None:
        requisition["justification"] = justification
    budget_id = read_optional_string(args, "budgetId")
    if budget_id is not None:
        require_budget(state, budget_id)
        requisition["budgetId"] = budget_id
    if isinstance(args.get("lines"), list):
        specs = read_object_array(args, "lines")
        old = requisition["lines"]
        needed_by = old[0]["neededBy"] if old else add_days(state["now"], 30)
        requisition["lines"] = _build_lines(state, rid, specs, needed_by)
        _recompute_estimate(requisition)
    audit(state, user["id"], "requisition.updated", "requisition", rid, f"Updated requisition {rid}")
    return requisition


update_requisition = define_tool(
    name="update_requisition",
    description=(
        "Edit a draft requisition's justification, budget or lines (lines given replace all lines and "
        "are renumbered; the estimate is recomputed). Audited."
    ),
    input_schema=schema(
        {
            "requisitionId": string_prop(_REQUISITION_ID),
            "justification": string_prop("New justification."),
            "budgetId": string_prop("Budget to charge."),
            "lines": array_prop("Replacement lines; omit to keep the current ones.", _line_schema()),
            "actorUserId": string_prop(_ACTOR),
        },
        ["requisitionId", "actorUserId"],
    ),
    run=_update_requisition,
)


def _submit_requisition(state: State, args: Args) -> Any:
    user = actor(state, args)
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    approver = require_user(state, read_string(args, "approverUserId"))
    rid = requisition["id"]
    assert_status(requisition["status"], ["draft"], f"Requisition {rid}")
    if not requisition["lines"]:
        raise ToolError("invalid_state", f"Requisition {rid} has no lines.")
    approval = submit_for_approval(
        state, user, requisition, "requisition", approver, requisition["estimatedTotal"], stamp=("submittedAt",)
    )
    return {"requisition": requisition, "approval": approval}


submit_requisition = define_tool(
    name="submit_requisition",
    description=(
        "Send a draft requisition for approval to a named approver: opens a pending approval for its "
        "estimated total and moves it to pending_approval. Audited."
    ),
    input_schema=schema(
        {
            "requisitionId": string_prop(_REQUISITION_ID),
            "approverUserId": string_prop("Id of the user who should decide."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["requisitionId", "approverUserId", "actorUserId"],
    ),
    run=_submit_requisition,
)


def _check_requisition_budget(state: State, args: Args) -> Any:
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    if not requisition["budgetId"]:
        return {
            "requisitionId": requisition["id"],
            "hasBudget": False,
            "sufficient": False,
            "reason": "No budget is assigned to this requisition.",
        }
    budget = require_budget(state, requisition["budgetId"])
    available = budget_headroom(budget)
    estimate = requisition["estimatedTotal"]
    sufficient = estimate["amount"] <= available["amount"]
    return {
        "requisitionId": requisition["id"],
        "hasBudget": True,
        "budgetId": budget["id"],
        "budgetName": budget["name"],
        "estimatedTotal": estimate,
        "allocated": budget["allocatedAmount"],
        "committed": budget["committedAmount"],
        "spent": budget["spentAmount"],
        "available": available,
        "sufficient": sufficient,
        "shortfall": money(0) if sufficient else money(estimate["amount"] - available["amount"]),
    }


check_requisition_budget = define_tool(
    name="check_requisition_budget",
    description=(
        "Whether the requisition's budget can absorb its estimated total: the budget's allocated, "
        "committed, spent and available amounts, sufficient or not, and the shortfall. Changes "
        "nothing. Read-only."
    ),
    input_schema=schema({"requisitionId": string_prop(_REQUISITION_ID)}, ["requisitionId"]),
    run=_check_requisition_budget,
)


def _approve_requisition(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    note = read_optional_string(args, "note")
    rid = requisition["id"]
    assert_status(requisition["status"], _DECIDABLE, f"Requisition {rid}")
    if not requisition["approvalId"]:
        raise ToolError("invalid_state", f"Requisition {rid} has no approval record; submit it first.")
    estimate = requisition["estimatedTotal"]
    approve_within_limit(state, approver, requisition, estimate, f"requisition {rid}")
    approval = decide_linked_approval(state, requisition, "approved", approver["id"], lambda: note)
    requisition["status"] = "approved"
    requisition["decidedAt"] = state["now"]
    audit(
        state, approver["id"], "requisition.approved", "requisition", rid,
        f"Approved {rid} for {fmt(estimate['amount'])}",
    )
    return {"requisition": requisition, "approval": approval}


approve_requisition = define_tool(
    name="approve_requisition",
    description=(
        "Approve a requisition awaiting approval and commit its estimated total to its budget. The "
        "approver acts and must have an approval limit at least the estimate; a budget without "
        "enough headroom refuses the commitment. Audited."
    ),
    input_schema=schema(
        {
            "requisitionId": string_prop(_REQUISITION_ID),
            "approverUserId": string_prop("Id of the approving user (the actor); must be active."),
            "note": string_prop("Optional approval note."),
        },
        ["requisitionId", "approverUserId"],
    ),
    run=_approve_requisition,
)


def _reject_requisition(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    reason = read_string(args, "reason")
    rid = requisition["id"]
    assert_status(requisition["status"], _DECIDABLE, f"Requisition {rid}")
    if not requisition["approvalId"]:
        raise ToolError("invalid_state", f"Requisition {rid} has no approval record.")
    approval = reject_document(state, approver, requisition, "requisition", reason, stamp=("decidedAt",))
    return {"requisition": requisition, "approval": approval}


reject_requisition = define_tool(
    name="reject_requisition",
    description=(
        "Reject a requisition awaiting approval; the reason is added to the approval's notes. No "
        "budget changes. Audited."
    ),
    input_schema=schema(
        {
            "requisitionId": string_prop(_REQUISITION_ID),
            "approverUserId": string_prop("Id of the rejecting user (the actor); must be active."),
            "reason": string_prop("Why it is rejected."),
        },
        ["requisitionId", "approverUserId", "reason"],
    ),
    run=_reject_requisition,
)


def _cancel_requisition(state: State, args: Args) -> Any:
    user = actor(state, args)
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    reason = read_string(args, "reason")
    rid = requisition["id"]
    assert_status(requisition["status"], ["draft", "submitted", "pending_approval", "approved"], f"Requisition {rid}")
    if requisition["status"] == "approved" and requisition["budgetId"]:
        release_commitment(require_budget(state, requisition["budgetId"]), requisition["estimatedTotal"])
    cancel_pending_approval(state, requisition["approvalId"], strict=True)
    requisition["status"] = "cancelled"
    requisition["decidedAt"] = state["now"]
    audit(state, user["id"], "requisition.cancelled", "requisition", rid, f"Cancelled {rid}: {reason}")
    return requisition


cancel_requisition = define_tool(
    name="cancel_requisition",
    description=(
        "Cancel a requisition that has not become an order (draft, submitted, pending or approved); "
        "an approved one gives its estimate back to the budget, and a pending approval is cancelled. "
        "Audited."
    ),
    input_schema=schema(
        {
            "requisitionId": string_prop(_REQUISITION_ID),
            "reason": string_prop("Why it is cancelled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["requisitionId", "reason", "actorUserId"],
    ),
    run=_cancel_requisition,
)


def _list_requisition_approvals(state: State, args: Args) -> Any:
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    return [
        a
        for a in linked_records(state, "approvals", "entityId", requisition["id"])
        if a["entityType"] == "requisition"
    ]


list_requisition_approvals = define_tool(
    name="list_requisition_approvals",
    description="Every approval raised on one requisition, sorted by id (a plain list). Read-only.",
    input_schema=schema({"requisitionId": string_prop(_REQUISITION_ID)}, ["requisitionId"]),
    run=_list_requisition_approvals,
)


def _convert_requisition_to_rfq(state: State, args: Args) -> Any:
    user = actor(state, args)
    requisition = require_requisition(state, read_string(args, "requisitionId"))
    vendor_ids = read_string_array(args, "vendorIds")
    rid = requisition["id"]
    assert_status(requisition["status"], ["approved"], f"Requisition {rid}")
    if requisition["rfqId"]:
        raise ToolError(
            "conflict", f"Requisition {rid} already has RFQ {requisition['rfqId']}.", {"rfqId": requisition["rfqId"]}
        )
    for vendor_id in vendor_ids:
        vendor = require_vendor(state, vendor_id)
        if vendor["status"] == "blocked":
            raise ToolError("not_allowed", f"Vendor {vendor_id} is blocked and cannot be invited to quote.")
    rfq_id = next_id(state, "RFQ")
    title = read_optional_string(args, "title")
    rfq = {
        "id": rfq_id,
        "number": rfq_id,
        "title": f"Sourcing for {rid}" if title is None else title,
        "status": "draft",
        "requisitionId": rid,
        "lines": [
            {"id": f"{rfq_id}-L{i}", "productId": line["productId"], "quantity": line["quantity"]}
            for i, line in enumerate(requisition["lines"], start=1)
        ],
        "invitedVendorIds": list(vendor_ids),
        "issuedByUserId": user["id"],
        "createdAt": state["now"],
        "sentAt": None,
        "responseDueDate": None,
        "closedAt": None,
        "awardedQuotationId": None,
    }
    due = read_optional_string(args, "responseDueDate")
    rfq["responseDueDate"] = add_days(state["now"], 10) if due is None else due
    state["rfqs"][rfq_id] = rfq
    requisition["rfqId"] = rfq_id
    audit(state, user["id"], "rfq.created", "rfq", rfq_id, f"Created {rfq_id} from {rid}")
    return rfq


convert_requisition_to_rfq = define_tool(
    name="convert_requisition_to_rfq",
    description=(
        "Open a draft RFQ from an approved requisition (one RFQ per requisition), copying its lines "
        "and inviting the given vendors (blocked vendors are refused). Responses are due in 10 days "
        "unless a date is given. Send it with send_rfq. Audited."
    ),
    input_schema=schema(
        {
            "requisitionId": string_prop(_REQUISITION_ID),
            "vendorIds": array_prop("Vendors to invite to quote.", {"type": "string"}),
            "title": string_prop("RFQ title (default: Sourcing for <requisition id>)."),
            "responseDueDate": string_prop("Date replies are due (ISO)."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["requisitionId", "vendorIds", "actorUserId"],
    ),
    run=_convert_requisition_to_rfq,
)

TOOLS = [
    list_requisitions,
    search_requisitions,
    get_requisition,
    create_requisition,
    update_requisition,
    submit_requisition,
    check_requisition_budget,
    approve_requisition,
    reject_requisition,
    cancel_requisition,
    list_requisition_approvals,
    convert_requisition_to_rfq,
]
