"""ERP world tools at 1x, 10x and 100x its records: a page of a list, a list through a link and a
lookup by id should cost what their own rows cost, not what the world costs (issue 24).

The bigger worlds are made in memory from the shipped world's data files (``worlds.scale_erp``,
the same copies as ``erp10x`` and ``erp100x``: every record of every collection gains ``n - 1``
copies that link to each other, so a record has as many links at 100x as at 1x). Each case runs
through ``Tool.execute`` with a page of 5, warm (the call repeated on one world), alternating with
the same call on the 1x world.

``BENCH_ERP_DIR`` names another copy of the ERP environment to measure (for a before/after
comparison against an older checkout).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

import orjson

from silo_gym.loader import open_environment_at, shipped_environments_dir

from .common import Sizes, Table, tool_scaling_table
from .worlds import scale_erp

PAGE = 5
FACTORS = (1, 10, 100)
TARGET = 2.0

#: (kind, tool, input); "scan" cases read the whole collection by nature (a search, a filter on a
#: field that changes, a report over every matching record).
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("list", "list_purchase_orders", {"limit": PAGE}),
    ("list", "list_vendor_invoices", {"limit": PAGE}),
    ("list", "list_sales_orders", {"limit": PAGE}),
    ("list", "list_goods_receipts", {"limit": PAGE}),
    ("list", "list_quotations", {"limit": PAGE}),
    ("list", "list_payments", {"limit": PAGE}),
    ("list", "list_budgets", {"limit": PAGE}),
    ("link", "list_purchase_orders", {"vendorId": "VEN-002", "limit": PAGE}),
    ("link", "list_vendor_invoices", {"purchaseOrderId": "PO-203", "limit": PAGE}),
    ("link", "list_sales_orders", {"customerId": "CUS-003", "limit": PAGE}),
    ("link", "list_customer_invoices", {"customerId": "CUS-003", "limit": PAGE}),
    ("link", "list_goods_receipts", {"purchaseOrderId": "PO-202", "limit": PAGE}),
    ("link", "list_quotations", {"rfqId": "RFQ-002", "limit": PAGE}),
    ("link", "list_inventory", {"productId": "PRD-003", "limit": PAGE}),
    ("link", "list_inventory_movements", {"productId": "PRD-001", "limit": PAGE}),
    ("link", "list_requisitions", {"departmentId": "DEPT-OPS", "limit": PAGE}),
    ("link", "list_approvals_for_entity", {"entityType": "requisition", "entityId": "PR-002"}),
    ("lookup", "get_purchase_order", {"purchaseOrderId": "PO-202"}),
    ("lookup", "get_sales_order", {"salesOrderId": "SO-306"}),
    ("lookup", "get_goods_receipt", {"goodsReceiptId": "GR-003"}),
    ("lookup", "get_product_availability", {"productId": "PRD-003"}),
    ("lookup", "find_cheapest_valid_quotation", {"rfqId": "RFQ-002"}),
    ("lookup", "list_receipts_for_purchase_order", {"purchaseOrderId": "PO-207"}),
    ("lookup", "check_sales_order_stock", {"salesOrderId": "SO-307"}),
    ("scan", "search_vendors", {"query": "fast", "limit": PAGE}),
    ("scan", "search_purchase_orders", {"query": "bearing", "limit": PAGE}),
    ("scan", "list_overdue_customer_invoices", {"limit": PAGE}),
    ("scan", "list_pending_approvals", {"limit": PAGE}),
]


def _tools(module: Any, path: Path, factor: int) -> dict[str, Any]:
    build_world = importlib.import_module(f"{module.__name__}.environment").build_world
    data = {p.stem: orjson.loads(p.read_bytes()) for p in sorted((path / "data").glob("*.json"))}
    return {t.name: t for t in module.bind_tools(build_world(scale_erp(data, factor)))}


def bench_erp_tools(sizes: Sizes) -> Table:
    path = Path(os.environ.get("BENCH_ERP_DIR") or shipped_environments_dir() / "erp")
    module = open_environment_at("erp", path).module
    title = f"ERP tools: Tool.execute per call, page of {PAGE}, at {'/'.join(f'{f}x' for f in FACTORS)}"
    return tool_scaling_table(title, {f: _tools(module, path, f) for f in FACTORS}, CASES, sizes, TARGET)
