"""Inventory tools (erp-tools.md §7.6, tools 28-41): warehouses, stock records and movements."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, available_quantity, effective_reorder_point, next_id
from .helpers import (
    actor,
    apply_stock_change,
    audit,
    boolean_prop,
    ensure_inventory,
    flag,
    integer_prop,
    inventory_summary,
    linked_ids,
    linked_records,
    ordered_records,
    page_records,
    paginate,
    paging_props,
    read_number,
    read_optional_string,
    read_string,
    require_inventory,
    require_movement,
    require_product,
    require_warehouse,
    schema,
    string_prop,
)

Args = dict[str, Any]

_ACTOR = "Id of the user making the change (for example USR-001); must be an active user."
_PRODUCT_ID = "The product's id, for example PRD-001."
_WAREHOUSE_ID = "The warehouse's id, for example WH-001."


def _warehouse_name(state: State, warehouse_id: str) -> str:
    warehouse = state["warehouses"].get(warehouse_id)
    return warehouse["name"] if warehouse is not None else warehouse_id  # type: ignore[no-any-return]


def _list_warehouses(state: State, args: Args) -> Any:
    active_only = flag(args, "activeOnly")
    return [
        {
            "id": w["id"],
            "code": w["code"],
            "name": w["name"],
            "type": w["type"],
            "city": w["address"]["city"],
            "managerUserId": w["managerUserId"],
            "isActive": w["isActive"],
        }
        for w in ordered_records(state, "warehouses")
        if not active_only or w["isActive"]
    ]


list_warehouses = define_tool(
    name="list_warehouses",
    description=(
        "Every warehouse (not paged), sorted by id: code, name, type, city, manager and whether it is "
        "active. Read-only."
    ),
    input_schema=schema({"activeOnly": boolean_prop("When true, only active warehouses.")}, []),
    run=_list_warehouses,
)


def _get_warehouse(state: State, args: Args) -> Any:
    warehouse = require_warehouse(state, read_string(args, "warehouseId"))
    records = linked_records(state, "inventory", "warehouseId", warehouse["id"], sort=False)
    return {
        **warehouse,
        "distinctProducts": len(records),
        "totalUnitsOnHand": sum(r["quantityOnHand"] for r in records),
        "totalUnitsReserved": sum(r["quantityReserved"] for r in records),
    }


get_warehouse = define_tool(
    name="get_warehouse",
    description=(
        "One warehouse in full plus a stock summary: how many products it holds records for and its "
        "units on hand and reserved. Read-only."
    ),
    input_schema=schema({"warehouseId": string_prop(_WAREHOUSE_ID)}, ["warehouseId"]),
    run=_get_warehouse,
)


def _low_threshold(state: State, record: dict[str, Any]) -> Any:
    if record["reorderPoint"] is not None:
        return record["reorderPoint"]
    product = state["products"].get(record["productId"])
    if product is not None and product["reorderPoint"] is not None:
        return product["reorderPoint"]
    return 0


def _list_inventory(state: State, args: Args) -> Any:
    product_id = read_optional_string(args, "productId")
    warehouse_id = read_optional_string(args, "warehouseId")
    low_only = flag(args, "lowStockOnly")
    if product_id is not None:
        require_product(state, product_id)
    if warehouse_id is not None:
        require_warehouse(state, warehouse_id)

    def keep(r: Any) -> bool:
        return (
            (product_id is None or r["productId"] == product_id)
            and (warehouse_id is None or r["warehouseId"] == warehouse_id)
            and (not low_only or r["quantityOnHand"] < _low_threshold(state, r))
        )

    unfiltered = product_id is None and warehouse_id is None and not low_only
    ids = None
    if product_id is not None:
        ids = linked_ids(state, "inventory", "productId", product_id)
    elif warehouse_id is not None:
        ids = linked_ids(state, "inventory", "warehouseId", warehouse_id)
    page = page_records(state, "inventory", args, None if unfiltered else keep, ids)
    return {**page, "results": [inventory_summary(state, r) for r in page["results"]]}


list_inventory = define_tool(
    name="list_inventory",
    description=(
        "Stock records sorted by record id (STK-<product>-<warehouse>), a page at a time, optionally "
        "for one product, one warehouse, or only those strictly below their reorder point. Each row: "
        "on hand, reserved, available, inbound, reorder point, bin. Read-only."
    ),
    input_schema=schema(
        {
            "productId": string_prop("Only records of this product."),
            "warehouseId": string_prop("Only records at this warehouse."),
            "lowStockOnly": boolean_prop("When true, only records whose on-hand stock is below the reorder point."),
            **paging_props(),
        },
        [],
    ),
    run=_list_inventory,
)


def _get_inventory(state: State, args: Args) -> Any:
    record = require_inventory(state, read_string(args, "productId"), read_string(args, "warehouseId"))
    return inventory_summary(state, record)


get_inventory = define_tool(
    name="get_inventory",
    description=(
        "The stock record of one product at one warehouse: on hand, reserved, available, inbound, "
        "reorder point and bin. Read-only."
    ),
    input_schema=schema(
        {"productId": string_prop(_PRODUCT_ID), "warehouseId": string_prop(_WAREHOUSE_ID)},
        ["productId", "warehouseId"],
    ),
    run=_get_inventory,
)


def _get_available_quantity(state: State, args: Args) -> Any:
    product = require_product(state, read_string(args, "productId"))
    warehouse_id = read_optional_string(args, "warehouseId")
    if warehouse_id is not None:
        r = require_inventory(state, product["id"], warehouse_id)
        return {
            "productId": product["id"],
            "warehouseId": warehouse_id,
            "quantityOnHand": r["quantityOnHand"],
            "quantityReserved": r["quantityReserved"],
            "quantityAvailable": available_quantity(r),
        }
    records = linked_records(state, "inventory", "productId", product["id"], sort=False)
    return {
        "productId": product["id"],
        "quantityOnHand": sum(r["quantityOnHand"] for r in records),
        "quantityReserved": sum(r["quantityReserved"] for r in records),
        "quantityAvailable": sum(available_quantity(r) for r in records),
        "warehouses": [
            {"warehouseId": r["warehouseId"], "quantityAvailable": available_quantity(r)}
            for r in sorted(records, key=lambda r: r["warehouseId"])
        ],
    }


get_available_quantity = define_tool(
    name="get_available_quantity",
    description=(
        "Free stock (on hand minus reserved) of a product at one warehouse, or, without a warehouse, "
        "summed over all warehouses with a per-warehouse breakdown. Read-only."
    ),
    input_schema=schema(
        {"productId": string_prop(_PRODUCT_ID), "warehouseId": string_prop("A warehouse id; omit for all warehouses.")},
        ["productId"],
    ),
    run=_get_available_quantity,
)


def _list_low_stock(state: State, args: Args) -> Any:
    warehouse_id = read_optional_string(args, "warehouseId")
    if warehouse_id is not None:
        require_warehouse(state, warehouse_id)
    rows = []
    if warehouse_id is None:
        pool: Any = state["inventory"].values()
    else:
        pool = linked_records(state, "inventory", "warehouseId", warehouse_id, sort=False)
    for r in pool:
        product = state["products"].get(r["productId"])
        if product is None:
            continue
        reorder = effective_reorder_point(r, product)
        if not r["quantityOnHand"] < reorder:
            continue
        rows.append(
            {
                "productId": r["productId"],
                "sku": product["sku"],
                "name": product["name"],
                "warehouseId": r["warehouseId"],
                "quantityOnHand": r["quantityOnHand"],
                "quantityAvailable": available_quantity(r),
                "quantityInbound": r["quantityInbound"],
                "reorderPoint": reorder,
                "shortfall": reorder - r["quantityOnHand"],
                "suggestedOrderQuantity": product["reorderQuantity"],
                "preferredVendorIds": product["preferredVendorIds"],
            }
        )
    rows.sort(key=lambda row: row["shortfall"], reverse=True)
    return paginate(rows, args)


list_low_stock = define_tool(
    name="list_low_stock",
    description=(
        "Stock records strictly below their reorder point (the record's own, else the product's), "
        "largest shortfall first, a page at a time, optionally at one warehouse; each with the "
        "shortfall, inbound units, suggested order quantity and preferred vendors. Read-only."
    ),
    input_schema=schema(
        {"warehouseId": string_prop("Only this warehouse."), **paging_props()},
        [],
    ),
    run=_list_low_stock,
)


def _adjust_inventory(state: State, args: Args) -> Any:
    user = actor(state, args)
    product_id = read_string(args, "productId")
    warehouse_id = read_string(args, "warehouseId")
    delta = read_number(args, "quantityDelta", integer=True)
    reason = read_string(args, "reason")
    if delta == 0:
        raise ToolError("invalid_input", '"quantityDelta" must not be zero.')
    require_product(state, product_id)
    require_warehouse(state, warehouse_id)
    adjustment_id = next_id(state, "ADJ")
    movement = apply_stock_change(
        state,
        product_id=product_id,
        warehouse_id=warehouse_id,
        quantity_delta=delta,
        reserved_delta=0,
        type="adjustment",
        reference_type="adjustment",
        reference_id=adjustment_id,
        actor_user_id=user["id"],
        note=reason,
    )
    record = require_inventory(state, product_id, warehouse_id)
    on_hand = record["quantityOnHand"]
    audit(
        state, user["id"], "inventory.adjusted", "inventory", record["id"],
        f"Adjusted {product_id} at {warehouse_id} by {delta}: {reason}",
        [{"field": "quantityOnHand", "from": on_hand - delta, "to": on_hand}],
    )
    return {"adjustmentId": adjustment_id, "movementId": movement["id"], "inventory": inventory_summary(state, record)}


adjust_inventory = define_tool(
    name="adjust_inventory",
    description=(
        "Correct on-hand stock of a product at a warehouse by a signed, non-zero whole amount (a count "
        "correction or write-off); on hand may not go below zero or below the reserved units. Posts "
        "an adjustment movement. Audited."
    ),
    input_schema=schema(
        {
            "productId": string_prop(_PRODUCT_ID),
            "warehouseId": string_prop(_WAREHOUSE_ID),
            "quantityDelta": integer_prop("Signed change to on-hand units; negative reduces stock."),
            "reason": string_prop("Why the stock is corrected."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["productId", "warehouseId", "quantityDelta", "reason", "actorUserId"],
    ),
    run=_adjust_inventory,
)


def _transfer_inventory(state: State, args: Args) -> Any:
    user = actor(state, args)
    product_id = read_string(args, "productId")
    source_id = read_string(args, "fromWarehouseId")
    target_id = read_string(args, "toWarehouseId")
    quantity = read_number(args, "quantity", minimum=1, integer=True)
    reason = read_optional_string(args, "reason") or "Stock transfer"
    if source_id == target_id:
        raise ToolError("invalid_input", "Source and destination warehouses must differ.")
    require_product(state, product_id)
    require_warehouse(state, source_id)
    target = require_warehouse(state, target_id)
    if not target["isActive"]:
        raise ToolError("not_allowed", f"Warehouse {target_id} is not active.")
    source = require_inventory(state, product_id, source_id)
    free = available_quantity(source)
    if free < quantity:
        raise ToolError(
            "insufficient_stock",
            f"Only {free} units of {product_id} are available at {source_id} ({source['quantityReserved']} reserved).",
            {"available": free, "requested": quantity},
        )
    transfer_id = next_id(state, "TRF")
    for warehouse_id, delta, kind in ((source_id, -quantity, "transfer_out"), (target_id, quantity, "transfer_in")):
        apply_stock_change(
            state,
            product_id=product_id,
            warehouse_id=warehouse_id,
            quantity_delta=delta,
            reserved_delta=0,
            type=kind,
            reference_type="transfer",
            reference_id=transfer_id,
            actor_user_id=user["id"],
            note=reason,
        )
    destination = require_inventory(state, product_id, target_id)
    audit(
        state, user["id"], "inventory.transferred", "inventory", destination["id"],
        f"Transferred {quantity} of {product_id} from {source_id} to {target_id}",
    )
    return {
        "transferId": transfer_id,
        "productId": product_id,
        "quantity": quantity,
        "from": inventory_summary(state, source),
        "to": inventory_summary(state, destination),
    }


transfer_inventory = define_tool(
    name="transfer_inventory",
    description=(
        "Move unreserved stock of a product from one warehouse to another (active) warehouse; posts a "
        "transfer_out and a transfer_in movement and creates the destination record when missing. "
        "Audited."
    ),
    input_schema=schema(
        {
            "productId": string_prop(_PRODUCT_ID),
            "fromWarehouseId": string_prop("Warehouse the stock leaves."),
            "toWarehouseId": string_prop("Warehouse the stock goes to."),
            "quantity": integer_prop("Units to move.", minimum=1),
            "reason": string_prop("Why (default: Stock transfer)."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["productId", "fromWarehouseId", "toWarehouseId", "quantity", "actorUserId"],
    ),
    run=_transfer_inventory,
)


def _reservation(state: State, args: Args, release: bool) -> Any:
    user = actor(state, args)
    product_id = read_string(args, "productId")
    warehouse_id = read_string(args, "warehouseId")
    quantity = read_number(args, "quantity", minimum=1, integer=True)
    reference_id = read_optional_string(args, "referenceId")
    apply_stock_change(
        state,
        product_id=product_id,
        warehouse_id=warehouse_id,
        quantity_delta=0,
        reserved_delta=-quantity if release else quantity,
        type="release" if release else "reservation",
        reference_type="sales_order" if reference_id else "manual",
        reference_id=reference_id,
        actor_user_id=user["id"],
        note=f"Released {quantity} reserved units" if release else f"Reserved {quantity} units",
    )
    return inventory_summary(state, require_inventory(state, product_id, warehouse_id))


def _reserve_inventory(state: State, args: Args) -> Any:
    return _reservation(state, args, release=False)


def _release_reservation(state: State, args: Args) -> Any:
    return _reservation(state, args, release=True)


def _reservation_schema() -> dict[str, Any]:
    return schema(
        {
            "productId": string_prop(_PRODUCT_ID),
            "warehouseId": string_prop(_WAREHOUSE_ID),
            "quantity": integer_prop("Units.", minimum=1),
            "referenceId": string_prop("What the reservation is for, e.g. a sales order id."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["productId", "warehouseId", "quantity", "actorUserId"],
    )


reserve_inventory = define_tool(
    name="reserve_inventory",
    description=(
        "Hold available stock of a product at one warehouse; reserved units stay on hand but cannot "
        "be transferred or reserved again. Posts a reservation movement; it does not change any sales "
        "order line and writes no audit entry."
    ),
    input_schema=_reservation_schema(),
    run=_reserve_inventory,
)

release_reservation = define_tool(
    name="release_reservation",
    description=(
        "Return reserved stock of a product at one warehouse to available (at most what is reserved). "
        "Posts a release movement; no sales order line or audit entry is written."
    ),
    input_schema=_reservation_schema(),
    run=_release_reservation,
)


def _count_inventory(state: State, args: Args) -> Any:
    user = actor(state, args)
    product_id = read_string(args, "productId")
    warehouse_id = read_string(args, "warehouseId")
    counted = read_number(args, "countedQuantity", minimum=0, integer=True)
    record = ensure_inventory(state, product_id, warehouse_id)
    variance = counted - record["quantityOnHand"]
    if counted < record["quantityReserved"]:
        raise ToolError(
            "invalid_state",
            f"Counted quantity {counted} is below the {record['quantityReserved']} units already reserved.",
            {"reserved": record["quantityReserved"]},
        )
    if variance != 0:
        apply_stock_change(
            state,
            product_id=product_id,
            warehouse_id=warehouse_id,
            quantity_delta=variance,
            reserved_delta=0,
            type="adjustment",
            reference_type="adjustment",
            reference_id=next_id(state, "ADJ"),
            actor_user_id=user["id"],
            note="Physical count variance",
        )
    record["lastCountedAt"] = state["now"]
    audit(
        state, user["id"], "inventory.counted", "inventory", record["id"],
        f"Counted {product_id} at {warehouse_id}: variance {variance}",
    )
    return {"variance": variance, "inventory": inventory_summary(state, record)}


count_inventory = define_tool(
    name="count_inventory",
    description=(
        "Record a physical count: on hand becomes the counted quantity (never below the reserved "
        "units), the difference is posted as an adjustment movement, and the count date is stamped. "
        "Audited."
    ),
    input_schema=schema(
        {
            "productId": string_prop(_PRODUCT_ID),
            "warehouseId": string_prop(_WAREHOUSE_ID),
            "countedQuantity": integer_prop("Units physically counted.", minimum=0),
            "actorUserId": string_prop("Id of the user who counted; must be an active user."),
        },
        ["productId", "warehouseId", "countedQuantity", "actorUserId"],
    ),
    run=_count_inventory,
)


def _list_inventory_movements(state: State, args: Args) -> Any:
    filters = [(key, read_optional_string(args, key)) for key in ("productId", "warehouseId", "type", "referenceId")]
    pool: Any = state["inventoryMovements"].values()
    for key, value in filters:
        if value is not None and key != "type":  # a movement's links never change; its type is no link
            pool = linked_records(state, "inventoryMovements", key, value, sort=False)
            break
    rows = [m for m in pool if all(value is None or m[key] == value for key, value in filters)]
    rows.sort(key=lambda m: m["occurredAt"], reverse=True)
    return paginate(rows, args)


list_inventory_movements = define_tool(
    name="list_inventory_movements",
    description=(
        "Stock movements, newest first, a page at a time, optionally only those of a product, a "
        "warehouse, a movement type (receipt, issue, transfer_out, transfer_in, adjustment, "
        "reservation, release, return) or a reference id. Read-only."
    ),
    input_schema=schema(
        {
            "productId": string_prop("Only movements of this product."),
            "warehouseId": string_prop("Only movements at this warehouse."),
            "type": string_prop("Only movements of this type."),
            "referenceId": string_prop("Only movements for this document or reference."),
            **paging_props(),
        },
        [],
    ),
    run=_list_inventory_movements,
)


def _get_inventory_movement(state: State, args: Args) -> Any:
    return require_movement(state, read_string(args, "movementId"))


get_inventory_movement = define_tool(
    name="get_inventory_movement",
    description="One stock movement in full. Read-only.",
    input_schema=schema({"movementId": string_prop("The movement's id, for example MOV-001.")}, ["movementId"]),
    run=_get_inventory_movement,
)


def _find_warehouses_with_stock(state: State, args: Args) -> Any:
    product = require_product(state, read_string(args, "productId"))
    quantity = read_number(args, "quantity", minimum=1, integer=True)
    rows = [
        {
            "warehouseId": r["warehouseId"],
            "warehouseName": _warehouse_name(state, r["warehouseId"]),
            "quantityAvailable": available_quantity(r),
            "coversRequirement": available_quantity(r) >= quantity,
        }
        for r in linked_records(state, "inventory", "productId", product["id"], sort=False)
        if available_quantity(r) > 0
    ]
    rows.sort(key=lambda row: row["quantityAvailable"], reverse=True)
    total = sum(row["quantityAvailable"] for row in rows)
    covering = next((row["warehouseId"] for row in rows if row["coversRequirement"]), None)
    return {
        "productId": product["id"],
        "quantityRequired": quantity,
        "totalAvailable": total,
        "singleWarehouseOption": covering,
        "requiresSplitAcrossWarehouses": total >= quantity and covering is None,
        "warehouses": rows,
    }


find_warehouses_with_stock = define_tool(
    name="find_warehouses_with_stock",
    description=(
        "Which warehouses have free stock of a product, largest first, whether each covers the "
        "quantity alone, the first that does, and whether the quantity needs a split across "
        "warehouses. Read-only."
    ),
    input_schema=schema(
        {"productId": string_prop(_PRODUCT_ID), "quantity": integer_prop("Units needed.", minimum=1)},
        ["productId", "quantity"],
    ),
    run=_find_warehouses_with_stock,
)

TOOLS = [
    list_warehouses,
    get_warehouse,
    list_inventory,
    get_inventory,
    get_available_quantity,
    list_low_stock,
    adjust_inventory,
    transfer_inventory,
    reserve_inventory,
    release_reservation,
    count_inventory,
    list_inventory_movements,
    get_inventory_movement,
    find_warehouses_with_stock,
]
