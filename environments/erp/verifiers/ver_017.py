"""VER-017 (TASK-017): the procure-to-pay cycle was completed (erp-world.md §9.18)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from ..state import money
from .shared import MISSING, completed_payments_for, field, first, new_ids, rounded, same, stock_on_hand, text


def _has_gloves(doc: Any) -> bool:
    return any(ln.get("productId") == "PRD-020" for ln in doc.get("lines") or [])


def _check(final: Any, initial: Any, context: Any) -> list:
    params = task_parameters("TASK-017", initial)
    qty, price = params["quantity"], params["unitPrice"]
    value = money(qty * price)["amount"]
    orders = [final["purchaseOrders"][i] for i in new_ids(final, initial, "purchaseOrders")]
    o = first(orders, lambda po: po.get("vendorId") == "VEN-009" and _has_gloves(po))
    line = MISSING if o is MISSING else first(o["lines"], lambda ln: ln.get("productId") == "PRD-020")
    order_id = field(o, "id")
    grs = (
        []
        if o is MISSING
        else [
            g
            for g in final["goodsReceipts"].values()
            if g.get("purchaseOrderId") == order_id and g.get("status") == "posted"
        ]
    )
    inv = (
        MISSING
        if o is MISSING
        else first(
            final["vendorInvoices"].values(),
            lambda i: i.get("purchaseOrderId") == order_id and i.get("status") != "cancelled",
        )
    )
    paid = completed_payments_for(final, inv["id"]) if inv is not MISSING else 0
    reqs = [final["requisitions"][i] for i in new_ids(final, initial, "requisitions")]
    r = first(reqs, _has_gloves)
    before, after = stock_on_hand(initial, "PRD-020", "WH-001"), stock_on_hand(final, "PRD-020", "WH-001")
    r_status = field(r, "status")
    return [
        check(
            "A requisition for the gloves was raised and approved",
            r is not MISSING and r_status in ("approved", "converted"),
            f"requisition {r['id'] if r is not MISSING else 'none'} = {text(r_status)}",
        ),
        check(
            "The purchase order has the quantity at the agreed price",
            same(field(line, "quantityOrdered"), qty) and same(field(line, "unitPrice", "amount"), price),
            f"{text(field(line, 'quantityOrdered'))} @ {text(field(line, 'unitPrice', 'amount'))}",
        ),
        check(
            "The goods were received in full",
            same(field(line, "quantityReceived"), qty) and bool(grs),
            f"received = {text(field(line, 'quantityReceived'))}, receipts = {len(grs)}",
        ),
        check(
            "Stock at the warehouse rose by the quantity",
            same(after, before + qty),
            f"{text(before)} -> {text(after)}",
        ),
        optional(
            "The invoice bills the received value",
            inv is not MISSING and same(rounded(field(inv, "subtotal", "amount")), value),
            f"subtotal = {text(field(inv, 'subtotal', 'amount'))} (expected {text(value)})",
        ),
        check(
            "The invoice is paid by completed payments",
            inv is not MISSING
            and same(field(inv, "status"), "paid")
            and same(paid, rounded(field(inv, "totalAmount", "amount"))),
            f"status = {text(field(inv, 'status'))}, completed payments = {text(paid)}",
        ),
    ]


ver_017 = define_verifier(
    id="VER-017", task_id="TASK-017", name="Procure-to-pay cycle completed", check=_check
)
