"""Clock, vendor, customer and product tools (erp-tools.md §7.2-§7.5): outputs on the seed, effects,
audit entries, and the documented error codes and messages."""

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


def last_audit(w):
    return w.state["auditLog"][-1]


# Clock


def test_get_current_date_reports_the_seed_clock(w):
    out = w.ok("get_current_date")
    assert out["now"] == "2026-03-16T09:00:00.000Z"
    assert out["fiscalYear"] == "FY2026" and out["fiscalYearStart"] == "2026-01-01T00:00:00.000Z"
    assert list(out) == [
        "now", "fiscalYear", "fiscalYearStart", "overdueVendorInvoiceCount", "overdueCustomerInvoiceCount",
        "latePurchaseOrderCount",
    ]
    assert out["latePurchaseOrderCount"] == 2  # PO-202 and PO-203 are past their delivery dates


def test_advance_clock_moves_now_and_audits(w):
    out = w.ok("advance_clock", {"days": 7, "actorUserId": "USR-001"})
    assert out["previousDate"] == "2026-03-16T09:00:00.000Z" and out["now"] == "2026-03-23T09:00:00.000Z"
    assert out["daysAdvanced"] == 7
    assert w.state["now"] == "2026-03-23T09:00:00.000Z"
    entry = last_audit(w)
    assert entry["id"] == "AUD-0021" and entry["action"] == "clock.advanced" and entry["entityId"] == "CMP-001"
    assert entry["summary"] == "Advanced the clock 7 day(s): Clock advanced"
    assert entry["changes"] == [{"field": "now", "from": "2026-03-16T09:00:00.000Z", "to": "2026-03-23T09:00:00.000Z"}]


def test_advance_clock_reports_lapsing_quotations_without_changing_them(w):
    out = w.ok("advance_clock", {"days": 30, "actorUserId": "USR-001"})
    # Now 2026-04-15T09:00: QUO-004 (valid until 2026-04-15 midnight) and QUO-006 (2026-04-10) lapse;
    # QUO-007 (2026-04-20) does not.
    assert out["newlyExpiredQuotations"] == ["QUO-004", "QUO-006"]
    assert w.state["quotations"]["QUO-004"]["status"] == "received"


def test_set_clock_forward_only(w):
    err = w.err("set_clock", {"date": "2026-03-16", "actorUserId": "USR-001"})
    assert err["code"] == "invalid_input"
    assert err["message"] == (
        "The clock cannot move backwards from 2026-03-16T09:00:00.000Z to 2026-03-16T00:00:00.000Z."
    )
    assert err["details"] == {"now": "2026-03-16T09:00:00.000Z", "requested": "2026-03-16T00:00:00.000Z"}
    bad = w.err("set_clock", {"date": "next week", "actorUserId": "USR-001"})
    assert bad == {"code": "invalid_input", "message": '"next week" is not a valid ISO date.'}
    out = w.ok("set_clock", {"date": "2026-03-20", "actorUserId": "USR-001"})
    assert out == {"previousDate": "2026-03-16T09:00:00.000Z", "now": "2026-03-20T00:00:00.000Z", "daysAdvanced": 3}
    assert last_audit(w)["summary"] == "Set the clock to 2026-03-20T00:00:00.000Z"


def test_mutating_tools_refuse_unknown_actor(w):
    err = w.err("advance_clock", {"days": 1, "actorUserId": "USR-999"})
    assert err == {"code": "not_found", "message": 'User "USR-999" was not found.'}


# Vendors


def test_list_vendors_filters_and_pages(w):
    out = w.ok("list_vendors", {"category": "power", "limit": 2})
    assert out["total"] == 3 and out["count"] == 2 and out["offset"] == 0
    assert [r["id"] for r in out["results"]] == ["VEN-001", "VEN-004"]
    assert list(out["results"][0]) == ["id", "name", "status", "paymentTerms", "categories", "leadTimeDays", "isPreferred"]
    preferred = w.ok("list_vendors", {"preferredOnly": True})
    assert [r["id"] for r in preferred["results"]] == ["VEN-001", "VEN-003", "VEN-006"]
    past = w.ok("list_vendors", {"offset": 50})
    assert past["count"] == 0 and past["offset"] == 50 and past["total"] == 12


