"""Payment tools (erp-tools.md §7.14): outbound vendor payments, customer receipts, payment runs."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, add_days, money, next_id, outstanding_amount, sum_money
from .helpers import (
    DIRECTION,
    PAYMENT_METHOD,
    PAYMENT_STATUS,
    actor,
    apply_payment_to_invoice,
    array_prop,
    assert_status,
    assert_within_approval_limit,
    audit,
    boolean_prop,
    cancel_pending_approval,
    enum_prop,
    flag_default_true,
    fmt,
    integer_prop,
    linked_ids,
    number_prop,
    object_prop,
    ordered_records,
    page_records,
    paging_props,
    payment_summary,
    read_number,
    read_object_array,
    read_optional_enum,
    read_optional_string,
    read_string,
    require_customer,
    require_customer_invoice,
    require_payment,
    require_user,
    require_vendor,
    require_vendor_invoice,
    schema,
    string_prop,
)
from .steps import (
    decide_linked_approval,
    submit_for_approval,
)

Args = dict[str, Any]
_ACTOR = "Id of the active user doing this (for example USR-006); recorded in the audit log."
_PAYMENT = "The payment id, for example PAY-003."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _requested(spec: dict[str, Any], outstanding: dict[str, Any]) -> float:
    if _is_number(spec.get("amount")):
        return read_number(spec, "amount", minimum=0)
    return outstanding["amount"]  # type: ignore[no-any-return]


def _invoice_of(state: State, payment: dict[str, Any], invoice_id: str) -> dict[str, Any]:
    if payment["direction"] == "inbound":
        return require_customer_invoice(state, invoice_id)
    return require_vendor_invoice(state, invoice_id)


def _allocation(spec: dict[str, Any], invoice: dict[str, Any], refusal: str) -> dict[str, Any]:
    """``{"invoiceId", "amount"}`` for one allocation spec against an invoice that may be paid: the
    requested amount (default: all that is outstanding) must be positive room on the invoice.

    ``refusal`` words the over-payment message, with ``{amount}`` and ``{invoice}`` slots.

    Raises:
        ToolError: invalid_state when nothing is outstanding; invalid_input when the amount is
            above the outstanding balance.
    """
    iid = invoice["id"]
    outstanding = outstanding_amount(invoice)
    if outstanding["amount"] <= 0:
        raise ToolError("invalid_state", f"Invoice {iid} has nothing outstanding.")
    requested = _requested(spec, outstanding)
    if requested > outstanding["amount"]:
        raise ToolError(
            "invalid_input",
            refusal.format(amount=fmt(requested), invoice=iid) + f": only {fmt(outstanding['amount'])} outstanding.",
            {"outstanding": outstanding},
        )
    return {"invoiceId": iid, "amount": money(requested)}


def _new_payment(
    state: State,
    pay_id: str,
    user: dict[str, Any],
    *,
    direction: str,
    party: tuple[str | None, str | None],
    allocations: list[dict[str, Any]],
    amount: dict[str, Any],
    method: str,
    status: str,
    reference: str,
    scheduled: str,
    processed: str | None,
) -> dict[str, Any]:
    """A payment record in the §2 key order (not stored); ``party`` is ``(vendorId, customerId)``."""
    vendor_id, customer_id = party
    return {
        "id": pay_id,
        "number": pay_id,
        "direction": direction,
        "vendorId": vendor_id,
        "customerId": customer_id,
        "allocations": allocations,
        "amount": amount,
        "method": method,
        "status": status,
        "reference": reference,
        "scheduledDate": scheduled,
        "processedAt": processed,
        "failureReason": None,
        "createdByUserId": user["id"],
        "approvalId": None,
        "approvedByUserId": None,
        "createdAt": state["now"],
    }


def _list_payments(state: State, args: Args) -> Any:
    direction = read_optional_string(args, "direction")
    status = read_optional_string(args, "status")
    vendor = read_optional_string(args, "vendorId")
    customer = read_optional_string(args, "customerId")

    def keep(p: Any) -> bool:
        return (
            (direction is None or p["direction"] == direction)
            and (status is None or p["status"] == status)
            and (vendor is None or p["vendorId"] == vendor)
            and (customer is None or p["customerId"] == customer)
        )

    ids = None
    if vendor is not None:
        ids = linked_ids(state, "payments", "vendorId", vendor)
    elif customer is not None:
        ids = linked_ids(state, "payments", "customerId", customer)
    unfiltered = direction is None and status is None and vendor is None and customer is None
    page = page_records(state, "payments", args, None if unfiltered else keep, ids)
    page["results"] = [payment_summary(p) for p in page["results"]]
    return page


list_payments = define_tool(
    name="list_payments",
    description=(
        "List payments sorted by id, optionally by direction (outbound to vendors, inbound from "
        "customers), status, vendor or customer. Read-only."
    ),
    input_schema=schema(
        {
            "direction": enum_prop(DIRECTION, "Only payments going this way."),
            "status": enum_prop(PAYMENT_STATUS, "Only payments in this status."),
            "vendorId": string_prop("Only payments to this vendor."),
            "customerId": string_prop("Only payments from this customer."),
            **paging_props(),
        },
        [],
    ),
    run=_list_payments,
)


def _get_payment(state: State, args: Args) -> Any:
    return require_payment(state, read_string(args, "paymentId"))


get_payment = define_tool(
    name="get_payment",
    description="Get one payment with its allocations to invoices, status and failure reason. Read-only.",
    input_schema=schema({"paymentId": string_prop(_PAYMENT)}, ["paymentId"]),
    run=_get_payment,
)


def _create_vendor_payment(state: State, args: Args) -> Any:
    user = actor(state, args)
    vendor = require_vendor(state, read_string(args, "vendorId"))
    allocations = []
    for spec in read_object_array(args, "allocations"):
        invoice = require_vendor_invoice(state, read_string(spec, "invoiceId"))
        iid, status = invoice["id"], invoice["status"]
        if invoice["vendorId"] != vendor["id"]:
            raise ToolError(
                "invalid_input", f"Invoice {iid} belongs to vendor {invoice['vendorId']}, not {vendor['id']}."
            )
        if status in ("cancelled", "rejected"):
            raise ToolError("invalid_state", f"Invoice {iid} is {status} and cannot be paid.")
        if status == "disputed":
            raise ToolError(
                "invalid_state",
                f"Invoice {iid} is in dispute: {invoice['disputeReason'] or 'no reason recorded'}.",
            )
        if status not in ("approved", "partially_paid"):
            raise ToolError(
                "invalid_state",
                f'Invoice {iid} is "{status}"; only approved invoices can be paid. Use explain_invoice_block for details.',
                {"status": status},
            )
        allocations.append(_allocation(spec, invoice, "Cannot pay {amount} against {invoice}"))
    amount = sum_money([a["amount"] for a in allocations])
    pay_id = next_id(state, "PAY")
    method = read_optional_enum(args, "method", PAYMENT_METHOD) or "bank_transfer"
    record = _new_payment(
        state, pay_id, user, direction="outbound", party=(vendor["id"], None), allocations=allocations,
        amount=amount, method=method, status="draft", reference=f"{method.upper()}-{pay_id}",
        scheduled=read_optional_string(args, "scheduledDate") or state["now"], processed=None,
    )
    state["payments"][pay_id] = record
    audit(
        state,
        user["id"],
        "payment.created",
        "payment",
        pay_id,
        f"Scheduled {pay_id} to {vendor['name']} for {fmt(amount['amount'])}",
        [],
    )
    return record


_ALLOCATION = object_prop(
    "One invoice this payment settles.",
    {
        "invoiceId": string_prop("The invoice paid, for example VINV-107."),
        "amount": number_prop("Amount applied in USD; omit for the full outstanding balance.", minimum=0),
    },
    ["invoiceId"],
)

create_vendor_payment = define_tool(
    name="create_vendor_payment",
    description=(
        "Schedule a draft outbound payment to one vendor against its approved invoices. Invoices that "
        "are not approved, are closed or settled, and amounts above what is outstanding are refused. "
        "The payment moves no money until it is approved and completed. Returns the payment."
    ),
    input_schema=schema(
        {
            "vendorId": string_prop("The vendor paid, for example VEN-006."),
            "allocations": array_prop("The invoices this payment covers.", _ALLOCATION),
            "method": enum_prop(PAYMENT_METHOD, "How the money is sent (default bank_transfer)."),
            "scheduledDate": string_prop("When the payment should go out; default now."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorId", "allocations", "actorUserId"],
    ),
    run=_create_vendor_payment,
)


def _submit_payment_for_approval(state: State, args: Args) -> Any:
    user = actor(state, args)
    payment = require_payment(state, read_string(args, "paymentId"))
    approver = require_user(state, read_string(args, "approverUserId"))
    assert_status(payment["status"], ["draft"], f"Payment {payment['id']}")
    approval = submit_for_approval(state, user, payment, "payment", approver, payment["amount"])
    return {"payment": payment, "approval": approval}


submit_payment_for_approval = define_tool(
    name="submit_payment_for_approval",
    description="Send a draft payment to an approver. Returns the payment and the new approval.",
    input_schema=schema(
        {
            "paymentId": string_prop(_PAYMENT),
            "approverUserId": string_prop("The user who should approve it, for example USR-007."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["paymentId", "approverUserId", "actorUserId"],
    ),
    run=_submit_payment_for_approval,
)


def _approve_payment(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    payment = require_payment(state, read_string(args, "paymentId"))
    assert_status(payment["status"], ["pending_approval", "draft"], f"Payment {payment['id']}")
    assert_within_approval_limit(approver, payment["amount"], payment["id"])
    decide_linked_approval(state, payment, "approved", approver["id"], lambda: read_optional_string(args, "note"))
    payment["status"] = "approved"
    payment["approvedByUserId"] = approver["id"]
    audit(
        state, approver["id"], "payment.approved", "payment", payment["id"], f"Approved {payment['id']}", []
    )
    return payment


approve_payment = define_tool(
    name="approve_payment",
    description=(
        "Approve a payment for release (a draft may be approved directly). Refused above the approver's "
        "approval limit. Returns the payment."
    ),
    input_schema=schema(
        {
            "paymentId": string_prop(_PAYMENT),
            "approverUserId": string_prop("The approving user (also the acting user), for example USR-007."),
            "note": string_prop("A note added to the approval."),
        },
        ["paymentId", "approverUserId"],
    ),
    run=_approve_payment,
)


def _complete_payment(state: State, args: Args) -> Any:
    user = actor(state, args)
    payment = require_payment(state, read_string(args, "paymentId"))
    assert_status(payment["status"], ["approved"], f"Payment {payment['id']}")
    touched = []
    for allocation in payment["allocations"]:
        invoice = _invoice_of(state, payment, allocation["invoiceId"])
        apply_payment_to_invoice(invoice, allocation["amount"], state["now"])
        touched.append(invoice)
    payment["status"] = "completed"
    payment["processedAt"] = state["now"]
    audit(
        state,
        user["id"],
        "payment.completed",
        "payment",
        payment["id"],
        f"Completed {payment['id']} for {fmt(payment['amount']['amount'])}",
        [],
    )
    invoices = [
        {
            "invoiceId": i["id"],
            "status": i["status"],
            "amountPaid": i["amountPaid"],
            "outstanding": outstanding_amount(i),
        }
        for i in touched
    ]
    return {"payment": payment, "invoices": invoices}


complete_payment = define_tool(
    name="complete_payment",
    description=(
        "Release an approved payment: each allocation is applied to its invoice, which becomes paid or "
        "partially paid. Returns the payment and each invoice's new status, amount paid and outstanding."
    ),
    input_schema=schema(
        {"paymentId": string_prop(_PAYMENT), "actorUserId": string_prop("The user releasing the payment.")},
        ["paymentId", "actorUserId"],
    ),
    run=_complete_payment,
)


def _fail_payment(state: State, args: Args) -> Any:
    user = actor(state, args)
    payment = require_payment(state, read_string(args, "paymentId"))
    reason = read_string(args, "reason")
    assert_status(payment["status"], ["approved", "pending_approval"], f"Payment {payment['id']}")
    payment["status"] = "failed"
    payment["failureReason"] = reason
    payment["processedAt"] = state["now"]
    audit(
        state,
        user["id"],
        "payment.failed",
        "payment",
        payment["id"],
        f"Payment {payment['id']} failed: {reason}",
        [],
    )
    return payment


fail_payment = define_tool(
    name="fail_payment",
    description="Mark a payment as failed (for example a bounced transfer); its invoices are not touched. Returns the payment.",
    input_schema=schema(
        {
            "paymentId": string_prop(_PAYMENT),
            "reason": string_prop("Why it failed."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["paymentId", "reason", "actorUserId"],
    ),
    run=_fail_payment,
)


def _retry_failed_payment(state: State, args: Args) -> Any:
    user = actor(state, args)
    original = require_payment(state, read_string(args, "paymentId"))
    assert_status(original["status"], ["failed"], f"Payment {original['id']}")
    collection = state["customerInvoices"] if original["direction"] == "inbound" else state["vendorInvoices"]
    still_owed = []
    for allocation in original["allocations"]:
        invoice = collection.get(allocation["invoiceId"])
        if invoice is not None and outstanding_amount(invoice)["amount"] > 0:
            still_owed.append({"invoiceId": allocation["invoiceId"], "amount": dict(allocation["amount"])})
    if not still_owed:
        raise ToolError("invalid_state", f"Nothing remains outstanding on {original['id']}'s invoices.")
    retry_id = next_id(state, "PAY")
    method = read_optional_enum(args, "method", PAYMENT_METHOD) or original["method"]
    record = _new_payment(
        state, retry_id, user, direction=original["direction"], party=(original["vendorId"], original["customerId"]),
        allocations=still_owed, amount=sum_money([a["amount"] for a in still_owed]), method=method,
        status="draft", reference=f"{method.upper()}-{retry_id}",
        scheduled=read_optional_string(args, "scheduledDate") or state["now"], processed=None,
    )
    state["payments"][retry_id] = record
    audit(
        state,
        user["id"],
        "payment.retried",
        "payment",
        retry_id,
        f"Created {retry_id} to retry failed {original['id']}",
        [],
    )
    return {"retry": record, "originalPaymentId": original["id"]}


retry_failed_payment = define_tool(
    name="retry_failed_payment",
    description=(
        "Create a new draft payment for the allocations of a failed payment whose invoices still have "
        "money owed (with their original amounts), keeping the failed one on record. Returns the new "
        "payment and the original's id."
    ),
    input_schema=schema(
        {
            "paymentId": string_prop("The failed payment, for example PAY-003."),
            "method": enum_prop(PAYMENT_METHOD, "How to send the retry (default: the original's method)."),
            "scheduledDate": string_prop("When the retry should go out; default now."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["paymentId", "actorUserId"],
    ),
    run=_retry_failed_payment,
)


def _cancel_payment(state: State, args: Args) -> Any:
    user = actor(state, args)
    payment = require_payment(state, read_string(args, "paymentId"))
    reason = read_string(args, "reason")
    assert_status(payment["status"], ["draft", "pending_approval", "approved"], f"Payment {payment['id']}")
    cancel_pending_approval(state, payment["approvalId"], strict=True)
    payment["status"] = "cancelled"
    audit(
        state,
        user["id"],
        "payment.cancelled",
        "payment",
        payment["id"],
        f"Cancelled {payment['id']}: {reason}",
        [],
    )
    return payment


cancel_payment = define_tool(
    name="cancel_payment",
    description="Cancel a payment that has not been released yet (draft, pending approval or approved). Returns the payment.",
    input_schema=schema(
        {
            "paymentId": string_prop(_PAYMENT),
            "reason": string_prop("Why it is cancelled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["paymentId", "reason", "actorUserId"],
    ),
    run=_cancel_payment,
)


def _record_customer_payment(state: State, args: Args) -> Any:
    user = actor(state, args)
    customer = require_customer(state, read_string(args, "customerId"))
    allocations = []
    for spec in read_object_array(args, "allocations"):
        invoice = require_customer_invoice(state, read_string(spec, "invoiceId"))
        iid, status = invoice["id"], invoice["status"]
        if invoice["customerId"] != customer["id"]:
            raise ToolError(
                "invalid_input",
                f"Invoice {iid} belongs to customer {invoice['customerId']}, not {customer['id']}.",
            )
        if status in ("cancelled", "draft"):
            raise ToolError("invalid_state", f'Invoice {iid} is "{status}" and cannot take a payment.')
        allocations.append(_allocation(spec, invoice, "Cannot apply {amount} to {invoice}"))
    amount = sum_money([a["amount"] for a in allocations])
    pay_id = next_id(state, "PAY")
    method = read_optional_enum(args, "method", PAYMENT_METHOD) or "bank_transfer"
    reference = read_optional_string(args, "reference") or ""
    record = _new_payment(
        state, pay_id, user, direction="inbound", party=(None, customer["id"]), allocations=allocations,
        amount=amount, method=method, status="completed", reference=reference or f"RCPT-{pay_id}",
        scheduled=state["now"], processed=state["now"],
    )
    state["payments"][pay_id] = record
    for allocation in allocations:
        apply_payment_to_invoice(
            require_customer_invoice(state, allocation["invoiceId"]), allocation["amount"], state["now"]
        )
    audit(
        state,
        user["id"],
        "payment.received",
        "payment",
        pay_id,
        f"Received {fmt(amount['amount'])} from {customer['name']}",
        [],
    )
    return record


record_customer_payment = define_tool(
    name="record_customer_payment",
    description=(
        "Record money received from a customer and apply it to their issued invoices at once (receipts "
        "need no approval). Returns the completed inbound payment."
    ),
    input_schema=schema(
        {
            "customerId": string_prop("The paying customer, for example CUS-003."),
            "allocations": array_prop("The invoices this receipt settles.", _ALLOCATION),
            "method": enum_prop(PAYMENT_METHOD, "How the money arrived (default bank_transfer)."),
            "reference": string_prop("The bank or cheque reference."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["customerId", "allocations", "actorUserId"],
    ),
    run=_record_customer_payment,
)


def _list_payments_for_invoice(state: State, args: Args) -> Any:
    invoice_id = read_string(args, "invoiceId")
    if invoice_id not in state["vendorInvoices"] and invoice_id not in state["customerInvoices"]:
        raise ToolError("not_found", f'Invoice "{invoice_id}" was not found.')
    rows = []
    for p in ordered_records(state, "payments"):
        applied = next((a["amount"] for a in p["allocations"] if a["invoiceId"] == invoice_id), None)
        if applied is not None:
            rows.append({**payment_summary(p), "appliedAmount": applied, "failureReason": p["failureReason"]})
    return rows


list_payments_for_invoice = define_tool(
    name="list_payments_for_invoice",
    description=(
        "List every payment that touched one vendor or customer invoice, failed and cancelled ones "
        "included, sorted by payment id, with the amount applied to that invoice. Read-only."
    ),
    input_schema=schema(
        {"invoiceId": string_prop("A vendor or customer invoice id, for example VINV-108.")}, ["invoiceId"]
    ),
    run=_list_payments_for_invoice,
)


def _build_payment_run(state: State, args: Args) -> Any:
    within = (
        read_number(args, "withinDays", minimum=0, maximum=365, integer=True)
        if _is_number(args.get("withinDays"))
        else 7
    )
    include = flag_default_true(args, "includeOverdue")
    now = state["now"]
    horizon = add_days(now, int(within))
    groups: dict[str, dict[str, Any]] = {}
    count = 0
    for invoice in state["vendorInvoices"].values():
        if invoice["status"] not in ("approved", "partially_paid"):
            continue
        outstanding = outstanding_amount(invoice)
        if outstanding["amount"] <= 0:
            continue
        keep = include if invoice["dueDate"] < now else invoice["dueDate"] <= horizon
        if not keep:
            continue
        count += 1
        group = groups.setdefault(invoice["vendorId"], {"items": []})
        group["items"].append(
            {
                "invoiceId": invoice["id"],
                "dueDate": invoice["dueDate"],
                "outstanding": outstanding,
                "isOverdue": invoice["dueDate"] < now,
            }
        )
    rows: list[dict[str, Any]] = []
    for vendor_id, group in groups.items():
        vendor = state["vendors"].get(vendor_id)
        items = sorted(group["items"], key=lambda r: r["dueDate"])
        rows.append(
            {
                "vendorId": vendor_id,
                "vendorName": vendor["name"] if vendor else vendor_id,
                "invoiceCount": len(items),
                "totalDue": sum_money([r["outstanding"] for r in group["items"]]),
                "invoices": items,
            }
        )
    rows.sort(key=lambda r: r["totalDue"]["amount"], reverse=True)
    return {
        "horizon": horizon,
        "vendorCount": len(rows),
        "invoiceCount": count,
        "grandTotal": sum_money([r["totalDue"] for r in rows]),
        "groups": rows,
    }


build_payment_run = define_tool(
    name="build_payment_run",
    description=(
        "Propose a payment run: approved vendor invoices with money owed that fall due within a window "
        "(default 7 days; overdue ones included unless told otherwise), grouped by vendor, largest total "
        "first. Creates nothing. Read-only."
    ),
    input_schema=schema(
        {
            "withinDays": integer_prop("Days ahead to look (default 7).", minimum=0, maximum=365),
            "includeOverdue": boolean_prop("Include invoices already past due (default true)."),
        },
        [],
    ),
    run=_build_payment_run,
)

TOOLS = [
    list_payments,
    get_payment,
    create_vendor_payment,
    submit_payment_for_approval,
    approve_payment,
    complete_payment,
    fail_payment,
    retry_failed_payment,
    cancel_payment,
    record_customer_payment,
    list_payments_for_invoice,
    build_payment_run,
]
