"""The shared tool conventions of tools/helpers.py (erp-tools.md §6)."""

from __future__ import annotations

from typing import Any

import pytest

from silo_gym import ToolError

from . import load_erp, submodule

ENV = load_erp()
H = submodule(ENV, "tools.helpers")


@pytest.fixture()
def world() -> dict[str, Any]:
    return ENV.create_state()


def _error(fn: Any, *args: Any, **kwargs: Any) -> tuple[str, str, Any]:
    with pytest.raises(ToolError) as info:
        fn(*args, **kwargs)
    err = info.value
    return err.code, err.message, err.details


def test_schema_builders() -> None:
    s = H.schema({"vendorId": H.string_prop("Vendor id."), **H.paging_props()}, ["vendorId"])
    assert list(s) == ["type", "properties", "required", "additionalProperties"]
    assert s["required"] == ["vendorId"] and s["additionalProperties"] is False
    assert s["properties"]["limit"] == {
        "type": "integer",
        "description": s["properties"]["limit"]["description"],
        "minimum": 1,
        "maximum": 500,
    }
    assert "default" not in s["properties"]["offset"]
    assert list(H.enum_prop(H.PAYMENT_TERMS, "Terms.")) == ["type", "description", "enum"]
    assert H.schema() == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    line = H.object_prop(
        "A line.",
        {"productId": H.string_prop("p"), "quantity": H.integer_prop("q", minimum=1)},
        ["productId", "quantity"],
    )
    assert line["required"] == ["productId", "quantity"] and line["additionalProperties"] is False
    with pytest.raises(ValueError):
        H.schema({"a": H.string_prop("a")}, ["b"])


def test_readers() -> None:
    assert H.read_string({"x": "  VEN-002 "}, "x") == "VEN-002"
    assert _error(H.read_string, {"x": "  "}, "x")[:2] == ("invalid_input", '"x" must be a non-empty string.')
    assert H.read_optional_string({"x": None}, "x") is None
    assert _error(H.read_number, {"q": 1.5}, "q", integer=True)[1] == '"q" must be a whole number.'
    assert _error(H.read_number, {"q": True}, "q")[1] == '"q" must be a number.'
    assert _error(H.read_number, {"q": 0}, "q", minimum=1)[1] == '"q" must be at least 1.'
    assert _error(H.read_number, {"q": 366}, "q", maximum=365)[1] == '"q" must be at most 365.'
    assert H.read_number({"q": 3.0}, "q", integer=True) == 3
    code, message, details = _error(H.read_enum, {"t": " NET_99 "}, "t", H.PAYMENT_TERMS)
    assert message == '"t" must be one of: NET_15, NET_30, NET_45, NET_60, DUE_ON_RECEIPT.'
    assert details == {"received": "NET_99"}
    assert _error(H.read_string_array, {"ids": []}, "ids")[1] == '"ids" must be a non-empty array.'
    assert (
        _error(H.read_string_array, {"ids": ["a", " "]}, "ids")[1] == '"ids[1]" must be a non-empty string.'
    )
    assert _error(H.read_object_array, {"lines": [{}, 3]}, "lines")[1] == '"lines[1]" must be an object.'
    assert H.flag({"f": 1}, "f") is False and H.flag({"f": True}, "f") is True
    assert H.flag_default_true({}, "f") is True and H.flag_default_true({"f": False}, "f") is False
    assert H.matches_text("Tri-State Fasteners", "state") and not H.matches_text(None, "x")


def test_paginate() -> None:
    rows = list(range(120))
    page = H.paginate(rows, {})
    assert (page["total"], page["count"], page["offset"], page["results"][:2]) == (120, 50, 0, [0, 1])
    assert H.paginate(rows, {"limit": 500, "offset": 100})["count"] == 20
    assert H.paginate(rows, {"offset": 200}) == {"total": 120, "count": 0, "offset": 200, "results": []}


def test_lookups_and_actor(world: dict[str, Any]) -> None:
    assert H.require_vendor(world, "VEN-002")["name"] == "Tri-State Fasteners"
    assert _error(H.require_requisition, world, "PR-999")[:2] == (
        "not_found",
        'Purchase requisition "PR-999" was not found.',
    )
    assert _error(H.require_vendor, world, "constructor")[1] == 'Vendor "constructor" was not found.'
    assert _error(H.require_inventory, world, "PRD-009", "WH-004")[1] == (
        'No inventory record for product "PRD-009" at warehouse "WH-004".'
    )
    assert H.actor(world, {"actorUserId": "USR-003"})["id"] == "USR-003"
    world["users"]["USR-003"]["isActive"] = False
    assert _error(H.actor, world, {"actorUserId": "USR-003"})[:2] == (
        "not_allowed",
        'User "USR-003" is not active.',
    )
    assert (
        _error(H.actor, world, {"approverUserId": "USR-099"}, "approverUserId")[1]
        == 'User "USR-099" was not found.'
    )


