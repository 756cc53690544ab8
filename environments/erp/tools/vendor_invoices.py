"""Vendor invoice tools (erp-tools.md §7.13): registration, three-way match, approval, disputes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from silo_gym import ToolError, define_tool, round2

from ..state import (
    State,
    add_days,
    days_between,
    is_overdue,
    money,
    next_id,
    outstanding_amount,
    payment_term_days,
    sum_money,
)
from .helpers import (
    VINV_STATUS,
    actor,
    array_prop,
    assert_status,
    assert_within_approval_limit,
    audit,
    boolean_prop,
    decide_approval,
    document_totals,
    enum_prop,
    fixed2,
    flag,
    flag_default_true,
    fmt,
    integer_prop,
    line_total,
    linked_ids,
    matches_text,
    number_prop,
    object_prop,
    ordered_records,
    page_records,
    paginate,
    paging_props,
    read_number,
    read_object_array,
    read_optional_number,
    read_optional_string,
    read_string,
    require_approval,
    require_goods_receipt,
    require_purchase_order,
    require_user,
    require_vendor,
    require_vendor_invoice,
    schema,
    string_prop,
    vendor_invoice_summary,
)
from .steps import (
    decide_linked_approval,
    submit_for_approval,
)

Args = dict[str, Any]
_ACTOR = "Id of the active user doing this (for example USR-006); recorded in the audit log."
_INVOICE = "The vendor invoice id, for example VINV-104."


def _discrepancy(
    kind: str, line_id: Any, product_id: Any, expected: Any, actual: Any, message: str
) -> dict[str, Any]:
    return {
        "type": kind,
        "purchaseOrderLineId": line_id,
        "productId": product_id,
        "expected": expected,
        "actual": actual,
        "message": message,
    }


def run_match(state: State, invoice: dict[str, Any], tolerance: dict[str, Any]) -> list[dict[str, Any]]:
    """The three-way match of an invoice against its order and that order's posted receipts.

    Returns the discrepancies (``[]`` when the invoice matches). ``tolerance`` is
    ``{"pricePercent", "quantityPercent"}``. Raises not_found for a dangling purchase order id.
    """
    total = invoice["totalAmount"]["amount"]
    if not invoice["purchaseOrderId"]:
        return [
            _discrepancy(
                "missing_purchase_order", None, None, 0, total, "No purchase order is linked to this invoice."
            )
        ]
    order = require_purchase_order(state, invoice["purchaseOrderId"])
    posted = [
        r
        for r in state["goodsReceipts"].values()
        if r["purchaseOrderId"] == order["id"] and r["status"] == "posted"
    ]
    found: list[dict[str, Any]] = []
    if not posted:
        found.append(
            _discrepancy(
                "missing_receipt", None, None, 0, total, f"No posted goods receipt exists for {order['id']}."
            )
        )
    by_id = {line["id"]: line for line in order["lines"]}
    for line in invoice["lines"]:
        ref = line["purchaseOrderLineId"]
        if not ref:
            continue
        po_line = by_id.get(ref)
        if po_line is None:
            found.append(
                _discrepancy(
                    "missing_purchase_order",
                    ref,
                    line["productId"],
                    0,
                    line["quantity"],
                    f"Invoice line references {ref}, which is not on {order['id']}.",
                )
            )
            continue
        received = sum(
            gl["quantityReceived"] for r in posted for gl in r["lines"] if gl["purchaseOrderLineId"] == ref
        )
        if line["quantity"] > received * (1 + tolerance["quantityPercent"] / 100):
            found.append(
                _discrepancy(
                    "quantity",
                    po_line["id"],
                    line["productId"],
                    received,
                    line["quantity"],
                    f"Invoiced quantity {fmt(line['quantity'])} exceeds received quantity {fmt(received)} on {order['id']}.",
                )
            )
        expected = po_line["unitPrice"]["amount"]
        actual = line["unitPrice"]["amount"]
        variance = 0 if expected == 0 else (actual - expected) / expected * 100
        if variance > tolerance["pricePercent"]:
            found.append(
                _discrepancy(
                    "price",
                    po_line["id"],
                    line["productId"],
                    expected,
                    actual,
                    f"Invoiced unit price {fixed2(actual)} exceeds purchase order price {fixed2(expected)} "
                    f"by {fixed2(variance)}%.",
                )
            )
    return found


def _summary_page(
    state: State, args: Args, keep: Callable[[Any], bool] | None, ids: list[str] | None = None
) -> dict[str, Any]:
    """A page of the vendor invoices ``keep`` accepts (of ``ids``, else all) in id order, only the
    page's rows projected to ``vendor_invoice_summary``."""
    page = page_records(state, "vendorInvoices", args, keep, ids)
    page["results"] = [vendor_invoice_summary(i) for i in page["results"]]
    return page


