"""VER-015 (TASK-015): the requisition was approved by someone with the authority (§9.16)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import MISSING, at_least, field, first, record, same, text


def _check(final: Any, initial: Any, context: Any) -> list:
    r = record(final, "requisitions", "PR-006")
    r0 = record(initial, "requisitions", "PR-006")
    d = first(
        final["approvals"].values(),
        lambda a: (
            a.get("entityType") == "requisition"
            and a.get("entityId") == "PR-006"
            and a.get("status") == "approved"
        ),
    )
    decider = field(d, "decidedByUserId")
    u = record(final, "users", decider) if isinstance(decider, str) else MISSING
    limit = field(u, "approvalLimit", "amount")
    if limit is MISSING or limit is None:
        limit = 0
    total = field(r, "estimatedTotal", "amount")
    return [
        check(
            "The requisition is approved",
            same(field(r, "status"), "approved"),
            f"status = {text(field(r, 'status'))}",
        ),
        check(
            "The approver's limit covers its value",
            r is not MISSING and at_least(limit, total),
            f"approver {u['id'] if u is not MISSING else 'none'} limit {text(limit)} vs {text(total)}",
        ),
        optional(
            "Someone other than the original approver decided it",
            d is MISSING or not same(decider, "USR-003"),
            f"decided by {text(decider)}",
        ),
        check(
            "The requisition's value is unchanged",
            same(total, field(r0, "estimatedTotal", "amount")),
            f"total = {text(total)}",
        ),
    ]


ver_015 = define_verifier(
    id="VER-015", task_id="TASK-015", name="Requisition approved by someone with the authority", check=_check
)