def test_status_and_limits(world: dict[str, Any]) -> None:
    code, message, details = _error(
        H.assert_status, "sent", ["draft", "pending_approval"], "Purchase order PO-204"
    )
    assert message == 'Purchase order PO-204 is "sent"; expected one of: draft, pending_approval.'
    assert details == {"current": "sent", "allowed": ["draft", "pending_approval"]}
    priya = world["users"]["USR-003"]
    assert H.within_approval_limit(priya, {"amount": 150000, "currency": "USD"})
    code, message, details = _error(
        H.assert_within_approval_limit, priya, {"amount": 176200, "currency": "USD"}, "requisition PR-006"
    )
    assert (code, message) == (
        "limit_exceeded",
        "Priya Nair has an approval limit of 150000; requisition PR-006 totals 176200.",
    )
    assert details == {"approvalLimit": 150000, "amount": 176200}
    tom = world["users"]["USR-004"]
    assert _error(H.assert_within_approval_limit, tom, {"amount": 1, "currency": "USD"}, "PO-205")[1] == (
        "Tom Braddock has an approval limit of 0; PO-205 totals 1."
    )


def test_approvals(world: dict[str, Any]) -> None:
    approval = H.create_approval(
        world, "requisition", "PR-005", "USR-009", "USR-003", {"amount": 890, "currency": "USD"}
    )
    assert approval["id"] == "APR-026" and list(world["approvals"])[-1] == "APR-026"
    assert approval["requestedAt"] == world["now"] and approval["notes"] == []
    H.decide_approval(world, approval, "approved", "USR-003", "Fine.")
    assert (approval["status"], approval["decidedByUserId"], approval["notes"]) == (
        "approved",
        "USR-003",
        ["Fine."],
    )
    code, message, details = _error(H.decide_approval, world, approval, "rejected", "USR-003")
    assert (code, message, details) == (
        "invalid_state",
        "Approval APR-026 was already approved.",
        {"current": "approved"},
    )
    H.cancel_pending_approval(world, "APR-010")
    assert world["approvals"]["APR-010"]["status"] == "cancelled"
    assert world["approvals"]["APR-010"]["decidedByUserId"] is None
    H.cancel_pending_approval(world, "APR-001")
    assert world["approvals"]["APR-001"]["status"] == "approved"


def test_budgets(world: dict[str, Any]) -> None:
    budget = world["budgets"]["BUD-004"]
    code, message, details = _error(H.commit_to_budget, budget, {"amount": 3900, "currency": "USD"})
    assert (code, message) == ("limit_exceeded", "Budget BUD-004 has 2400 available; cannot commit 3900.")
    assert details == {"available": 2400, "requested": 3900}
    H.commit_to_budget(budget, {"amount": 400, "currency": "USD"})
    assert budget["committedAmount"]["amount"] == 3520
    H.release_commitment(budget, {"amount": 10000, "currency": "USD"})
    assert budget["committedAmount"]["amount"] == 0
    view = H.budget_view(world["budgets"]["BUD-001"])
    assert view["utilisationPercent"] == 55.4 and view["available"]["amount"] == 26758.8


def test_stock_changes(world: dict[str, Any]) -> None:
    move = H.apply_stock_change(
        world, product_id="PRD-012", warehouse_id="WH-001", quantity_delta=-2, reserved_delta=0, type="issue",
        reference_type="manual", reference_id=None, actor_user_id="USR-004",
    )  # fmt: skip
    assert move["id"] == "MOV-021" and world["inventory"]["STK-PRD-012-WH-001"]["quantityOnHand"] == 20
    code, message, details = _error(
        H.apply_stock_change, world, product_id="PRD-012", warehouse_id="WH-001", quantity_delta=-21, reserved_delta=0,
        type="issue", reference_type="manual", reference_id=None, actor_user_id="USR-004",
    )  # fmt: skip
    assert (code, message) == (
        "insufficient_stock",
        "Cannot move 21 of PRD-012 out of WH-001: only 20 on hand.",
    )
    code, message, _ = _error(
        H.apply_stock_change, world, product_id="PRD-014", warehouse_id="WH-003", quantity_delta=0, reserved_delta=-9,
        type="release", reference_type="sales_order", reference_id="SO-303", actor_user_id="USR-009",
    )  # fmt: skip
    assert (code, message) == ("invalid_state", "Cannot release 9 of PRD-014 at WH-003: only 8 reserved.")
    code, message, details = _error(
        H.apply_stock_change, world, product_id="PRD-014", warehouse_id="WH-003", quantity_delta=0, reserved_delta=3,
        type="reservation", reference_type="sales_order", reference_id="SO-303", actor_user_id="USR-009",
    )  # fmt: skip
    assert message == "Cannot reserve 3 of PRD-014 at WH-003: 2 available."
    assert details == {"available": 2, "requested": 3}
    # A missing pair is created (and kept, even though the move then fails).
    _error(
        H.apply_stock_change, world, product_id="PRD-009", warehouse_id="WH-004", quantity_delta=-1, reserved_delta=0,
        type="issue", reference_type="manual", reference_id=None, actor_user_id="USR-004",
    )  # fmt: skip
    created = world["inventory"]["STK-PRD-009-WH-004"]
    assert list(world["inventory"])[-1] == "STK-PRD-009-WH-004"
    assert (created["binLocation"], created["reorderPoint"], created["quantityOnHand"]) == (
        "UNASSIGNED",
        None,
        0,
    )
    assert world["sequences"]["MOV"] == 21


