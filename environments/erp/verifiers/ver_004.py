"""VER-004 (TASK-004): the shortage became a requisition and the stock was left alone (§9.5)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier

from .shared import MISSING, field, first, new_ids, record, same, stock_on_hand, text


def _check(final: Any, initial: Any, context: Any) -> list:
    created = [final["requisitions"][i] for i in new_ids(final, initial, "requisitions")]
    r = first(created, lambda q: any(line.get("productId") == "PRD-012" for line in q.get("lines") or []))
    line = MISSING if r is MISSING else first(r["lines"], lambda ln: ln.get("productId") == "PRD-012")
    p = record(final, "products", "PRD-012")
    on_hand = stock_on_hand(final, "PRD-012", "WH-001")
    return [
        check(
            "A new requisition for the product was raised",
            r is not MISSING,
            f"requisition {r['id']}" if r is not MISSING else "no new requisition found",
        ),
        check(
            "It asks for the product's reorder quantity",
            same(field(line, "quantity"), field(p, "reorderQuantity")),
            f"quantity = {text(field(line, 'quantity'))}, reorderQuantity = {text(field(p, 'reorderQuantity'))}",
        ),
        check(
            "It is charged to the MRO budget for Warehouse Operations",
            same(field(r, "budgetId"), "BUD-002") and same(field(r, "departmentId"), "DEPT-OPS"),
            f"budgetId = {text(field(r, 'budgetId'))}, departmentId = {text(field(r, 'departmentId'))}",
        ),
        check(
            "Stock at the warehouse is unchanged",
            same(on_hand, stock_on_hand(initial, "PRD-012", "WH-001")),
            f"on hand = {text(on_hand)}",
        ),
    ]


ver_004 = define_verifier(
    id="VER-004", task_id="TASK-004", name="Shortage turned into a requisition, stock untouched", check=_check
)
