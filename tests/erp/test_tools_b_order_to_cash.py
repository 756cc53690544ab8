"""Sales orders, customer invoices, expenses, budgets, reporting and audit tools
(erp-tools.md §7.15–§7.20): effects, outputs, errors."""

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


# --- sales orders ------------------------------------------------------------------------------


def test_ship_one_order_from_two_warehouses(w):
    stock = w.ok("check_sales_order_stock", {"salesOrderId": "SO-307"})
    assert stock["canFulfilInFull"] is False and stock["requiresTransferOrSplit"] is True
    line = stock["lines"][0]
    assert (line["availableAtNominated"], line["shortfall"]) == (60, 90)
    assert line["availableElsewhere"][0] == {"warehouseId": "WH-002", "quantityAvailable": 120}
    out = w.ok(
        "fulfill_sales_order",
        {
            "salesOrderId": "SO-307",
            "lines": [
                {"salesOrderLineId": "SO-307-L1", "quantity": 60},
                {"salesOrderLineId": "SO-307-L1", "quantity": 90, "warehouseId": "WH-002"},
            ],
            "actorUserId": "USR-004",
        },
    )
    assert out["salesOrderStatus"] == "fulfilled" and out["warehousesUsed"] == ["WH-001", "WH-002"]
    ful = out["fulfillment"]
    assert ful["id"] == "FUL-004" and ful["warehouseId"] == "WH-001" and len(ful["lines"]) == 2
    assert w.state["inventory"]["STK-PRD-003-WH-001"]["quantityOnHand"] >= 0
    issues = [m for m in w.state["inventoryMovements"].values() if m["referenceId"] == "FUL-004"]
    assert [(m["warehouseId"], m["quantityDelta"]) for m in issues] == [("WH-001", -60), ("WH-002", -90)]


def test_fulfill_refuses_more_than_the_warehouse_has(w):
    out = w.err(
        "fulfill_sales_order",
        {
            "salesOrderId": "SO-307",
            "lines": [{"salesOrderLineId": "SO-307-L1", "quantity": 150}],
            "actorUserId": "USR-004",
        },
    )
    assert out["code"] == "insufficient_stock"
    assert out["message"] == (
        "Cannot ship 150 of PRD-003 from WH-001: 60 available (including 0 reserved for this order)."
    )
    assert out["details"] == {"available": 60, "requested": 150}
    assert "FUL-004" not in w.state["fulfillments"] and w.state["sequences"]["FUL"] == 4


def test_reserve_then_cancel_releases_the_reservation(w):
    record = w.state["inventory"]["STK-PRD-003-WH-001"]
    reserved = record["quantityReserved"]
    out = w.ok("reserve_sales_order_stock", {"salesOrderId": "SO-307", "actorUserId": "USR-004"})
    assert out["lines"] == [{"salesOrderLineId": "SO-307-L1", "reserved": 60, "shortfall": 90}]
    assert record["quantityReserved"] == reserved + 60
    w.ok(
        "cancel_sales_order",
        {"salesOrderId": "SO-307", "reason": "customer withdrew", "actorUserId": "USR-004"},
    )
    assert record["quantityReserved"] == reserved
    order = w.state["salesOrders"]["SO-307"]
    assert (order["status"], order["cancelReason"], order["lines"][0]["quantityReserved"]) == (
        "cancelled",
        "customer withdrew",
        0,
    )


def test_create_and_confirm_a_sales_order(w):
    so = w.ok(
        "create_sales_order",
        {
            "customerId": "CUS-001",
            "warehouseId": "WH-001",
            "lines": [{"productId": "PRD-003", "quantity": 2}],
            "actorUserId": "USR-004",
        },
    )
    assert so["id"] == "SO-309" and so["status"] == "draft"
    assert so["requestedDeliveryDate"] == "2026-03-30T09:00:00.000Z"
    assert so["subtotal"]["amount"] == 75 and so["totalAmount"]["amount"] == 81
    assert (
        w.ok("confirm_sales_order", {"salesOrderId": "SO-309", "actorUserId": "USR-004"})["status"]
        == "confirmed"
    )
    again = w.err("confirm_sales_order", {"salesOrderId": "SO-309", "actorUserId": "USR-004"})
    assert again["details"] == {"current": "confirmed", "allowed": ["draft"]}


