"""VER-006 (TASK-006): stock moved back above the reorder point (erp-world.md §9.7)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from .shared import at_least, same, stock_on_hand, text


def _check(final: Any, initial: Any, context: Any) -> list:
    qty = task_parameters("TASK-006", initial)["quantity"]
    inv = final["inventory"].get("STK-PRD-010-WH-002") or {}
    product = final["products"].get("PRD-010") or {}
    rp = inv.get("reorderPoint")
    if rp is None:
        rp = product.get("reorderPoint")
    if rp is None:
        rp = 0
    s0, s1 = stock_on_hand(initial, "PRD-010", "WH-001"), stock_on_hand(final, "PRD-010", "WH-001")
    d0, d1 = stock_on_hand(initial, "PRD-010", "WH-002"), stock_on_hand(final, "PRD-010", "WH-002")
    moved = any(
        m.get("productId") == "PRD-010"
        and m.get("type") in ("transfer_in", "transfer_out")
        and isinstance(m.get("occurredAt"), str)
        and m["occurredAt"] >= initial["now"]
        for m in final["inventoryMovements"].values()
    )
    return [
        check(
            "The destination gained the transferred units", same(d1, d0 + qty), f"{text(d0)} -> {text(d1)}"
        ),
        check("The source lost the same units", same(s1, s0 - qty), f"{text(s0)} -> {text(s1)}"),
        check(
            "The destination is back at or above its reorder point",
            at_least(d1, rp),
            f"on hand {text(d1)} vs reorder point {text(rp)}",
        ),
        optional("Transfer movements were recorded", moved, "transfer movements present"),
    ]


ver_006 = define_verifier(
    id="VER-006", task_id="TASK-006", name="Stock moved back above the reorder point", check=_check
)
