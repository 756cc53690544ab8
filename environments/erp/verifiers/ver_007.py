"""VER-007 (TASK-007): the partial delivery was received in full (erp-world.md §9.8)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import line_remaining
from .shared import MISSING, field, first, record, same, stock_on_hand, text


def _line(order: Any, line_id: str) -> Any:
    lines = field(order, "lines")
    return first(lines, lambda ln: ln.get("id") == line_id) if isinstance(lines, list) else MISSING


def _check(final: Any, initial: Any, context: Any) -> list:
    o = record(final, "purchaseOrders", "PO-202")
    line = _line(o, "PO-202-L1")
    line0 = _line(record(initial, "purchaseOrders", "PO-202"), "PO-202-L1")
    ordered = field(line0, "quantityOrdered")
    rise = line_remaining(line0) if line0 is not MISSING else 0
    before, after = stock_on_hand(initial, "PRD-007", "WH-001"), stock_on_hand(final, "PRD-007", "WH-001")
    inbound = field(record(final, "inventory", "STK-PRD-007-WH-001"), "quantityInbound")
    return [
        check(
            "The line has received everything ordered",
            same(field(line, "quantityReceived"), ordered),
            f"quantityReceived = {text(field(line, 'quantityReceived'))}",
        ),
        check(
            "The purchase order is fully received",
            same(field(o, "status"), "received"),
            f"status = {text(field(o, 'status'))}",
        ),
        check(
            "Stock rose by the outstanding units",
            same(after, before + rise),
            f"{text(before)} -> {text(after)}",
        ),
        optional("Nothing is shown as inbound any more", same(inbound, 0), f"inbound = {text(inbound)}"),
    ]


ver_007 = define_verifier(
    id="VER-007", task_id="TASK-007", name="Partial delivery received in full", check=_check
)
