"""VER-002 (TASK-002): the vendor is blocked, with a reason (erp-world.md §9.3)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier

from .shared import field, non_empty_text, record, same, text, text_or_null


def _check(final: Any, initial: Any, context: Any) -> list:
    v = record(final, "vendors", "VEN-007")
    reason = field(v, "statusReason")
    return [
        check(
            "The vendor is blocked",
            same(field(v, "status"), "blocked"),
            f"status = {text(field(v, 'status'))}",
        ),
        check(
            "A reason for the block is recorded",
            non_empty_text(reason),
            f"statusReason = {text_or_null(reason)}",
        ),
    ]


ver_002 = define_verifier(id="VER-002", task_id="TASK-002", name="Vendor blocked with a reason", check=_check)
