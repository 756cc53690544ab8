"""Inventory tools (erp-tools.md §7.6): seed figures, stock moves, movements, and the partial writes
the reference leaves behind."""

from __future__ import annotations

from types import ModuleType

import pytest

from . import World, load_erp
from .tools_a import world


@pytest.fixture(scope="module")
def env() -> ModuleType:
    return load_erp()


@pytest.fixture
def w(env: ModuleType) -> World:
    return world(env)


def test_low_stock_is_sorted_by_shortfall(w):
    out = w.ok("list_low_stock")
    assert [(r["productId"], r["warehouseId"], r["shortfall"]) for r in out["results"]] == [
        ("PRD-010", "WH-002", 160),
        ("PRD-019", "WH-001", 25),
        ("PRD-003", "WH-001", 20),
        ("PRD-012", "WH-001", 18),
        ("PRD-020", "WH-001", 17),
        ("PRD-022", "WH-002", 6),
        ("PRD-016", "WH-003", 4),
    ]
    assert w.ok("list_inventory", {"lowStockOnly": True})["total"] == 7


def test_get_warehouse_summary(w):
    out = w.ok("get_warehouse", {"warehouseId": "WH-002"})
    assert (out["distinctProducts"], out["totalUnitsOnHand"], out["totalUnitsReserved"]) == (16, 3237, 40)
    assert [r["id"] for r in w.ok("list_warehouses")] == ["WH-001", "WH-002", "WH-003", "WH-004"]


def test_find_warehouses_with_stock_needs_a_split(w):
    out = w.ok("find_warehouses_with_stock", {"productId": "PRD-003", "quantity": 150})
    assert [r["warehouseId"] for r in out["warehouses"]] == ["WH-002", "WH-001", "WH-003"]
    assert out["totalAvailable"] == 215 and out["singleWarehouseOption"] is None
    assert out["requiresSplitAcrossWarehouses"] is True
    one = w.ok("find_warehouses_with_stock", {"productId": "PRD-003", "quantity": 100})
    assert one["singleWarehouseOption"] == "WH-002" and one["requiresSplitAcrossWarehouses"] is False


def test_get_inventory_and_available_quantity(w):
    one = w.ok("get_available_quantity", {"productId": "PRD-004", "warehouseId": "WH-002"})
    assert one["quantityReserved"] == 40 and one["quantityAvailable"] == one["quantityOnHand"] - 40
    err = w.err("get_inventory", {"productId": "PRD-007", "warehouseId": "WH-002"})
    assert err == {"code": "not_found", "message": 'No inventory record for product "PRD-007" at warehouse "WH-002".'}


def test_transfer_inventory_moves_stock_and_posts_two_movements(w):
    out = w.ok(
        "transfer_inventory",
        {"productId": "PRD-003", "fromWarehouseId": "WH-002", "toWarehouseId": "WH-001", "quantity": 30, "actorUserId": "USR-005"},
    )
    assert out["transferId"] == "TRF-002"
    assert out["from"]["quantityOnHand"] == 90 and out["to"]["quantityOnHand"] == 90
    moves = [w.state["inventoryMovements"][m] for m in ("MOV-021", "MOV-022")]
    assert [(m["type"], m["quantityDelta"], m["referenceId"], m["note"]) for m in moves] == [
        ("transfer_out", -30, "TRF-002", "Stock transfer"),
        ("transfer_in", 30, "TRF-002", "Stock transfer"),
    ]
    entry = w.state["auditLog"][-1]
    assert entry["entityId"] == "STK-PRD-003-WH-001"
    assert entry["summary"] == "Transferred 30 of PRD-003 from WH-002 to WH-001"


def test_transfer_refuses_reserved_units(w):
    err = w.err(
        "transfer_inventory",
        {"productId": "PRD-004", "fromWarehouseId": "WH-002", "toWarehouseId": "WH-001", "quantity": 10_000,
         "actorUserId": "USR-005"},
    )
    assert err["code"] == "insufficient_stock" and err["details"]["requested"] == 10_000
    assert "(40 reserved)" in err["message"]
    same = w.err(
        "transfer_inventory",
        {"productId": "PRD-004", "fromWarehouseId": "WH-002", "toWarehouseId": "WH-002", "quantity": 1, "actorUserId": "USR-005"},
    )
    assert same == {"code": "invalid_input", "message": "Source and destination warehouses must differ."}


