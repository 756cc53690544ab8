"""The ten tool modules of erp-tools.md §7.2-§7.11: counts, names in registration order, schema
shape, and every read tool leaving the world unchanged."""

from __future__ import annotations

from types import ModuleType

import pytest

from . import load_erp, submodule
from .tools_a import COUNTS, MODULES, a_tools, assert_read_only


@pytest.fixture(scope="module")
def env() -> ModuleType:
    return load_erp()

NAMES = (
    "get_current_date advance_clock set_clock "
    "list_vendors search_vendors get_vendor create_vendor update_vendor activate_vendor block_vendor get_vendor_balance "
    "list_customers search_customers get_customer create_customer update_customer activate_customer block_customer "
    "get_customer_balance "
    "list_products search_products get_product create_product update_product discontinue_product "
    "get_product_availability get_product_pricing "
    "list_warehouses get_warehouse list_inventory get_inventory get_available_quantity list_low_stock adjust_inventory "
    "transfer_inventory reserve_inventory release_reservation count_inventory list_inventory_movements "
    "get_inventory_movement find_warehouses_with_stock "
    "list_requisitions search_requisitions get_requisition create_requisition update_requisition submit_requisition "
    "check_requisition_budget approve_requisition reject_requisition cancel_requisition list_requisition_approvals "
    "convert_requisition_to_rfq "
    "list_pending_approvals get_approval list_approvals_for_entity list_approvals add_approval_note reassign_approval "
    "check_approval_authority "
    "list_rfqs get_rfq create_rfq add_vendor_to_rfq remove_vendor_from_rfq send_rfq close_rfq cancel_rfq "
    "list_rfq_quotations "
    "list_quotations get_quotation record_quotation update_quotation accept_quotation reject_quotation "
    "compare_quotations find_cheapest_valid_quotation expire_quotations "
    "list_purchase_orders search_purchase_orders get_purchase_order create_purchase_order update_purchase_order "
    "submit_purchase_order_for_approval approve_purchase_order reject_purchase_order send_purchase_order "
    "cancel_purchase_order close_purchase_order list_open_purchase_order_lines list_overdue_purchase_orders "
    "get_purchase_order_budget_impact get_purchase_order_payment_due_date"
).split()

READS = {
    "get_current_date": {},
    "list_vendors": {"category": "power"},
    "search_vendors": {"query": "kessler"},
    "get_vendor": {"vendorId": "VEN-001"},
    "get_vendor_balance": {"vendorId": "VEN-003"},
    "list_customers": {},
    "search_customers": {"query": "a"},
    "get_customer": {"customerId": "CUS-001"},
    "get_customer_balance": {"customerId": "CUS-001"},
    "list_products": {},
    "search_products": {"query": "bearing"},
    "get_product": {"productId": "PRD-001"},
    "get_product_availability": {"productId": "PRD-003"},
    "get_product_pricing": {"productId": "PRD-008"},
    "list_warehouses": {},
    "get_warehouse": {"warehouseId": "WH-001"},
    "list_inventory": {"lowStockOnly": True},
    "get_inventory": {"productId": "PRD-003", "warehouseId": "WH-001"},
    "get_available_quantity": {"productId": "PRD-003"},
    "list_low_stock": {},
    "list_inventory_movements": {},
    "get_inventory_movement": {"movementId": "MOV-001"},
    "find_warehouses_with_stock": {"productId": "PRD-003", "quantity": 150},
    "list_requisitions": {},
    "search_requisitions": {"query": "PR-00"},
    "get_requisition": {"requisitionId": "PR-006"},
    "check_requisition_budget": {"requisitionId": "PR-006"},
    "list_requisition_approvals": {"requisitionId": "PR-001"},
    "list_pending_approvals": {},
    "get_approval": {"approvalId": "APR-005"},
    "list_approvals_for_entity": {"entityType": "purchase_order", "entityId": "PO-203"},
    "list_approvals": {"status": "pending"},
    "check_approval_authority": {"userId": "USR-003", "amount": 176200},
    "list_rfqs": {},
    "get_rfq": {"rfqId": "RFQ-002"},
    "list_rfq_quotations": {"rfqId": "RFQ-002"},
    "list_quotations": {},
    "get_quotation": {"quotationId": "QUO-005"},
    "compare_quotations": {"rfqId": "RFQ-002"},
    "find_cheapest_valid_quotation": {"rfqId": "RFQ-002"},
    "list_purchase_orders": {},
    "search_purchase_orders": {"query": "bearing"},
    "get_purchase_order": {"purchaseOrderId": "PO-203"},
    "list_open_purchase_order_lines": {},
    "list_overdue_purchase_orders": {},
    "get_purchase_order_budget_impact": {"purchaseOrderId": "PO-205"},
    "get_purchase_order_payment_due_date": {"purchaseOrderId": "PO-203"},
}


def test_modules_register_their_tools_in_spec_order(env):
    for name, count in zip(MODULES, COUNTS, strict=True):
        assert len(submodule(env, f"tools.{name}").TOOLS) == count, name
    assert [t.name for t in a_tools(env)] == NAMES and len(NAMES) == 93


def test_schemas_follow_the_erp_conventions(env):
    for tool in a_tools(env):
        s = tool.input_schema
        assert list(s) == ["type", "properties", "required", "additionalProperties"], tool.name
        assert s["additionalProperties"] is False and isinstance(s["required"], list)
        props = list(s["properties"])
        assert set(s["required"]) <= set(props), tool.name
        for pname, prop in s["properties"].items():
            assert "default" not in prop, (tool.name, pname)
            assert prop["description"].strip(), (tool.name, pname)
            if "enum" in prop:
                assert list(prop) == ["type", "description", "enum"], (tool.name, pname)
        if "limit" in props:
            assert props[-2:] == ["limit", "offset"], tool.name
            assert s["properties"]["limit"]["minimum"] == 1 and s["properties"]["limit"]["maximum"] == 500


def test_every_read_tool_leaves_the_world_unchanged(env):
    mutating = set(NAMES) - set(READS)
    assert len(READS) == 47 and len(mutating) == 46
    for name, args in READS.items():
        assert_read_only(env, name, args)
