"""VER-011 (TASK-011): the best valid quotation was awarded and ordered (erp-world.md §9.12)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import MISSING, field, first, new_ids, record, same, text


def _product_line(doc: Any, product_id: str) -> Any:
    lines = field(doc, "lines")
    return first(lines, lambda ln: ln.get("productId") == product_id) if isinstance(lines, list) else MISSING


def _check(final: Any, initial: Any, context: Any) -> list:
    rfq = record(final, "rfqs", "RFQ-002")
    w = record(final, "quotations", "QUO-006")
    x = record(final, "quotations", "QUO-005")
    created = [final["purchaseOrders"][i] for i in new_ids(final, initial, "purchaseOrders")]
    o = first(created, lambda po: po.get("vendorId") == "VEN-012")
    hose, belt = _product_line(o, "PRD-008"), _product_line(o, "PRD-010")
    w0 = record(initial, "quotations", "QUO-006")
    hose0, belt0 = _product_line(w0, "PRD-008"), _product_line(w0, "PRD-010")
    lines_ok = (
        same(field(hose, "quantityOrdered"), field(hose0, "quantity"))
        and same(field(hose, "unitPrice", "amount"), field(hose0, "unitPrice", "amount"))
        and same(field(belt, "quantityOrdered"), field(belt0, "quantity"))
        and same(field(belt, "unitPrice", "amount"), field(belt0, "unitPrice", "amount"))
    )
    return [
        check(
            "The cheapest valid quotation was awarded",
            same(field(rfq, "awardedQuotationId"), "QUO-006") and same(field(w, "status"), "accepted"),
            f"awarded = {text(field(rfq, 'awardedQuotationId'))}, QUO-006 = {text(field(w, 'status'))}",
        ),
        check(
            "The cheaper lapsed quotation was not accepted",
            not same(field(x, "status"), "accepted"),
            f"QUO-005 = {text(field(x, 'status'))}",
        ),
        check(
            "A purchase order was raised to the winning vendor",
            o is not MISSING,
            f"order {o['id']}" if o is not MISSING else "none found",
        ),
        check(
            "The order carries the quoted quantities and prices",
            lines_ok,
            f"hose {text(field(hose, 'quantityOrdered'))} @ {text(field(hose, 'unitPrice', 'amount'))}, "
            f"belt {text(field(belt, 'quantityOrdered'))} @ {text(field(belt, 'unitPrice', 'amount'))}",
        ),
        check(
            "The order is approved and not sent",
            same(field(o, "status"), "approved") and field(o, "sentAt") is None,
            f"status = {text(field(o, 'status'))}, sentAt = {text(field(o, 'sentAt'))}",
        ),
        optional(
            "It is delivered to the named warehouse and charged to the named budget",
            same(field(o, "warehouseId"), "WH-001") and same(field(o, "budgetId"), "BUD-002"),
            f"warehouse = {text(field(o, 'warehouseId'))}, budget = {text(field(o, 'budgetId'))}",
        ),
    ]


ver_011 = define_verifier(
    id="VER-011", task_id="TASK-011", name="Best valid quotation awarded and ordered", check=_check
)
