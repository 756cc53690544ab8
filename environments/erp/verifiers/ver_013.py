"""VER-013 (TASK-013): the wrong price was corrected and the invoice approved (erp-world.md §9.14)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import TAX_RATE, money, sum_money
from .shared import MISSING, field, first, latest_match_for, record, rounded, same, text


def _check(final: Any, initial: Any, context: Any) -> list:
    inv = record(final, "vendorInvoices", "VINV-103")
    line = field(inv, "lines", 0)
    m = latest_match_for(final, "VINV-103")
    po0 = record(initial, "purchaseOrders", "PO-206")
    po_lines = field(po0, "lines")
    ol0 = first(po_lines, lambda ln: ln.get("id") == "PO-206-L1") if isinstance(po_lines, list) else MISSING
    price = field(ol0, "unitPrice", "amount")
    inv0 = record(initial, "vendorInvoices", "VINV-103")
    lines0 = field(inv0, "lines") if inv0 is not MISSING else []
    qty = field(inv0, "lines", 0, "quantity")
    totals = (
        [
            money(ln["quantity"] * (price if i == 0 else ln["unitPrice"]["amount"]))
            for i, ln in enumerate(lines0)
        ]
        if price is not MISSING
        else []
    )
    s = sum_money(totals)["amount"]
    total = money(s + money(s * TAX_RATE)["amount"])["amount"]
    status = field(inv, "status")
    return [
        check(
            "The line is billed at the purchase order price",
            same(field(line, "unitPrice", "amount"), price),
            f"unitPrice = {text(field(line, 'unitPrice', 'amount'))}",
        ),
        check(
            "The billed quantity is unchanged",
            same(field(line, "quantity"), qty),
            f"quantity = {text(field(line, 'quantity'))}",
        ),
        optional(
            "The total is the corrected value",
            inv is not MISSING and same(rounded(field(inv, "totalAmount", "amount")), total),
            f"total = {text(field(inv, 'totalAmount', 'amount'))}",
        ),
        check(
            "The latest three-way match passed",
            same(field(m, "status"), "matched"),
            f"match {text(field(m, 'id'))} = {text(field(m, 'status'))}",
        ),
        check(
            "The invoice is approved",
            status in ("approved", "paid") if isinstance(status, str) else False,
            f"status = {text(status)}",
        ),
    ]


ver_013 = define_verifier(
    id="VER-013", task_id="TASK-013", name="Wrong price corrected and approved", check=_check
)
