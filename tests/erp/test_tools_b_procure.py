"""Receiving, vendor invoices and payments (erp-tools.md §7.12–§7.14): effects, outputs, errors."""

from __future__ import annotations

import pytest

from . import load_erp
from .tools_b_support import World


@pytest.fixture(scope="module")
def env():
    return load_erp()


@pytest.fixture
def w(env) -> World:
    return World(env)


# --- receiving ---------------------------------------------------------------------------------


def test_receive_goods_without_lines_receives_everything_outstanding(w):
    stock = w.state["inventory"]["STK-PRD-007-WH-001"]
    on_hand = stock["quantityOnHand"]
    out = w.ok("receive_goods", {"purchaseOrderId": "PO-202", "actorUserId": "USR-004"})
    assert out["purchaseOrderStatus"] == "received"
    receipt = out["receipt"]
    assert receipt["id"] == "GR-007" and receipt["status"] == "posted" and receipt["deliveryNote"] == ""
    assert receipt["lines"] == [
        {
            "id": "GR-007-L1",
            "purchaseOrderLineId": "PO-202-L1",
            "productId": "PRD-007",
            "quantityReceived": 15,
            "quantityRejected": 0,
            "note": "",
        }
    ]
    assert stock["quantityOnHand"] == on_hand + 15
    assert stock["quantityInbound"] == 0
    movement = w.state["inventoryMovements"]["MOV-021"]
    assert (movement["type"], movement["referenceId"], movement["quantityDelta"]) == ("receipt", "GR-007", 15)
    assert movement["note"] == "Received against PO-202"
    audit = w.last_audit()
    assert (audit["id"], audit["action"], audit["summary"]) == (
        "AUD-0021",
        "goods_receipt.posted",
        "Posted GR-007 against PO-202",
    )


def test_receive_goods_refuses_more_than_outstanding_after_taking_the_id(w):
    out = w.err(
        "receive_goods",
        {
            "purchaseOrderId": "PO-202",
            "lines": [{"purchaseOrderLineId": "PO-202-L1", "quantityReceived": 16}],
            "actorUserId": "USR-004",
        },
    )
    assert out["code"] == "invalid_input"
    assert out["message"] == "Cannot receive 16 against PO-202-L1: only 15 outstanding of 40."
    assert out["details"] == {"outstanding": 15, "ordered": 40, "alreadyReceived": 25}
    assert w.state["sequences"]["GR"] == 7 and "GR-007" not in w.state["goodsReceipts"]


def test_receive_goods_unknown_line_and_wrong_status(w):
    out = w.err(
        "receive_goods",
        {
            "purchaseOrderId": "PO-202",
            "lines": [{"purchaseOrderLineId": "PO-202-L9", "quantityReceived": 1}],
            "actorUserId": "USR-004",
        },
    )
    assert out["code"] == "not_found" and out["message"] == 'Line "PO-202-L9" is not on PO-202.'
    assert out["details"] == {"validLineIds": ["PO-202-L1", "PO-202-L2"]}
    out = w.err("receive_goods", {"purchaseOrderId": "PO-205", "actorUserId": "USR-004"})
    assert out["code"] == "invalid_state" and out["message"].startswith('Purchase order PO-205 is "')


def test_cancel_goods_receipt_is_blocked_by_an_invoice(w):
    out = w.err(
        "cancel_goods_receipt", {"goodsReceiptId": "GR-004", "reason": "typo", "actorUserId": "USR-004"}
    )
    assert out["code"] == "invalid_state"
    assert out["message"].startswith("GR-004 is referenced by invoice VINV-103 (")
    assert out["details"] == {"vendorInvoiceId": "VINV-103"}