# --- customer invoices -------------------------------------------------------------------------


def test_bill_and_issue_a_delivered_order(w):
    gap = w.ok("list_uninvoiced_shipments")
    assert [r["salesOrderId"] for r in gap["results"]] == ["SO-306"]
    inv = w.ok(
        "create_customer_invoice",
        {"customerId": "CUS-007", "salesOrderId": "SO-306", "actorUserId": "USR-009"},
    )
    assert inv["id"] == "CINV-408" and inv["status"] == "draft" and inv["fulfillmentIds"] == ["FUL-003"]
    assert inv["subtotal"]["amount"] == 5040 and inv["totalAmount"]["amount"] == 5443.2
    issued = w.ok("issue_customer_invoice", {"customerInvoiceId": "CINV-408", "actorUserId": "USR-009"})
    assert issued["status"] == "issued"
    assert w.state["salesOrders"]["SO-306"]["status"] == "invoiced"
    assert w.last_audit()["summary"] == f"Issued CINV-408 due {issued['dueDate']}"
    assert w.ok("list_uninvoiced_shipments")["total"] == 0


def test_customer_invoice_refusals(w):
    out = w.err(
        "create_customer_invoice",
        {"customerId": "CUS-001", "salesOrderId": "SO-306", "actorUserId": "USR-009"},
    )
    assert out == {"code": "invalid_input", "message": "SO-306 belongs to customer CUS-007, not CUS-001."}
    out = w.err("create_customer_invoice", {"customerId": "CUS-001", "actorUserId": "USR-009"})
    assert out["message"] == 'Provide "lines" when there is no sales order.'


def test_overdue_receivables_and_aging(w):
    rows = w.ok("list_overdue_customer_invoices", {"minimumAmount": 10000})["results"]
    assert {r["id"] for r in rows} == {"CINV-403", "CINV-407"}
    assert all(r["daysOverdue"] > 0 and "customerStatus" in r for r in rows)
    aging = w.ok("get_ar_aging")
    total = sum(b["total"]["amount"] for b in aging["buckets"].values())
    assert aging["grandTotal"]["amount"] == pytest.approx(total)
    assert "CINV-403" in aging["buckets"]["days1to30"]["invoiceIds"]


def test_write_off_keeps_amounts_and_reports_the_balance(w):
    out = w.ok(
        "write_off_customer_invoice",
        {"customerInvoiceId": "CINV-407", "reason": "insolvent", "actorUserId": "USR-008"},
    )
    assert out["invoice"]["status"] == "written_off"
    assert out["amountWrittenOff"] == {"amount": 14904, "currency": "USD"}
    assert w.last_audit()["summary"] == "Wrote off 14904 on CINV-407: insolvent"


# --- expenses and budgets ----------------------------------------------------------------------


def test_expense_without_receipt_cannot_be_submitted(w):
    exp = w.ok(
        "create_expense",
        {
            "employeeUserId": "USR-011",
            "category": "travel",
            "description": "taxi",
            "amount": 42.5,
            "budgetId": "BUD-004",
        },
    )
    assert exp["id"] == "EXP-006" and exp["hasReceipt"] is False and exp["departmentId"] == "DEPT-FAC"
    out = w.err(
        "submit_expense", {"expenseId": "EXP-006", "approverUserId": "USR-003", "actorUserId": "USR-011"}
    )
    assert out["message"] == "Expense EXP-006 has no receipt attached and cannot be submitted."


def test_approve_and_pay_an_expense(w):
    spent = w.state["budgets"][w.state["expenses"]["EXP-002"]["budgetId"]]["spentAmount"]["amount"]
    approved = w.ok("approve_expense", {"expenseId": "EXP-002", "approverUserId": "USR-003"})
    assert approved["status"] == "approved"
    budget = w.state["budgets"][approved["budgetId"]]
    assert budget["spentAmount"]["amount"] == spent + 480
    out = w.ok("pay_expense", {"expenseId": "EXP-002", "actorUserId": "USR-006"})
    assert out["payment"]["reference"] == "REIMB-EXP-002" and out["payment"]["status"] == "completed"
    assert out["expense"]["paymentId"] == out["payment"]["id"]


