"""Reporting tools (erp-tools.md §7.19, read-only): spend, ageing, stock value, sales, cash, dashboard."""

from __future__ import annotations

from typing import Any

from silo_gym import define_tool

from ..state import (
    State,
    add_days,
    available_quantity,
    budget_available,
    effective_reorder_point,
    is_overdue,
    money,
    outstanding_amount,
    sum_money,
)
from .customer_invoices import aging_buckets
from .helpers import (
    enum_prop,
    integer_prop,
    paginate,
    paging_props,
    read_optional_string,
    schema,
    string_prop,
)

Args = dict[str, Any]
_FROM = "Start of the date range (inclusive), as an ISO date or timestamp."
_TO = "End of the date range (inclusive, compared as text: a bare date excludes that day's timestamps)."


def _range(args: Args) -> tuple[str, str]:
    return (
        read_optional_string(args, "fromDate") or "0000-01-01",
        read_optional_string(args, "toDate") or "9999-12-31",
    )


def _name(records: dict[str, Any], record_id: str) -> str:
    record = records.get(record_id)
    return record["name"] if record is not None else record_id  # type: ignore[no-any-return]


def _get_procurement_spend_summary(state: State, args: Args) -> Any:
    start, end = _range(args)
    per_vendor: dict[str, dict[str, Any]] = {}
    for inv in state["vendorInvoices"].values():
        if (
            inv["status"] not in ("approved", "partially_paid", "paid")
            or not start <= inv["invoiceDate"] <= end
        ):
            continue
        row = per_vendor.setdefault(inv["vendorId"], {"invoiced": 0.0, "paid": 0.0, "count": 0})
        row["invoiced"] += inv["totalAmount"]["amount"]
        row["paid"] += inv["amountPaid"]["amount"]
        row["count"] += 1
    on_order: dict[str, float] = {}
    for order in state["purchaseOrders"].values():
        if order["status"] in ("approved", "sent", "partially_received"):
            on_order[order["vendorId"]] = (
                on_order.get(order["vendorId"], 0.0) + order["totalAmount"]["amount"]
            )
    rows = [
        {
            "vendorId": vendor_id,
            "vendorName": _name(state["vendors"], vendor_id),
            "invoiceCount": row["count"],
            "invoiced": money(row["invoiced"]),
            "paid": money(row["paid"]),
            "outstanding": money(row["invoiced"] - row["paid"]),
            "openOnOrder": money(on_order.get(vendor_id, 0)),
        }
        for vendor_id, row in per_vendor.items()
    ]
    rows.sort(key=lambda r: r["invoiced"]["amount"], reverse=True)
    page = paginate(rows, args)
    return {
        "fromDate": start,
        "toDate": end,
        **page,
        "totalInvoiced": sum_money([r["invoiced"] for r in rows]),
        "totalPaid": sum_money([r["paid"] for r in rows]),
    }


get_procurement_spend_summary = define_tool(
    name="get_procurement_spend_summary",
    description=(
        "Summarise spend per vendor over an invoice-date range (approved, part-paid and paid vendor "
        "invoices): invoiced, paid, outstanding and what is still on open orders, largest first. Read-only."
    ),
    input_schema=schema({"fromDate": string_prop(_FROM), "toDate": string_prop(_TO), **paging_props()}, []),
    run=_get_procurement_spend_summary,
)


def _get_ap_aging(state: State, args: Args) -> Any:
    vendor_id = read_optional_string(args, "vendorId")
    invoices = [
        i
        for i in state["vendorInvoices"].values()
        if i["status"] not in ("cancelled", "rejected", "paid", "draft")
        and (vendor_id is None or i["vendorId"] == vendor_id)
        and outstanding_amount(i)["amount"] > 0
    ]
    buckets, grand = aging_buckets(invoices, state["now"])
    return {"asOf": state["now"], "vendorId": vendor_id, "buckets": buckets, "grandTotal": grand}


get_ap_aging = define_tool(
    name="get_ap_aging",
    description=(
        "Age open payables into current, 1-30, 31-60, 61-90 and over 90 days past due, with totals and "
        "invoice ids per bucket; optionally for one vendor. Read-only."
    ),
    input_schema=schema({"vendorId": string_prop("Only this vendor's invoices.")}, []),
    run=_get_ap_aging,
)