def test_cancel_goods_receipt_reverses_stock_and_order(w):
    w.ok("receive_goods", {"purchaseOrderId": "PO-202", "actorUserId": "USR-004"})
    stock = w.state["inventory"]["STK-PRD-007-WH-001"]["quantityOnHand"]
    out = w.ok(
        "cancel_goods_receipt",
        {"goodsReceiptId": "GR-007", "reason": "wrong order", "actorUserId": "USR-004"},
    )
    assert out["receipt"]["status"] == "cancelled"
    assert out["purchaseOrderStatus"] == "partially_received"
    assert w.state["inventory"]["STK-PRD-007-WH-001"]["quantityOnHand"] == stock - 15
    assert w.state["inventory"]["STK-PRD-007-WH-001"]["quantityInbound"] == 15
    assert w.last_audit()["summary"] == "Cancelled GR-007: wrong order"


def test_discrepancy_report_and_resolve(w):
    d = w.ok(
        "report_receiving_discrepancy",
        {
            "goodsReceiptId": "GR-003",
            "purchaseOrderLineId": "PO-203-L1",
            "type": "shortage",
            "actorUserId": "USR-004",
        },
    )
    assert d["id"] == "DISC-003" and d["status"] == "open" and d["productId"] == "PRD-004"
    out = w.ok(
        "resolve_receiving_discrepancy",
        {
            "discrepancyId": "DISC-003",
            "outcome": "waived",
            "resolution": "credit note agreed",
            "actorUserId": "USR-004",
        },
    )
    assert (out["status"], out["resolution"]) == ("waived", "credit note agreed")
    assert w.last_audit()["action"] == "discrepancy.waived"
    again = w.err(
        "resolve_receiving_discrepancy",
        {"discrepancyId": "DISC-003", "outcome": "resolved", "resolution": "x", "actorUserId": "USR-004"},
    )
    assert again["message"] == 'Discrepancy DISC-003 is "waived"; expected one of: open.'


# --- vendor invoices ---------------------------------------------------------------------------


def test_tool_path_correction_of_vinv_103(w):
    first = w.ok("get_vendor_invoice", {"vendorInvoiceId": "VINV-103"})
    assert first["match"]["discrepancies"][0]["message"] == (
        "Invoiced unit price 86.00 exceeds purchase order price 82.00 by 4.88%."
    )
    assert first["outstanding"] == {"amount": 7430.4, "currency": "USD"} and first["payments"] == []
    out = w.ok(
        "update_vendor_invoice_line",
        {"vendorInvoiceId": "VINV-103", "lineId": "VINV-103-L1", "unitPrice": 82, "actorUserId": "USR-006"},
    )
    assert out["lines"][0]["lineTotal"]["amount"] == 6560
    assert (out["subtotal"]["amount"], out["taxAmount"]["amount"], out["totalAmount"]["amount"]) == (
        6560,
        524.8,
        7084.8,
    )
    assert out["matchId"] is None and out["status"] == "pending_match" and out["approvalId"] == "APR-017"
    assert w.last_audit() == {
        "id": "AUD-0021",
        "at": "2026-03-16T09:00:00.000Z",
        "actorUserId": "USR-006",
        "action": "vendor_invoice.line_corrected",
        "entityType": "vendor_invoice",
        "entityId": "VINV-103",
        "summary": "Corrected VINV-103-L1 on VINV-103; re-match required",
        "changes": [],
    }
    match = w.ok("run_three_way_match", {"vendorInvoiceId": "VINV-103", "actorUserId": "USR-006"})
    assert match["id"] == "MATCH-007" and match["status"] == "matched"
    assert match["tolerance"] == {"pricePercent": 2, "quantityPercent": 0}
    approved = w.ok("approve_vendor_invoice", {"vendorInvoiceId": "VINV-103", "approverUserId": "USR-007"})
    assert approved["status"] == "approved" and approved["approvedByUserId"] == "USR-007"
    assert w.state["approvals"]["APR-017"]["status"] == "approved"


