"""The ERP world on the kit: every tool carries its read/write tag of erp-tools.md §8, and a read
tool leaves the world byte-for-byte as it found it, on the seed world, inside the solver's
episodes, and on the world each episode leaves behind."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from silo_gym import kit

from . import ENV_DIR, TASK_IDS, World, load_erp, load_solver, submodule

ENV = load_erp()
REGISTRY = submodule(ENV, "tools")
TOOLS = REGISTRY.load_tools()

#: erp-tools.md §8, the summary table: every tool in registration order with R (read) or M (mutate).
SECTION_8 = """
get_current_date R, advance_clock M, set_clock M, list_vendors R, search_vendors R, get_vendor R,
create_vendor M, update_vendor M, activate_vendor M, block_vendor M, get_vendor_balance R,
list_customers R, search_customers R, get_customer R, create_customer M, update_customer M,
activate_customer M, block_customer M, get_customer_balance R, list_products R, search_products R,
get_product R, create_product M, update_product M, discontinue_product M, get_product_availability
R, get_product_pricing R, list_warehouses R, get_warehouse R, list_inventory R, get_inventory R,
get_available_quantity R, list_low_stock R, adjust_inventory M, transfer_inventory M,
reserve_inventory M, release_reservation M, count_inventory M, list_inventory_movements R,
get_inventory_movement R, find_warehouses_with_stock R, list_requisitions R, search_requisitions R,
get_requisition R, create_requisition M, update_requisition M, submit_requisition M,
check_requisition_budget R, approve_requisition M, reject_requisition M, cancel_requisition M,
list_requisition_approvals R, convert_requisition_to_rfq M, list_pending_approvals R, get_approval
R, list_approvals_for_entity R, list_approvals R, add_approval_note M, reassign_approval M,
check_approval_authority R, list_rfqs R, get_rfq R, create_rfq M, add_vendor_to_rfq M,
remove_vendor_from_rfq M, send_rfq M, close_rfq M, cancel_rfq M, list_rfq_quotations R,
list_quotations R, get_quotation R, record_quotation M, update_quotation M, accept_quotation M,
reject_quotation M, compare_quotations R, find_cheapest_valid_quotation R, expire_quotations M,
list_purchase_orders R, search_purchase_orders R, get_purchase_order R, create_purchase_order M,
update_purchase_order M, submit_purchase_order_for_approval M, approve_purchase_order M,
reject_purchase_order M, send_purchase_order M, cancel_purchase_order M, close_purchase_order M,
list_open_purchase_order_lines R, list_overdue_purchase_orders R, get_purchase_order_budget_impact
R, get_purchase_order_payment_due_date R, list_goods_receipts R, get_goods_receipt R,
list_receipts_for_purchase_order R, receive_goods M, cancel_goods_receipt M,
report_receiving_discrepancy M, list_receiving_discrepancies R, get_receiving_discrepancy R,
resolve_receiving_discrepancy M, list_pending_deliveries R, list_vendor_invoices R,
search_vendor_invoices R, get_vendor_invoice R, create_vendor_invoice M, run_three_way_match M,
get_three_way_match R, list_invoice_discrepancies R, submit_vendor_invoice_for_approval M,
approve_vendor_invoice M, reject_vendor_invoice M, dispute_vendor_invoice M,
resolve_vendor_invoice_dispute M, update_vendor_invoice_line M, cancel_vendor_invoice M,
list_invoices_due_soon R, list_overdue_vendor_invoices R, explain_invoice_block R, list_payments R,
get_payment R, create_vendor_payment M, submit_payment_for_approval M, approve_payment M,
complete_payment M, fail_payment M, retry_failed_payment M, cancel_payment M,
record_customer_payment M, list_payments_for_invoice R, build_payment_run R, list_sales_orders R,
search_sales_orders R, get_sales_order R, create_sales_order M, update_sales_order M,
confirm_sales_order M, check_sales_order_stock R, reserve_sales_order_stock M,
release_sales_order_stock M, fulfill_sales_order M, mark_fulfillment_delivered M, list_fulfillments
R, cancel_sales_order M, list_unfulfilled_sales_orders R, list_customer_invoices R,
search_customer_invoices R, get_customer_invoice R, create_customer_invoice M,
issue_customer_invoice M, cancel_customer_invoice M, write_off_customer_invoice M,
list_overdue_customer_invoices R, list_receivables_by_customer R, get_ar_aging R,
list_uninvoiced_shipments R, list_expenses R, get_expense R, create_expense M, submit_expense M,
approve_expense M, reject_expense M, pay_expense M, list_expenses_awaiting_action R, list_budgets R,
get_budget R, get_department_budget R, check_budget_availability R, commit_budget M,
release_budget_commitment M, record_budget_spend M, update_budget M, create_budget M,
get_budget_utilisation R, get_procurement_spend_summary R, get_ap_aging R, get_inventory_valuation
R, get_sales_summary R, get_cash_position R, get_operations_dashboard R, list_audit_events R,
get_entity_history R, get_user_activity R, get_recent_changes R
"""
TABLE = [tuple(entry.split()) for entry in SECTION_8.replace("\n", " ").split(",")]

#: Which collection a required id parameter of a read tool names (its sample values come from there).
ID_SOURCES = {
    "approvalId": "approvals",
    "budgetId": "budgets",
    "customerId": "customers",
    "customerInvoiceId": "customerInvoices",
    "departmentId": "departments",
    "discrepancyId": "receivingDiscrepancies",
    "entityId": "requisitions",
    "expenseId": "expenses",
    "goodsReceiptId": "goodsReceipts",
    "invoiceId": "vendorInvoices",
    "matchId": "threeWayMatches",
    "movementId": "inventoryMovements",
    "paymentId": "payments",
    "productId": "products",
    "purchaseOrderId": "purchaseOrders",
    "quotationId": "quotations",
    "requisitionId": "requisitions",
    "rfqId": "rfqs",
    "salesOrderId": "salesOrders",
    "userId": "users",
    "vendorId": "vendors",
    "vendorInvoiceId": "vendorInvoices",
    "warehouseId": "warehouses",
}
PLAIN_VALUES: dict[str, Any] = {"amount": 1000, "quantity": 1, "query": "a"}


def snapshot(state: dict[str, Any]) -> str:
    """The world as bytes: key order included, so a reordered record counts as a change."""
    return json.dumps(state, ensure_ascii=False)


def sample_inputs(tool: Any, state: dict[str, Any], every_id: bool) -> Iterator[dict[str, Any]]:
    """Inputs for ``tool`` that name records of ``state``: its required parameters filled in, the
    first id parameter over every id of its collection (``every_id``) or the first and last."""
    schema = tool.input_schema
    required = list(schema.get("required", ()))
    base: dict[str, Any] = {}
    varying: tuple[str, list[str]] | None = None
    for key in required:
        prop = schema["properties"][key]
        if "enum" in prop:
            base[key] = prop["enum"][0]
        elif key in ID_SOURCES:
            ids = list(state[ID_SOURCES[key]])
            base[key] = ids[0]
            if varying is None:
                varying = (key, ids if every_id else [ids[0], ids[-1]])
        else:
            base[key] = PLAIN_VALUES[key]
    if varying is None:
        yield base
        return
    key, ids = varying
    for value in ids:
        yield {**base, key: value}


def read_everything(state: dict[str, Any], every_id: bool) -> set[str]:
    """Call every read tool on ``state`` with sample inputs, asserting after each call that the
    world is unchanged; returns the names of the tools that answered without an error."""
    world = World(ENV, state, TOOLS)
    answered: set[str] = set()
    before = snapshot(state)
    for tool in kit.read_tools(TOOLS):
        for tool_input in sample_inputs(tool, state, every_id):
            result = world.call(tool.name, tool_input)
            # a bool, not the two worlds: pytest would diff two whole snapshots on failure (minutes)
            unchanged = snapshot(state) == before
            assert unchanged, f"{tool.name}({tool_input}) changed the world"
            if "isError" not in result:
                answered.add(tool.name)
    return answered


def test_every_tool_is_tagged_as_section_8_says() -> None:
    assert len(TABLE) == 185 and all(len(row) == 2 for row in TABLE)
    assert [(t.name, {"read": "R", "write": "M"}[kit.access_of(t) or ""]) for t in TOOLS] == TABLE
    assert all(isinstance(t, kit.KitTool) for t in TOOLS)
    assert (len(kit.read_tools(TOOLS)), len(kit.write_tools(TOOLS))) == (96, 89)


def test_the_registry_refuses_a_module_tag_that_contradicts_section_8() -> None:
    listed = next(t for t in TOOLS if t.name == "list_vendors")
    mistagged = kit.kit_tool(
        name=listed.name, description=listed.description, input_schema=listed.input_schema, run=listed.run,
        access="write",
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="list_vendors is tagged .write.; erp-tools.md §8 makes it .read."):
        REGISTRY.access_tagged(mistagged)
    assert REGISTRY.access_tagged(listed) is listed


def test_read_tools_leave_the_seed_world_unchanged() -> None:
    answered = read_everything(ENV.create_state(), every_id=True)
    # Every read tool answered at least once, so the check above ran over real outputs.
    assert answered == {t.name for t in kit.read_tools(TOOLS)}


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_read_tools_leave_the_solver_episode_worlds_unchanged(task_id: str) -> None:
    task = json.loads((ENV_DIR / "tasks" / f"{task_id}.json").read_text(encoding="utf-8"))
    initial = ENV.create_state()
    state = ENV.create_state()
    world = World(ENV, state, TOOLS)
    reads = {t.name for t in kit.read_tools(TOOLS)}
    calls: list[str] = []

    def call_tool(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        calls.append(name)
        before = snapshot(state) if name in reads else None
        result = world.call(name, tool_input)
        if before is not None:
            assert snapshot(state) == before, f"{task_id}: {name}({tool_input}) changed the world"
        return result

    load_solver().run_plan(task["instruction"], call_tool)
    assert any(name not in reads for name in calls), f"{task_id}: the solver changed nothing"
    assert snapshot(state) != snapshot(initial)
    answered = read_everything(state, every_id=False)
    assert len(answered) >= 90, sorted(reads - answered)


def test_the_manifest_names_the_kit_version_the_loader_accepts() -> None:
    manifest = json.loads((ENV_DIR / "silo.environment.json").read_text(encoding="utf-8"))
    assert manifest["templateVersion"] == kit.KIT_VERSION == "0.3.0"
    kit.check_template_version(manifest["templateVersion"], "erp")  # raises when incompatible


def test_a_read_tool_that_writes_is_caught() -> None:
    listed = next(t for t in TOOLS if t.name == "list_vendors")
    original = listed.run

    def leaky(state: dict[str, Any], args: Any) -> Any:
        state["vendors"]["VEN-001"]["notes"] = "seen"
        return original(state, args)

    object.__setattr__(listed, "run", leaky)  # the tool is frozen; put it back below
    try:
        with pytest.raises(AssertionError, match=r"list_vendors\(\{\}\) changed the world"):
            read_everything(ENV.create_state(), every_id=False)
    finally:
        object.__setattr__(listed, "run", original)


LIST_CASES = [
    ("list_vendors", "vendors", {}),
    ("list_vendors", "vendors", {"limit": 5, "offset": 10}),
    ("list_vendors", "vendors", {"status": "active", "limit": 3, "offset": 1}),
    ("list_customers", "customers", {"limit": 4, "offset": 2}),
    ("list_customers", "customers", {"status": "active"}),
    ("list_products", "products", {"offset": 3, "limit": 7}),
    ("list_products", "products", {"status": "active"}),
    ("list_purchase_orders", "purchaseOrders", {"limit": 2, "offset": 4}),
    ("list_purchase_orders", "purchaseOrders", {"vendorId": "VEN-001"}),
    ("list_approvals", "approvals", {"limit": 3, "offset": 2}),
    ("list_approvals", "approvals", {"status": "pending"}),
    ("list_inventory", "inventory", {"limit": 9, "offset": 5}),
    ("list_inventory", "inventory", {"warehouseId": "WH-002"}),
    ("list_requisitions", "requisitions", {"offset": 1}),
    ("list_requisitions", "requisitions", {"status": "approved"}),
    ("list_rfqs", "rfqs", {}),
    ("list_rfqs", "rfqs", {"status": "sent", "limit": 1}),
]


def row_id(row: dict[str, Any]) -> str:
    """A list row's record id (a stock row shows its product and warehouse instead)."""
    return row["id"] if "id" in row else f"STK-{row['productId']}-{row['warehouseId']}"


