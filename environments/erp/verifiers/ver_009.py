"""VER-009 (TASK-009): the unapproved purchase order was cancelled (erp-world.md §9.10)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import MISSING, field, non_empty_text, record, same, text, text_or_null


def _check(final: Any, initial: Any, context: Any) -> list:
    o = record(final, "purchaseOrders", "PO-205")
    a = record(final, "approvals", "APR-010")
    b = record(final, "budgets", "BUD-001")
    b0 = record(initial, "budgets", "BUD-001")
    reason = field(o, "cancelReason")
    committed = field(b, "committedAmount", "amount")
    return [
        check(
            "The purchase order is cancelled",
            same(field(o, "status"), "cancelled"),
            f"status = {text(field(o, 'status'))}",
        ),
        check(
            "A cancellation reason is recorded", non_empty_text(reason), f"reason = {text_or_null(reason)}"
        ),
        optional(
            "Its approval is no longer pending",
            a is MISSING or not same(field(a, "status"), "pending"),
            f"approval = {text(field(a, 'status'))}",
        ),
        optional(
            "The budget commitment did not move",
            same(committed, field(b0, "committedAmount", "amount")),
            f"committed = {text(committed)}",
        ),
    ]


ver_009 = define_verifier(
    id="VER-009", task_id="TASK-009", name="Unapproved purchase order cancelled", check=_check
)
