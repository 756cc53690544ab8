"""The ERP world's data, load-time derivation and seed aggregates (erp-world.md §1-§5)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from . import ENV_DIR, load_erp, submodule

ENV = load_erp()
STATE = submodule(ENV, "state")
INTEGRITY = submodule(ENV, "integrity")

KEYS = [
    "now", "company", "departments", "users", "vendors", "customers", "products", "warehouses",
    "inventory", "inventoryMovements", "requisitions", "approvals", "rfqs", "quotations",
    "purchaseOrders", "goodsReceipts", "receivingDiscrepancies", "vendorInvoices", "threeWayMatches",
    "payments", "salesOrders", "fulfillments", "customerInvoices", "expenses", "budgets", "auditLog",
    "sequences",
]  # fmt: skip

COUNTS = {
    "departments": 6, "users": 13, "vendors": 12, "customers": 12, "products": 22, "warehouses": 4,
    "inventory": 54, "inventoryMovements": 20, "requisitions": 6, "approvals": 25, "rfqs": 4,
    "quotations": 7, "purchaseOrders": 9, "goodsReceipts": 6, "receivingDiscrepancies": 2,
    "vendorInvoices": 8, "threeWayMatches": 6, "payments": 6, "salesOrders": 8, "fulfillments": 3,
    "customerInvoices": 7, "expenses": 5, "budgets": 6, "auditLog": 20, "sequences": 24,
}  # fmt: skip


@pytest.fixture()
def world() -> dict[str, Any]:
    return ENV.create_state()


def test_manifest_and_file_counts() -> None:
    manifest = json.loads((ENV_DIR / "silo.environment.json").read_text())
    assert manifest == {
        "name": "erp", "template": "erp", "templateVersion": "0.3.0", "entrypoint": "./__init__.py", "tools": [],
    }  # fmt: skip
    assert len(list((ENV_DIR / "data").glob("*.json"))) == 26
    assert len(list((ENV_DIR / "tasks").glob("TASK-*.json"))) == 18
    assert len(ENV.verifiers) == 18
    assert [v.id for v in ENV.verifiers] == [f"VER-{n:03d}" for n in range(1, 19)]


def test_key_order_and_counts(world: dict[str, Any]) -> None:
    assert list(world) == KEYS
    assert world["now"] == "2026-03-16T09:00:00.000Z"
    assert {k: len(world[k]) for k in COUNTS} == COUNTS
    for key in KEYS[2:-2]:
        assert all(record_id == record["id"] for record_id, record in world[key].items()), key


def test_every_call_is_a_fresh_copy(world: dict[str, Any]) -> None:
    world["vendors"]["VEN-002"]["paymentTerms"] = "NET_15"
    world["auditLog"].append({"id": "AUD-0021"})
    again = ENV.create_state()
    assert again["vendors"]["VEN-002"]["paymentTerms"] == "NET_45"
    assert len(again["auditLog"]) == 20


def test_purchase_order_derivation(world: dict[str, Any]) -> None:
    po = world["purchaseOrders"]["PO-202"]
    assert list(po) == [
        "id", "number", "vendorId", "status", "lines", "warehouseId", "currency", "subtotal", "taxAmount",
        "totalAmount", "requisitionId", "quotationId", "budgetId", "paymentTerms", "createdByUserId", "createdAt",
        "approvalId", "approvedAt", "approvedByUserId", "sentAt", "expectedDeliveryDate", "closedAt", "cancelledAt",
        "cancelReason",
    ]  # fmt: skip
    assert [line["lineTotal"]["amount"] for line in po["lines"]] == [9680, 3960]
    assert (po["subtotal"]["amount"], po["taxAmount"]["amount"], po["totalAmount"]["amount"]) == (
        13640,
        1091.2,
        14731.2,
    )
    assert po["lines"][1]["id"] == "PO-202-L2" and po["lines"][1]["quantityRejected"] == 5
    assert po["totalAmount"] == {"amount": 14731.2, "currency": "USD"}
    assert world["purchaseOrders"]["PO-204"]["lines"][0]["quantityReceived"] == 0
    assert world["purchaseOrders"]["PO-207"]["cancelReason"]


def test_invoice_and_order_derivation(world: dict[str, Any]) -> None:
    vinv = world["vendorInvoices"]
    assert [line["lineTotal"]["amount"] for line in vinv["VINV-102"]["lines"]] == [6050, 3927]
    assert vinv["VINV-102"]["taxAmount"]["amount"] == 798.16
    assert vinv["VINV-102"]["totalAmount"]["amount"] == 10775.16
    assert vinv["VINV-103"]["totalAmount"]["amount"] == 7430.4
    assert vinv["VINV-105"]["goodsReceiptIds"] == [] and vinv["VINV-105"]["purchaseOrderId"] is None
    assert vinv["VINV-101"]["amountPaid"]["amount"] == 5907.6
    assert vinv["VINV-108"]["amountPaid"] == {"amount": 0, "currency": "USD"}
    cinv = world["customerInvoices"]
    assert [cinv[i]["totalAmount"]["amount"] for i in sorted(cinv)] == [
        4482, 3013.2, 45619.2, 2721.6, 12150, 7106.4, 14904,
    ]  # fmt: skip
    so = world["salesOrders"]
    assert [so[i]["totalAmount"]["amount"] for i in sorted(so)] == [
        4482,
        3985.2,
        9936,
        3348,
        7128,
        5443.2,
        6075,
        2937.6,
    ]
    quotes = world["quotations"]
    assert [quotes[i]["totalAmount"]["amount"] for i in sorted(quotes)] == [
        5470,
        5745,
        5805,
        7365,
        7200,
        7330,
        9480,
    ]
    assert "taxAmount" not in quotes["QUO-006"]


def test_every_approval_amount_equals_its_document_total(world: dict[str, Any]) -> None:
    where = {
        "requisition": ("requisitions", "estimatedTotal"),
        "purchase_order": ("purchaseOrders", "totalAmount"),
        "vendor_invoice": ("vendorInvoices", "totalAmount"),
        "payment": ("payments", "amount"),
        "expense": ("expenses", "amount"),
    }
    for approval in world["approvals"].values():
        collection, field = where[approval["entityType"]]
        assert world[collection][approval["entityId"]][field] == approval["amount"], approval["id"]


def test_seed_aggregates(world: dict[str, Any]) -> None:
    now = world["now"]
    overdue_ar = [i for i, inv in world["customerInvoices"].items() if STATE.is_overdue(inv, now)]
    assert overdue_ar == ["CINV-403", "CINV-404", "CINV-407"]
    overdue_ap = [i for i, inv in world["vendorInvoices"].items() if STATE.is_overdue(inv, now)]
    assert overdue_ap == ["VINV-108"]
    available = {b: STATE.budget_available(x)["amount"] for b, x in world["budgets"].items()}
    assert available == {
        "BUD-001": 26758.8, "BUD-002": 383624.64, "BUD-003": 55500, "BUD-004": 2400, "BUD-005": 51819, "BUD-006": 30880,
    }  # fmt: skip
    on_hand = {}
    for record in world["inventory"].values():
        on_hand[record["warehouseId"]] = on_hand.get(record["warehouseId"], 0) + record["quantityOnHand"]
    assert on_hand == {"WH-001": 8533, "WH-002": 3237, "WH-003": 1019, "WH-004": 2412}
    po203 = world["purchaseOrders"]["PO-203"]["lines"][0]
    assert STATE.uninvoiced_quantity(po203) == -150 and STATE.line_remaining(po203) == 150


def test_next_ids_follow_the_sequences(world: dict[str, Any]) -> None:
    assert STATE.next_id(world, "PO") == "PO-210"
    assert STATE.next_id(world, "AUD", 4) == "AUD-0021"
    assert STATE.next_id(world, "NEW") == "NEW-002"
    assert list(world["sequences"])[-1] == "NEW"
    event = STATE.record_audit(world, "USR-003", "vendor.updated", "vendor", "VEN-002", "Terms changed.")
    assert event["id"] == "AUD-0022" and event["at"] == world["now"] and event["changes"] == []
    assert list(event) == [
        "id",
        "at",
        "actorUserId",
        "action",
        "entityType",
        "entityId",
        "summary",
        "changes",
    ]


def test_money_and_dates() -> None:
    assert STATE.money(0.125) == {"amount": 0.13, "currency": "USD"}
    assert STATE.sum_money([STATE.money(0.1), STATE.money(0.2)])["amount"] == 0.3
    assert STATE.add_days("2026-03-16T09:00:00.000Z", 7) == "2026-03-23T09:00:00.000Z"
    assert STATE.add_days("2026-03-16T09:00:00.000Z", 30) == "2026-04-15T09:00:00.000Z"
    assert STATE.days_between("2026-03-06T00:00:00.000Z", "2026-03-16T09:00:00.000Z") == 10
    assert STATE.days_between("2026-03-16T09:00:00.000Z", "2026-03-06T00:00:00.000Z") == -11
    assert STATE.format_instant(STATE.parse_instant("2026-03-20")) == "2026-03-20T00:00:00.000Z"
    assert STATE.format_instant(STATE.parse_instant("2026-02-30")) == "2026-03-02T00:00:00.000Z"
    assert (
        STATE.format_instant(STATE.parse_instant("2026-03-20T10:00:00+02:00")) == "2026-03-20T08:00:00.000Z"
    )
    for bad in ("2026-13-01", "2026-02-32", "March 20", "", "2026-03-20T25:00"):
        with pytest.raises(ValueError):
            STATE.parse_instant(bad)


def test_budget_names_carry_an_em_dash(world: dict[str, Any]) -> None:
    assert world["budgets"]["BUD-004"]["name"] == "Facilities \u2014 Supplies"
    assert world["users"]["USR-004"]["approvalLimit"] is None


def test_world_problems_on_the_canonical_world_and_on_broken_ones(world: dict[str, Any]) -> None:
    assert INTEGRITY.world_problems(world) == []
    world["purchaseOrders"]["PO-202"]["lines"][0]["quantityReceived"] = 30
    world["vendorInvoices"]["VINV-103"]["subtotal"] = {"amount": 1, "currency": "USD"}
    world["sequences"]["AUD"] = 19
    problems = INTEGRITY.world_problems(world)
    assert "purchase order line PO-202-L1: posted receipts do not sum to its received quantity." in problems
    assert "inventory STK-PRD-007-WH-001: inbound 15 differs from the open orders' 10." in problems
    assert "vendorInvoices VINV-103: subtotal does not follow from its lines." in problems
    assert "sequences: AUD differs from the audit log's length." in problems
    del world["users"]["USR-012"]
    assert "goodsReceipts GR-003: receivedByUserId 'USR-012' is not in users." in INTEGRITY.world_problems(world)
    assert INTEGRITY.world_problems({"now": 3}) != []  # never raises on a malformed world