def test_approve_refuses_a_failed_match_naming_each_discrepancy(w):
    out = w.err("approve_vendor_invoice", {"vendorInvoiceId": "VINV-104", "approverUserId": "USR-007"})
    assert out["code"] == "invalid_state"
    assert out["message"] == (
        "Invoice VINV-104 cannot be approved: match MATCH-004 failed. "
        "Invoiced quantity 400 exceeds received quantity 250 on PO-203."
    )
    assert len(out["details"]["discrepancies"]) == 1


def test_quantity_correction_fixes_vinv_104(w):
    po_line = w.state["purchaseOrders"]["PO-203"]["lines"][0]
    invoiced = po_line["quantityInvoiced"]
    w.ok(
        "update_vendor_invoice_line",
        {"vendorInvoiceId": "VINV-104", "lineId": "VINV-104-L1", "quantity": 250, "actorUserId": "USR-006"},
    )
    assert po_line["quantityInvoiced"] == invoiced - 150
    assert (
        w.ok("run_three_way_match", {"vendorInvoiceId": "VINV-104", "actorUserId": "USR-006"})["status"]
        == "matched"
    )
    blockers = w.ok("explain_invoice_block", {"vendorInvoiceId": "VINV-104"})["blockers"]
    assert [b["code"] for b in blockers] == ["not_approved"]


def test_explain_invoice_block_on_a_failed_match(w):
    out = w.ok("explain_invoice_block", {"vendorInvoiceId": "VINV-104"})
    assert out["payable"] is False
    assert out["blockers"] == [
        {
            "code": "match_quantity",
            "message": "Invoiced quantity 400 exceeds received quantity 250 on PO-203.",
            "fixWith": "receive_goods (if goods did arrive) or update_vendor_invoice_line",
        }
    ]


def test_create_vendor_invoice_refuses_a_duplicate_number(w):
    existing = w.state["vendorInvoices"]["VINV-104"]
    out = w.err(
        "create_vendor_invoice",
        {
            "vendorId": existing["vendorId"],
            "vendorInvoiceNumber": existing["vendorInvoiceNumber"].lower(),
            "lines": [{"description": "x", "quantity": 1, "unitPrice": 1}],
            "actorUserId": "USR-006",
        },
    )
    assert out["code"] == "conflict" and out["details"] == {"vendorInvoiceId": "VINV-104"}


def test_create_vendor_invoice_without_an_order_needs_lines(w):
    out = w.err(
        "create_vendor_invoice",
        {"vendorId": "VEN-002", "vendorInvoiceNumber": "N-1", "actorUserId": "USR-006"},
    )
    assert out == {"code": "invalid_input", "message": 'Provide "lines" for a non-PO invoice.'}
    assert w.state["sequences"]["VINV"] == 109  # the id was taken before the lines were read


def test_non_po_invoice_has_one_missing_po_discrepancy(w):
    inv = w.ok(
        "create_vendor_invoice",
        {
            "vendorId": "VEN-002",
            "vendorInvoiceNumber": "N-2",
            "lines": [{"description": "freight", "quantity": 2, "unitPrice": 10.005}],
            "invoiceDate": "2026-03-10T00:00:00.000Z",
            "actorUserId": "USR-006",
        },
    )
    assert inv["id"] == "VINV-109" and inv["lines"][0]["lineTotal"]["amount"] == 20.01
    assert inv["dueDate"] == "2026-04-24T00:00:00.000Z"  # the vendor's NET_45
    match = w.ok("run_three_way_match", {"vendorInvoiceId": inv["id"], "actorUserId": "USR-006"})
    assert [d["type"] for d in match["discrepancies"]] == ["missing_purchase_order"]
    assert match["discrepancies"][0]["actual"] == inv["totalAmount"]["amount"]


def test_cancel_vendor_invoice_and_its_refusals(w):
    out = w.ok(
        "cancel_vendor_invoice",
        {"vendorInvoiceId": "VINV-106", "reason": "order cancelled", "actorUserId": "USR-006"},
    )
    assert out["status"] == "cancelled"
    again = w.err(
        "cancel_vendor_invoice", {"vendorInvoiceId": "VINV-106", "reason": "x", "actorUserId": "USR-006"}
    )
    assert again["message"] == "Invoice VINV-106 is already cancelled."


