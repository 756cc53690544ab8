"""VER-010 (TASK-010): the delivered order was invoiced (erp-world.md §9.11)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import money, sum_money
from .shared import MISSING, field, first, new_ids, record, rounded, same, text


def _check(final: Any, initial: Any, context: Any) -> list:
    created = [final["customerInvoices"][i] for i in new_ids(final, initial, "customerInvoices")]
    inv = first(created, lambda c: c.get("salesOrderId") == "SO-306")
    line = field(inv, "lines", 0)
    o = record(final, "salesOrders", "SO-306")
    o0 = record(initial, "salesOrders", "SO-306")
    shipped = field(o0, "lines", 0, "quantityFulfilled")
    lines0 = field(o0, "lines")
    value = sum_money(
        money(ln["quantityFulfilled"] * ln["unitPrice"]["amount"])
        for ln in (lines0 if isinstance(lines0, list) else [])
        if ln["quantityFulfilled"] > 0
    )["amount"]
    status = field(inv, "status")
    return [
        check(
            "A new invoice was raised for the order",
            inv is not MISSING,
            f"invoice {inv['id']}" if inv is not MISSING else "none found",
        ),
        check(
            "It bills the shipped quantity",
            same(field(line, "quantity"), shipped),
            f"quantity = {text(field(line, 'quantity'))}",
        ),
        check(
            "The invoice was issued",
            status in ("issued", "paid", "partially_paid") if isinstance(status, str) else False,
            f"status = {text(status)}",
        ),
        optional(
            "Its subtotal is the shipped value",
            inv is not MISSING and same(rounded(field(inv, "subtotal", "amount")), value),
            f"subtotal = {text(field(inv, 'subtotal', 'amount'))}",
        ),
        optional(
            "The sales order shows as invoiced",
            same(field(o, "status"), "invoiced"),
            f"status = {text(field(o, 'status'))}",
        ),
    ]


ver_010 = define_verifier(id="VER-010", task_id="TASK-010", name="Delivered order invoiced", check=_check)
