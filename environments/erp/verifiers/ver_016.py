"""VER-016 (TASK-016): the failed payment was replaced and the invoice settled (§9.17)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from .shared import (
    MISSING,
    completed_payments_for,
    field,
    is_overdue_safe,
    outstanding_text,
    record,
    rounded,
    same,
    text,
)


def _check(final: Any, initial: Any, context: Any) -> list:
    email = task_parameters("TASK-016", initial)["email"]
    inv = record(final, "vendorInvoices", "VINV-108")
    p3 = record(final, "payments", "PAY-003")
    v = record(final, "vendors", "VEN-002")
    paid = completed_payments_for(final, "VINV-108")
    total = field(inv, "totalAmount", "amount")
    _, outstanding_detail = outstanding_text(inv)
    return [
        check(
            "The invoice is paid",
            same(field(inv, "status"), "paid"),
            f"status = {text(field(inv, 'status'))}",
        ),
        check(
            "Completed payments cover the total",
            inv is not MISSING and same(paid, rounded(total)),
            f"completed = {text(paid)} of {text(total)}",
        ),
        check(
            "The failed payment stays on record as failed",
            same(field(p3, "status"), "failed"),
            f"PAY-003 = {text(field(p3, 'status'))}",
        ),
        check(
            "The corrected contact email is recorded",
            same(field(v, "contact", "email"), email),
            f"email = {text(field(v, 'contact', 'email'))}",
        ),
        optional(
            "The invoice is no longer overdue",
            inv is not MISSING and not is_overdue_safe(inv, final["now"]),
            outstanding_detail,
        ),
    ]


ver_016 = define_verifier(
    id="VER-016", task_id="TASK-016", name="Failed payment replaced, invoice settled", check=_check
)