def _current_match(state: State, invoice: dict[str, Any]) -> dict[str, Any] | None:
    match_id = invoice["matchId"]
    return state["threeWayMatches"].get(match_id) if match_id else None


# --- lists and reads -----------------------------------------------------------------------


def _list_vendor_invoices(state: State, args: Args) -> Any:
    status = read_optional_string(args, "status")
    vendor = read_optional_string(args, "vendorId")
    po = read_optional_string(args, "purchaseOrderId")
    overdue = flag(args, "overdueOnly")
    now = state["now"]

    def keep(i: Any) -> bool:
        return (
            (status is None or i["status"] == status)
            and (vendor is None or i["vendorId"] == vendor)
            and (po is None or i["purchaseOrderId"] == po)
            and (not overdue or is_overdue(i, now))
        )

    ids = None
    if po is not None:
        ids = linked_ids(state, "vendorInvoices", "purchaseOrderId", po)
    elif vendor is not None:
        ids = linked_ids(state, "vendorInvoices", "vendorId", vendor)
    unfiltered = status is None and vendor is None and po is None and not overdue
    return _summary_page(state, args, None if unfiltered else keep, ids)


list_vendor_invoices = define_tool(
    name="list_vendor_invoices",
    description=(
        "List vendor invoices sorted by id, optionally by status, vendor, purchase order, or only the "
        "overdue ones. Each row gives totals, amount paid, outstanding and due date. Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(VINV_STATUS, "Only invoices in this status."),
            "vendorId": string_prop("Only invoices from this vendor (for example VEN-002)."),
            "purchaseOrderId": string_prop("Only invoices against this purchase order."),
            "overdueOnly": boolean_prop("When true, only invoices past their due date with money owed."),
            **paging_props(),
        },
        [],
    ),
    run=_list_vendor_invoices,
)


def _search_vendor_invoices(state: State, args: Args) -> Any:
    query = read_string(args, "query")
    vendors = state["vendors"]

    def keep(i: Any) -> bool:
        vendor = vendors.get(i["vendorId"])
        name = vendor["name"] if vendor else None
        return (
            matches_text(i["id"], query)
            or matches_text(i["vendorInvoiceNumber"], query)
            or matches_text(name, query)
        )

    return _summary_page(state, args, keep)


search_vendor_invoices = define_tool(
    name="search_vendor_invoices",
    description=(
        "Find vendor invoices whose id, the vendor's own invoice number or the vendor's name contains "
        "the text (case-insensitive). Read-only."
    ),
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_vendor_invoices,
)


def _get_vendor_invoice(state: State, args: Args) -> Any:
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    approval = state["approvals"].get(invoice["approvalId"]) if invoice["approvalId"] else None
    payments = [
        {
            "id": p["id"],
            "status": p["status"],
            "amount": p["amount"],
            "processedAt": p["processedAt"],
            "failureReason": p["failureReason"],
        }
        for p in state["payments"].values()
        if any(a["invoiceId"] == invoice["id"] for a in p["allocations"])
    ]
    return {
        **invoice,
        "outstanding": outstanding_amount(invoice),
        "isOverdue": is_overdue(invoice, state["now"]),
        "match": _current_match(state, invoice),
        "approval": approval,
        "payments": payments,
    }


get_vendor_invoice = define_tool(
    name="get_vendor_invoice",
    description=(
        "Get one vendor invoice with its outstanding amount, overdue flag, current three-way match, "
        "approval and every payment made against it. Start here when an invoice cannot be paid. Read-only."
    ),
    input_schema=schema({"vendorInvoiceId": string_prop(_INVOICE)}, ["vendorInvoiceId"]),
    run=_get_vendor_invoice,
)


