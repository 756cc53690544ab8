"""The ERP lists that read a link bucket (``tools/helpers.py``: ``linked_ids``) give what a scan
of the collection gives, on the canonical world and after every step of episodes that add and
change receipts, invoices, orders, payments, requisitions and shipments.

A bucket that missed a record added by a tool, or kept one whose link moved, would show here as a
row too few or too many.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from . import ENV_DIR, TASK_IDS, World, load_erp, load_solver

ENV = load_erp()
ENV_TASKS = [json.loads((ENV_DIR / "tasks" / f"{t}.json").read_text(encoding="utf-8")) for t in TASK_IDS]

#: (tool, filter key, collection, record field): the list filtered on a link, and the scan it must equal.
LINKED: list[tuple[str, str, str, str]] = [
    ("list_purchase_orders", "vendorId", "purchaseOrders", "vendorId"),
    ("list_vendor_invoices", "vendorId", "vendorInvoices", "vendorId"),
    ("list_vendor_invoices", "purchaseOrderId", "vendorInvoices", "purchaseOrderId"),
    ("list_sales_orders", "customerId", "salesOrders", "customerId"),
    ("list_customer_invoices", "customerId", "customerInvoices", "customerId"),
    ("list_goods_receipts", "purchaseOrderId", "goodsReceipts", "purchaseOrderId"),
    ("list_receiving_discrepancies", "purchaseOrderId", "receivingDiscrepancies", "purchaseOrderId"),
    ("list_quotations", "rfqId", "quotations", "rfqId"),
    ("list_quotations", "vendorId", "quotations", "vendorId"),
    ("list_inventory", "productId", "inventory", "productId"),
    ("list_inventory", "warehouseId", "inventory", "warehouseId"),
    ("list_inventory_movements", "productId", "inventoryMovements", "productId"),
    ("list_inventory_movements", "warehouseId", "inventoryMovements", "warehouseId"),
    ("list_requisitions", "departmentId", "requisitions", "departmentId"),
    ("list_requisitions", "requesterUserId", "requisitions", "requesterUserId"),
    ("list_payments", "vendorId", "payments", "vendorId"),
    ("list_payments", "customerId", "payments", "customerId"),
    ("list_fulfillments", "salesOrderId", "fulfillments", "salesOrderId"),
    ("list_budgets", "departmentId", "budgets", "departmentId"),
    ("list_expenses", "employeeUserId", "expenses", "employeeUserId"),
    ("list_expenses", "departmentId", "expenses", "departmentId"),
]
#: Where each link points (the values to try: every record there, plus one that names none).
TARGET = {
    "vendorId": "vendors", "purchaseOrderId": "purchaseOrders", "customerId": "customers", "rfqId": "rfqs",
    "productId": "products", "warehouseId": "warehouses", "departmentId": "departments",
    "requesterUserId": "users", "employeeUserId": "users", "salesOrderId": "salesOrders",
}  # fmt: skip


def _row_key(row: dict[str, Any]) -> str:
    return row["id"] if "id" in row else f"STK-{row['productId']}-{row['warehouseId']}"


def _check_every_link(world: World) -> int:
    """Compare each linked list with the scan; returns how many (tool, value) pairs were checked."""
    state = world.state
    checked = 0
    for tool, key, collection, field in LINKED:
        for value in [*state[TARGET[key]], "NONE-000"]:
            result = world.call(tool, {key: value, "limit": 500})
            if value == "NONE-000" and result.get("isError"):
                assert result["output"]["code"] == "not_found", (tool, result)  # list_inventory checks its filter
                continue
            assert "isError" not in result, (tool, key, value, result)
            page = result["output"]
            got = [_row_key(r) for r in page["results"]]
            want = sorted(r["id"] for r in state[collection].values() if r[field] == value)
            if tool == "list_inventory_movements":  # newest first (ties in the world's order), not by id
                found = [r for r in state[collection].values() if r[field] == value]
                want = [m["id"] for m in sorted(found, key=lambda m: m["occurredAt"], reverse=True)]
            assert got == want and page["total"] == len(want), (tool, key, value)
            checked += 1
    return checked


def test_linked_lists_equal_the_scan_on_the_canonical_world() -> None:
    assert _check_every_link(World(ENV)) > 100


@pytest.mark.parametrize("task_id", ["TASK-007", "TASK-010", "TASK-011", "TASK-014", "TASK-016", "TASK-017"])
def test_linked_lists_equal_the_scan_after_every_step_of_an_episode(task_id: str) -> None:
    assert task_id in TASK_IDS
    world = World(ENV)
    instruction = next(t for t in ENV_TASKS if t["id"] == task_id)["instruction"]
    plan = load_solver().plan(instruction)
    action = next(plan)
    steps = 0
    while "answer" not in action:
        result = world.call(action["tool"], action["input"])
        assert "isError" not in result, (task_id, action, result)
        steps += 1
        _check_every_link(world)
        action = plan.send(result)
    assert steps >= 2
