"""VER-005 (TASK-005): the requisition was rejected for lack of budget (erp-world.md §9.6)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import MISSING, field, record, same, text


def _check(final: Any, initial: Any, context: Any) -> list:
    r = record(final, "requisitions", "PR-002")
    a = record(final, "approvals", "APR-002")
    b = record(final, "budgets", "BUD-004")
    b0 = record(initial, "budgets", "BUD-004")
    notes = field(a, "notes")
    note_count = len(notes) if isinstance(notes, list) else 0
    committed = field(b, "committedAmount", "amount")
    return [
        check(
            "The requisition is rejected",
            same(field(r, "status"), "rejected"),
            f"status = {text(field(r, 'status'))}",
        ),
        optional(
            "Its approval was rejected by the named approver",
            same(field(a, "status"), "rejected") and same(field(a, "decidedByUserId"), "USR-003"),
            f"approval = {text(field(a, 'status'))}, by {text(field(a, 'decidedByUserId'))}",
        ),
        optional(
            "The decision carries a note", a is not MISSING and note_count >= 1, f"{note_count} note(s)"
        ),
        check(
            "Nothing was committed to the budget",
            same(committed, field(b0, "committedAmount", "amount")),
            f"committed = {text(committed)}",
        ),
    ]


ver_005 = define_verifier(
    id="VER-005", task_id="TASK-005", name="Requisition rejected for lack of budget", check=_check
)
