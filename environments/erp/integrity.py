"""``world_problems(state)``: referential-integrity problems of an ERP world (erp-world.md §11.6).

One short sentence per problem, ``[]`` for a sound world. It never raises on a malformed world:
a record that cannot be read is reported, not trusted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .state import (
    TAX_RATE,
    State,
    budget_available,
    inventory_id,
    line_remaining,
    money,
    outstanding_amount,
    sum_money,
)

__all__ = ["world_problems"]

_INSTANT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")

#: Reference fields -> the collection they point into.
_USER_FIELDS = (
    "managerUserId", "requesterUserId", "requestedByUserId", "assignedToUserId", "decidedByUserId",
    "createdByUserId", "approvedByUserId", "receivedByUserId", "reportedByUserId", "runByUserId",
    "shippedByUserId", "employeeUserId", "issuedByUserId", "actorUserId",
)  # fmt: skip
_REFERENCES = {
    "departmentId": "departments",
    "vendorId": "vendors",
    "customerId": "customers",
    "productId": "products",
    "warehouseId": "warehouses",
    "budgetId": "budgets",
    "requisitionId": "requisitions",
    "approvalId": "approvals",
    "rfqId": "rfqs",
    "quotationId": "quotations",
    "awardedQuotationId": "quotations",
    "purchaseOrderId": "purchaseOrders",
    "goodsReceiptId": "goodsReceipts",
    "vendorInvoiceId": "vendorInvoices",
    "matchId": "threeWayMatches",
    "paymentId": "payments",
    "salesOrderId": "salesOrders",
    **{field: "users" for field in _USER_FIELDS},
}
_APPROVAL_TARGETS = {
    "requisition": ("requisitions", "estimatedTotal"),
    "purchase_order": ("purchaseOrders", "totalAmount"),
    "vendor_invoice": ("vendorInvoices", "totalAmount"),
    "payment": ("payments", "amount"),
    "expense": ("expenses", "amount"),
}
_ID_PREFIX = {
    "users": "USR", "vendors": "VEN", "customers": "CUS", "products": "PRD", "warehouses": "WH",
    "inventoryMovements": "MOV", "requisitions": "PR", "approvals": "APR", "rfqs": "RFQ", "quotations": "QUO",
    "purchaseOrders": "PO", "goodsReceipts": "GR", "receivingDiscrepancies": "DISC", "vendorInvoices": "VINV",
    "threeWayMatches": "MATCH", "payments": "PAY", "salesOrders": "SO", "fulfillments": "FUL",
    "customerInvoices": "CINV", "expenses": "EXP", "budgets": "BUD",
}  # fmt: skip
_TOOL_PREFIXES = (
    "VEN", "CUS", "PRD", "PR", "APR", "RFQ", "QUO", "PO", "GR", "DISC", "VINV", "MATCH", "PAY", "SO", "FUL",
    "CINV", "EXP", "BUD", "MOV", "AUD", "TRF", "ADJ",
)  # fmt: skip
_DOCUMENTS_WITH_LINES = (
    "requisitions", "rfqs", "quotations", "purchaseOrders", "goodsReceipts", "vendorInvoices", "salesOrders",
    "fulfillments", "customerInvoices",
)  # fmt: skip
_NUMBERED = ("requisitions", "rfqs", "quotations", "purchaseOrders", "goodsReceipts", "vendorInvoices",
             "payments", "salesOrders", "fulfillments", "customerInvoices", "expenses")  # fmt: skip


def _walk(value: Any, where: str) -> Iterator[tuple[str, str, Any]]:
    """Every ``(where, key, value)`` of a record and its nested dicts and lists."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield where, key, item
            yield from _walk(item, where)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, where)


