"""VER-012 (TASK-012): the over-billed quantity was corrected and approved (erp-world.md §9.13)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import money, sum_money
from .shared import MISSING, at_most, field, first, latest_match_for, record, rounded, same, text


def _received(initial: Any) -> Any:
    total = 0
    for receipt in initial["goodsReceipts"].values():
        if receipt.get("purchaseOrderId") != "PO-203" or receipt.get("status") != "posted":
            continue
        for line in receipt.get("lines") or []:
            if line.get("purchaseOrderLineId") == "PO-203-L1":
                total += line["quantityReceived"]
    return total


def _check(final: Any, initial: Any, context: Any) -> list:
    inv = record(final, "vendorInvoices", "VINV-104")
    lines = field(inv, "lines")
    line = first(lines, lambda ln: ln.get("productId") == "PRD-004") if isinstance(lines, list) else MISSING
    po = record(final, "purchaseOrders", "PO-203")
    po_lines = field(po, "lines")
    ol = first(po_lines, lambda ln: ln.get("id") == "PO-203-L1") if isinstance(po_lines, list) else MISSING
    m = latest_match_for(final, "VINV-104")
    received = _received(initial)
    inv0 = record(initial, "vendorInvoices", "VINV-104")
    expected = sum_money(
        money(
            (received if ln.get("purchaseOrderLineId") == "PO-203-L1" else ln["quantity"])
            * ln["unitPrice"]["amount"]
        )
        for ln in (field(inv0, "lines") if inv0 is not MISSING else [])
    )["amount"]
    status = field(inv, "status")
    return [
        check(
            "The bolt line bills what was received",
            same(field(line, "quantity"), received),
            f"quantity = {text(field(line, 'quantity'))}",
        ),
        optional(
            "The subtotal is the corrected value",
            inv is not MISSING and same(rounded(field(inv, "subtotal", "amount")), expected),
            f"subtotal = {text(field(inv, 'subtotal', 'amount'))} (expected {text(expected)})",
        ),
        check(
            "The order line is no longer invoiced beyond receipt",
            ol is not MISSING and at_most(field(ol, "quantityInvoiced"), field(ol, "quantityReceived")),
            f"invoiced {text(field(ol, 'quantityInvoiced'))} vs received {text(field(ol, 'quantityReceived'))}",
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


ver_012 = define_verifier(
    id="VER-012", task_id="TASK-012", name="Over-billed quantity corrected and approved", check=_check
)