def test_adjust_inventory(w):
    out = w.ok(
        "adjust_inventory",
        {"productId": "PRD-003", "warehouseId": "WH-001", "quantityDelta": -5, "reason": "Damaged", "actorUserId": "USR-005"},
    )
    assert out["adjustmentId"] == "ADJ-002" and out["movementId"] == "MOV-021"
    assert out["inventory"]["quantityOnHand"] == 55
    entry = w.state["auditLog"][-1]
    assert entry["summary"] == "Adjusted PRD-003 at WH-001 by -5: Damaged"
    assert entry["changes"] == [{"field": "quantityOnHand", "from": 60, "to": 55}]
    zero = w.err(
        "adjust_inventory",
        {"productId": "PRD-003", "warehouseId": "WH-001", "quantityDelta": 0, "reason": "x", "actorUserId": "USR-005"},
    )
    assert zero == {"code": "invalid_input", "message": '"quantityDelta" must not be zero.'}


def test_failed_adjustment_keeps_the_new_empty_record(w):
    err = w.err(
        "adjust_inventory",
        {"productId": "PRD-007", "warehouseId": "WH-002", "quantityDelta": -1, "reason": "x", "actorUserId": "USR-005"},
    )
    assert err["code"] == "insufficient_stock"
    record = w.state["inventory"]["STK-PRD-007-WH-002"]
    assert record["quantityOnHand"] == 0 and record["binLocation"] == "UNASSIGNED"
    assert w.state["sequences"]["ADJ"] == 2  # the adjustment id was taken before the stock check


def test_reserve_and_release_write_no_audit(w):
    audits = len(w.state["auditLog"])
    out = w.ok("reserve_inventory", {"productId": "PRD-003", "warehouseId": "WH-001", "quantity": 10, "actorUserId": "USR-005"})
    assert out["quantityReserved"] == 10 and out["quantityAvailable"] == 50
    assert w.state["inventoryMovements"]["MOV-021"]["referenceType"] == "manual"
    err = w.err(
        "release_reservation", {"productId": "PRD-003", "warehouseId": "WH-001", "quantity": 11, "actorUserId": "USR-005"}
    )
    assert err["code"] == "invalid_state"
    assert err["message"] == "Cannot release 11 of PRD-003 at WH-001: only 10 reserved."
    w.ok("release_reservation", {"productId": "PRD-003", "warehouseId": "WH-001", "quantity": 10, "actorUserId": "USR-005"})
    assert len(w.state["auditLog"]) == audits


def test_count_inventory_posts_the_variance(w):
    out = w.ok("count_inventory", {"productId": "PRD-003", "warehouseId": "WH-001", "countedQuantity": 64, "actorUserId": "USR-012"})
    assert out["variance"] == 4 and out["inventory"]["quantityOnHand"] == 64
    assert w.state["inventory"]["STK-PRD-003-WH-001"]["lastCountedAt"] == "2026-03-16T09:00:00.000Z"
    move = w.state["inventoryMovements"]["MOV-021"]
    assert move["referenceId"] == "ADJ-002" and move["note"] == "Physical count variance"
    low = w.err("count_inventory", {"productId": "PRD-004", "warehouseId": "WH-002", "countedQuantity": 39, "actorUserId": "USR-012"})
    assert low["message"] == "Counted quantity 39 is below the 40 units already reserved."


def test_movements_newest_first_and_lookup(w):
    out = w.ok("list_inventory_movements", {"limit": 500})
    dates = [m["occurredAt"] for m in out["results"]]
    assert dates == sorted(dates, reverse=True) and out["total"] == 20
    err = w.err("get_inventory_movement", {"movementId": "MOV-999"})
    assert err == {"code": "not_found", "message": 'Inventory movement "MOV-999" was not found.'}