def _create_vendor_invoice(state: State, args: Args) -> Any:
    user = actor(state, args)
    vendor = require_vendor(state, read_string(args, "vendorId"))
    number = read_string(args, "vendorInvoiceNumber")
    for other in state["vendorInvoices"].values():
        if (
            other["vendorId"] == vendor["id"]
            and other["status"] != "cancelled"
            and other["vendorInvoiceNumber"].lower() == number.lower()
        ):
            raise ToolError(
                "conflict",
                f'Invoice "{number}" from {vendor["id"]} is already registered as {other["id"]}.',
                {"vendorInvoiceId": other["id"]},
            )
    order = None
    po_id = read_optional_string(args, "purchaseOrderId")
    if po_id is not None:
        order = require_purchase_order(state, po_id)
        if order["vendorId"] != vendor["id"]:
            raise ToolError(
                "invalid_input", f"{order['id']} belongs to vendor {order['vendorId']}, not {vendor['id']}."
            )
        if order["status"] == "cancelled":
            raise ToolError("invalid_state", f"{order['id']} is cancelled and cannot be invoiced.")
    if isinstance(args.get("goodsReceiptIds"), list):
        receipt_ids = [require_goods_receipt(state, str(x))["id"] for x in args["goodsReceiptIds"]]
    elif order is not None:
        receipt_ids = [
            r["id"]
            for r in state["goodsReceipts"].values()
            if r["purchaseOrderId"] == order["id"] and r["status"] == "posted"
        ]
    else:
        receipt_ids = []
    inv_id = next_id(state, "VINV")
    if isinstance(args.get("lines"), list):
        specs = read_object_array(args, "lines")
    elif order is not None:
        specs = [
            {
                "purchaseOrderLineId": line["id"],
                "description": line["description"],
                "quantity": line["quantityReceived"] - line["quantityInvoiced"],
                "unitPrice": line["unitPrice"]["amount"],
            }
            for line in order["lines"]
            if line["quantityReceived"] > line["quantityInvoiced"]
        ]
    else:
        specs = []
    if not specs:
        if order is not None:
            raise ToolError(
                "invalid_input", f'Nothing is awaiting invoicing on {order["id"]}; supply "lines" explicitly.'
            )
        raise ToolError("invalid_input", 'Provide "lines" for a non-PO invoice.')
    po_lines = {line["id"]: line for line in order["lines"]} if order is not None else {}
    lines = []
    for i, spec in enumerate(specs, start=1):
        quantity = read_number(spec, "quantity", minimum=0)
        unit_price = read_number(spec, "unitPrice", minimum=0)
        ref = read_optional_string(spec, "purchaseOrderLineId")
        if order is not None and ref is not None and ref not in po_lines:
            raise ToolError("not_found", f'Line "{ref}" is not on {order["id"]}.')
        po_line = po_lines.get(ref) if ref is not None else None
        lines.append(
            {
                "id": f"{inv_id}-L{i}",
                "purchaseOrderLineId": ref,
                "productId": po_line["productId"] if po_line is not None else None,
                "description": read_string(spec, "description"),
                "quantity": quantity,
                "unitPrice": money(unit_price),
                "lineTotal": line_total(quantity, unit_price),
            }
        )
    totals = document_totals(lines)
    invoice_date = read_optional_string(args, "invoiceDate") or state["now"]
    try:
        due = add_days(invoice_date, payment_term_days(vendor["paymentTerms"]))
    except ValueError:
        raise ToolError("invalid_state", "Invalid time value") from None
    record = {
        "id": inv_id,
        "number": inv_id,
        "vendorInvoiceNumber": number,
        "vendorId": vendor["id"],
        "purchaseOrderId": order["id"] if order is not None else None,
        "goodsReceiptIds": receipt_ids,
        "status": "pending_match",
        "lines": lines,
        "subtotal": totals["subtotal"],
        "taxAmount": totals["taxAmount"],
        "totalAmount": totals["totalAmount"],
        "amountPaid": money(0),
        "invoiceDate": invoice_date,
        "dueDate": due,
        "receivedAt": state["now"],
        "matchId": None,
        "approvalId": None,
        "approvedAt": None,
        "approvedByUserId": None,
        "disputeReason": None,
        "paidAt": None,
    }
    state["vendorInvoices"][inv_id] = record
    if order is not None:
        for line in lines:
            po_line = po_lines.get(line["purchaseOrderLineId"]) if line["purchaseOrderLineId"] else None
            if po_line is not None:
                po_line["quantityInvoiced"] += line["quantity"]
    audit(
        state,
        user["id"],
        "vendor_invoice.created",
        "vendor_invoice",
        inv_id,
        f"Registered {inv_id} from {vendor['name']} for {fmt(record['totalAmount']['amount'])}",
        [],
    )
    return record