def test_create_vendor_pending_with_derived_code(w):
    out = w.ok(
        "create_vendor",
        {"name": "Acme Gear & Co.", "paymentTerms": "NET_30", "contactEmail": "a@acme.example", "actorUserId": "USR-002"},
    )
    assert out["id"] == "VEN-013" and out["code"] == "ACMEGEARCO" and out["status"] == "pending_approval"
    assert out["leadTimeDays"] == 14 and out["statusReason"] == "Awaiting supplier qualification."
    assert out["address"]["country"] == "US" and out["contact"] == {"name": "", "email": "a@acme.example", "phone": ""}
    assert last_audit(w)["summary"] == "Created vendor Acme Gear & Co."
    dup = w.err(
        "create_vendor",
        {"name": "kessler bearing works", "paymentTerms": "NET_30", "contactEmail": "x@y", "actorUserId": "USR-002"},
    )
    assert dup["code"] == "conflict" and dup["details"] == {"vendorId": "VEN-001"}
    assert dup["message"] == 'A vendor named "kessler bearing works" already exists as VEN-001.'


def test_create_vendor_blank_email_leaves_the_counter_advanced(w):
    err = w.err(
        "create_vendor", {"name": "New Co", "paymentTerms": "NET_30", "contactEmail": "  ", "actorUserId": "USR-002"}
    )
    assert err["message"] == '"contactEmail" must be a non-empty string.'
    assert w.state["sequences"]["VEN"] == 13 and "VEN-013" not in w.state["vendors"]


def test_update_vendor_records_changes(w):
    out = w.ok("update_vendor", {"vendorId": "VEN-002", "paymentTerms": "NET_30", "actorUserId": "USR-002"})
    assert out["paymentTerms"] == "NET_30"
    assert last_audit(w)["changes"] == [{"field": "paymentTerms", "from": "NET_45", "to": "NET_30"}]
    assert last_audit(w)["summary"] == "Updated Tri-State Fasteners"
    same = w.err("update_vendor", {"vendorId": "VEN-002", "paymentTerms": "NET_30", "actorUserId": "USR-002"})
    assert same == {"code": "invalid_input", "message": "No vendor fields were supplied to update."}


def test_block_and_activate_vendor(w):
    out = w.ok("block_vendor", {"vendorId": "VEN-005", "reason": "Late deliveries", "actorUserId": "USR-003"})
    assert out["status"] == "blocked" and out["statusReason"] == "Late deliveries"
    assert last_audit(w)["summary"] == "Blocked Cascade Electrical Supply: Late deliveries"
    again = w.err("block_vendor", {"vendorId": "VEN-005", "reason": "x", "actorUserId": "USR-003"})
    assert again == {"code": "invalid_state", "message": "Vendor VEN-005 is already blocked."}
    back = w.ok("activate_vendor", {"vendorId": "VEN-005", "actorUserId": "USR-003"})
    assert back["status"] == "active" and back["statusReason"] is None
    assert last_audit(w)["changes"] == [{"field": "status", "from": "blocked", "to": "active"}]
    err = w.err("activate_vendor", {"vendorId": "VEN-005", "actorUserId": "USR-003"})
    assert err["message"] == "Vendor VEN-005 is already active."


def test_get_vendor_balance_shape(w):
    out = w.ok("get_vendor_balance", {"vendorId": "VEN-003"})
    assert list(out) == ["vendorId", "vendorName", "openInvoiceCount", "totalOutstanding", "overdueOutstanding", "currency"]
    assert out["vendorName"] == "Halvorsen Hydraulics" and out["currency"] == "USD"
    missing = w.err("get_vendor", {"vendorId": "VEN-404"})
    assert missing == {"code": "not_found", "message": 'Vendor "VEN-404" was not found.'}


# Customers


def test_create_customer_defaults_and_unrounded_limit(w):
    out = w.ok(
        "create_customer",
        {"name": "Blue Harbor Marine", "creditLimit": 1234.567, "paymentTerms": "NET_15", "contactEmail": "b@h.example",
         "actorUserId": "USR-010"},
    )
    assert out["id"] == "CUS-013" and out["code"] == "BLUEHARBORMA" and out["segment"] == "general"
    assert out["creditLimit"] == {"amount": 1234.567, "currency": "USD"}
    assert out["billingAddress"] == out["shippingAddress"] and out["statusReason"] is None


