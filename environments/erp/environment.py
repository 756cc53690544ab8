"""Builds the canonical ERP world from ``data/`` (erp-world.md §1.3-§1.4).

The 26 data files are read and parsed once per process. Five of them (quotations, purchase
orders, vendor invoices, sales orders, customer invoices) hold specs: facts only, from which
``derive_*`` compute every line id, line total, subtotal, tax and total, rounding each money value
when it is made. The assembled seed is cached as compact JSON bytes and parsed again by every
``create_state()`` call, so no dict or list is shared between worlds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

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

_seed: bytes | None = None


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


def derive_quotation(spec: Record) -> Record:
    """A Quotation from its spec (lines are ``[productId, quantity, unitPrice]`` triples; no tax)."""
    lines = []
    for n, (product_id, quantity, price) in enumerate(spec["lines"], 1):
        lines.append(
            {
                "id": f"{spec['id']}-L{n}",
                "productId": product_id,
                "quantity": quantity,
                "unitPrice": money(price),
                "lineTotal": money(quantity * price),
            }
        )
    totals = _totals([line["lineTotal"]["amount"] for line in lines], taxed=False)
    return {
        "id": spec["id"],
        "number": spec["id"],
        "rfqId": spec["rfqId"],
        "vendorId": spec["vendorId"],
        "status": spec["status"],
        "lines": lines,
        "subtotal": totals["subtotal"],
        "totalAmount": totals["totalAmount"],
        "leadTimeDays": spec["leadTimeDays"],
        "validUntil": spec["validUntil"],
        "receivedAt": spec["receivedAt"],
        "notes": spec.get("notes"),
    }


def derive_purchase_order(spec: Record) -> Record:
    """A PurchaseOrder from its spec (line keys ``ordered``, ``received``, ``rejected``, ``invoiced``)."""
    lines = []
    for n, line in enumerate(spec["lines"], 1):
        lines.append(
            {
                "id": f"{spec['id']}-L{n}",
                "productId": line["productId"],
                "description": line["description"],
                "quantityOrdered": line["ordered"],
                "quantityReceived": line.get("received") or 0,
                "quantityRejected": line.get("rejected") or 0,
                "quantityInvoiced": line.get("invoiced") or 0,
                "unitPrice": money(line["unitPrice"]),
                "lineTotal": money(line["ordered"] * line["unitPrice"]),
                "expectedDate": line.get("expectedDate"),
            }
        )
    totals = _totals([line["lineTotal"]["amount"] for line in lines])
    g = spec.get
    return {
        "id": spec["id"],
        "number": spec["id"],
        "vendorId": spec["vendorId"],
        "status": spec["status"],
        "lines": lines,
        "warehouseId": spec["warehouseId"],
        "currency": "USD",
        **totals,
        "requisitionId": g("requisitionId"),
        "quotationId": g("quotationId"),
        "budgetId": g("budgetId"),
        "paymentTerms": spec["paymentTerms"],
        "createdByUserId": spec["createdByUserId"],
        "createdAt": spec["createdAt"],
        "approvalId": g("approvalId"),
        "approvedAt": g("approvedAt"),
        "approvedByUserId": g("approvedByUserId"),
        "sentAt": g("sentAt"),
        "expectedDeliveryDate": g("expectedDeliveryDate"),
        "closedAt": g("closedAt"),
        "cancelledAt": g("cancelledAt"),
        "cancelReason": g("cancelReason"),
    }


def derive_vendor_invoice(spec: Record) -> Record:
    """A VendorInvoice from its spec."""
    lines = []
    for n, line in enumerate(spec["lines"], 1):
        lines.append(
            {
                "id": f"{spec['id']}-L{n}",
                "purchaseOrderLineId": line.get("purchaseOrderLineId"),
                "productId": line.get("productId"),
                "description": line["description"],
                "quantity": line["quantity"],
                "unitPrice": money(line["unitPrice"]),
                "lineTotal": money(line["quantity"] * line["unitPrice"]),
            }
        )
    totals = _totals([line["lineTotal"]["amount"] for line in lines])
    g = spec.get
    return {
        "id": spec["id"],
        "number": spec["id"],
        "vendorInvoiceNumber": spec["vendorInvoiceNumber"],
        "vendorId": spec["vendorId"],
        "purchaseOrderId": g("purchaseOrderId"),
        "goodsReceiptIds": list(g("goodsReceiptIds") or []),
        "status": spec["status"],
        "lines": lines,
        **totals,
        "amountPaid": money(g("amountPaid") or 0),
        "invoiceDate": spec["invoiceDate"],
        "dueDate": spec["dueDate"],
        "receivedAt": spec["receivedAt"],
        "matchId": g("matchId"),
        "approvalId": g("approvalId"),
        "approvedAt": g("approvedAt"),
        "approvedByUserId": g("approvedByUserId"),
        "disputeReason": g("disputeReason"),
        "paidAt": g("paidAt"),
    }


def derive_sales_order(spec: Record) -> Record:
    """A SalesOrder from its spec (line keys ``ordered``, ``reserved``, ``fulfilled``)."""
    lines = []
    for n, line in enumerate(spec["lines"], 1):
        lines.append(
            {
                "id": f"{spec['id']}-L{n}",
                "productId": line["productId"],
                "quantityOrdered": line["ordered"],
                "quantityReserved": line.get("reserved") or 0,
                "quantityFulfilled": line.get("fulfilled") or 0,
                "unitPrice": money(line["unitPrice"]),
                "lineTotal": money(line["ordered"] * line["unitPrice"]),
                "warehouseId": line["warehouseId"],
            }
        )
    totals = _totals([line["lineTotal"]["amount"] for line in lines])
    g = spec.get
    return {
        "id": spec["id"],
        "number": spec["id"],
        "customerId": spec["customerId"],
        "status": spec["status"],
        "lines": lines,
        "currency": "USD",
        **totals,
        "customerPoNumber": spec["customerPoNumber"],
        "orderDate": spec["orderDate"],
        "requestedDeliveryDate": spec["requestedDeliveryDate"],
        "createdByUserId": spec["createdByUserId"],
        "confirmedAt": g("confirmedAt"),
        "cancelledAt": g("cancelledAt"),
        "cancelReason": g("cancelReason"),
        "closedAt": g("closedAt"),
    }


def derive_customer_invoice(spec: Record) -> Record:
    """A CustomerInvoice from its spec."""
    lines = []
    for n, line in enumerate(spec["lines"], 1):
        lines.append(
            {
                "id": f"{spec['id']}-L{n}",
                "salesOrderLineId": line.get("salesOrderLineId"),
                "productId": line["productId"],
                "description": line["description"],
                "quantity": line["quantity"],
                "unitPrice": money(line["unitPrice"]),
                "lineTotal": money(line["quantity"] * line["unitPrice"]),
            }
        )
    totals = _totals([line["lineTotal"]["amount"] for line in lines])
    g = spec.get
    return {
        "id": spec["id"],
        "number": spec["id"],
        "customerId": spec["customerId"],
        "salesOrderId": g("salesOrderId"),
        "fulfillmentIds": list(g("fulfillmentIds") or []),
        "status": spec["status"],
        "lines": lines,
        **totals,
        "amountPaid": money(g("amountPaid") or 0),
        "issueDate": spec["issueDate"],
        "dueDate": spec["dueDate"],
        "paidAt": g("paidAt"),
    }


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


def _build_seed() -> bytes:
    names = ["company", *(key for key, _ in _COLLECTIONS), "auditLog", "sequences"]
    return orjson.dumps(build_world({name: _read(name) for name in names}))


def create_state(variant: int | None = None) -> State:
    """A fresh ERP world, with the 27 keys of erp-world.md §1.3 in that order.

    ``variant=None`` (the default) is a copy of the canonical world; an int ``0 <= k < 2**63`` is
    that variant of it (erp-world.md §11, ``variants.py``), the same world in every process.

    Raises:
        ValueError: ``variant`` is neither ``None`` nor an int in that range.
    """
    if variant is not None:
        from .variants import build_variant

        return build_variant(variant)
    global _seed
    seed = _seed
    if seed is None:
        seed = _seed = _build_seed()
    state: State = orjson.loads(seed)
    return state
