"""VER-008 (TASK-008): this week's invoice was paid in full (erp-world.md §9.9)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import MISSING, completed_payments_for, field, outstanding_text, record, rounded, same, text


def _check(final: Any, initial: Any, context: Any) -> list:
    inv = record(final, "vendorInvoices", "VINV-107")
    paid = completed_payments_for(final, "VINV-107")
    total = field(inv, "totalAmount", "amount")
    outstanding, outstanding_detail = outstanding_text(inv)
    return [
        check(
            "The invoice is paid",
            same(field(inv, "status"), "paid"),
            f"status = {text(field(inv, 'status'))}",
        ),
        check(
            "The amount paid equals the total",
            inv is not MISSING and same(rounded(field(inv, "amountPaid", "amount")), rounded(total)),
            f"paid {text(field(inv, 'amountPaid', 'amount'))} of {text(total)}",
        ),
        check(
            "Completed payments cover the total",
            inv is not MISSING and same(paid, rounded(total)),
            f"completed payments = {text(paid)}",
        ),
        optional("Nothing is outstanding", inv is not MISSING and same(outstanding, 0), outstanding_detail),
    ]


ver_008 = define_verifier(
    id="VER-008", task_id="TASK-008", name="This week's invoice paid in full", check=_check
)
