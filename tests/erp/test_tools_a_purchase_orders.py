"""Purchase-order tools (erp-tools.md §7.11): creation from a quotation, the approval flow with its
budget commitment, sending (inbound stock), cancelling and closing, and the read reports."""

from __future__ import annotations

from types import ModuleType

import pytest

from . import World, load_erp
from .tools_a import world


@pytest.fixture(scope="module")
def env() -> ModuleType:
    return load_erp()


@pytest.fixture
def w(env: ModuleType) -> World:
    return world(env)


def test_create_from_quotation_copies_lines_and_totals(w):
    out = w.ok(
        "create_purchase_order",
        {"vendorId": "VEN-012", "warehouseId": "WH-002", "quotationId": "QUO-006", "requisitionId": "PR-003", "actorUserId": "USR-002"},
    )
    assert out["id"] == "PO-210" and out["status"] == "draft"
    assert [(ln["productId"], ln["quantityOrdered"], ln["lineTotal"]["amount"]) for ln in out["lines"]] == [
        ("PRD-008", 600, 3930), ("PRD-010", 500, 3400),
    ]
    assert (out["subtotal"]["amount"], out["taxAmount"]["amount"], out["totalAmount"]["amount"]) == (7330, 586.4, 7916.4)
    assert out["budgetId"] == "BUD-002" and out["paymentTerms"] == "NET_30"
    assert out["expectedDeliveryDate"] == "2026-03-28T09:00:00.000Z"  # now + VEN-012's 12 days
    assert out["lines"][0]["description"] == w.state["products"]["PRD-008"]["name"]
    req = w.state["requisitions"]["PR-003"]
    assert req["status"] == "converted" and req["purchaseOrderId"] == "PO-210"
    assert w.state["auditLog"][-1]["summary"] == "Created PO-210 for Redwood Conveyor Parts (7916.4)"


def test_create_refusals(w):
    blocked = w.err("create_purchase_order", {"vendorId": "VEN-008", "warehouseId": "WH-001", "actorUserId": "USR-002"})
    assert blocked["code"] == "not_allowed" and blocked["message"].startswith("Vendor VEN-008 is blocked: ")
    assert blocked["message"].endswith(".")
    pending = w.err("create_purchase_order", {"vendorId": "VEN-011", "warehouseId": "WH-001", "actorUserId": "USR-002"})
    assert pending["message"] == 'Vendor VEN-011 is "pending_approval" and cannot receive orders.'
    no_lines = w.err("create_purchase_order", {"vendorId": "VEN-001", "warehouseId": "WH-001", "actorUserId": "USR-002"})
    assert no_lines == {"code": "invalid_input", "message": 'Provide "lines", or a quotation to copy lines from.'}
    other = w.err(
        "create_purchase_order", {"vendorId": "VEN-001", "warehouseId": "WH-001", "quotationId": "QUO-006", "actorUserId": "USR-002"}
    )
    assert other["message"] == "Quotation QUO-006 belongs to vendor VEN-012, not VEN-001."
    assert w.state["sequences"]["PO"] == 211  # two failures after the id was taken
    assert "PO-210" not in w.state["purchaseOrders"]


def test_submit_approve_send_flow(w):
    po = w.ok(
        "create_purchase_order",
        {"vendorId": "VEN-001", "warehouseId": "WH-001", "budgetId": "BUD-001",
         "lines": [{"productId": "PRD-003", "quantity": 10, "unitPrice": 12.5}], "actorUserId": "USR-002"},
    )
    assert po["totalAmount"]["amount"] == 135
    sub = w.ok("submit_purchase_order_for_approval", {"purchaseOrderId": po["id"], "approverUserId": "USR-003", "actorUserId": "USR-002"})
    assert sub["purchaseOrder"]["status"] == "pending_approval" and sub["approval"]["amount"]["amount"] == 135
    committed = w.state["budgets"]["BUD-001"]["committedAmount"]["amount"]
    approved = w.ok("approve_purchase_order", {"purchaseOrderId": po["id"], "approverUserId": "USR-003"})
    assert approved["status"] == "approved" and approved["approvedByUserId"] == "USR-003"
    assert w.state["budgets"]["BUD-001"]["committedAmount"]["amount"] == round(committed + 135, 2)
    assert w.state["approvals"][sub["approval"]["id"]]["status"] == "approved"
    sent = w.ok("send_purchase_order", {"purchaseOrderId": po["id"], "actorUserId": "USR-002"})
    assert sent["status"] == "sent"
    assert w.state["inventory"]["STK-PRD-003-WH-001"]["quantityInbound"] == 10
    assert w.state["inventory"]["STK-PRD-007-WH-001"]["quantityInbound"] == 15  # PO-202 unchanged
    cancel = w.ok("cancel_purchase_order", {"purchaseOrderId": po["id"], "reason": "Dup", "actorUserId": "USR-002"})
    assert cancel["status"] == "cancelled" and cancel["cancelReason"] == "Dup"
    assert w.state["inventory"]["STK-PRD-003-WH-001"]["quantityInbound"] == 0
    assert w.state["budgets"]["BUD-001"]["committedAmount"]["amount"] == committed


