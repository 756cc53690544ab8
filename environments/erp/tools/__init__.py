"""Tool registry of the ERP world: the 185 tools in registration order (erp-tools.md §7.0).

Each domain module exposes ``TOOLS``, its tools in registration order; ``load_tools()`` concatenates
them in the order of ``DOMAINS`` and checks the count and that names are unique. The registry is
built on first use (``tools`` is a lazy attribute), so importing ``tools.helpers`` or one domain
module never imports the other eighteen.
"""

from __future__ import annotations

import importlib
from typing import Any

from silo_gym import SiloTool, kit

__all__ = ["DOMAINS", "READ_TOOLS", "TOOL_COUNT", "access_tagged", "load_tools", "tools"]

#: Domain modules with their tool counts, in registration order.
DOMAINS: tuple[tuple[str, int], ...] = (
    ("clock", 3),
    ("vendors", 8),
    ("customers", 8),
    ("products", 8),
    ("inventory", 14),
    ("requisitions", 12),
    ("approvals", 7),
    ("rfqs", 9),
    ("quotations", 9),
    ("purchase_orders", 15),
    ("receiving", 10),
    ("vendor_invoices", 17),
    ("payments", 12),
    ("sales_orders", 14),
    ("customer_invoices", 11),
    ("expenses", 8),
    ("budgets", 10),
    ("reporting", 6),
    ("audit", 4),
)

TOOL_COUNT = 185

#: The 96 tools that only read the world (the "R" rows of erp-tools.md §8); the other 89 mutate it.
#: The registry tags every tool with its kit access from this table (``kit.access_of``).
READ_TOOLS: frozenset[str] = frozenset(
    {
        "get_current_date",
        "list_vendors",
        "search_vendors",
        "get_vendor",
        "get_vendor_balance",
        "list_customers",
        "search_customers",
        "get_customer",
        "get_customer_balance",
        "list_products",
        "search_products",
        "get_product",
        "get_product_availability",
        "get_product_pricing",
        "list_warehouses",
        "get_warehouse",
        "list_inventory",
        "get_inventory",
        "get_available_quantity",
        "list_low_stock",
        "list_inventory_movements",
        "get_inventory_movement",
        "find_warehouses_with_stock",
        "list_requisitions",
        "search_requisitions",
        "get_requisition",
        "check_requisition_budget",
        "list_requisition_approvals",
        "list_pending_approvals",
        "get_approval",
        "list_approvals_for_entity",
        "list_approvals",
        "check_approval_authority",
        "list_rfqs",
        "get_rfq",
        "list_rfq_quotations",
        "list_quotations",
        "get_quotation",
        "compare_quotations",
        "find_cheapest_valid_quotation",
        "list_purchase_orders",
        "search_purchase_orders",
        "get_purchase_order",
        "list_open_purchase_order_lines",
        "list_overdue_purchase_orders",
        "get_purchase_order_budget_impact",
        "get_purchase_order_payment_due_date",
        "list_goods_receipts",
        "get_goods_receipt",
        "list_receipts_for_purchase_order",
        "list_receiving_discrepancies",
        "get_receiving_discrepancy",
        "list_pending_deliveries",
        "list_vendor_invoices",
        "search_vendor_invoices",
        "get_vendor_invoice",
        "get_three_way_match",
        "list_invoice_discrepancies",
        "list_invoices_due_soon",
        "list_overdue_vendor_invoices",
        "explain_invoice_block",
        "list_payments",
        "get_payment",
        "list_payments_for_invoice",
        "build_payment_run",
        "list_sales_orders",
        "search_sales_orders",
        "get_sales_order",
        "check_sales_order_stock",
        "list_fulfillments",
        "list_unfulfilled_sales_orders",
        "list_customer_invoices",
        "search_customer_invoices",
        "get_customer_invoice",
        "list_overdue_customer_invoices",
        "list_receivables_by_customer",
        "get_ar_aging",
        "list_uninvoiced_shipments",
        "list_expenses",
        "get_expense",
        "list_expenses_awaiting_action",
        "list_budgets",
        "get_budget",
        "get_department_budget",
        "check_budget_availability",
        "get_budget_utilisation",
        "get_procurement_spend_summary",
        "get_ap_aging",
        "get_inventory_valuation",
        "get_sales_summary",
        "get_cash_position",
        "get_operations_dashboard",
        "list_audit_events",
        "get_entity_history",
        "get_user_activity",
        "get_recent_changes",
    }
)

_tools: list[Any] | None = None


def access_tagged(tool: SiloTool) -> kit.KitTool:
    """``tool`` as a :class:`silo_gym.kit.KitTool` tagged ``"read"`` when it is in :data:`READ_TOOLS`,
    else ``"write"``. A tool its module already tagged is returned as it is.

    Raises:
        RuntimeError: the module tagged the tool differently from erp-tools.md §8.
    """
    access: kit.Access = kit.READ if tool.name in READ_TOOLS else kit.WRITE
    if isinstance(tool, kit.KitTool):
        if tool.access != access:
            raise RuntimeError(
                f"tool {tool.name} is tagged {tool.access!r}; erp-tools.md §8 makes it {access!r}"
            )
        return tool
    return kit.kit_tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema,
        run=tool.run,
        access=access,
    )


def load_tools() -> list[Any]:
    """The 185 tools, in registration order, each tagged read or write (built once per load).

    Raises:
        RuntimeError: a domain module's ``TOOLS`` has the wrong length, or a name repeats.
    """
    global _tools
    if _tools is not None:
        return _tools
    collected: list[Any] = []
    for name, count in DOMAINS:
        module = importlib.import_module(f"{__name__}.{name}")
        domain_tools = list(module.TOOLS)
        if len(domain_tools) != count:
            raise RuntimeError(
                f"tools/{name}.py registers {len(domain_tools)} tools; erp-tools.md §7.0 lists {count}"
            )
        collected.extend(access_tagged(t) for t in domain_tools)
    names = [t.name for t in collected]
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise RuntimeError(f"tool names registered twice: {repeated}")
    if len(collected) != TOOL_COUNT:
        raise RuntimeError(f"{len(collected)} tools registered; the ERP world has {TOOL_COUNT}")
    _tools = collected
    return collected


def __getattr__(name: str) -> Any:
    if name == "tools":
        return load_tools()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
