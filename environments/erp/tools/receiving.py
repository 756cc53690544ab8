"""Receiving tools (erp-tools.md §7.12): goods receipts against sent orders, and discrepancies."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, line_remaining, next_id
from .helpers import (
    DISCREPANCY_STATUS,
    DISCREPANCY_TYPE,
    GR_STATUS,
    actor,
    apply_stock_change,
    array_prop,
    assert_status,
    audit,
    enum_prop,
    fmt,
    integer_prop,
    linked_ids,
    linked_records,
    object_prop,
    page_records,
    paginate,
    paging_props,
    read_enum,
    read_number,
    read_object_array,
    read_optional_string,
    read_string,
    recompute_purchase_order_status,
    require_discrepancy,
    require_goods_receipt,
    require_purchase_order,
    require_warehouse,
    schema,
    string_prop,
)

Args = dict[str, Any]
_ACTOR = "Id of the active user doing this (for example USR-004); recorded in the audit log."


def _list_goods_receipts(state: State, args: Args) -> Any:
    po = read_optional_string(args, "purchaseOrderId")
    wh = read_optional_string(args, "warehouseId")
    status = read_optional_string(args, "status")

    def keep(r: Any) -> bool:
        return (wh is None or r["warehouseId"] == wh) and (status is None or r["status"] == status)

    ids = None if po is None else linked_ids(state, "goodsReceipts", "purchaseOrderId", po)
    page = page_records(state, "goodsReceipts", args, None if wh is None and status is None else keep, ids)
    page["results"] = [
        {
            "id": r["id"],
            "purchaseOrderId": r["purchaseOrderId"],
            "warehouseId": r["warehouseId"],
            "status": r["status"],
            "receivedAt": r["receivedAt"],
            "unitsReceived": sum(line["quantityReceived"] for line in r["lines"]),
        }
        for r in page["results"]
    ]
    return page


list_goods_receipts = define_tool(
    name="list_goods_receipts",
    description=(
        "List goods receipts sorted by id, optionally only those of one purchase order, one warehouse "
        "or one status. Each row gives the receipt id, order, warehouse, status, when it was received "
        "and the total units accepted. Read-only."
    ),
    input_schema=schema(
        {
            "purchaseOrderId": string_prop(
                "Only receipts posted against this purchase order (for example PO-202)."
            ),
            "warehouseId": string_prop("Only receipts into this warehouse (for example WH-001)."),
            "status": enum_prop(GR_STATUS, "Only receipts in this status."),
            **paging_props(),
        },
        [],
    ),
    run=_list_goods_receipts,
)


def _get_goods_receipt(state: State, args: Args) -> Any:
    receipt = require_goods_receipt(state, read_string(args, "goodsReceiptId"))
    discrepancies = linked_records(state, "receivingDiscrepancies", "goodsReceiptId", receipt["id"], sort=False)
    return {**receipt, "discrepancies": discrepancies}


get_goods_receipt = define_tool(
    name="get_goods_receipt",
    description=(
        "Get one goods receipt with its lines (accepted and rejected units per order line) and every "
        "receiving discrepancy raised against it. Read-only."
    ),
    input_schema=schema(
        {"goodsReceiptId": string_prop("The receipt id, for example GR-001.")}, ["goodsReceiptId"]
    ),
    run=_get_goods_receipt,
)


def _list_receipts_for_purchase_order(state: State, args: Args) -> Any:
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    receipts = [
        {"id": r["id"], "status": r["status"], "receivedAt": r["receivedAt"], "lines": r["lines"]}
        for r in linked_records(state, "goodsReceipts", "purchaseOrderId", order["id"])
    ]
    outstanding = [
        {
            "purchaseOrderLineId": line["id"],
            "productId": line["productId"],
            "quantityOrdered": line["quantityOrdered"],
            "quantityReceived": line["quantityReceived"],
            "quantityOutstanding": line_remaining(line),
        }
        for line in order["lines"]
    ]
    return {
        "purchaseOrderId": order["id"],
        "status": order["status"],
        "receipts": receipts,
        "outstandingByLine": outstanding,
    }


list_receipts_for_purchase_order = define_tool(
    name="list_receipts_for_purchase_order",
    description=(
        "Show every goods receipt posted against one purchase order (sorted by id) and, per order "
        "line, how many units were ordered, received and are still outstanding. Read-only."
    ),
    input_schema=schema(
        {"purchaseOrderId": string_prop("The purchase order id, for example PO-202.")}, ["purchaseOrderId"]
    ),
    run=_list_receipts_for_purchase_order,
)


def _receive_goods(state: State, args: Args) -> Any:
    user = actor(state, args)
    order = require_purchase_order(state, read_string(args, "purchaseOrderId"))
    assert_status(order["status"], ["sent", "partially_received"], f"Purchase order {order['id']}")
    specs: list[dict[str, Any]] = []
    if isinstance(args.get("lines"), list):
        for raw in read_object_array(args, "lines"):
            line_id = read_string(raw, "purchaseOrderLineId")
            received = read_number(raw, "quantityReceived", minimum=0, integer=True)
            rejected = (
                read_number(raw, "quantityRejected", minimum=0, integer=True)
                if _is_number(raw.get("quantityRejected"))
                else 0
            )
            note = raw["note"] if isinstance(raw.get("note"), str) else ""
            specs.append({"lineId": line_id, "received": received, "rejected": rejected, "note": note})
    else:
        for line in order["lines"]:
            remaining = line_remaining(line)
            if remaining > 0:
                specs.append({"lineId": line["id"], "received": remaining, "rejected": 0, "note": ""})
    if not specs:
        raise ToolError("invalid_state", f"Nothing is outstanding on {order['id']}.")
    gr_id = next_id(state, "GR")
    by_id = {line["id"]: line for line in order["lines"]}
    lines = []
    for i, spec in enumerate(specs, start=1):
        po_line = by_id.get(spec["lineId"])
        if po_line is None:
            raise ToolError(
                "not_found",
                f'Line "{spec["lineId"]}" is not on {order["id"]}.',
                {"validLineIds": [line["id"] for line in order["lines"]]},
            )
        received, rejected = spec["received"], spec["rejected"]
        if received + rejected == 0:
            raise ToolError("invalid_input", f"Line {spec['lineId']} has nothing to receive.")
        remaining = line_remaining(po_line)
        if received > remaining:
            raise ToolError(
                "invalid_input",
                f"Cannot receive {fmt(received)} against {spec['lineId']}: only {fmt(remaining)} outstanding "
                f"of {fmt(po_line['quantityOrdered'])}.",
                {
                    "outstanding": remaining,
                    "ordered": po_line["quantityOrdered"],
                    "alreadyReceived": po_line["quantityReceived"],
                },
            )
        lines.append(
            {
                "id": f"{gr_id}-L{i}",
                "purchaseOrderLineId": spec["lineId"],
                "productId": po_line["productId"],
                "quantityReceived": received,
                "quantityRejected": rejected,
                "note": spec["note"],
            }
        )
    record = {
        "id": gr_id,
        "number": gr_id,
        "purchaseOrderId": order["id"],
        "warehouseId": order["warehouseId"],
        "status": "posted",
        "lines": lines,
        "deliveryNote": read_optional_string(args, "deliveryNote") or "",
        "receivedByUserId": user["id"],
        "receivedAt": state["now"],
        "postedAt": state["now"],
        "cancelledAt": None,
    }
    state["goodsReceipts"][gr_id] = record
    for line in lines:
        po_line = by_id[line["purchaseOrderLineId"]]
        po_line["quantityReceived"] += line["quantityReceived"]
        po_line["quantityRejected"] += line["quantityRejected"]
        if line["quantityReceived"] > 0:
            apply_stock_change(
                state,
                product_id=line["productId"],
                warehouse_id=order["warehouseId"],
                quantity_delta=line["quantityReceived"],
                reserved_delta=0,
                type="receipt",
                reference_type="goods_receipt",
                reference_id=gr_id,
                actor_user_id=user["id"],
                note=f"Received against {order['id']}",
            )
    recompute_purchase_order_status(state, order)
    audit(
        state,
        user["id"],
        "goods_receipt.posted",
        "goods_receipt",
        gr_id,
        f"Posted {gr_id} against {order['id']}",
        [],
    )
    return {"receipt": record, "purchaseOrderStatus": order["status"]}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_RECEIPT_LINE = object_prop(
    "One order line received in this delivery.",
    {
        "purchaseOrderLineId": string_prop("The purchase order line, for example PO-202-L1."),
        "quantityReceived": integer_prop("Units accepted into stock.", minimum=0),
        "quantityRejected": integer_prop("Units refused on arrival (they do not enter stock).", minimum=0),
        "note": string_prop("A remark about this line."),
    },
    ["purchaseOrderLineId", "quantityReceived"],
)

receive_goods = define_tool(
    name="receive_goods",
    description=(
        "Post a goods receipt against a sent or partially received purchase order. Accepted units go "
        "into stock at the order's warehouse; rejected units do not. Receiving more than a line still "
        "has outstanding is refused. Omit lines to receive everything outstanding. Returns the receipt "
        "and the order's new status."
    ),
    input_schema=schema(
        {
            "purchaseOrderId": string_prop("The purchase order being delivered, for example PO-202."),
            "lines": array_prop("The lines delivered; omit to receive all outstanding units.", _RECEIPT_LINE),
            "deliveryNote": string_prop("The vendor's delivery note reference."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["purchaseOrderId", "actorUserId"],
    ),
    run=_receive_goods,
)


def _cancel_goods_receipt(state: State, args: Args) -> Any:
    user = actor(state, args)
    receipt = require_goods_receipt(state, read_string(args, "goodsReceiptId"))
    reason = read_string(args, "reason")
    assert_status(receipt["status"], ["posted", "draft"], f"Goods receipt {receipt['id']}")
    for inv in state["vendorInvoices"].values():
        if receipt["id"] in inv["goodsReceiptIds"] and inv["status"] != "cancelled":
            raise ToolError(
                "invalid_state",
                f"{receipt['id']} is referenced by invoice {inv['id']} ({inv['status']}) and cannot be cancelled.",
                {"vendorInvoiceId": inv["id"]},
            )
    order = require_purchase_order(state, receipt["purchaseOrderId"])
    if receipt["status"] == "posted":
        by_id = {line["id"]: line for line in order["lines"]}
        for line in receipt["lines"]:
            po_line = by_id.get(line["purchaseOrderLineId"])
            if po_line is not None:
                po_line["quantityReceived"] -= line["quantityReceived"]
                po_line["quantityRejected"] -= line["quantityRejected"]
            if line["quantityReceived"] > 0:
                apply_stock_change(
                    state,
                    product_id=line["productId"],
                    warehouse_id=receipt["warehouseId"],
                    quantity_delta=-line["quantityReceived"],
                    reserved_delta=0,
                    type="return",
                    reference_type="goods_receipt",
                    reference_id=receipt["id"],
                    actor_user_id=user["id"],
                    note=f"Reversal of {receipt['id']}: {reason}",
                )
    receipt["status"] = "cancelled"
    receipt["cancelledAt"] = state["now"]
    if order["status"] in ("received", "partially_received"):
        any_received = any(line["quantityReceived"] > 0 for line in order["lines"])
        order["status"] = "partially_received" if any_received else "sent"
    recompute_purchase_order_status(state, order)
    audit(
        state,
        user["id"],
        "goods_receipt.cancelled",
        "goods_receipt",
        receipt["id"],
        f"Cancelled {receipt['id']}: {reason}",
        [],
    )
    return {"receipt": receipt, "purchaseOrderStatus": order["status"]}


cancel_goods_receipt = define_tool(
    name="cancel_goods_receipt",
    description=(
        "Cancel a goods receipt, taking its accepted units back out of stock and off the order lines. "
        "Refused while any vendor invoice that is not cancelled refers to the receipt."
    ),
    input_schema=schema(
        {
            "goodsReceiptId": string_prop("The receipt to cancel, for example GR-003."),
            "reason": string_prop("Why the receipt is being reversed."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["goodsReceiptId", "reason", "actorUserId"],
    ),
    run=_cancel_goods_receipt,
)


def _report_receiving_discrepancy(state: State, args: Args) -> Any:
    user = actor(state, args)
    receipt = require_goods_receipt(state, read_string(args, "goodsReceiptId"))
    line_id = read_string(args, "purchaseOrderLineId")
    order = require_purchase_order(state, receipt["purchaseOrderId"])
    po_line = next((line for line in order["lines"] if line["id"] == line_id), None)
    if po_line is None:
        raise ToolError("not_found", f'Line "{line_id}" is not on {order["id"]}.')
    gr_line = next((line for line in receipt["lines"] if line["purchaseOrderLineId"] == line_id), None)
    disc_id = next_id(state, "DISC")
    record = {
        "id": disc_id,
        "goodsReceiptId": receipt["id"],
        "purchaseOrderId": order["id"],
        "purchaseOrderLineId": line_id,
        "productId": po_line["productId"],
        "type": read_enum(args, "type", DISCREPANCY_TYPE),
        "quantityExpected": read_number(args, "quantityExpected", minimum=0, integer=True)
        if _is_number(args.get("quantityExpected"))
        else po_line["quantityOrdered"],
        "quantityReceived": read_number(args, "quantityReceived", minimum=0, integer=True)
        if _is_number(args.get("quantityReceived"))
        else (gr_line["quantityReceived"] if gr_line is not None else 0),
        "status": "open",
        "reportedByUserId": user["id"],
        "reportedAt": state["now"],
        "resolvedAt": None,
        "resolution": None,
    }
    state["receivingDiscrepancies"][disc_id] = record
    audit(
        state,
        user["id"],
        "discrepancy.reported",
        "discrepancy",
        disc_id,
        f"Reported {record['type']} on {receipt['id']}",
        [],
    )
    return record


report_receiving_discrepancy = define_tool(
    name="report_receiving_discrepancy",
    description=(
        "Raise a receiving discrepancy (shortage, overage, damage or wrong item) on one line of a goods "
        "receipt. Expected and received quantities default to the order line's ordered units and the "
        "receipt line's accepted units. Returns the new discrepancy."
    ),
    input_schema=schema(
        {
            "goodsReceiptId": string_prop("The receipt concerned, for example GR-003."),
            "purchaseOrderLineId": string_prop("The purchase order line concerned, for example PO-203-L1."),
            "type": enum_prop(DISCREPANCY_TYPE, "What kind of problem it is."),
            "quantityExpected": integer_prop("Units that should have arrived.", minimum=0),
            "quantityReceived": integer_prop("Units that did arrive.", minimum=0),
            "actorUserId": string_prop(_ACTOR),
        },
        ["goodsReceiptId", "purchaseOrderLineId", "type", "actorUserId"],
    ),
    run=_report_receiving_discrepancy,
)


def _list_receiving_discrepancies(state: State, args: Args) -> Any:
    status = read_optional_string(args, "status")
    po = read_optional_string(args, "purchaseOrderId")
    kind = read_optional_string(args, "type")

    def keep(d: Any) -> bool:
        return (status is None or d["status"] == status) and (kind is None or d["type"] == kind)

    ids = None if po is None else linked_ids(state, "receivingDiscrepancies", "purchaseOrderId", po)
    return page_records(state, "receivingDiscrepancies", args, None if status is None and kind is None else keep, ids)


list_receiving_discrepancies = define_tool(
    name="list_receiving_discrepancies",
    description=(
        "List receiving discrepancies sorted by id, optionally by status, purchase order or type. Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(DISCREPANCY_STATUS, "Only discrepancies in this status."),
            "purchaseOrderId": string_prop("Only discrepancies on this purchase order."),
            "type": enum_prop(DISCREPANCY_TYPE, "Only discrepancies of this kind."),
            **paging_props(),
        },
        [],
    ),
    run=_list_receiving_discrepancies,
)


def _get_receiving_discrepancy(state: State, args: Args) -> Any:
    return require_discrepancy(state, read_string(args, "discrepancyId"))


get_receiving_discrepancy = define_tool(
    name="get_receiving_discrepancy",
    description="Get one receiving discrepancy by id. Read-only.",
    input_schema=schema(
        {"discrepancyId": string_prop("The discrepancy id, for example DISC-001.")}, ["discrepancyId"]
    ),
    run=_get_receiving_discrepancy,
)


def _resolve_receiving_discrepancy(state: State, args: Args) -> Any:
    user = actor(state, args)
    record = require_discrepancy(state, read_string(args, "discrepancyId"))
    outcome = read_enum(args, "outcome", ("resolved", "waived"))
    resolution = read_string(args, "resolution")
    assert_status(record["status"], ["open"], f"Discrepancy {record['id']}")
    record["status"] = outcome
    record["resolvedAt"] = state["now"]
    record["resolution"] = resolution
    audit(
        state,
        user["id"],
        f"discrepancy.{outcome}",
        "discrepancy",
        record["id"],
        f"{record['id']} {outcome}: {resolution}",
        [],
    )
    return record


resolve_receiving_discrepancy = define_tool(
    name="resolve_receiving_discrepancy",
    description=(
        "Close an open receiving discrepancy as resolved or waived, recording what was agreed. "
        "Returns the discrepancy."
    ),
    input_schema=schema(
        {
            "discrepancyId": string_prop("The discrepancy to close, for example DISC-001."),
            "outcome": enum_prop(
                ("resolved", "waived"), "How it ends: settled (resolved) or accepted as is (waived)."
            ),
            "resolution": string_prop("What was agreed with the vendor."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["discrepancyId", "outcome", "resolution", "actorUserId"],
    ),
    run=_resolve_receiving_discrepancy,
)


def _list_pending_deliveries(state: State, args: Args) -> Any:
    wh = read_optional_string(args, "warehouseId")
    if wh is not None:
        require_warehouse(state, wh)
    rows = []
    for order in state["purchaseOrders"].values():
        if order["status"] not in ("sent", "partially_received"):
            continue
        if wh is not None and order["warehouseId"] != wh:
            continue
        for line in order["lines"]:
            remaining = line_remaining(line)
            if remaining > 0:
                rows.append(
                    {
                        "purchaseOrderId": order["id"],
                        "purchaseOrderLineId": line["id"],
                        "vendorId": order["vendorId"],
                        "warehouseId": order["warehouseId"],
                        "productId": line["productId"],
                        "quantityOutstanding": remaining,
                        "expectedDate": line["expectedDate"],
                        "isOverdue": line["expectedDate"] < state["now"],
                    }
                )
    rows.sort(key=lambda r: r["expectedDate"])
    return paginate(rows, args)


list_pending_deliveries = define_tool(
    name="list_pending_deliveries",
    description=(
        "List purchase order lines still due to arrive (on sent or partially received orders), "
        "earliest expected date first, flagging the late ones. Optionally for one warehouse. Read-only."
    ),
    input_schema=schema(
        {"warehouseId": string_prop("Only deliveries due at this warehouse."), **paging_props()}, []
    ),
    run=_list_pending_deliveries,
)

TOOLS = [
    list_goods_receipts,
    get_goods_receipt,
    list_receipts_for_purchase_order,
    receive_goods,
    cancel_goods_receipt,
    report_receiving_discrepancy,
    list_receiving_discrepancies,
    get_receiving_discrepancy,
    resolve_receiving_discrepancy,
    list_pending_deliveries,
]
