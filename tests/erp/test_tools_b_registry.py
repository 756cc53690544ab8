"""The tools-b domain modules: counts and order (erp-tools.md §7.0), schemas (§6.1), and every
read-only tool leaving the world byte-identical."""

from __future__ import annotations

import pytest

from . import load_erp, submodule
from .tools_b_support import World

EXPECTED = {
    "receiving": "list_goods_receipts get_goods_receipt list_receipts_for_purchase_order receive_goods "
    "cancel_goods_receipt report_receiving_discrepancy list_receiving_discrepancies get_receiving_discrepancy "
    "resolve_receiving_discrepancy list_pending_deliveries",
    "vendor_invoices": "list_vendor_invoices search_vendor_invoices get_vendor_invoice create_vendor_invoice "
    "run_three_way_match get_three_way_match list_invoice_discrepancies submit_vendor_invoice_for_approval "
    "approve_vendor_invoice reject_vendor_invoice dispute_vendor_invoice resolve_vendor_invoice_dispute "
    "update_vendor_invoice_line cancel_vendor_invoice list_invoices_due_soon list_overdue_vendor_invoices "
    "explain_invoice_block",
    "payments": "list_payments get_payment create_vendor_payment submit_payment_for_approval approve_payment "
    "complete_payment fail_payment retry_failed_payment cancel_payment record_customer_payment "
    "list_payments_for_invoice build_payment_run",
    "sales_orders": "list_sales_orders search_sales_orders get_sales_order create_sales_order update_sales_order "
    "confirm_sales_order check_sales_order_stock reserve_sales_order_stock release_sales_order_stock "
    "fulfill_sales_order mark_fulfillment_delivered list_fulfillments cancel_sales_order "
    "list_unfulfilled_sales_orders",
    "customer_invoices": "list_customer_invoices search_customer_invoices get_customer_invoice "
    "create_customer_invoice issue_customer_invoice cancel_customer_invoice write_off_customer_invoice "
    "list_overdue_customer_invoices list_receivables_by_customer get_ar_aging list_uninvoiced_shipments",
    "expenses": "list_expenses get_expense create_expense submit_expense approve_expense reject_expense "
    "pay_expense list_expenses_awaiting_action",
    "budgets": "list_budgets get_budget get_department_budget check_budget_availability commit_budget "
    "release_budget_commitment record_budget_spend update_budget create_budget get_budget_utilisation",
    "reporting": "get_procurement_spend_summary get_ap_aging get_inventory_valuation get_sales_summary "
    "get_cash_position get_operations_dashboard",
    "audit": "list_audit_events get_entity_history get_user_activity get_recent_changes",
}

# Read-only tools with the arguments that make them do real work on the seed.
READS = {
    "list_goods_receipts": {},
    "get_goods_receipt": {"goodsReceiptId": "GR-003"},
    "list_receipts_for_purchase_order": {"purchaseOrderId": "PO-202"},
    "list_receiving_discrepancies": {},
    "get_receiving_discrepancy": {"discrepancyId": "DISC-001"},
    "list_pending_deliveries": {},
    "list_vendor_invoices": {"overdueOnly": True},
    "search_vendor_invoices": {"query": "tri-state"},
    "get_vendor_invoice": {"vendorInvoiceId": "VINV-103"},
    "get_three_way_match": {"matchId": "MATCH-004"},
    "list_invoice_discrepancies": {},
    "list_invoices_due_soon": {},
    "list_overdue_vendor_invoices": {},
    "explain_invoice_block": {"vendorInvoiceId": "VINV-104"},
    "list_payments": {},
    "get_payment": {"paymentId": "PAY-003"},
    "list_payments_for_invoice": {"invoiceId": "VINV-108"},
    "build_payment_run": {"withinDays": 30},
    "list_sales_orders": {},
    "search_sales_orders": {"query": "vertex"},
    "get_sales_order": {"salesOrderId": "SO-307"},
    "check_sales_order_stock": {"salesOrderId": "SO-307"},
    "list_fulfillments": {},
    "list_unfulfilled_sales_orders": {},
    "list_customer_invoices": {"overdueOnly": True},
    "search_customer_invoices": {"query": "corvus"},
    "get_customer_invoice": {"customerInvoiceId": "CINV-403"},
    "list_overdue_customer_invoices": {"minimumAmount": 10000},
    "list_receivables_by_customer": {},
    "get_ar_aging": {},
    "list_uninvoiced_shipments": {},
    "list_expenses": {},
    "get_expense": {"expenseId": "EXP-002"},
    "list_expenses_awaiting_action": {},
    "list_budgets": {},
    "get_budget": {"budgetId": "BUD-004"},
    "get_department_budget": {"departmentId": "DEPT-FAC"},
    "check_budget_availability": {"budgetId": "BUD-004", "amount": 5000},
    "get_budget_utilisation": {},
    "get_procurement_spend_summary": {},
    "get_ap_aging": {},
    "get_inventory_valuation": {"groupBy": "category"},
    "get_sales_summary": {},
    "get_cash_position": {},
    "get_operations_dashboard": {},
    "list_audit_events": {"action": "approved"},
    "get_entity_history": {"entityId": "PO-203"},
    "get_user_activity": {"userId": "USR-006"},
    "get_recent_changes": {"limit": 5},
}


@pytest.fixture(scope="module")
def env():
    return load_erp()


@pytest.mark.parametrize("domain", list(EXPECTED))
def test_domain_registers_its_tools_in_spec_order(env, domain):
    names = [t.name for t in submodule(env, f"tools.{domain}").TOOLS]
    assert names == EXPECTED[domain].split()


def test_schemas_follow_the_erp_conventions(env):
    for domain in EXPECTED:
        for tool in submodule(env, f"tools.{domain}").TOOLS:
            s = tool.input_schema
            assert list(s) == ["type", "properties", "required", "additionalProperties"], tool.name
            assert s["additionalProperties"] is False
            assert all(r in s["properties"] for r in s["required"]), tool.name
            for prop in s["properties"].values():
                assert "default" not in prop, tool.name
                assert prop["description"], tool.name


def test_read_tools_cover_every_read_and_change_nothing(env):
    w = World(env)
    mutating = {n for n in w.tools if n not in READS}
    assert len(READS) == 92 - 43 and len(mutating) == 43
    before = w.snapshot()
    for name, args in READS.items():
        w.ok(name, args)
    assert w.snapshot() == before


def test_unknown_argument_is_refused_before_run(env):
    w = World(env)
    out = w.err("list_audit_events", {"entityId": "VINV-103"})
    assert out["message"] == (
        'Invalid arguments for "list_audit_events": "entityId" is not a parameter; expected one of: '
        "entityType, actorUserId, action, fromDate, toDate, limit, offset."
    )