def test_inbound_refresh_matches_the_seed(world: dict[str, Any]) -> None:
    before = {k: r["quantityInbound"] for k, r in world["inventory"].items()}
    for warehouse in world["warehouses"]:
        H.refresh_inbound_quantities(world, warehouse)
    assert {k: r["quantityInbound"] for k, r in world["inventory"].items()} == before
    order = world["purchaseOrders"]["PO-202"]
    order["lines"][0]["quantityReceived"] = 40
    H.recompute_purchase_order_status(world, order)
    assert order["status"] == "received" and world["inventory"]["STK-PRD-007-WH-001"]["quantityInbound"] == 0
    cancelled = world["purchaseOrders"]["PO-207"]
    H.recompute_purchase_order_status(world, cancelled)
    assert cancelled["status"] == "cancelled"


def test_sales_status_and_payments(world: dict[str, Any]) -> None:
    so = world["salesOrders"]["SO-307"]
    so["lines"][0]["quantityFulfilled"] = 60
    H.recompute_sales_order_status(so)
    assert so["status"] == "partially_fulfilled"
    draft = world["salesOrders"]["SO-304"]
    H.recompute_sales_order_status(draft)
    assert draft["status"] == "draft"
    inv = world["vendorInvoices"]["VINV-108"]
    code, message, details = _error(H.apply_payment_to_invoice, inv, {"amount": 3000, "currency": "USD"}, "x")
    assert message == "Payment of 3000 exceeds the 2527.2 outstanding on VINV-108."
    assert details == {"outstanding": {"amount": 2527.2, "currency": "USD"}}
    H.apply_payment_to_invoice(inv, {"amount": 527.2, "currency": "USD"}, "t")
    assert inv["status"] == "partially_paid" and inv["paidAt"] is None
    H.apply_payment_to_invoice(inv, {"amount": 2000, "currency": "USD"}, "t")
    assert (inv["status"], inv["paidAt"]) == ("paid", "t")


def test_totals_and_projections(world: dict[str, Any]) -> None:
    lines = [{"lineTotal": H.line_total(40, 242)}, {"lineTotal": H.line_total(600, 6.6)}]
    assert H.document_totals(lines) == {
        "subtotal": {"amount": 13640, "currency": "USD"},
        "taxAmount": {"amount": 1091.2, "currency": "USD"},
        "totalAmount": {"amount": 14731.2, "currency": "USD"},
    }
    assert list(H.document_totals(lines, taxed=False)) == ["subtotal", "totalAmount"]
    summary = H.inventory_summary(world, world["inventory"]["STK-PRD-004-WH-002"])
    assert summary["quantityAvailable"] == 225 and summary["reorderPoint"] == 150 and "id" not in summary
    assert H.vendor_invoice_summary(world["vendorInvoices"]["VINV-102"])["outstanding"]["amount"] == 10775.16
    assert H.rfq_summary(world, world["rfqs"]["RFQ-002"])["quotationCount"] == 3
    now = world["now"]
    assert H.validity(world["quotations"]["QUO-005"], now) == {
        "isValid": False,
        "expired": True,
        "reason": 'Status is "expired".',
    }
    assert H.validity(world["quotations"]["QUO-006"], now) == {
        "isValid": True,
        "expired": False,
        "reason": None,
    }
    assert H.fmt(7084.8) == "7084.8" and H.fmt(5076.0) == "5076" and H.fixed2(4.878048780487805) == "4.88"
    assert H.decide_with("payment") == "approve_payment"
