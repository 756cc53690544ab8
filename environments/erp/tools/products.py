"""Product tools (erp-tools.md §7.5, tools 20-27): the catalogue, its availability and pricing."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool, js_round

from ..state import State, available_quantity, effective_reorder_point, money, next_id
from .helpers import (
    PRODUCT_STATUS,
    UOM,
    actor,
    array_prop,
    audit,
    enum_prop,
    integer_prop,
    linked_records,
    matches_text,
    number_prop,
    page_records,
    paging_props,
    product_summary,
    read_enum,
    read_number,
    read_optional_enum,
    read_optional_number,
    read_optional_string,
    read_string,
    require_product,
    require_vendor,
    schema,
    string_prop,
)

Args = dict[str, Any]

_ACTOR = "Id of the user making the change (for example USR-001); must be an active user."
_PRODUCT_ID = "The product's id, for example PRD-001."


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


def _list_products(state: State, args: Args) -> Any:
    category = read_optional_string(args, "category")
    status = read_optional_enum(args, "status", PRODUCT_STATUS)

    def keep(p: Any) -> bool:
        return (category is None or matches_text(p["category"], category)) and (status is None or p["status"] == status)

    page = page_records(state, "products", args, None if category is None and status is None else keep)
    return {**page, "results": [product_summary(p) for p in page["results"]]}


list_products = define_tool(
    name="list_products",
    description=(
        "List catalogue products sorted by id, a page at a time, optionally categories containing "
        "the text or one status. Rows: id, sku, name, category, uom, status, listPrice, standardCost. "
        "Read-only."
    ),
    input_schema=schema(
        {
            "category": string_prop("Only products whose category contains this text."),
            "status": enum_prop(PRODUCT_STATUS, "Only products with this status."),
            **paging_props(),
        },
        [],
    ),
    run=_list_products,
)


def _search_products(state: State, args: Args) -> Any:
    query = read_string(args, "query")

    def keep(p: Any) -> bool:
        return matches_text(p["sku"], query) or matches_text(p["name"], query) or matches_text(p["category"], query)

    page = page_records(state, "products", args, keep)
    return {**page, "results": [product_summary(p) for p in page["results"]]}


search_products = define_tool(
    name="search_products",
    description=(
        "Find products whose SKU, name or category contains the text (case-insensitive); rows as in "
        "list_products, sorted by id, paged. Read-only."
    ),
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_products,
)


def _get_product(state: State, args: Args) -> Any:
    return require_product(state, read_string(args, "productId"))


get_product = define_tool(
    name="get_product",
    description=(
        "One product in full: SKU, category, unit, standard cost, list price, status, reorder point "
        "and quantity, lead time and preferred vendors. Read-only."
    ),
    input_schema=schema({"productId": string_prop(_PRODUCT_ID)}, ["productId"]),
    run=_get_product,
)


def _create_product(state: State, args: Args) -> Any:
    user = actor(state, args)
    sku = read_string(args, "sku")
    for p in state["products"].values():
        if p["sku"].lower() == sku.lower():
            raise ToolError("conflict", f'SKU "{sku}" already exists as {p["id"]}.', {"productId": p["id"]})
    product_id = next_id(state, "PRD")
    product: dict[str, Any] = {"id": product_id, "sku": sku}
    product["name"] = read_string(args, "name")
    product["category"] = read_string(args, "category")
    product["uom"] = read_enum(args, "uom", UOM)
    product["standardCost"] = money(read_number(args, "standardCost", minimum=0))
    product["listPrice"] = money(read_number(args, "listPrice", minimum=0))
    product["status"] = "active"
    product["reorderPoint"] = _or(read_optional_number(args, "reorderPoint", minimum=0, integer=True), 0)
    product["reorderQuantity"] = _or(read_optional_number(args, "reorderQuantity", minimum=0, integer=True), 0)
    product["leadTimeDays"] = _or(read_optional_number(args, "leadTimeDays", minimum=0, integer=True), 14)
    product["preferredVendorIds"] = []
    product["isStocked"] = True
    state["products"][product_id] = product
    audit(state, user["id"], "product.created", "product", product_id, f"Created product {sku}")
    return product


create_product = define_tool(
    name="create_product",
    description=(
        "Add an active catalogue product with a unique SKU (case-insensitive), unit, cost and price. "
        "No inventory record is created until stock moves. Reorder point and quantity default to 0, "
        "lead time to 14 days. Audited."
    ),
    input_schema=schema(
        {
            "sku": string_prop("Stock-keeping unit code, unique."),
            "name": string_prop("Product name."),
            "category": string_prop("Catalogue category."),
            "uom": enum_prop(UOM, "Unit of measure."),
            "standardCost": number_prop("Standard purchase cost per unit.", minimum=0),
            "listPrice": number_prop("Selling price per unit.", minimum=0),
            "reorderPoint": integer_prop("Stock level that should trigger a reorder.", minimum=0),
            "reorderQuantity": integer_prop("Usual reorder quantity.", minimum=0),
            "leadTimeDays": integer_prop("Replenishment lead time in days.", minimum=0),
            "actorUserId": string_prop(_ACTOR),
        },
        ["sku", "name", "category", "uom", "standardCost", "listPrice", "actorUserId"],
    ),
    run=_create_product,
)


def _update_product(state: State, args: Args) -> Any:
    user = actor(state, args)
    product = require_product(state, read_string(args, "productId"))
    changes: list[dict[str, Any]] = []
    for field in ("listPrice", "standardCost"):
        value = read_optional_number(args, field, minimum=0)
        if value is not None:
            changes.append({"field": field, "from": product[field]["amount"], "to": value})
            product[field] = money(value, product[field]["currency"])
    for field in ("reorderPoint", "reorderQuantity", "leadTimeDays"):
        value = read_optional_number(args, field, minimum=0, integer=True)
        if value is not None:
            changes.append({"field": field, "from": product[field], "to": value})
            product[field] = value
    given = args.get("preferredVendorIds")
    if isinstance(given, list):
        vendor_ids = [str(v) for v in given]
        for vendor_id in vendor_ids:
            require_vendor(state, vendor_id)
        changes.append({"field": "preferredVendorIds", "from": product["preferredVendorIds"], "to": vendor_ids})
        product["preferredVendorIds"] = vendor_ids
    if not changes:
        raise ToolError("invalid_input", "No product fields were supplied to update.")
    audit(state, user["id"], "product.updated", "product", product["id"], f"Updated {product['sku']}", changes)
    return product


update_product = define_tool(
    name="update_product",
    description=(
        "Change a product's list price, standard cost, reorder point, reorder quantity, lead time or "
        "preferred vendors (the list is replaced; each vendor must exist). Give at least one field; "
        "each given field is listed in the audit entry."
    ),
    input_schema=schema(
        {
            "productId": string_prop(_PRODUCT_ID),
            "listPrice": number_prop("New selling price per unit.", minimum=0),
            "standardCost": number_prop("New standard cost per unit.", minimum=0),
            "reorderPoint": integer_prop("New reorder point.", minimum=0),
            "reorderQuantity": integer_prop("New reorder quantity.", minimum=0),
            "leadTimeDays": integer_prop("New lead time in days.", minimum=0),
            "preferredVendorIds": array_prop("Replacement list of preferred vendor ids.", {"type": "string"}),
            "actorUserId": string_prop(_ACTOR),
        },
        ["productId", "actorUserId"],
    ),
    run=_update_product,
)


def _discontinue_product(state: State, args: Args) -> Any:
    user = actor(state, args)
    product = require_product(state, read_string(args, "productId"))
    pid = product["id"]
    if product["status"] == "discontinued":
        raise ToolError("invalid_state", f"Product {pid} is already discontinued.")
    purchase = [
        o["id"]
        for o in state["purchaseOrders"].values()
        if o["status"] in ("sent", "approved", "partially_received", "pending_approval")
        for line in o["lines"]
        if line["productId"] == pid and line["quantityReceived"] < line["quantityOrdered"]
    ]
    sales = [
        o["id"]
        for o in state["salesOrders"].values()
        if o["status"] in ("confirmed", "partially_fulfilled", "draft")
        for line in o["lines"]
        if line["productId"] == pid and line["quantityFulfilled"] < line["quantityOrdered"]
    ]
    if purchase or sales:
        raise ToolError(
            "invalid_state",
            f"Product {pid} still has {len(purchase)} open purchase line(s) and {len(sales)} open sales line(s).",
            {"purchaseOrders": purchase, "salesOrders": sales},
        )
    product["status"] = "discontinued"
    audit(
        state, user["id"], "product.discontinued", "product", pid, f"Discontinued {product['sku']}",
        [{"field": "status", "from": "active", "to": "discontinued"}],
    )
    return product


discontinue_product = define_tool(
    name="discontinue_product",
    description=(
        "Retire a product from the catalogue; refused while open purchase or sales order lines still "
        "use it (the error lists those orders). Audited."
    ),
    input_schema=schema(
        {"productId": string_prop(_PRODUCT_ID), "actorUserId": string_prop(_ACTOR)}, ["productId", "actorUserId"]
    ),
    run=_discontinue_product,
)


def _get_product_availability(state: State, args: Args) -> Any:
    product = require_product(state, read_string(args, "productId"))
    records = sorted(linked_records(state, "inventory", "productId", product["id"]), key=lambda r: r["warehouseId"])
    rows = []
    for r in records:
        warehouse = state["warehouses"].get(r["warehouseId"])
        reorder = effective_reorder_point(r, product)
        rows.append(
            {
                "warehouseId": r["warehouseId"],
                "warehouseName": warehouse["name"] if warehouse is not None else r["warehouseId"],
                "quantityOnHand": r["quantityOnHand"],
                "quantityReserved": r["quantityReserved"],
                "quantityAvailable": available_quantity(r),
                "quantityInbound": r["quantityInbound"],
                "reorderPoint": reorder,
                "belowReorderPoint": r["quantityOnHand"] < reorder,
            }
        )
    return {
        "productId": product["id"],
        "sku": product["sku"],
        "name": product["name"],
        "uom": product["uom"],
        "totalOnHand": sum(r["quantityOnHand"] for r in rows),
        "totalAvailable": sum(r["quantityAvailable"] for r in rows),
        "totalInbound": sum(r["quantityInbound"] for r in rows),
        "byWarehouse": rows,
    }


get_product_availability = define_tool(
    name="get_product_availability",
    description=(
        "Stock of one product in every warehouse that holds a record of it (sorted by warehouse id): "
        "on hand, reserved, available (on hand minus reserved), inbound on sent purchase orders, the "
        "reorder point and whether stock is below it; plus the totals. Read-only."
    ),
    input_schema=schema({"productId": string_prop(_PRODUCT_ID)}, ["productId"]),
    run=_get_product_availability,
)


def _get_product_pricing(state: State, args: Args) -> Any:
    product = require_product(state, read_string(args, "productId"))
    last: dict[str, dict[str, Any]] = {}
    for order in state["purchaseOrders"].values():
        if order["status"] in ("cancelled", "draft"):
            continue
        for line in order["lines"]:
            if line["productId"] != product["id"]:
                continue
            kept = last.get(order["vendorId"])
            if kept is None or kept["date"] < order["createdAt"]:
                last[order["vendorId"]] = {
                    "vendorId": order["vendorId"],
                    "unitPrice": line["unitPrice"]["amount"],
                    "purchaseOrderId": order["id"],
                    "date": order["createdAt"],
                }
    list_price = product["listPrice"]["amount"]
    margin = list_price - product["standardCost"]["amount"]
    return {
        "productId": product["id"],
        "sku": product["sku"],
        "listPrice": product["listPrice"],
        "standardCost": product["standardCost"],
        "marginAmount": money(margin),
        "marginPercent": 0 if list_price == 0 else js_round(margin / list_price * 1000) / 10,
        "preferredVendorIds": product["preferredVendorIds"],
        "lastPurchasePriceByVendor": sorted(last.values(), key=lambda r: r["vendorId"]),
    }


get_product_pricing = define_tool(
    name="get_product_pricing",
    description=(
        "A product's list price, standard cost, margin (amount and percent of price), preferred "
        "vendors and, per vendor, the unit price on its latest non-draft, non-cancelled purchase "
        "order. Read-only."
    ),
    input_schema=schema({"productId": string_prop(_PRODUCT_ID)}, ["productId"]),
    run=_get_product_pricing,
)

TOOLS = [
    list_products,
    search_products,
    get_product,
    create_product,
    update_product,
    discontinue_product,
    get_product_availability,
    get_product_pricing,
]
