"""More tools-b behaviour: status guards, disputes, rejections, payment failure and cancellation,
shipments, expense rejection, searches and reports (erp-tools.md §7.12–§7.20)."""

from __future__ import annotations

import pytest

from . import load_erp
from .tools_b_support import World


@pytest.fixture(scope="module")
def env():
    return load_erp()


@pytest.fixture
def w(env) -> World:
    return World(env)


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        (
            "submit_vendor_invoice_for_approval",
            {"vendorInvoiceId": "VINV-104", "approverUserId": "USR-007", "actorUserId": "USR-006"},
            'Invoice VINV-104 is "pending_approval"; expected one of: matched, pending_match, draft.',
        ),
        (
            "fail_payment",
            {"paymentId": "PAY-003", "reason": "x", "actorUserId": "USR-006"},
            'Payment PAY-003 is "failed"; expected one of: approved, pending_approval.',
        ),
        (
            "mark_fulfillment_delivered",
            {"fulfillmentId": "FUL-003", "actorUserId": "USR-004"},
            'Fulfillment FUL-003 is "delivered"; expected one of: shipped.',
        ),
        (
            "cancel_customer_invoice",
            {"customerInvoiceId": "CINV-401", "reason": "x", "actorUserId": "USR-009"},
            'Invoice CINV-401 is "paid"; expected one of: draft, issued.',
        ),
        (
            "reject_expense",
            {"expenseId": "EXP-003", "approverUserId": "USR-003", "reason": "x"},
            'Expense EXP-003 is "approved"; expected one of: submitted.',
        ),
    ],
)
def test_status_guards_leave_the_world_unchanged(w, tool, args, message):
    before = w.snapshot()
    out = w.err(tool, args)
    assert out["code"] == "invalid_state" and out["message"] == message
    assert w.snapshot() == before


def test_unknown_and_inactive_actors(w):
    out = w.err("fail_payment", {"paymentId": "PAY-002", "reason": "x", "actorUserId": "USR-999"})
    assert out == {"code": "not_found", "message": 'User "USR-999" was not found.'}
    missing = w.err("get_goods_receipt", {"goodsReceiptId": "GR-999"})
    assert missing == {"code": "not_found", "message": 'Goods receipt "GR-999" was not found.'}


def test_submit_after_a_failed_rematch_names_the_discrepancies(w):
    w.ok(
        "update_vendor_invoice_line",
        {"vendorInvoiceId": "VINV-104", "lineId": "VINV-104-L1", "quantity": 300, "actorUserId": "USR-006"},
    )
    match = w.ok("run_three_way_match", {"vendorInvoiceId": "VINV-104", "actorUserId": "USR-006"})
    assert match["status"] == "failed"
    out = w.err(
        "submit_vendor_invoice_for_approval",
        {"vendorInvoiceId": "VINV-104", "approverUserId": "USR-007", "actorUserId": "USR-006"},
    )
    assert (
        out["message"]
        == f"Invoice VINV-104 cannot be submitted: match {match['id']} failed with 1 discrepancy(ies)."
    )
    assert out["details"] == {"discrepancies": match["discrepancies"]}


def test_dispute_then_resolve_returns_the_invoice_to_matching(w):
    disputed = w.ok(
        "dispute_vendor_invoice", {"vendorInvoiceId": "VINV-103", "reason": "price", "actorUserId": "USR-006"}
    )
    assert (disputed["status"], disputed["disputeReason"]) == ("disputed", "price")
    block = w.ok("explain_invoice_block", {"vendorInvoiceId": "VINV-103"})
    assert block["blockers"][0] == {
        "code": "disputed",
        "message": "Invoice is in dispute: price.",
        "fixWith": "resolve_vendor_invoice_dispute",
    }
    out = w.ok(
        "resolve_vendor_invoice_dispute",
        {"vendorInvoiceId": "VINV-103", "resolution": "agreed", "actorUserId": "USR-006"},
    )
    assert (out["status"], out["disputeReason"], out["matchId"]) == ("pending_match", None, "MATCH-003")
    assert w.last_audit()["summary"] == "Dispute on VINV-103 resolved: agreed"