def test_list_pages_follow_id_order_as_records_are_added() -> None:
    # The lists page through the kit's id index; a page is the slice of the id-sorted (filtered)
    # records, also after a record is added behind the first call, and after one a tool creates.
    state = ENV.create_state()
    extra = json.loads(json.dumps(state["vendors"]["VEN-005"]))
    extra["id"] = "VEN-000"
    state["vendors"]["VEN-000"] = extra  # out of id order, before any call
    world = World(ENV, state, TOOLS)

    def check() -> None:
        for name, collection, args in LIST_CASES:
            out = world.ok(name, args)
            filters = {k: v for k, v in args.items() if k not in ("limit", "offset")}
            ids = [r["id"] for r in sorted(state[collection].values(), key=lambda r: r["id"])
                   if all(r[k] == v for k, v in filters.items())]  # fmt: skip
            offset, limit = args.get("offset", 0), args.get("limit", 50)
            assert (out["total"], out["offset"], out["count"]) == (
                len(ids),
                offset,
                len(ids[offset : offset + limit]),
            )
            assert [row_id(r) for r in out["results"]] == ids[offset : offset + limit], (name, args)

    check()
    created = world.ok(
        "create_vendor",
        {
            "name": "Index Check Ltd",
            "paymentTerms": "NET_30",
            "contactEmail": "a@b.example",
            "actorUserId": "USR-002",
        },
    )
    assert (
        world.ok("list_vendors", {"offset": len(state["vendors"]) - 1})["results"][0]["id"] == created["id"]
    )
    check()