def _get_inventory_valuation(state: State, args: Args) -> Any:
    group_by = read_optional_string(args, "groupBy") or "warehouse"
    groups: dict[str, dict[str, Any]] = {}
    for record in state["inventory"].values():
        product = state["products"].get(record["productId"])
        if product is None:
            continue
        key = record["warehouseId"] if group_by == "warehouse" else product["category"]
        group = groups.setdefault(key, {"value": 0.0, "units": 0, "skus": 0, "low": 0})
        group["value"] += record["quantityOnHand"] * product["standardCost"]["amount"]
        group["units"] += record["quantityOnHand"]
        group["skus"] += 1
        if record["quantityOnHand"] < (effective_reorder_point(record, product) or 0):
            group["low"] += 1
    rows = [
        {
            "group": key,
            "label": _name(state["warehouses"], key) if group_by == "warehouse" else key,
            "stockValue": money(group["value"]),
            "unitsOnHand": group["units"],
            "skuCount": group["skus"],
            "lowStockCount": group["low"],
        }
        for key, group in groups.items()
    ]
    rows.sort(key=lambda r: r["stockValue"]["amount"], reverse=True)
    return {"groupBy": group_by, "totalValue": sum_money([r["stockValue"] for r in rows]), "groups": rows}


get_inventory_valuation = define_tool(
    name="get_inventory_valuation",
    description=(
        "Value stock on hand at standard cost, grouped by warehouse (default) or product category, with "
        "units, record counts and how many records are below their reorder point. Read-only."
    ),
    input_schema=schema(
        {"groupBy": enum_prop(("warehouse", "category"), "How to group the stock (default warehouse).")}, []
    ),
    run=_get_inventory_valuation,
)


def _get_sales_summary(state: State, args: Args) -> Any:
    start, end = _range(args)
    per_customer: dict[str, dict[str, Any]] = {}
    for order in state["salesOrders"].values():
        if order["status"] == "cancelled" or not start <= order["orderDate"] <= end:
            continue
        row = per_customer.setdefault(order["customerId"], {"ordered": 0.0, "shipped": 0.0, "count": 0})
        row["ordered"] += order["subtotal"]["amount"]
        row["shipped"] += sum(
            line["quantityFulfilled"] * line["unitPrice"]["amount"] for line in order["lines"]
        )
        row["count"] += 1
    invoiced: dict[str, float] = {}
    for inv in state["customerInvoices"].values():
        if inv["status"] in ("cancelled", "draft") or not start <= inv["issueDate"] <= end:
            continue
        invoiced[inv["customerId"]] = invoiced.get(inv["customerId"], 0.0) + inv["subtotal"]["amount"]
    rows = [
        {
            "customerId": customer_id,
            "customerName": _name(state["customers"], customer_id),
            "orderCount": row["count"],
            "orderedValue": money(row["ordered"]),
            "shippedValue": money(row["shipped"]),
            "invoicedValue": money(invoiced.get(customer_id, 0)),
            "unshippedValue": money(row["ordered"] - row["shipped"]),
        }
        for customer_id, row in per_customer.items()
    ]
    rows.sort(key=lambda r: r["orderedValue"]["amount"], reverse=True)
    page = paginate(rows, args)
    return {
        "fromDate": start,
        "toDate": end,
        **page,
        "totalOrdered": sum_money([r["orderedValue"] for r in rows]),
        "totalShipped": sum_money([r["shippedValue"] for r in rows]),
    }


get_sales_summary = define_tool(
    name="get_sales_summary",
    description=(
        "Summarise sales per customer over an order-date range: ordered, shipped, invoiced and unshipped "
        "value, largest first. Read-only."
    ),
    input_schema=schema({"fromDate": string_prop(_FROM), "toDate": string_prop(_TO), **paging_props()}, []),
    run=_get_sales_summary,
)