def test_budget_commit_release_spend_and_update(w):
    view = w.ok("commit_budget", {"budgetId": "BUD-004", "amount": 400, "actorUserId": "USR-008"})
    assert view["committed"]["amount"] == 3520 and view["available"]["amount"] == 2000
    out = w.err("commit_budget", {"budgetId": "BUD-004", "amount": 2000.01, "actorUserId": "USR-008"})
    assert out["code"] == "limit_exceeded"
    assert out["message"] == "Budget BUD-004 has 2000 available; cannot commit 2000.01."
    view = w.ok("release_budget_commitment", {"budgetId": "BUD-004", "amount": 400, "actorUserId": "USR-008"})
    assert view["committed"]["amount"] == 3120
    view = w.ok("record_budget_spend", {"budgetId": "BUD-004", "amount": 120, "actorUserId": "USR-008"})
    assert (view["committed"]["amount"], view["spent"]["amount"]) == (3000, 18600)
    low = w.err("update_budget", {"budgetId": "BUD-004", "allocatedAmount": 100, "actorUserId": "USR-008"})
    assert low["message"] == "Allocation 100 is below the 21600 already committed and spent on BUD-004."
    view = w.ok("update_budget", {"budgetId": "BUD-004", "allocatedAmount": 30000, "actorUserId": "USR-008"})
    assert view["available"]["amount"] == 8400
    assert w.last_audit()["changes"] == [{"field": "allocatedAmount", "from": 24000, "to": 30000}]
    none = w.err("update_budget", {"budgetId": "BUD-004", "actorUserId": "USR-008"})
    assert none["message"] == "No budget fields were supplied to update."


def test_create_budget_and_unknown_department(w):
    out = w.err(
        "create_budget",
        {"name": "x", "departmentId": "DEPT-NOPE", "allocatedAmount": 1, "actorUserId": "USR-008"},
    )
    assert out == {"code": "not_found", "message": 'Department "DEPT-NOPE" was not found.'}
    view = w.ok(
        "create_budget",
        {"name": "Events", "departmentId": "DEPT-FAC", "allocatedAmount": 500, "actorUserId": "USR-008"},
    )
    assert (view["id"], view["fiscalYear"], view["category"], view["utilisationPercent"]) == (
        "BUD-007",
        "FY2026",
        "general",
        0,
    )


# --- reporting and audit -----------------------------------------------------------------------


def test_dashboard_and_cash_position(w):
    dash = w.ok("get_operations_dashboard")
    assert [b["id"] for b in dash["blockedVendorInvoices"]][:2] == ["VINV-103", "VINV-104"]
    assert "VINV-108" in dash["overdueVendorInvoices"]
    assert {"CINV-403", "CINV-407"} <= set(dash["overdueCustomerInvoices"])
    cash = w.ok("get_cash_position", {"withinDays": 30})
    assert cash["horizon"] == "2026-04-15T09:00:00.000Z"
    assert cash["netPosition"]["amount"] == pytest.approx(
        cash["receivablesDue"]["amount"] - cash["payablesDue"]["amount"]
    )
    assert cash["failedPaymentCount"] == 1


def test_audit_views_follow_new_entries(w):
    w.ok("commit_budget", {"budgetId": "BUD-004", "amount": 1, "actorUserId": "USR-008"})
    history = w.ok("get_entity_history", {"entityId": "BUD-004"})
    assert history["events"][-1]["id"] == "AUD-0021" and history["lastSeen"] == w.state["now"]
    recent = w.ok("get_recent_changes", {"limit": 1})
    assert [e["id"] for e in recent["events"]] == ["AUD-0021"]
    activity = w.ok("get_user_activity", {"userId": "USR-008"})
    assert activity["results"][0]["id"] == "AUD-0021"
    assert {"action": "budget.committed", "count": 1} in activity["actionCounts"]
    found = w.ok("list_audit_events", {"entityType": "budget", "action": "COMMITTED"})
    assert [e["id"] for e in found["results"]][0] == "AUD-0021"
