"""VER-014 (TASK-014): one order shipped from two warehouses (erp-world.md §9.15)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import above, field, record, same, stock_on_hand, text


def _check(final: Any, initial: Any, context: Any) -> list:
    o = record(final, "salesOrders", "SO-307")
    line = field(o, "lines", 0)
    ships = [
        f
        for f in final["fulfillments"].values()
        if f.get("salesOrderId") == "SO-307" and f.get("status") != "cancelled"
    ]
    units = sum(ln["quantity"] for f in ships for ln in f.get("lines") or [])
    north = stock_on_hand(initial, "PRD-003", "WH-001") - stock_on_hand(final, "PRD-003", "WH-001")
    south = stock_on_hand(initial, "PRD-003", "WH-002") - stock_on_hand(final, "PRD-003", "WH-002")
    moved = any(
        m.get("productId") == "PRD-003"
        and m.get("type") in ("transfer_in", "transfer_out")
        and isinstance(m.get("occurredAt"), str)
        and m["occurredAt"] >= initial["now"]
        for m in final["inventoryMovements"].values()
    )
    ordered = field(record(initial, "salesOrders", "SO-307"), "lines", 0, "quantityOrdered")
    status = field(o, "status")
    return [
        check(
            "The whole order line was shipped",
            same(field(line, "quantityFulfilled"), ordered) and same(units, ordered),
            f"line fulfilled = {text(field(line, 'quantityFulfilled'))}, shipment units = {text(units)}",
        ),
        optional(
            "The order shows as fulfilled",
            status in ("fulfilled", "invoiced", "closed") if isinstance(status, str) else False,
            f"status = {text(status)}",
        ),
        check(
            "Stock left both named warehouses",
            above(north, 0) and above(south, 0),
            f"WH-001 -{text(north)}, WH-002 -{text(south)}",
        ),
        optional(
            "The two warehouses together shipped the ordered units",
            same(north + south, ordered),
            f"{text(north)} + {text(south)}",
        ),
        check(
            "No stock was transferred between warehouses",
            not moved,
            "no transfers" if not moved else "transfer movements found",
        ),
    ]


ver_014 = define_verifier(
    id="VER-014", task_id="TASK-014", name="Order shipped from two warehouses", check=_check
)
