"""Purchase-order tools (erp-tools.md §7.11, tools 79-93): orders to vendors from draft through
approval and sending to closing, their open lines, budget impact and payment terms."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, add_days, days_between, line_remaining, money, next_id, payment_term_days
from .helpers import (
    PO_STATUS,
    actor,
    array_prop,
    assert_status,
    audit,
    budget_headroom,
    cancel_pending_approval,
    document_totals,
    enum_prop,
    fmt,
    integer_prop,
    linked_ids,
    linked_records,
    matches_text,
    number_prop,
    object_prop,
    page_records,
    paginate,
    paging_props,
    purchase_order_summary,
    read_number,
    read_object_array,
    read_optional_enum,
    read_optional_string,
    read_string,
    refresh_inbound_quantities,
    release_commitment,
    require_budget,
    require_product,
    require_purchase_order,
    require_quotation,
    require_requisition,
    require_user,
    require_vendor,
    require_warehouse,
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
_PO_ID = "The purchase order's id, for example PO-203."
_LIVE = ("sent", "partially_received")
_OPEN_INVOICE = ("draft", "pending_match", "matched", "pending_approval", "disputed")


def _line_schema() -> dict[str, Any]:
    return object_prop(
        "One ordered item.",
        {
            "productId": string_prop("Product id, for example PRD-001."),
            "quantity": integer_prop("Units ordered.", minimum=1),
            "unitPrice": number_prop("Agreed price per unit.", minimum=0),
        },
        ["productId", "quantity", "unitPrice"],
    )


def _build_lines(state: State, order_id: str, specs: list[Record], expected: Any, refuse_discontinued: bool) -> list[Record]:
    lines = []
    for i, spec in enumerate(specs, start=1):
        product = require_product(state, read_string(spec, "productId"))
        quantity = read_number(spec, "quantity", minimum=1, integer=True)
        unit_price = read_number(spec, "unitPrice", minimum=0)
        if refuse_discontinued and product["status"] == "discontinued":
            raise ToolError("not_allowed", f"Product {product['id']} is discontinued.")
        lines.append(
            {
                "id": f"{order_id}-L{i}",
                "productId": product["id"],
                "description": product["name"],
                "quantityOrdered": quantity,
                "quantityReceived": 0,
                "quantityRejected": 0,
                "quantityInvoiced": 0,
                "unitPrice": money(unit_price),
                "lineTotal": money(quantity * unit_price),
                "expectedDate": expected,
            }
        )
    return lines


def _set_totals(order: Record) -> None:
    totals = document_totals(order["lines"])
    order["subtotal"] = totals["subtotal"]
    order["taxAmount"] = totals["taxAmount"]
    order["totalAmount"] = totals["totalAmount"]


def _list_purchase_orders(state: State, args: Args) -> Any:
    status = read_optional_enum(args, "status", PO_STATUS)
    vendor_id = read_optional_string(args, "vendorId")
    warehouse_id = read_optional_string(args, "warehouseId")

    def keep(o: Any) -> bool:
        return (
            (status is None or o["status"] == status)
            and (vendor_id is None or o["vendorId"] == vendor_id)
            and (warehouse_id is None or o["warehouseId"] == warehouse_id)
        )

    unfiltered = status is None and vendor_id is None and warehouse_id is None
    ids = None if vendor_id is None else linked_ids(state, "purchaseOrders", "vendorId", vendor_id)
    page = page_records(state, "purchaseOrders", args, None if unfiltered else keep, ids)
    return {**page, "results": [purchase_order_summary(o) for o in page["results"]]}


list_purchase_orders = define_tool(
    name="list_purchase_orders",
    description=(
        "Purchase orders sorted by id, a page at a time, optionally one status, vendor or delivery "
        "warehouse. Rows: vendor, status, warehouse, total, expected delivery date, line count. "
        "Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(PO_STATUS, "Only orders with this status."),
            "vendorId": string_prop("Only orders with this vendor."),
            "warehouseId": string_prop("Only orders delivered to this warehouse."),
            **paging_props(),
        },
        [],
    ),
    run=_list_purchase_orders,
)


def _search_purchase_orders(state: State, args: Args) -> Any:
    query = read_string(args, "query")
    vendors = state["vendors"]

    def keep(o: Any) -> bool:
        vendor = vendors.get(o["vendorId"])
        return (
            matches_text(o["id"], query)
            or (vendor is not None and matches_text(vendor["name"], query))
            or any(matches_text(ln["productId"], query) or matches_text(ln["description"], query) for ln in o["lines"])
        )

    page = page_records(state, "purchaseOrders", args, keep)
    return {**page, "results": [purchase_order_summary(o) for o in page["results"]]}


search_purchase_orders = define_tool(
    name="search_purchase_orders",
    description=(
        "Find purchase orders whose id, vendor name, or a line's product id or description contains "
        "the text (case-insensitive); rows as in list_purchase_orders, sorted by id, paged. Read-only."
    ),
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_purchase_orders,
)


def _get_purchase_order(state: State, args: Args) -> Any:
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    oid = order["id"]
    out = dict(order)
    out["lines"] = [
        {
            **line,
            "quantityOutstanding": line_remaining(line),
            "quantityUninvoiced": line["quantityReceived"] - line["quantityInvoiced"],
        }
        for line in order["lines"]
    ]
    out["goodsReceipts"] = [
        {"id": g["id"], "status": g["status"], "receivedAt": g["receivedAt"]}
        for g in linked_records(state, "goodsReceipts", "purchaseOrderId", oid, sort=False)
    ]
    out["vendorInvoices"] = [
        {"id": i["id"], "status": i["status"], "totalAmount": i["totalAmount"]}
        for i in linked_records(state, "vendorInvoices", "purchaseOrderId", oid, sort=False)
    ]
    return out


get_purchase_order = define_tool(
    name="get_purchase_order",
    description=(
        "One purchase order in full; each line also gives the quantity still outstanding (ordered "
        "minus received minus rejected) and received but not invoiced; plus its goods receipts and "
        "vendor invoices. Read-only."
    ),
    input_schema=schema({"purchaseOrderId": string_prop(_PO_ID)}, ["purchaseOrderId"]),
    run=_get_purchase_order,
)


def _create_purchase_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    vendor = require_vendor(state, read_string(args, "vendorId"))
    warehouse = require_warehouse(state, read_string(args, "warehouseId"))
    vid = vendor["id"]
    if vendor["status"] == "blocked":
        raise ToolError("not_allowed", f"Vendor {vid} is blocked: {vendor['statusReason'] or 'no reason recorded'}.")
    if vendor["status"] != "active":
        raise ToolError("not_allowed", f'Vendor {vid} is "{vendor["status"]}" and cannot receive orders.')
    order_id = next_id(state, "PO")
    expected = read_optional_string(args, "expectedDeliveryDate")
    if expected is None:
        expected = add_days(state["now"], vendor["leadTimeDays"])
    quotation = None
    quotation_id = read_optional_string(args, "quotationId")
    if quotation_id is not None:
        quotation = require_quotation(state, quotation_id)
        if quotation["vendorId"] != vid:
            raise ToolError(
                "invalid_input",
                f"Quotation {quotation['id']} belongs to vendor {quotation['vendorId']}, not {vid}.",
            )
    requisition = None
    requisition_id = read_optional_string(args, "requisitionId")
    if requisition_id is not None:
        requisition = require_requisition(state, requisition_id)
    if isinstance(args.get("lines"), list):
        specs = read_object_array(args, "lines")
    elif quotation is not None:
        specs = [
            {"productId": ln["productId"], "quantity": ln["quantity"], "unitPrice": ln["unitPrice"]["amount"]}
            for ln in quotation["lines"]
        ]
    else:
        raise ToolError("invalid_input", 'Provide "lines", or a quotation to copy lines from.')
    lines = _build_lines(state, order_id, specs, expected, refuse_discontinued=True)
    budget_id = read_optional_string(args, "budgetId")
    if budget_id is None and requisition is not None:
        budget_id = requisition["budgetId"]
    if budget_id is not None:
        require_budget(state, budget_id)
    order: Record = {
        "id": order_id,
        "number": order_id,
        "vendorId": vid,
        "status": "draft",
        "lines": lines,
        "warehouseId": warehouse["id"],
        "currency": state["company"]["baseCurrency"],
        "subtotal": None,
        "taxAmount": None,
        "totalAmount": None,
        "requisitionId": requisition["id"] if requisition is not None else None,
        "quotationId": quotation["id"] if quotation is not None else None,
        "budgetId": budget_id,
        "paymentTerms": vendor["paymentTerms"],
        "createdByUserId": user["id"],
        "createdAt": state["now"],
        "approvalId": None,
        "approvedAt": None,
        "approvedByUserId": None,
        "sentAt": None,
        "expectedDeliveryDate": expected,
        "closedAt": None,
        "cancelledAt": None,
        "cancelReason": None,
    }
    _set_totals(order)
    state["purchaseOrders"][order_id] = order
    if requisition is not None:
        requisition["purchaseOrderId"] = order_id
        requisition["status"] = "converted"
    audit(
        state, user["id"], "purchase_order.created", "purchase_order", order_id,
        f"Created {order_id} for {vendor['name']} ({fmt(order['totalAmount']['amount'])})",
    )
    return order


create_purchase_order = define_tool(
    name="create_purchase_order",
    description=(
        "Raise a draft purchase order with an active vendor for delivery to a warehouse. Give lines, "
        "or a quotationId of that vendor to copy its lines; optionally link a requisition (which "
        "becomes converted) and a budget (default: the requisition's). Expected delivery defaults to "
        "now plus the vendor's lead time. 8% tax is added. No budget is committed until approval. "
        "Audited."
    ),
    input_schema=schema(
        {
            "vendorId": string_prop("The vendor, for example VEN-001; must be active."),
            "warehouseId": string_prop("Delivery warehouse, for example WH-001."),
            "lines": array_prop("Ordered items; omit to copy the quotation's lines.", _line_schema()),
            "requisitionId": string_prop("Requisition this order fulfils."),
            "quotationId": string_prop("Accepted quotation this order is based on."),
            "budgetId": string_prop("Budget to charge."),
            "expectedDeliveryDate": string_prop("Expected delivery date (ISO)."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorId", "warehouseId", "actorUserId"],
    ),
    run=_create_purchase_order,
)


def _update_purchase_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    oid = order["id"]
    assert_status(order["status"], ["draft"], f"Purchase order {oid}")
    warehouse_id = read_optional_string(args, "warehouseId")
    if warehouse_id is not None:
        order["warehouseId"] = require_warehouse(state, warehouse_id)["id"]
    expected = read_optional_string(args, "expectedDeliveryDate")
    if expected is not None:
        order["expectedDeliveryDate"] = expected
    if isinstance(args.get("lines"), list):
        specs = read_object_array(args, "lines")
        order["lines"] = _build_lines(state, oid, specs, order["expectedDeliveryDate"], refuse_discontinued=False)
        _set_totals(order)
    audit(state, user["id"], "purchase_order.updated", "purchase_order", oid, f"Updated {oid}")
    return order


update_purchase_order = define_tool(
    name="update_purchase_order",
    description=(
        "Edit a draft purchase order's delivery warehouse, expected delivery date or lines (lines "
        "given replace all lines and take the order's delivery date; totals are recomputed). Audited."
    ),
    input_schema=schema(
        {
            "purchaseOrderId": string_prop(_PO_ID),
            "warehouseId": string_prop("New delivery warehouse."),
            "expectedDeliveryDate": string_prop("New expected delivery date (ISO)."),
            "lines": array_prop("Replacement lines.", _line_schema()),
            "actorUserId": string_prop(_ACTOR),
        },
        ["purchaseOrderId", "actorUserId"],
    ),
    run=_update_purchase_order,
)


def _submit_purchase_order_for_approval(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    approver = require_user(state, read_string(args, "approverUserId"))
    oid = order["id"]
    assert_status(order["status"], ["draft"], f"Purchase order {oid}")
    if not order["lines"]:
        raise ToolError("invalid_state", f"Purchase order {oid} has no lines.")
    approval = submit_for_approval(state, user, order, "purchase_order", approver, order["totalAmount"])
    return {"purchaseOrder": order, "approval": approval}


submit_purchase_order_for_approval = define_tool(
    name="submit_purchase_order_for_approval",
    description=(
        "Send a draft purchase order for approval to a named approver: opens a pending approval for "
        "its total and moves it to pending_approval. Audited."
    ),
    input_schema=schema(
        {
            "purchaseOrderId": string_prop(_PO_ID),
            "approverUserId": string_prop("Id of the user who should decide."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["purchaseOrderId", "approverUserId", "actorUserId"],
    ),
    run=_submit_purchase_order_for_approval,
)


def _approve_purchase_order(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    oid = order["id"]
    assert_status(order["status"], ["pending_approval"], f"Purchase order {oid}")
    total = order["totalAmount"]
    approve_within_limit(state, approver, order, total, oid)
    decide_linked_approval(state, order, "approved", approver["id"], lambda: read_optional_string(args, "note"))
    order["status"] = "approved"
    order["approvedAt"] = state["now"]
    order["approvedByUserId"] = approver["id"]
    audit(
        state, approver["id"], "purchase_order.approved", "purchase_order", oid,
        f"Approved {oid} for {fmt(total['amount'])}",
    )
    return order


approve_purchase_order = define_tool(
    name="approve_purchase_order",
    description=(
        "Approve a pending purchase order and commit its total to its budget. The approver acts and "
        "needs an approval limit at least the order total; a budget without enough headroom refuses. "
        "Audited."
    ),
    input_schema=schema(
        {
            "purchaseOrderId": string_prop(_PO_ID),
            "approverUserId": string_prop("Id of the approving user (the actor); must be active."),
            "note": string_prop("Optional approval note."),
        },
        ["purchaseOrderId", "approverUserId"],
    ),
    run=_approve_purchase_order,
)


def _reject_purchase_order(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    reason = read_string(args, "reason")
    assert_status(order["status"], ["pending_approval"], f"Purchase order {order['id']}")
    reject_document(state, approver, order, "purchase_order", reason)
    return order


reject_purchase_order = define_tool(
    name="reject_purchase_order",
    description=(
        "Reject a pending purchase order (final: no tool reopens it); the reason is added to the "
        "approval's notes. Audited."
    ),
    input_schema=schema(
        {
            "purchaseOrderId": string_prop(_PO_ID),
            "approverUserId": string_prop("Id of the rejecting user (the actor); must be active."),
            "reason": string_prop("Why it is rejected."),
        },
        ["purchaseOrderId", "approverUserId", "reason"],
    ),
    run=_reject_purchase_order,
)


def _send_purchase_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    oid = order["id"]
    assert_status(order["status"], ["approved"], f"Purchase order {oid}")
    vendor = require_vendor(state, order["vendorId"])
    if vendor["status"] == "blocked":
        raise ToolError("not_allowed", f"Vendor {vendor['id']} is blocked; {oid} cannot be sent.")
    order["status"] = "sent"
    order["sentAt"] = state["now"]
    refresh_inbound_quantities(state, order["warehouseId"])
    audit(state, user["id"], "purchase_order.sent", "purchase_order", oid, f"Sent {oid} to {vendor['name']}")
    return order


send_purchase_order = define_tool(
    name="send_purchase_order",
    description=(
        "Send an approved purchase order to its vendor (not a blocked one); from then its outstanding "
        "quantities count as inbound stock at the delivery warehouse and goods can be received. "
        "Audited."
    ),
    input_schema=schema(
        {"purchaseOrderId": string_prop(_PO_ID), "actorUserId": string_prop(_ACTOR)},
        ["purchaseOrderId", "actorUserId"],
    ),
    run=_send_purchase_order,
)


def _cancel_purchase_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    reason = read_string(args, "reason")
    oid = order["id"]
    assert_status(order["status"], ["draft", "pending_approval", "approved", "sent"], f"Purchase order {oid}")
    received = sum(line["quantityReceived"] for line in order["lines"])
    if received > 0:
        raise ToolError(
            "invalid_state",
            f"{oid} already has {received} unit(s) received and cannot be cancelled.",
            {"receivedUnits": received},
        )
    if order["budgetId"] and order["status"] in ("approved", "sent"):
        release_commitment(require_budget(state, order["budgetId"]), order["totalAmount"])
    cancel_pending_approval(state, order["approvalId"], strict=True)
    order["status"] = "cancelled"
    order["cancelledAt"] = state["now"]
    order["cancelReason"] = reason
    refresh_inbound_quantities(state, order["warehouseId"])
    audit(state, user["id"], "purchase_order.cancelled", "purchase_order", oid, f"Cancelled {oid}: {reason}")
    return order


cancel_purchase_order = define_tool(
    name="cancel_purchase_order",
    description=(
        "Cancel a purchase order on which nothing was received (draft, pending, approved or sent): an "
        "approved or sent order gives its commitment back to the budget, a pending approval is "
        "cancelled and inbound stock is recomputed. Audited."
    ),
    input_schema=schema(
        {
            "purchaseOrderId": string_prop(_PO_ID),
            "reason": string_prop("Why it is cancelled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["purchaseOrderId", "reason", "actorUserId"],
    ),
    run=_cancel_purchase_order,
)


def _close_purchase_order(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    oid = order["id"]
    assert_status(order["status"], ["received", "partially_received"], f"Purchase order {oid}")
    uninvoiced = [line["id"] for line in order["lines"] if line["quantityInvoiced"] < line["quantityReceived"]]
    if uninvoiced:
        raise ToolError(
            "invalid_state", f"{oid} has {len(uninvoiced)} line(s) received but not invoiced.", {"lines": uninvoiced}
        )
    open_invoices = [
        i for i in state["vendorInvoices"].values() if i["purchaseOrderId"] == oid and i["status"] in _OPEN_INVOICE
    ]
    if open_invoices:
        listed = ", ".join(f"{i['id']} ({i['status']})" for i in open_invoices)
        raise ToolError(
            "invalid_state",
            f"{oid} has {len(open_invoices)} invoice(s) still open: {listed}.",
            {"invoices": [i["id"] for i in open_invoices]},
        )
    order["status"] = "closed"
    order["closedAt"] = state["now"]
    refresh_inbound_quantities(state, order["warehouseId"])
    audit(state, user["id"], "purchase_order.closed", "purchase_order", oid, f"Closed {oid}")
    return order


close_purchase_order = define_tool(
    name="close_purchase_order",
    description=(
        "Close a received or partly received purchase order once every received unit is invoiced and "
        "none of its invoices is still open (draft, pending match, matched, pending approval or "
        "disputed). Its budget commitment is not released. Audited."
    ),
    input_schema=schema(
        {"purchaseOrderId": string_prop(_PO_ID), "actorUserId": string_prop(_ACTOR)},
        ["purchaseOrderId", "actorUserId"],
    ),
    run=_close_purchase_order,
)


def _list_open_purchase_order_lines(state: State, args: Args) -> Any:
    vendor_id = read_optional_string(args, "vendorId")
    warehouse_id = read_optional_string(args, "warehouseId")
    product_id = read_optional_string(args, "productId")
    now = state["now"]
    rows = []
    for o in state["purchaseOrders"].values():
        if o["status"] not in _LIVE:
            continue
        if (vendor_id is not None and o["vendorId"] != vendor_id) or (
            warehouse_id is not None and o["warehouseId"] != warehouse_id
        ):
            continue
        for line in o["lines"]:
            remaining = line_remaining(line)
            if remaining <= 0 or (product_id is not None and line["productId"] != product_id):
                continue
            rows.append(
                {
                    "purchaseOrderId": o["id"],
                    "purchaseOrderLineId": line["id"],
                    "vendorId": o["vendorId"],
                    "warehouseId": o["warehouseId"],
                    "productId": line["productId"],
                    "quantityOrdered": line["quantityOrdered"],
                    "quantityReceived": line["quantityReceived"],
                    "quantityOutstanding": remaining,
                    "expectedDate": line["expectedDate"],
                    "isOverdue": line["expectedDate"] < now,
                }
            )
    rows.sort(key=lambda row: row["expectedDate"])
    return paginate(rows, args)


list_open_purchase_order_lines = define_tool(
    name="list_open_purchase_order_lines",
    description=(
        "Lines still awaiting delivery on sent or partly received purchase orders, earliest expected "
        "date first, a page at a time, optionally for one vendor, warehouse or product; each with the "
        "outstanding quantity and whether it is overdue. Read-only."
    ),
    input_schema=schema(
        {
            "vendorId": string_prop("Only orders with this vendor."),
            "warehouseId": string_prop("Only orders delivered to this warehouse."),
            "productId": string_prop("Only lines of this product."),
            **paging_props(),
        },
        [],
    ),
    run=_list_open_purchase_order_lines,
)


def _list_overdue_purchase_orders(state: State, args: Args) -> Any:
    now = state["now"]
    rows = []
    for o in state["purchaseOrders"].values():
        if o["status"] not in _LIVE or not o["expectedDeliveryDate"] < now:
            continue
        outstanding = sum(line_remaining(line) for line in o["lines"])
        if not any(line_remaining(line) > 0 for line in o["lines"]):
            continue
        rows.append(
            {
                **purchase_order_summary(o),
                "daysOverdue": days_between(o["expectedDeliveryDate"], now),
                "outstandingUnits": outstanding,
            }
        )
    rows.sort(key=lambda row: row["daysOverdue"], reverse=True)
    return paginate(rows, args)


list_overdue_purchase_orders = define_tool(
    name="list_overdue_purchase_orders",
    description=(
        "Sent or partly received purchase orders past their expected delivery date with units still "
        "outstanding, most overdue first, a page at a time, with days overdue and outstanding units. "
        "Read-only."
    ),
    input_schema=schema({**paging_props()}, []),
    run=_list_overdue_purchase_orders,
)


def _get_purchase_order_budget_impact(state: State, args: Args) -> Any:
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    if not order["budgetId"]:
        return {"purchaseOrderId": order["id"], "hasBudget": False, "sufficient": False}
    budget = require_budget(state, order["budgetId"])
    available = budget_headroom(budget)
    return {
        "purchaseOrderId": order["id"],
        "hasBudget": True,
        "budgetId": budget["id"],
        "budgetName": budget["name"],
        "orderTotal": order["totalAmount"],
        "allocated": budget["allocatedAmount"],
        "committed": budget["committedAmount"],
        "spent": budget["spentAmount"],
        "available": available,
        "sufficient": order["totalAmount"]["amount"] <= available["amount"],
        "alreadyCommitted": order["status"] in ("approved", "sent", "partially_received"),
    }


get_purchase_order_budget_impact = define_tool(
    name="get_purchase_order_budget_impact",
    description=(
        "What a purchase order takes from its budget: the order total against the budget's "
        "allocated, committed, spent and available amounts, whether it fits, and whether the order's "
        "total is already committed (approved or later). Read-only."
    ),
    input_schema=schema({"purchaseOrderId": string_prop(_PO_ID)}, ["purchaseOrderId"]),
    run=_get_purchase_order_budget_impact,
)


def _get_purchase_order_payment_due_date(state: State, args: Args) -> Any:
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    invoice_date = read_optional_string(args, "invoiceDate")
    if invoice_date is None:
        invoice_date = state["now"]
    days = payment_term_days(order["paymentTerms"])
    try:
        due = add_days(invoice_date, days)
    except ValueError:
        raise ToolError("invalid_state", "Invalid time value") from None
    return {
        "purchaseOrderId": order["id"],
        "vendorId": order["vendorId"],
        "paymentTerms": order["paymentTerms"],
        "invoiceDate": invoice_date,
        "termDays": days,
        "dueDate": due,
    }


get_purchase_order_payment_due_date = define_tool(
    name="get_purchase_order_payment_due_date",
    description=(
        "When payment falls due under a purchase order's payment terms for a given invoice date "
        "(default now): the term in days and the due date. Read-only."
    ),
    input_schema=schema(
        {"purchaseOrderId": string_prop(_PO_ID), "invoiceDate": string_prop("Invoice date (ISO); default now.")},
        ["purchaseOrderId"],
    ),
    run=_get_purchase_order_payment_due_date,
)

TOOLS = [
    list_purchase_orders,
    search_purchase_orders,
    get_purchase_order,
    create_purchase_order,
    update_purchase_order,
    submit_purchase_order_for_approval,
    approve_purchase_order,
    reject_purchase_order,
    send_purchase_order,
    cancel_purchase_order,
    close_purchase_order,
    list_open_purchase_order_lines,
    list_overdue_purchase_orders,
    get_purchase_order_budget_impact,
    get_purchase_order_payment_due_date,
]