def test_block_customer_credit_hold(w):
    out = w.ok(
        "block_customer", {"customerId": "CUS-001", "status": "credit_hold", "reason": "Overdue", "actorUserId": "USR-010"}
    )
    assert out["status"] == "credit_hold"
    entry = last_audit(w)
    assert entry["action"] == "customer.credit_hold" and entry["summary"].endswith(": Overdue")
    again = w.err(
        "block_customer", {"customerId": "CUS-001", "status": "credit_hold", "reason": "x", "actorUserId": "USR-010"}
    )
    assert again["message"] == "Customer CUS-001 is already credit_hold."


def test_update_customer_always_records_credit_limit(w):
    before = w.state["customers"]["CUS-002"]["creditLimit"]["amount"]
    w.ok("update_customer", {"customerId": "CUS-002", "creditLimit": before, "actorUserId": "USR-010"})
    assert last_audit(w)["changes"] == [{"field": "creditLimit", "from": before, "to": before}]


def test_get_customer_balance_keys(w):
    out = w.ok("get_customer_balance", {"customerId": "CUS-001"})
    assert list(out) == [
        "customerId", "customerName", "status", "openInvoiceCount", "totalOutstanding", "overdueOutstanding",
        "creditLimit", "creditAvailable",
    ]
    assert out["creditAvailable"]["amount"] == round(out["creditLimit"]["amount"] - out["totalOutstanding"]["amount"], 2)


# Products


def test_product_availability_and_pricing(w):
    out = w.ok("get_product_availability", {"productId": "PRD-003"})
    assert [r["warehouseId"] for r in out["byWarehouse"]] == ["WH-001", "WH-002", "WH-003"]
    assert (out["totalOnHand"], out["totalAvailable"], out["totalInbound"]) == (215, 215, 0)
    assert out["byWarehouse"][0]["belowReorderPoint"] is True  # 60 against 80
    pricing = w.ok("get_product_pricing", {"productId": "PRD-008"})
    assert [r["vendorId"] for r in pricing["lastPurchasePriceByVendor"]] == ["VEN-003"]
    assert pricing["lastPurchasePriceByVendor"][0] == {
        "vendorId": "VEN-003", "unitPrice": 6.6, "purchaseOrderId": "PO-202", "date": "2026-02-20T10:15:00.000Z"
    }


def test_create_product_and_sku_conflict(w):
    out = w.ok(
        "create_product",
        {"sku": "NEW-1", "name": "Widget", "category": "tools", "uom": "each", "standardCost": 1.005, "listPrice": 2,
         "actorUserId": "USR-002"},
    )
    assert out["id"] == "PRD-023" and out["standardCost"] == {"amount": 1.01, "currency": "USD"}
    assert (out["reorderPoint"], out["reorderQuantity"], out["leadTimeDays"]) == (0, 0, 14)
    sku = w.state["products"]["PRD-001"]["sku"]
    err = w.err(
        "create_product",
        {"sku": sku.lower(), "name": "X", "category": "c", "uom": "each", "standardCost": 1, "listPrice": 1,
         "actorUserId": "USR-002"},
    )
    assert err["code"] == "conflict" and err["details"] == {"productId": "PRD-001"}


def test_discontinue_product_refused_with_open_lines(w):
    err = w.err("discontinue_product", {"productId": "PRD-013", "actorUserId": "USR-003"})
    assert err["code"] == "invalid_state"
    assert err["message"].startswith("Product PRD-013 still has 1 open purchase line(s) and ")
    assert err["details"]["purchaseOrders"] == ["PO-204"]


def test_update_product_unknown_vendor_after_earlier_fields(w):
    err = w.err(
        "update_product", {"productId": "PRD-001", "leadTimeDays": 9, "preferredVendorIds": ["VEN-404"], "actorUserId": "USR-002"}
    )
    assert err["code"] == "not_found"
    assert w.state["products"]["PRD-001"]["leadTimeDays"] == 9  # written before the failing lookup
