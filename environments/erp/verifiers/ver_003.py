"""VER-003 (TASK-003): the largest overdue debtor is on credit hold (erp-world.md §9.4)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import field, is_overdue_safe, non_empty_text, record, same, text, text_or_null


def _check(final: Any, initial: Any, context: Any) -> list:
    c = record(final, "customers", "CUS-003")
    big = [
        inv
        for inv in initial["customerInvoices"].values()
        if is_overdue_safe(inv, initial["now"]) and inv["totalAmount"]["amount"] > 10000
    ]
    written_off = [
        inv["id"]
        for inv in big
        if same(field(record(final, "customerInvoices", inv["id"]), "status"), "written_off")
    ]
    reason = field(c, "statusReason")
    return [
        check(
            "The customer is on credit hold",
            same(field(c, "status"), "credit_hold"),
            f"status = {text(field(c, 'status'))}",
        ),
        optional(
            "A reason for the hold is recorded",
            non_empty_text(reason),
            f"statusReason = {text_or_null(reason)}",
        ),
        check(
            "None of the large overdue invoices was written off",
            not written_off,
            f"{len(big)} invoice(s) above $10k checked",
        ),
    ]


ver_003 = define_verifier(
    id="VER-003", task_id="TASK-003", name="Largest overdue debtor on credit hold", check=_check
)