_INVOICE_LINE = object_prop(
    "One billed line.",
    {
        "purchaseOrderLineId": string_prop("The purchase order line billed, for example PO-203-L1."),
        "description": string_prop("What is billed."),
        "quantity": number_prop("Quantity billed.", minimum=0),
        "unitPrice": number_prop("Price per unit billed, in USD.", minimum=0),
    },
    ["description", "quantity", "unitPrice"],
)

create_vendor_invoice = define_tool(
    name="create_vendor_invoice",
    description=(
        "Register a vendor's invoice, normally against a purchase order and its receipts so it can be "
        "three-way matched. Without lines it bills what was received on the order but not yet invoiced. "
        "The due date follows the vendor's payment terms. Returns the new invoice (status pending_match)."
    ),
    input_schema=schema(
        {
            "vendorId": string_prop("The vendor who sent the invoice, for example VEN-009."),
            "vendorInvoiceNumber": string_prop("The vendor's own invoice number."),
            "purchaseOrderId": string_prop("The purchase order billed."),
            "goodsReceiptIds": array_prop(
                "Receipts this invoice covers; default: the order's posted receipts.",
                string_prop("A goods receipt id."),
            ),
            "lines": array_prop(
                "The billed lines; omit to bill what was received but not invoiced.", _INVOICE_LINE
            ),
            "invoiceDate": string_prop("Invoice date as an ISO date or timestamp; default now."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorId", "vendorInvoiceNumber", "actorUserId"],
    ),
    run=_create_vendor_invoice,
)


def _run_three_way_match(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    assert_status(
        invoice["status"],
        ["draft", "pending_match", "matched", "pending_approval", "disputed"],
        f"Invoice {invoice['id']}",
    )
    price = read_optional_number(args, "pricePercentTolerance", minimum=0)
    quantity = read_optional_number(args, "quantityPercentTolerance", minimum=0)
    tolerance = {
        "pricePercent": 2 if price is None else price,
        "quantityPercent": 0 if quantity is None else quantity,
    }
    discrepancies = run_match(state, invoice, tolerance)
    status = "failed" if discrepancies else "matched"
    match = {
        "id": next_id(state, "MATCH"),
        "vendorInvoiceId": invoice["id"],
        "purchaseOrderId": invoice["purchaseOrderId"],
        "goodsReceiptIds": list(invoice["goodsReceiptIds"]),
        "status": status,
        "discrepancies": discrepancies,
        "tolerance": tolerance,
        "runAt": state["now"],
        "runByUserId": user["id"],
    }
    state["threeWayMatches"][match["id"]] = match
    invoice["matchId"] = match["id"]
    if status == "matched":
        invoice["status"] = "matched"
    elif invoice["status"] == "matched":
        invoice["status"] = "pending_match"
    audit(
        state,
        user["id"],
        f"three_way_match.{status}",
        "three_way_match",
        match["id"],
        f"Match {status} for {invoice['id']}",
        [],
    )
    return match


run_three_way_match = define_tool(
    name="run_three_way_match",
    description=(
        "Match an invoice against its purchase order and the order's posted goods receipts: billed "
        "quantities must not exceed received ones and billed prices must not exceed the order price by "
        "more than the tolerance. A clean result marks the invoice matched; a failure records every "
        "discrepancy. Returns the match record."
    ),
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "pricePercentTolerance": number_prop("Allowed price overrun in percent (default 2).", minimum=0),
            "quantityPercentTolerance": number_prop(
                "Allowed quantity overrun in percent (default 0).", minimum=0
            ),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorInvoiceId", "actorUserId"],
    ),
    run=_run_three_way_match,
)


def _get_three_way_match(state: State, args: Args) -> Any:
    match_id = read_string(args, "matchId")
    match = state["threeWayMatches"].get(match_id)
    if match is None:
        raise ToolError("not_found", f'Three-way match "{match_id}" was not found.')
    return match


get_three_way_match = define_tool(
    name="get_three_way_match",
    description="Get one three-way match record with its discrepancies and tolerance. Read-only.",
    input_schema=schema({"matchId": string_prop("The match id, for example MATCH-004.")}, ["matchId"]),
    run=_get_three_way_match,
)


def _list_invoice_discrepancies(state: State, args: Args) -> Any:
    rows = []
    for invoice in ordered_records(state, "vendorInvoices"):
        if not invoice["matchId"] or invoice["status"] in ("paid", "cancelled"):
            continue
        match = state["threeWayMatches"].get(invoice["matchId"])
        if match is None or match["status"] != "failed":
            continue
        for d in match["discrepancies"]:
            rows.append(
                {
                    "vendorInvoiceId": invoice["id"],
                    "vendorId": invoice["vendorId"],
                    "invoiceStatus": invoice["status"],
                    "purchaseOrderId": invoice["purchaseOrderId"],
                    "matchId": match["id"],
                    "type": d["type"],
                    "expected": d["expected"],
                    "actual": d["actual"],
                    "message": d["message"],
                }
            )
    return paginate(rows, args)


list_invoice_discrepancies = define_tool(
    name="list_invoice_discrepancies",
    description=(
        "List every discrepancy of every open vendor invoice whose current three-way match failed, "
        "sorted by invoice id, for triage. Read-only."
    ),
    input_schema=schema({**paging_props()}, []),
    run=_list_invoice_discrepancies,
)


def _submit_vendor_invoice_for_approval(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    approver = require_user(state, read_string(args, "approverUserId"))
    assert_status(invoice["status"], ["matched", "pending_match", "draft"], f"Invoice {invoice['id']}")
    match = _current_match(state, invoice)
    if match is None:
        raise ToolError(
            "invalid_state", f"Invoice {invoice['id']} has not been matched; run run_three_way_match first."
        )
    if match["status"] == "failed":
        n = len(match["discrepancies"])
        raise ToolError(
            "invalid_state",
            f"Invoice {invoice['id']} cannot be submitted: match {match['id']} failed with {n} discrepancy(ies).",
            {"discrepancies": match["discrepancies"]},
        )
    approval = submit_for_approval(state, user, invoice, "vendor_invoice", approver, invoice["totalAmount"])
    return {"invoice": invoice, "approval": approval}


submit_vendor_invoice_for_approval = define_tool(
    name="submit_vendor_invoice_for_approval",
    description=(
        "Send a matched vendor invoice to an approver. Refused while the invoice has no match or its "
        "current match failed. Returns the invoice and the new approval."
    ),
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "approverUserId": string_prop("The user who should approve it, for example USR-007."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorInvoiceId", "approverUserId", "actorUserId"],
    ),
    run=_submit_vendor_invoice_for_approval,
)


def _approve_vendor_invoice(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    assert_status(invoice["status"], ["pending_approval", "matched"], f"Invoice {invoice['id']}")
    match = _current_match(state, invoice)
    if match is None or match["status"] != "matched":
        if match is not None:
            messages = " ".join(d["message"] for d in match["discrepancies"])
            text = f"Invoice {invoice['id']} cannot be approved: match {match['id']} failed. {messages}"
        else:
            text = f"Invoice {invoice['id']} has not been three-way matched."
        raise ToolError(
            "invalid_state", text, {"discrepancies": match["discrepancies"] if match is not None else []}
        )
    assert_within_approval_limit(approver, invoice["totalAmount"], invoice["id"])
    decide_linked_approval(state, invoice, "approved", approver["id"], lambda: read_optional_string(args, "note"))
    invoice["status"] = "approved"
    invoice["approvedAt"] = state["now"]
    invoice["approvedByUserId"] = approver["id"]
    audit(
        state,
        approver["id"],
        "vendor_invoice.approved",
        "vendor_invoice",
        invoice["id"],
        f"Approved {invoice['id']} for {fmt(invoice['totalAmount']['amount'])}",
        [],
    )
    return invoice


approve_vendor_invoice = define_tool(
    name="approve_vendor_invoice",
    description=(
        "Approve a vendor invoice for payment. Refused unless its current three-way match is clean, and "
        "when the total is above the approver's approval limit. Returns the invoice."
    ),
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "approverUserId": string_prop("The approving user (also the acting user), for example USR-007."),
            "note": string_prop("A note added to the approval."),
        },
        ["vendorInvoiceId", "approverUserId"],
    ),
    run=_approve_vendor_invoice,
)


def _release_invoiced(state: State, invoice: dict[str, Any]) -> None:
    order = require_purchase_order(state, invoice["purchaseOrderId"])
    by_id = {line["id"]: line for line in order["lines"]}
    for line in invoice["lines"]:
        po_line = by_id.get(line["purchaseOrderLineId"]) if line["purchaseOrderLineId"] else None
        if po_line is not None:
            po_line["quantityInvoiced"] = max(0, po_line["quantityInvoiced"] - line["quantity"])


def _reject_vendor_invoice(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    reason = read_string(args, "reason")
    assert_status(
        invoice["status"],
        ["pending_approval", "pending_match", "matched", "disputed", "draft"],
        f"Invoice {invoice['id']}",
    )
    if invoice["approvalId"]:
        approval = require_approval(state, invoice["approvalId"])
        if approval["status"] == "pending":
            decide_approval(state, approval, "rejected", approver["id"], reason)
    invoice["status"] = "rejected"
    if invoice["purchaseOrderId"]:
        _release_invoiced(state, invoice)
    audit(
        state,
        approver["id"],
        "vendor_invoice.rejected",
        "vendor_invoice",
        invoice["id"],
        f"Rejected {invoice['id']}: {reason}",
        [],
    )
    return invoice


reject_vendor_invoice = define_tool(
    name="reject_vendor_invoice",
    description=(
        "Reject a vendor invoice (a duplicate or a billing error), freeing the quantities it claimed on "
        "the purchase order. A rejected invoice can never be paid. Returns the invoice."
    ),
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "approverUserId": string_prop("The rejecting user (also the acting user)."),
            "reason": string_prop("Why it is rejected."),
        },
        ["vendorInvoiceId", "approverUserId", "reason"],
    ),
    run=_reject_vendor_invoice,
)


def _dispute_vendor_invoice(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    reason = read_string(args, "reason")
    assert_status(
        invoice["status"],
        ["pending_match", "matched", "pending_approval", "approved"],
        f"Invoice {invoice['id']}",
    )
    invoice["status"] = "disputed"
    invoice["disputeReason"] = reason
    audit(
        state,
        user["id"],
        "vendor_invoice.disputed",
        "vendor_invoice",
        invoice["id"],
        f"Disputed {invoice['id']}: {reason}",
        [],
    )
    return invoice


dispute_vendor_invoice = define_tool(
    name="dispute_vendor_invoice",
    description="Put a vendor invoice into dispute while a variance is checked with the vendor. Returns the invoice.",
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "reason": string_prop("What is disputed."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorInvoiceId", "reason", "actorUserId"],
    ),
    run=_dispute_vendor_invoice,
)


def _resolve_vendor_invoice_dispute(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    resolution = read_string(args, "resolution")
    assert_status(invoice["status"], ["disputed"], f"Invoice {invoice['id']}")
    invoice["status"] = "pending_match"
    invoice["disputeReason"] = None
    audit(
        state,
        user["id"],
        "vendor_invoice.dispute_resolved",
        "vendor_invoice",
        invoice["id"],
        f"Dispute on {invoice['id']} resolved: {resolution}",
        [],
    )
    return invoice


resolve_vendor_invoice_dispute = define_tool(
    name="resolve_vendor_invoice_dispute",
    description="Clear a dispute on a vendor invoice and return it to matching (status pending_match). Returns the invoice.",
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "resolution": string_prop("How the dispute was settled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorInvoiceId", "resolution", "actorUserId"],
    ),
    run=_resolve_vendor_invoice_dispute,
)


def _update_vendor_invoice_line(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    line_id = read_string(args, "lineId")
    assert_status(
        invoice["status"],
        ["draft", "pending_match", "matched", "pending_approval", "disputed"],
        f"Invoice {invoice['id']}",
    )
    line = next((x for x in invoice["lines"] if x["id"] == line_id), None)
    if line is None:
        raise ToolError("not_found", f'Line "{line_id}" is not on {invoice["id"]}.')
    quantity = read_optional_number(args, "quantity", minimum=0)
    unit_price = read_optional_number(args, "unitPrice", minimum=0)
    if quantity is None and unit_price is None:
        raise ToolError("invalid_input", "Supply a corrected quantity, unit price, or both.")
    previous = line["quantity"]
    if quantity is not None:
        line["quantity"] = quantity
    if unit_price is not None:
        line["unitPrice"] = money(unit_price)
    line["lineTotal"] = money(line["quantity"] * line["unitPrice"]["amount"])
    subtotal = sum_money([x["lineTotal"] for x in invoice["lines"]])
    tax = money(subtotal["amount"] * 0.08)
    invoice["subtotal"] = subtotal
    invoice["taxAmount"] = tax
    invoice["totalAmount"] = money(subtotal["amount"] + tax["amount"], subtotal["currency"])
    if invoice["purchaseOrderId"] and line["purchaseOrderLineId"] and quantity is not None:
        order = require_purchase_order(state, invoice["purchaseOrderId"])
        po_line = next((x for x in order["lines"] if x["id"] == line["purchaseOrderLineId"]), None)
        if po_line is not None:
            po_line["quantityInvoiced"] = max(0, round2(po_line["quantityInvoiced"] - previous + quantity))
    invoice["matchId"] = None
    if invoice["status"] in ("matched", "pending_approval"):
        invoice["status"] = "pending_match"
    audit(
        state,
        user["id"],
        "vendor_invoice.line_corrected",
        "vendor_invoice",
        invoice["id"],
        f"Corrected {line_id} on {invoice['id']}; re-match required",
        [],
    )
    return invoice


update_vendor_invoice_line = define_tool(
    name="update_vendor_invoice_line",
    description=(
        "Correct the quantity or unit price of one line of a vendor invoice before approval. Totals are "
        "recomputed and the current match is cleared, so the match must be run again. Returns the invoice."
    ),
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "lineId": string_prop("The invoice line, for example VINV-104-L1."),
            "quantity": number_prop("The corrected quantity.", minimum=0),
            "unitPrice": number_prop("The corrected unit price in USD.", minimum=0),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorInvoiceId", "lineId", "actorUserId"],
    ),
    run=_update_vendor_invoice_line,
)


def _cancel_vendor_invoice(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    reason = read_string(args, "reason")
    if invoice["status"] == "cancelled":
        raise ToolError("invalid_state", f"Invoice {invoice['id']} is already cancelled.")
    paid = invoice["amountPaid"]
    if paid["amount"] > 0:
        raise ToolError(
            "invalid_state",
            f"Invoice {invoice['id']} has {fmt(paid['amount'])} paid against it and cannot be cancelled.",
            {"amountPaid": paid},
        )
    if invoice["purchaseOrderId"]:
        _release_invoiced(state, invoice)
    invoice["status"] = "cancelled"
    audit(
        state,
        user["id"],
        "vendor_invoice.cancelled",
        "vendor_invoice",
        invoice["id"],
        f"Cancelled {invoice['id']}: {reason}",
        [],
    )
    return invoice


cancel_vendor_invoice = define_tool(
    name="cancel_vendor_invoice",
    description=(
        "Cancel a vendor invoice that has nothing paid against it, freeing the quantities it claimed on "
        "the purchase order. A cancelled invoice can never be paid. Returns the invoice."
    ),
    input_schema=schema(
        {
            "vendorInvoiceId": string_prop(_INVOICE),
            "reason": string_prop("Why it is cancelled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorInvoiceId", "reason", "actorUserId"],
    ),
    run=_cancel_vendor_invoice,
)


def _due_rows(state: State, within: int, include_overdue: bool) -> tuple[str, list[dict[str, Any]]]:
    now = state["now"]
    horizon = add_days(now, within)
    rows = []
    for invoice in state["vendorInvoices"].values():
        if invoice["status"] not in ("approved", "partially_paid"):
            continue
        if outstanding_amount(invoice)["amount"] <= 0:
            continue
        keep = include_overdue if invoice["dueDate"] < now else invoice["dueDate"] <= horizon
        if keep:
            rows.append(invoice)
    return horizon, rows


def _list_invoices_due_soon(state: State, args: Args) -> Any:
    within = read_optional_number(args, "withinDays", minimum=0, maximum=365, integer=True)
    include = flag_default_true(args, "includeOverdue")
    horizon, invoices = _due_rows(state, 7 if within is None else int(within), include)
    now = state["now"]
    rows = [{**vendor_invoice_summary(i), "isOverdue": is_overdue(i, now)} for i in invoices]
    rows.sort(key=lambda r: r["dueDate"])
    page = paginate(rows, args)
    return {**page, "horizon": horizon, "totalDue": sum_money([r["outstanding"] for r in rows])}


list_invoices_due_soon = define_tool(
    name="list_invoices_due_soon",
    description=(
        "List approved (or part-paid) vendor invoices with money owed that fall due within a window "
        "(default the next 7 days), earliest due first, overdue ones included unless told otherwise. "
        "Gives the horizon and the total due. Read-only."
    ),
    input_schema=schema(
        {
            "withinDays": integer_prop("Days ahead to look (default 7).", minimum=0, maximum=365),
            "includeOverdue": boolean_prop("Include invoices already past due (default true)."),
            **paging_props(),
        },
        [],
    ),
    run=_list_invoices_due_soon,
)


def _list_overdue_vendor_invoices(state: State, args: Args) -> Any:
    now = state["now"]
    rows = [
        {**vendor_invoice_summary(i), "daysOverdue": days_between(i["dueDate"], now)}
        for i in state["vendorInvoices"].values()
        if is_overdue(i, now)
    ]
    rows.sort(key=lambda r: r["daysOverdue"], reverse=True)
    page = paginate(rows, args)
    return {**page, "totalOverdue": sum_money([r["outstanding"] for r in rows])}


list_overdue_vendor_invoices = define_tool(
    name="list_overdue_vendor_invoices",
    description=(
        "List vendor invoices past their due date with money still owed, most days overdue first, with "
        "the total overdue. Read-only."
    ),
    input_schema=schema({**paging_props()}, []),
    run=_list_overdue_vendor_invoices,
)


_FIX_WITH = {
    "quantity": "receive_goods (if goods did arrive) or update_vendor_invoice_line",
    "price": "update_vendor_invoice_line or dispute_vendor_invoice",
}


def _explain_invoice_block(state: State, args: Args) -> Any:
    invoice = require_vendor_invoice(state, read_string(args, "vendorInvoiceId"))
    status = invoice["status"]
    blockers: list[dict[str, str]] = []

    def block(code: str, message: str, fix: str) -> None:
        blockers.append({"code": code, "message": message, "fixWith": fix})

    if status in ("cancelled", "rejected"):
        block(
            "invoice_closed",
            f"Invoice is {status} and can never be paid.",
            "create_vendor_invoice (register a replacement)",
        )
    if status == "disputed":
        block(
            "disputed",
            f"Invoice is in dispute: {invoice['disputeReason'] or 'no reason recorded'}.",
            "resolve_vendor_invoice_dispute",
        )
    match = _current_match(state, invoice)
    if match is None:
        block("not_matched", "No three-way match has been run for this invoice.", "run_three_way_match")
    elif match["status"] == "failed":
        for d in match["discrepancies"]:
            block(
                f"match_{d['type']}",
                d["message"],
                _FIX_WITH.get(d["type"], "create_purchase_order / receive_goods"),
            )
    if status not in ("approved", "partially_paid", "paid") and not blockers:
        block(
            "not_approved",
            f'Invoice status is "{status}"; it has not been approved for payment.',
            "submit_vendor_invoice_for_approval then approve_vendor_invoice",
        )
    out = outstanding_amount(invoice)
    if out["amount"] == 0 and status == "paid":
        block("already_paid", "Invoice is already paid in full.", "")
    return {
        "vendorInvoiceId": invoice["id"],
        "status": status,
        "outstanding": out,
        "payable": not blockers,
        "blockers": blockers,
    }


explain_invoice_block = define_tool(
    name="explain_invoice_block",
    description=(
        "Say in one call why a vendor invoice cannot be paid yet: each blocker with a code, a message "
        "and the tool that fixes it, plus whether it is payable now. Read-only."
    ),
    input_schema=schema({"vendorInvoiceId": string_prop(_INVOICE)}, ["vendorInvoiceId"]),
    run=_explain_invoice_block,
)

TOOLS = [
    list_vendor_invoices,
    search_vendor_invoices,
    get_vendor_invoice,
    create_vendor_invoice,
    run_three_way_match,
    get_three_way_match,
    list_invoice_discrepancies,
    submit_vendor_invoice_for_approval,
    approve_vendor_invoice,
    reject_vendor_invoice,
    dispute_vendor_invoice,
    resolve_vendor_invoice_dispute,
    update_vendor_invoice_line,
    cancel_vendor_invoice,
    list_invoices_due_soon,
    list_overdue_vendor_invoices,
    explain_invoice_block,
]