def _references(state: State) -> list[str]:
    problems = []
    for collection, records in state.items():
        if not isinstance(records, dict) or collection in ("company", "sequences"):
            continue
        for record_id, record in records.items():
            for where, key, value in _walk(record, f"{collection} {record_id}"):
                target = _REFERENCES.get(key)
                if target is None or value is None:
                    continue
                if not isinstance(value, str) or value not in state.get(target, {}):
                    problems.append(f"{where}: {key} {value!r} is not in {target}.")
    for event in state.get("auditLog", []):
        actor = event.get("actorUserId") if isinstance(event, dict) else None
        if actor not in state.get("users", {}):
            problems.append(
                f"auditLog {event.get('id') if isinstance(event, dict) else '?'}: actorUserId {actor!r} is not in users."
            )
    for approval in state.get("approvals", {}).values():
        entity_home = _APPROVAL_TARGETS.get(approval.get("entityType"))
        if entity_home is None:
            problems.append(
                f"approval {approval.get('id')}: unknown entityType {approval.get('entityType')!r}."
            )
            continue
        document = state.get(entity_home[0], {}).get(approval.get("entityId"))
        if document is None:
            problems.append(
                f"approval {approval.get('id')}: {approval.get('entityId')!r} is not in {entity_home[0]}."
            )
        elif approval.get("amount") != document.get(entity_home[1]):
            problems.append(
                f"approval {approval.get('id')}: amount differs from {document.get('id')}'s total."
            )
    for payment in state.get("payments", {}).values():
        invoices = "vendorInvoices" if payment.get("direction") == "outbound" else "customerInvoices"
        for allocation in payment.get("allocations") or []:
            if allocation.get("invoiceId") not in state.get(invoices, {}):
                problems.append(
                    f"payment {payment.get('id')}: allocation {allocation.get('invoiceId')!r} is not in {invoices}."
                )
    return problems


def _ids(state: State) -> list[str]:
    problems = []
    for collection, records in state.items():
        if not isinstance(records, dict) or collection in ("company", "sequences"):
            continue
        for record_id, record in records.items():
            if not isinstance(record, dict) or record.get("id") != record_id:
                problems.append(
                    f"{collection}: record under {record_id!r} has id {record.get('id') if isinstance(record, dict) else None!r}."
                )
    for key, record in state.get("inventory", {}).items():
        if key != inventory_id(str(record.get("productId")), str(record.get("warehouseId"))):
            problems.append(f"inventory {key}: id does not match its product and warehouse.")
    for collection in _DOCUMENTS_WITH_LINES:
        for record_id, record in state.get(collection, {}).items():
            for n, line in enumerate(record.get("lines") or [], 1):
                if line.get("id") != f"{record_id}-L{n}":
                    problems.append(f"{collection} {record_id}: line {n} has id {line.get('id')!r}.")
    for collection in _NUMBERED:
        for record_id, record in state.get(collection, {}).items():
            if record.get("number") != record_id:
                problems.append(
                    f"{collection} {record_id}: number {record.get('number')!r} differs from its id."
                )
    return problems


def _totals(state: State) -> list[str]:
    """Subtotal, tax and total of each document follow from its line totals (§1.4; either summing
    style of §3.1 is accepted, since tools that change lines fold with ``sum_money``)."""
    problems = []
    for collection in ("quotations", "purchaseOrders", "vendorInvoices", "salesOrders", "customerInvoices"):
        for record_id, record in state.get(collection, {}).items():
            amounts = [line["lineTotal"]["amount"] for line in record["lines"]]
            raw = 0.0
            for amount in amounts:
                raw += amount
            subtotals = {money(raw)["amount"], sum_money(money(a) for a in amounts)["amount"]}
            subtotal = record["subtotal"]["amount"]
            if subtotal not in subtotals:
                problems.append(f"{collection} {record_id}: subtotal does not follow from its lines.")
                continue
            if collection == "quotations":
                if record["totalAmount"] != record["subtotal"]:
                    problems.append(f"{collection} {record_id}: totalAmount differs from its subtotal.")
                continue
            tax = money(subtotal * TAX_RATE)
            if record["taxAmount"] != tax or record["totalAmount"] != money(subtotal + tax["amount"]):
                problems.append(f"{collection} {record_id}: tax or total does not follow from its subtotal.")
    return problems