def _get_cash_position(state: State, args: Args) -> Any:
    within = args.get("withinDays")
    days = within if isinstance(within, int) and not isinstance(within, bool) else 30
    now = state["now"]
    horizon = add_days(now, days)
    payables = [
        outstanding_amount(i)
        for i in state["vendorInvoices"].values()
        if i["status"] in ("approved", "partially_paid") and i["dueDate"] <= horizon
    ]
    receivables = [
        outstanding_amount(i)
        for i in state["customerInvoices"].values()
        if i["status"] in ("issued", "partially_paid") and i["dueDate"] <= horizon
    ]
    payables_due = sum_money(payables)
    receivables_due = sum_money(receivables)
    payments = state["payments"].values()
    return {
        "asOf": now,
        "horizon": horizon,
        "payablesDue": payables_due,
        "receivablesDue": receivables_due,
        "netPosition": money(receivables_due["amount"] - payables_due["amount"]),
        "paymentsCompletedOut": sum_money(
            [p["amount"] for p in payments if p["status"] == "completed" and p["direction"] == "outbound"]
        ),
        "paymentsCompletedIn": sum_money(
            [p["amount"] for p in payments if p["status"] == "completed" and p["direction"] == "inbound"]
        ),
        "failedPaymentCount": sum(1 for p in payments if p["status"] == "failed"),
    }


get_cash_position = define_tool(
    name="get_cash_position",
    description=(
        "Show near-term cash: payables and receivables due within a window (default 30 days, overdue "
        "included), the net, completed payments each way and how many payments failed. Read-only."
    ),
    input_schema=schema(
        {"withinDays": integer_prop("Days ahead to look (default 30).", minimum=0, maximum=365)}, []
    ),
    run=_get_cash_position,
)


def _get_operations_dashboard(state: State, args: Args) -> Any:
    now = state["now"]
    matches = state["threeWayMatches"]
    blocked = []
    for inv in state["vendorInvoices"].values():
        match = matches.get(inv["matchId"]) if inv["matchId"] else None
        failing = (match is not None and match["status"] == "failed") or inv["status"] == "disputed"
        if failing and inv["status"] not in ("paid", "cancelled", "rejected"):
            blocked.append(
                {
                    "id": inv["id"],
                    "status": inv["status"],
                    "vendorId": inv["vendorId"],
                    "amount": inv["totalAmount"],
                }
            )
    low_stock = []
    for record in state["inventory"].values():
        product = state["products"].get(record["productId"])
        if record["quantityOnHand"] < (effective_reorder_point(record, product) or 0):
            low_stock.append(
                {
                    "productId": record["productId"],
                    "warehouseId": record["warehouseId"],
                    "quantityOnHand": record["quantityOnHand"],
                    "quantityAvailable": available_quantity(record),
                }
            )
    return {
        "asOf": now,
        "blockedVendorInvoices": blocked,
        "overdueVendorInvoices": [i["id"] for i in state["vendorInvoices"].values() if is_overdue(i, now)],
        "overdueCustomerInvoices": [
            i["id"] for i in state["customerInvoices"].values() if is_overdue(i, now)
        ],
        "openReceivingDiscrepancies": [
            {"id": d["id"], "type": d["type"], "purchaseOrderId": d["purchaseOrderId"]}
            for d in state["receivingDiscrepancies"].values()
            if d["status"] == "open"
        ],
        "lowStock": low_stock,
        "latePurchaseOrders": [
            o["id"]
            for o in state["purchaseOrders"].values()
            if o["status"] in ("sent", "partially_received")
            and o["expectedDeliveryDate"]
            and o["expectedDeliveryDate"] < now
        ],
        "unshippedSalesOrders": [
            o["id"]
            for o in state["salesOrders"].values()
            if o["status"] in ("confirmed", "partially_fulfilled")
            and any(line["quantityFulfilled"] < line["quantityOrdered"] for line in o["lines"])
        ],
        "pendingApprovals": [
            {
                "id": a["id"],
                "entityType": a["entityType"],
                "entityId": a["entityId"],
                "assignedToUserId": a["assignedToUserId"],
            }
            for a in state["approvals"].values()
            if a["status"] == "pending"
        ],
        "exhaustedBudgets": [
            b["id"] for b in state["budgets"].values() if budget_available(b)["amount"] <= 0
        ],
    }


get_operations_dashboard = define_tool(
    name="get_operations_dashboard",
    description=(
        "One-call health check: blocked and overdue vendor invoices, overdue customer invoices, open "
        "receiving discrepancies, low stock, late purchase orders, unshipped sales orders, pending "
        "approvals and exhausted budgets. Read-only."
    ),
    input_schema=schema({}, []),
    run=_get_operations_dashboard,
)

TOOLS = [
    get_procurement_spend_summary,
    get_ap_aging,
    get_inventory_valuation,
    get_sales_summary,
    get_cash_position,
    get_operations_dashboard,
]