def test_reject_vendor_invoice_releases_invoiced_quantities(w):
    po_line = w.state["purchaseOrders"]["PO-206"]["lines"][0]
    invoiced = po_line["quantityInvoiced"]
    out = w.ok(
        "reject_vendor_invoice",
        {"vendorInvoiceId": "VINV-103", "approverUserId": "USR-007", "reason": "wrong rate"},
    )
    assert out["status"] == "rejected"
    assert w.state["approvals"]["APR-017"]["status"] == "rejected"
    assert w.state["approvals"]["APR-017"]["notes"][-1] == "wrong rate"
    assert po_line["quantityInvoiced"] == max(0, invoiced - 80)
    block = w.ok("explain_invoice_block", {"vendorInvoiceId": "VINV-103"})
    assert block["blockers"][0]["code"] == "invoice_closed" and block["payable"] is False


def test_list_invoice_discrepancies_rows(w):
    rows = w.ok("list_invoice_discrepancies")["results"]
    assert [r["vendorInvoiceId"] for r in rows] == sorted(r["vendorInvoiceId"] for r in rows)
    assert rows[0] == {
        "vendorInvoiceId": "VINV-103",
        "vendorId": "VEN-010",
        "invoiceStatus": "pending_approval",
        "purchaseOrderId": "PO-206",
        "matchId": "MATCH-003",
        "type": "price",
        "expected": 82,
        "actual": 86,
        "message": "Invoiced unit price 86.00 exceeds purchase order price 82.00 by 4.88%.",
    }


def test_cancel_a_pending_payment_cancels_its_approval(w):
    out = w.ok("cancel_payment", {"paymentId": "PAY-002", "reason": "duplicate", "actorUserId": "USR-006"})
    assert out["status"] == "cancelled"
    approval = w.state["approvals"]["APR-021"]
    assert (approval["status"], approval["decidedAt"], approval["decidedByUserId"]) == (
        "cancelled",
        w.state["now"],
        None,
    )


def test_fail_a_pending_payment_keeps_its_approval_pending(w):
    out = w.ok("fail_payment", {"paymentId": "PAY-002", "reason": "bounced", "actorUserId": "USR-006"})
    assert (out["status"], out["failureReason"], out["processedAt"]) == ("failed", "bounced", w.state["now"])
    assert w.state["approvals"]["APR-021"]["status"] == "pending"
    assert w.last_audit()["summary"] == "Payment PAY-002 failed: bounced"


def test_deliver_a_shipped_fulfillment(w):
    out = w.ok("mark_fulfillment_delivered", {"fulfillmentId": "FUL-002", "actorUserId": "USR-004"})
    assert (out["status"], out["deliveredAt"]) == ("delivered", w.state["now"])
    assert w.last_audit()["summary"] == "FUL-002 delivered"


def test_expense_rejection_and_totals(w):
    listing = w.ok("list_expenses")
    assert listing["totalValue"]["amount"] == 1240 + 480 + 865.5 + 1150 + 320
    out = w.ok(
        "reject_expense", {"expenseId": "EXP-002", "approverUserId": "USR-003", "reason": "no itinerary"}
    )
    assert out["status"] == "rejected"
    assert w.state["approvals"][out["approvalId"]]["status"] == "rejected"
    assert w.ok("list_expenses", {"status": "rejected"})["total"] == 2


def test_searches_match_case_insensitively(w):
    assert [r["id"] for r in w.ok("search_vendor_invoices", {"query": "NORTHFIELD"})["results"]] == [
        "VINV-103"
    ]
    assert all(
        r["customerId"] == "CUS-003" for r in w.ok("search_customer_invoices", {"query": "corvus"})["results"]
    )
    assert w.ok("search_sales_orders", {"query": "zzz-no-match"})["total"] == 0


def test_reports_add_up(w):
    valuation = w.ok("get_inventory_valuation")
    assert valuation["groupBy"] == "warehouse"
    assert valuation["totalValue"]["amount"] == pytest.approx(
        sum(g["stockValue"]["amount"] for g in valuation["groups"])
    )
    assert sum(g["skuCount"] for g in valuation["groups"]) == len(w.state["inventory"])
    sales = w.ok("get_sales_summary", {"limit": 1})
    assert sales["count"] == 1 and sales["total"] >= 1
    orders = [o for o in w.state["salesOrders"].values() if o["status"] != "cancelled"]
    assert sales["totalOrdered"]["amount"] == pytest.approx(sum(o["subtotal"]["amount"] for o in orders))
    spend = w.ok("get_procurement_spend_summary", {"toDate": "2026-01-01"})
    assert spend["total"] == 0 and spend["totalInvoiced"] == {"amount": 0, "currency": "USD"}
    aging = w.ok("get_ap_aging", {"vendorId": "VEN-002"})
    assert aging["vendorId"] == "VEN-002" and "VINV-108" in aging["buckets"]["days1to30"]["invoiceIds"]