def _quantities(state: State) -> list[str]:
    problems = []
    posted: dict[str, int] = {}
    for receipt in state.get("goodsReceipts", {}).values():
        if receipt.get("status") == "posted":
            for line in receipt.get("lines") or []:
                key = line.get("purchaseOrderLineId")
                posted[key] = posted.get(key, 0) + line.get("quantityReceived", 0)
    expected_inbound: dict[str, int] = {}
    for order in state.get("purchaseOrders", {}).values():
        for line in order["lines"]:
            if line["quantityReceived"] + line["quantityRejected"] > line["quantityOrdered"]:
                problems.append(
                    f"purchase order line {line['id']}: received and rejected exceed the ordered quantity."
                )
            if posted.get(line["id"], 0) != line["quantityReceived"]:
                problems.append(
                    f"purchase order line {line['id']}: posted receipts do not sum to its received quantity."
                )
            if order["status"] in ("sent", "partially_received") and line_remaining(line) > 0:
                key = inventory_id(line["productId"], order["warehouseId"])
                expected_inbound[key] = expected_inbound.get(key, 0) + line_remaining(line)
        if order["status"] == "received" and any(line_remaining(ln) for ln in order["lines"]):
            problems.append(f"purchase order {order['id']}: received but units are still outstanding.")
        if order["status"] == "cancelled" and not order.get("cancelledAt"):
            problems.append(f"purchase order {order['id']}: cancelled without cancelledAt.")
    reserved: dict[str, int] = {}
    for order in state.get("salesOrders", {}).values():
        for line in order["lines"]:
            key = inventory_id(line["productId"], line["warehouseId"])
            reserved[key] = reserved.get(key, 0) + line["quantityReserved"]
    for key, record in state.get("inventory", {}).items():
        if record["quantityReserved"] > record["quantityOnHand"]:
            problems.append(f"inventory {key}: more reserved than on hand.")
        if record["quantityInbound"] != expected_inbound.get(key, 0):
            problems.append(
                f"inventory {key}: inbound {record['quantityInbound']} differs from the open orders' {expected_inbound.get(key, 0)}."
            )
        if reserved.get(key, 0) > record["quantityReserved"]:
            problems.append(f"inventory {key}: sales lines reserve more than the record holds.")
    for collection in ("vendorInvoices", "customerInvoices"):
        for record_id, invoice in state.get(collection, {}).items():
            if invoice.get("status") == "paid" and outstanding_amount(invoice)["amount"] != 0:
                problems.append(f"{collection} {record_id}: paid but an amount is outstanding.")
    for record_id, budget in state.get("budgets", {}).items():
        if budget_available(budget)["amount"] < 0:
            problems.append(f"budget {record_id}: more committed and spent than allocated.")
    return problems


def _clock_and_sequences(state: State) -> list[str]:
    problems = []
    now = state.get("now")
    if not isinstance(now, str) or not _INSTANT.fullmatch(now):
        return [f"now {now!r} is not an ERP timestamp."]
    for collection, records in state.items():
        if not isinstance(records, dict) or collection == "sequences":
            continue
        for where, key, value in _walk(records, collection):
            if isinstance(value, str) and (key.endswith("At") or key.endswith("Date") or key == "validUntil"):
                if not _INSTANT.fullmatch(value):
                    problems.append(f"{where}: {key} {value!r} is not an ERP timestamp.")
                elif key.endswith("At") and value > now:
                    problems.append(f"{where}: {key} {value} is after now.")
    sequences = state.get("sequences", {})
    for prefix in _TOOL_PREFIXES:
        if prefix not in sequences:
            problems.append(f"sequences lack the prefix {prefix}.")
    for collection, prefix in _ID_PREFIX.items():
        for record_id in state.get(collection, {}):
            number = record_id.rsplit("-", 1)[-1]
            if number.isdigit() and int(number) > sequences.get(prefix, 0):
                problems.append(f"sequences: {prefix} is below {record_id}.")
    if sequences.get("AUD") != len(state.get("auditLog", [])):
        problems.append("sequences: AUD differs from the audit log's length.")
    return problems


def world_problems(state: State) -> list[str]:
    """Sentences naming each integrity problem of ``state``; ``[]`` when the world is sound."""
    problems: list[str] = []
    for part in (_ids, _references, _totals, _quantities, _clock_and_sequences):
        try:
            problems.extend(part(state))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            problems.append(
                f"the world could not be read ({part.__name__.strip('_')}): {type(exc).__name__} {exc}."
            )
    return problems