# --- payments ----------------------------------------------------------------------------------


def test_pay_the_invoice_due_this_week(w):
    due = w.ok("list_invoices_due_soon", {"includeOverdue": False})
    assert [r["id"] for r in due["results"]] == ["VINV-107"]
    pay = w.ok(
        "create_vendor_payment",
        {
            "vendorId": "VEN-006",
            "allocations": [{"invoiceId": "VINV-107"}],
            "method": "bank_transfer",
            "actorUserId": "USR-006",
        },
    )
    assert (pay["id"], pay["status"], pay["reference"]) == ("PAY-007", "draft", "BANK_TRANSFER-PAY-007")
    sub = w.ok(
        "submit_payment_for_approval",
        {"paymentId": "PAY-007", "approverUserId": "USR-007", "actorUserId": "USR-006"},
    )
    assert sub["approval"]["entityType"] == "payment" and sub["payment"]["status"] == "pending_approval"
    w.ok("approve_payment", {"paymentId": "PAY-007", "approverUserId": "USR-007"})
    done = w.ok("complete_payment", {"paymentId": "PAY-007", "actorUserId": "USR-006"})
    assert done["invoices"] == [
        {
            "invoiceId": "VINV-107",
            "status": "paid",
            "amountPaid": {"amount": 5076, "currency": "USD"},
            "outstanding": {"amount": 0, "currency": "USD"},
        }
    ]
    assert w.state["vendorInvoices"]["VINV-107"]["paidAt"] == w.state["now"]


def test_payment_refusals(w):
    out = w.err(
        "create_vendor_payment",
        {
            "vendorId": "VEN-006",
            "allocations": [{"invoiceId": "VINV-107", "amount": 6000}],
            "actorUserId": "USR-006",
        },
    )
    assert out["message"] == "Cannot pay 6000 against VINV-107: only 5076 outstanding."
    out = w.err(
        "create_vendor_payment",
        {"vendorId": "VEN-010", "allocations": [{"invoiceId": "VINV-103"}], "actorUserId": "USR-006"},
    )
    assert out["message"] == (
        'Invoice VINV-103 is "pending_approval"; only approved invoices can be paid. '
        "Use explain_invoice_block for details."
    )
    assert out["details"] == {"status": "pending_approval"}
    out = w.err("list_payments_for_invoice", {"invoiceId": "VINV-999"})
    assert out == {"code": "not_found", "message": 'Invoice "VINV-999" was not found.'}


def test_retry_failed_payment_copies_the_still_owed_allocations(w):
    out = w.ok("retry_failed_payment", {"paymentId": "PAY-003", "actorUserId": "USR-006"})
    retry = out["retry"]
    assert out["originalPaymentId"] == "PAY-003"
    assert retry["id"] == "PAY-007" and retry["status"] == "draft"
    assert retry["allocations"] == [
        {"invoiceId": "VINV-108", "amount": {"amount": 2527.2, "currency": "USD"}}
    ]
    assert w.state["payments"]["PAY-003"]["status"] == "failed"


def test_record_customer_payment_applies_at_once(w):
    pay = w.ok(
        "record_customer_payment",
        {
            "customerId": "CUS-003",
            "allocations": [{"invoiceId": "CINV-403", "amount": 619.2}],
            "actorUserId": "USR-008",
        },
    )
    assert (pay["direction"], pay["status"], pay["reference"]) == ("inbound", "completed", "RCPT-PAY-007")
    invoice = w.state["customerInvoices"]["CINV-403"]
    assert invoice["status"] == "partially_paid" and invoice["amountPaid"]["amount"] == 619.2
    assert w.last_audit()["summary"] == "Received 619.2 from Corvus Aerospace Components"
