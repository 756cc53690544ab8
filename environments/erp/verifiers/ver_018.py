"""VER-018 (TASK-018): the invoice on a cancelled order was closed out (erp-world.md §9.19)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import MISSING, completed_payments_for, field, record, same, text


def _check(final: Any, initial: Any, context: Any) -> list:
    inv = record(final, "vendorInvoices", "VINV-106")
    o = record(final, "purchaseOrders", "PO-207")
    paid = completed_payments_for(final, "VINV-106")
    received = 0 if o is MISSING else sum(ln.get("quantityReceived", 0) for ln in o.get("lines") or [])
    status = field(inv, "status")
    logged = any(e.get("entityId") == "VINV-106" for e in final["auditLog"])
    return [
        check(
            "The invoice is cancelled or rejected",
            status in ("cancelled", "rejected") if isinstance(status, str) else False,
            f"status = {text(status)}",
        ),
        optional(
            "The purchase order is still cancelled",
            same(field(o, "status"), "cancelled"),
            f"status = {text(field(o, 'status'))}",
        ),
        optional(
            "Nothing was received on the order", same(received, 0), f"received units = {text(received)}"
        ),
        check("Nothing was paid on the invoice", same(paid, 0), f"completed payments = {text(paid)}"),
        optional("The audit log records the close-out", logged, "audit entry present"),
    ]


ver_018 = define_verifier(
    id="VER-018", task_id="TASK-018", name="Invoice on a cancelled order closed out", check=_check
)
