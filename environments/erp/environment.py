"""Builds the canonical ERP world from ``data/`` (erp-world.md §1.3-§1.4).

The 26 data files are read and parsed once per process. Five of them (quotations, purchase
orders, vendor invoices, sales orders, customer invoices) hold specs: facts only, from which
``derive_*`` compute every line id, line total, subtotal, tax and total, rounding each money value
when it is made. The assembled seed is kept as compact JSON texts (one per top-level key,
:class:`silo_gym.kit.CanonicalWorld`) and parsed again by every ``create_state()`` call, so no
dict or list is shared between worlds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from silo_gym import kit

from .state import TAX_RATE, Record, State, money

__all__ = [
    "SIMULATION_NOW",
    "TAX_RATE",
    "build_world",
    "create_state",
    "derive_customer_invoice",
    "derive_purchase_order",
    "derive_quotation",
    "derive_sales_order",
    "derive_vendor_invoice",
]

#: The simulated "now": a full UTC instant. Only ``advance_clock`` and ``set_clock`` move it.
SIMULATION_NOW = "2026-03-16T09:00:00.000Z"

_DATA_DIR = Path(__file__).resolve().parent / "data"

#: State key -> how its records are built: None = stored as is, else the spec builder's name.
_COLLECTIONS: tuple[tuple[str, str | None], ...] = (
    ("departments", None),
    ("users", None),
    ("vendors", None),
    ("customers", None),
    ("products", None),
    ("warehouses", None),
    ("inventory", None),
    ("inventoryMovements", None),
    ("requisitions", None),
    ("approvals", None),
    ("rfqs", None),
    ("quotations", "quotation"),
    ("purchaseOrders", "purchase_order"),
    ("goodsReceipts", None),
    ("receivingDiscrepancies", None),
    ("vendorInvoices", "vendor_invoice"),
    ("threeWayMatches", None),
    ("payments", None),
    ("salesOrders", "sales_order"),
    ("fulfillments", None),
    ("customerInvoices", "customer_invoice"),
    ("expenses", None),
    ("budgets", None),
)

def _totals(line_totals: list[float], taxed: bool = True) -> dict[str, Record]:
    """Subtotal (raw sum rounded once), tax and total of a document (§1.4 steps 2-4)."""
    raw = 0.0
    for amount in line_totals:
        raw += amount
    subtotal = money(raw)
    if not taxed:
        return {"subtotal": subtotal, "totalAmount": dict(subtotal)}
    tax = money(subtotal["amount"] * TAX_RATE)
    return {"subtotal": subtotal, "taxAmount": tax, "totalAmount": money(subtotal["amount"] + tax["amount"])}


#: How a field of a derived record is made from its spec: ``REQ`` copies ``spec[source]``, ``GET``
#: ``spec.get(source)``, ``COUNT`` ``spec.get(source) or 0``, ``PRICE`` ``money(spec[source])``,
#: ``TOTAL`` ``money(spec[source] * spec["unitPrice"])`` (a line total from the unrounded price).
REQ, GET, COUNT, PRICE, TOTAL = "req", "get", "count", "price", "total"
#: Document-level makers on top of those: ``ID`` the spec's id, ``LINES`` the derived lines,
#: ``USD`` the currency, ``TOTALS`` the subtotal (tax) and total, ``IDS`` a fresh list
#: (``spec.get(source) or []``), ``PAID`` ``money(spec.get(source) or 0)``.
ID, LINES, USD, TOTALS, IDS, PAID = "id", "lines", "usd", "totals", "ids", "paid"

Layout = tuple[tuple[str, str, str], ...]


def _field(spec: Record, source: str, how: str) -> Any:
    if how == REQ:
        return spec[source]
    if how == GET:
        return spec.get(source)
    if how == COUNT:
        return spec.get(source) or 0
    if how == PRICE:
        return money(spec[source])
    if how == TOTAL:
        return money(spec[source] * spec["unitPrice"])
    if how == IDS:
        return list(spec.get(source) or [])
    if how == PAID:
        return money(spec.get(source) or 0)
    if how == USD:
        return "USD"
    raise ValueError(f"unknown field maker {how!r}")


def _derive(spec: Record, line_layout: Layout, layout: Layout, taxed: bool = True) -> Record:
    """A derived document: its lines (ids ``<doc>-L<n>``) and then its own fields, both in layout
    order, the totals made from the rounded line totals (§1.4)."""
    lines = [
        {"id": f"{spec['id']}-L{n}", **{key: _field(line, source, how) for key, source, how in line_layout}}
        for n, line in enumerate(spec["lines"], 1)
    ]
    totals = _totals([line["lineTotal"]["amount"] for line in lines], taxed)
    record: Record = {}
    for key, source, how in layout:
        if how == ID:
            record[key] = spec["id"]
        elif how == LINES:
            record[key] = lines
        elif how == TOTALS:
            record.update(totals)
        else:
            record[key] = _field(spec, source, how)
    return record


def _fields(how: str, *keys: str) -> Layout:
    """Fields copied under their own names, each made the same way."""
    return tuple((key, key, how) for key in keys)


_QUOTATION_LINE: Layout = (*_fields(REQ, "productId", "quantity"), ("unitPrice", "unitPrice", PRICE),
                           ("lineTotal", "quantity", TOTAL))
_QUOTATION: Layout = (
    ("id", "", ID), ("number", "", ID), *_fields(REQ, "rfqId", "vendorId", "status"), ("lines", "", LINES),
    ("totals", "", TOTALS), *_fields(REQ, "leadTimeDays", "validUntil", "receivedAt"), ("notes", "notes", GET),
)
_PURCHASE_ORDER_LINE: Layout = (
    *_fields(REQ, "productId", "description"), ("quantityOrdered", "ordered", REQ),
    ("quantityReceived", "received", COUNT), ("quantityRejected", "rejected", COUNT),
    ("quantityInvoiced", "invoiced", COUNT), ("unitPrice", "unitPrice", PRICE), ("lineTotal", "ordered", TOTAL),
    ("expectedDate", "expectedDate", GET),
)
_PURCHASE_ORDER: Layout = (
    ("id", "", ID), ("number", "", ID), *_fields(REQ, "vendorId", "status"), ("lines", "", LINES),
    ("warehouseId", "warehouseId", REQ), ("currency", "", USD), ("totals", "", TOTALS),
    *_fields(GET, "requisitionId", "quotationId", "budgetId"), *_fields(REQ, "paymentTerms", "createdByUserId", "createdAt"),
    *_fields(GET, "approvalId", "approvedAt", "approvedByUserId", "sentAt", "expectedDeliveryDate", "closedAt",
             "cancelledAt", "cancelReason"),
)
_VENDOR_INVOICE_LINE: Layout = (
    *_fields(GET, "purchaseOrderLineId", "productId"), *_fields(REQ, "description", "quantity"),
    ("unitPrice", "unitPrice", PRICE), ("lineTotal", "quantity", TOTAL),
)
_VENDOR_INVOICE: Layout = (
    ("id", "", ID), ("number", "", ID), *_fields(REQ, "vendorInvoiceNumber", "vendorId"),
    ("purchaseOrderId", "purchaseOrderId", GET), ("goodsReceiptIds", "goodsReceiptIds", IDS),
    ("status", "status", REQ), ("lines", "", LINES), ("totals", "", TOTALS), ("amountPaid", "amountPaid", PAID),
    *_fields(REQ, "invoiceDate", "dueDate", "receivedAt"),
    *_fields(GET, "matchId", "approvalId", "approvedAt", "approvedByUserId", "disputeReason", "paidAt"),
)
_SALES_ORDER_LINE: Layout = (
    ("productId", "productId", REQ), ("quantityOrdered", "ordered", REQ), ("quantityReserved", "reserved", COUNT),
    ("quantityFulfilled", "fulfilled", COUNT), ("unitPrice", "unitPrice", PRICE), ("lineTotal", "ordered", TOTAL),
    ("warehouseId", "warehouseId", REQ),
)
_SALES_ORDER: Layout = (
    ("id", "", ID), ("number", "", ID), *_fields(REQ, "customerId", "status"), ("lines", "", LINES),
    ("currency", "", USD), ("totals", "", TOTALS),
    *_fields(REQ, "customerPoNumber", "orderDate", "requestedDeliveryDate", "createdByUserId"),
    *_fields(GET, "confirmedAt", "cancelledAt", "cancelReason", "closedAt"),
)
_CUSTOMER_INVOICE_LINE: Layout = (
    ("salesOrderLineId", "salesOrderLineId", GET), *_fields(REQ, "productId", "description", "quantity"),
    ("unitPrice", "unitPrice", PRICE), ("lineTotal", "quantity", TOTAL),
)
_CUSTOMER_INVOICE: Layout = (
    ("id", "", ID), ("number", "", ID), ("customerId", "customerId", REQ), ("salesOrderId", "salesOrderId", GET),
    ("fulfillmentIds", "fulfillmentIds", IDS), ("status", "status", REQ), ("lines", "", LINES),
    ("totals", "", TOTALS), ("amountPaid", "amountPaid", PAID), *_fields(REQ, "issueDate", "dueDate"),
    ("paidAt", "paidAt", GET),
)


def derive_quotation(spec: Record) -> Record:
    """A Quotation from its spec (lines are ``[productId, quantity, unitPrice]`` triples; no tax)."""
    lines = [dict(zip(("productId", "quantity", "unitPrice"), line, strict=True)) for line in spec["lines"]]
    return _derive({**spec, "lines": lines}, _QUOTATION_LINE, _QUOTATION, taxed=False)


def derive_purchase_order(spec: Record) -> Record:
    """A PurchaseOrder from its spec (line keys ``ordered``, ``received``, ``rejected``, ``invoiced``)."""
    return _derive(spec, _PURCHASE_ORDER_LINE, _PURCHASE_ORDER)


def derive_vendor_invoice(spec: Record) -> Record:
    """A VendorInvoice from its spec."""
    return _derive(spec, _VENDOR_INVOICE_LINE, _VENDOR_INVOICE)


def derive_sales_order(spec: Record) -> Record:
    """A SalesOrder from its spec (line keys ``ordered``, ``reserved``, ``fulfilled``)."""
    return _derive(spec, _SALES_ORDER_LINE, _SALES_ORDER)


def derive_customer_invoice(spec: Record) -> Record:
    """A CustomerInvoice from its spec."""
    return _derive(spec, _CUSTOMER_INVOICE_LINE, _CUSTOMER_INVOICE)


_DERIVE: dict[str, Callable[[Record], Record]] = {
    "quotation": derive_quotation,
    "purchase_order": derive_purchase_order,
    "vendor_invoice": derive_vendor_invoice,
    "sales_order": derive_sales_order,
    "customer_invoice": derive_customer_invoice,
}


def build_world(data: dict[str, Any], now: str = SIMULATION_NOW) -> State:
    """Assemble a world from parsed data files (keyed by file stem), keys in the §1.3 order.

    Spec collections go through their ``derive_*`` builder; the others are keyed by id as stored.
    Variants call this with their own generated data.
    """
    world: State = {"now": now, "company": data["company"]}
    for key, kind in _COLLECTIONS:
        rows = data[key]
        if kind is not None:
            build = _DERIVE[kind]
            rows = [build(row) for row in rows]
        world[key] = {row["id"]: row for row in rows}
    world["auditLog"] = data["auditLog"]
    world["sequences"] = data["sequences"]
    return world


def _read(name: str) -> Any:
    return orjson.loads((_DATA_DIR / f"{name}.json").read_bytes())


def _canonical_world() -> State:
    names = ["company", *(key for key, _ in _COLLECTIONS), "auditLog", "sequences"]
    return build_world({name: _read(name) for name in names})


#: ``create_state(variant=None)``: a fresh ERP world with the 27 keys of erp-world.md §1.3 in that
#: order. ``None`` (the default) is a copy of the canonical world; an int ``0 <= k < 2**63`` is that
#: variant of it (erp-world.md §11, ``variants.py``), the same world in every process; any other
#: value raises ``ValueError``.
create_state = kit.StateMaker(kit.CanonicalWorld(_canonical_world), ".variants:build_variant", package=__package__)