def test_approve_over_limit_and_reject(w):
    err = w.err("approve_purchase_order", {"purchaseOrderId": "PO-205", "approverUserId": "USR-006"})
    assert err["message"] == "Marcus Lindqvist has an approval limit of 10000; PO-205 totals 14763.6."
    out = w.ok("reject_purchase_order", {"purchaseOrderId": "PO-205", "approverUserId": "USR-003", "reason": "Too dear"})
    assert out["status"] == "rejected"
    assert w.state["approvals"]["APR-010"]["status"] == "rejected"
    assert w.state["approvals"]["APR-010"]["notes"] == ["Too dear"]


def test_cancel_unapproved_order_cancels_its_approval(w):
    w.ok("cancel_purchase_order", {"purchaseOrderId": "PO-205", "reason": "Not needed", "actorUserId": "USR-003"})
    assert w.state["approvals"]["APR-010"]["status"] == "cancelled"
    received = w.err("cancel_purchase_order", {"purchaseOrderId": "PO-202", "reason": "x", "actorUserId": "USR-003"})
    assert received["message"] == 'Purchase order PO-202 is "partially_received"; expected one of: draft, pending_approval, approved, sent.'


def test_close_refused_while_received_units_are_uninvoiced(w):
    err = w.err("close_purchase_order", {"purchaseOrderId": "PO-206", "actorUserId": "USR-003"})
    # PO-206 is fully invoiced, but VINV-103 on it is still pending approval.
    assert err["code"] == "invalid_state" and err["message"].startswith("PO-206 has 1 invoice(s) still open: VINV-103 (")
    assert err["details"] == {"invoices": ["VINV-103"]}


def test_get_purchase_order_adds_line_positions(w):
    out = w.ok("get_purchase_order", {"purchaseOrderId": "PO-203"})
    line = out["lines"][0]
    assert line["quantityOutstanding"] == 150 and line["quantityUninvoiced"] == -150
    assert list(out)[-2:] == ["goodsReceipts", "vendorInvoices"]
    assert "quantityOutstanding" not in w.state["purchaseOrders"]["PO-203"]["lines"][0]


def test_open_lines_and_overdue_orders(w):
    lines = w.ok("list_open_purchase_order_lines")
    assert [(r["purchaseOrderLineId"], r["quantityOutstanding"]) for r in lines["results"]] == [
        ("PO-203-L1", 150), ("PO-202-L1", 15), ("PO-204-L1", 120), ("PO-204-L2", 2000),
    ]
    assert [r["isOverdue"] for r in lines["results"]] == [True, True, False, False]
    overdue = w.ok("list_overdue_purchase_orders")
    assert [(r["id"], r["daysOverdue"], r["outstandingUnits"]) for r in overdue["results"]] == [
        ("PO-203", 8, 150), ("PO-202", 6, 15),
    ]


def test_budget_impact_and_payment_due_date(w):
    impact = w.ok("get_purchase_order_budget_impact", {"purchaseOrderId": "PO-205"})
    assert impact["sufficient"] is True and impact["alreadyCommitted"] is False
    assert impact["available"] == {"amount": 26758.8, "currency": "USD"}
    due = w.ok("get_purchase_order_payment_due_date", {"purchaseOrderId": "PO-203", "invoiceDate": "2026-03-10"})
    assert due["termDays"] == 45 and due["dueDate"] == "2026-04-24T00:00:00.000Z"
    bad = w.err("get_purchase_order_payment_due_date", {"purchaseOrderId": "PO-203", "invoiceDate": "soon"})
    assert bad == {"code": "invalid_state", "message": "Invalid time value"}


def test_search_purchase_orders_by_vendor_name(w):
    out = w.ok("search_purchase_orders", {"query": "okonkwo"})
    assert [r["id"] for r in out["results"]] == ["PO-208", "PO-209"]
