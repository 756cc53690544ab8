"""Requisition, approval, RFQ and quotation tools (erp-tools.md §7.7-§7.10): seed facts, workflow
effects, budget commitments, and the documented refusals."""

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


def budget(w, budget_id):
    return w.state["budgets"][budget_id]


# Requisitions


def test_create_requisition_defaults(w):
    out = w.ok(
        "create_requisition",
        {"requesterUserId": "USR-004", "departmentId": "DEPT-OPS", "budgetId": "BUD-002", "justification": " Restock ",
         "lines": [{"productId": "PRD-003", "quantity": 20}, {"productId": "PRD-010", "quantity": 3, "estimatedUnitPrice": 2.345}]},
    )
    assert out["id"] == "PR-007" and out["status"] == "draft" and out["justification"] == "Restock"
    assert [line["id"] for line in out["lines"]] == ["PR-007-L1", "PR-007-L2"]
    std = w.state["products"]["PRD-003"]["standardCost"]
    assert out["lines"][0]["estimatedUnitPrice"] == std
    assert out["lines"][1]["estimatedUnitPrice"] == {"amount": 2.35, "currency": "USD"}
    assert out["lines"][0]["neededBy"] == "2026-04-15T09:00:00.000Z"
    assert out["estimatedTotal"]["amount"] == round(20 * std["amount"] + 3 * 2.35, 2)
    entry = w.state["auditLog"][-1]
    assert entry["actorUserId"] == "USR-004" and entry["summary"] == "Raised requisition PR-007"


def test_create_requisition_refusals(w):
    dept = w.err(
        "create_requisition",
        {"requesterUserId": "USR-004", "departmentId": "DEPT-XYZ", "justification": "x", "lines": [{"productId": "PRD-003", "quantity": 1}]},
    )
    assert dept == {"code": "not_found", "message": 'Department "DEPT-XYZ" was not found.'}
    empty = w.err(
        "create_requisition", {"requesterUserId": "USR-004", "departmentId": "DEPT-OPS", "justification": "x", "lines": []}
    )
    assert empty["message"] == '"lines" must be a non-empty array.'
    assert w.state["sequences"]["PR"] == 7 and "PR-007" not in w.state["requisitions"]


def test_submit_then_approve_commits_the_budget(w):
    submitted = w.ok("submit_requisition", {"requisitionId": "PR-005", "approverUserId": "USR-010", "actorUserId": "USR-009"})
    assert submitted["approval"]["id"] == "APR-026" and submitted["approval"]["amount"] == {"amount": 890, "currency": "USD"}
    assert submitted["requisition"]["status"] == "pending_approval"
    committed = budget(w, "BUD-005")["committedAmount"]["amount"]
    out = w.ok("approve_requisition", {"requisitionId": "PR-005", "approverUserId": "USR-010", "note": "ok"})
    assert out["requisition"]["status"] == "approved" and out["approval"]["status"] == "approved"
    assert out["approval"]["notes"] == ["ok"] and out["approval"]["decidedByUserId"] == "USR-010"
    assert budget(w, "BUD-005")["committedAmount"]["amount"] == round(committed + 890, 2)
    assert w.state["auditLog"][-1]["summary"] == "Approved PR-005 for 890"


def test_approve_requisition_over_the_limit(w):
    err = w.err("approve_requisition", {"requisitionId": "PR-006", "approverUserId": "USR-003"})
    assert err["code"] == "limit_exceeded"
    assert err["message"] == "Priya Nair has an approval limit of 150000; requisition PR-006 totals 176200."
    assert err["details"] == {"approvalLimit": 150000, "amount": 176200}
    no_limit = w.err("approve_requisition", {"requisitionId": "PR-002", "approverUserId": "USR-004"})
    assert no_limit["message"] == "Tom Braddock has an approval limit of 0; requisition PR-002 totals 3900."


def test_approve_requisition_short_budget(w):
    # PR-002 (3900) on BUD-004 with 2400 available.
    err = w.err("approve_requisition", {"requisitionId": "PR-002", "approverUserId": "USR-003"})
    assert err["code"] == "limit_exceeded" and err["message"] == "Budget BUD-004 has 2400 available; cannot commit 3900."
    assert w.state["requisitions"]["PR-002"]["status"] == "pending_approval"


def test_reject_and_cancel_requisition(w):
    out = w.ok("reject_requisition", {"requisitionId": "PR-002", "approverUserId": "USR-003", "reason": "No budget"})
    assert out["requisition"]["status"] == "rejected" and out["approval"]["notes"] == ["No budget"]
    bad = w.err("cancel_requisition", {"requisitionId": "PR-002", "reason": "x", "actorUserId": "USR-003"})
    assert bad["message"] == 'Requisition PR-002 is "rejected"; expected one of: draft, submitted, pending_approval, approved.'
    committed = budget(w, "BUD-002")["committedAmount"]["amount"]
    cancelled = w.ok("cancel_requisition", {"requisitionId": "PR-003", "reason": "Not needed", "actorUserId": "USR-003"})
    assert cancelled["status"] == "cancelled" and cancelled["rfqId"] == "RFQ-002"
    assert budget(w, "BUD-002")["committedAmount"]["amount"] == round(committed - 7600, 2)


def test_cancel_pending_requisition_cancels_its_approval(w):
    w.ok("cancel_requisition", {"requisitionId": "PR-006", "reason": "Deferred", "actorUserId": "USR-003"})
    approval = w.state["approvals"]["APR-005"]
    assert approval["status"] == "cancelled" and approval["decidedByUserId"] is None
    assert approval["decidedAt"] == "2026-03-16T09:00:00.000Z"


def test_check_requisition_budget(w):
    out = w.ok("check_requisition_budget", {"requisitionId": "PR-002"})
    assert out["sufficient"] is False and out["shortfall"] == {"amount": 1500, "currency": "USD"}
    assert out["available"] == {"amount": 2400, "currency": "USD"}


def test_convert_requisition_to_rfq(w):
    err = w.err("convert_requisition_to_rfq", {"requisitionId": "PR-003", "vendorIds": ["VEN-003"], "actorUserId": "USR-002"})
    assert err == {"code": "conflict", "message": "Requisition PR-003 already has RFQ RFQ-002.", "details": {"rfqId": "RFQ-002"}}
    w.ok("submit_requisition", {"requisitionId": "PR-005", "approverUserId": "USR-010", "actorUserId": "USR-009"})
    w.ok("approve_requisition", {"requisitionId": "PR-005", "approverUserId": "USR-010"})
    blocked = w.err("convert_requisition_to_rfq", {"requisitionId": "PR-005", "vendorIds": ["VEN-008"], "actorUserId": "USR-002"})
    assert blocked["message"] == "Vendor VEN-008 is blocked and cannot be invited to quote."
    rfq = w.ok("convert_requisition_to_rfq", {"requisitionId": "PR-005", "vendorIds": ["VEN-006"], "actorUserId": "USR-002"})
    assert rfq["id"] == "RFQ-005" and rfq["title"] == "Sourcing for PR-005" and rfq["status"] == "draft"
    assert rfq["lines"] == [{"id": "RFQ-005-L1", "productId": "PRD-016", "quantity": 5}]
    assert rfq["responseDueDate"] == "2026-03-26T09:00:00.000Z"
    assert w.state["requisitions"]["PR-005"]["rfqId"] == "RFQ-005"


# Approvals


def test_pending_approvals_in_request_order(w):
    out = w.ok("list_pending_approvals")
    assert [r["id"] for r in out["results"]] == ["APR-002", "APR-017", "APR-018", "APR-010", "APR-005", "APR-023", "APR-021"]
    assert out["results"][0]["decideWith"] == "approve_requisition / reject_requisition"
    mine = w.ok("list_pending_approvals", {"assignedToUserId": "USR-007"})
    assert [r["id"] for r in mine["results"]] == ["APR-017", "APR-018"]


def test_check_approval_authority_escalates(w):
    out = w.ok("check_approval_authority", {"userId": "USR-003", "amount": 176200})
    assert out["authorised"] is False and [r["userId"] for r in out["escalateTo"]] == ["USR-008"]
    assert out["requestedAmount"] == {"amount": 176200, "currency": "USD"}
    ok = w.ok("check_approval_authority", {"userId": "USR-003", "amount": 5000})
    assert ok["authorised"] is True and ok["escalateTo"] == []


def test_reassign_approval_and_notes(w):
    out = w.ok("reassign_approval", {"approvalId": "APR-005", "assignToUserId": "USR-008", "actorUserId": "USR-003"})
    assert out["assignedToUserId"] == "USR-008"
    assert out["notes"][-1] == "Reassigned from USR-003 to USR-008: Reassigned"
    assert w.state["auditLog"][-1]["summary"] == "Reassigned APR-005 to Ken Adeyemi"
    same = w.err("reassign_approval", {"approvalId": "APR-005", "assignToUserId": "USR-008", "actorUserId": "USR-003"})
    assert same == {"code": "invalid_input", "message": "Approval APR-005 is already assigned to USR-008."}
    done = w.err("reassign_approval", {"approvalId": "APR-001", "assignToUserId": "USR-008", "actorUserId": "USR-003"})
    assert done == {"code": "invalid_state", "message": "Approval APR-001 was already approved."}
    note = w.ok("add_approval_note", {"approvalId": "APR-001", "note": "Checked", "actorUserId": "USR-003"})
    assert note["notes"][-1] == "Checked"


# RFQs and quotations


def test_compare_and_find_cheapest_on_rfq_002(w):
    out = w.ok("compare_quotations", {"rfqId": "RFQ-002"})
    assert [r["quotationId"] for r in out["quotations"]] == ["QUO-005", "QUO-006", "QUO-004"]
    assert out["cheapestQuotationId"] == "QUO-005" and out["cheapestValidQuotationId"] == "QUO-006"
    assert out["cheapestIsInvalid"] is True and out["validQuotationCount"] == 2
    assert out["quotations"][0]["invalidReason"] == 'Status is "expired".'
    best = w.ok("find_cheapest_valid_quotation", {"rfqId": "RFQ-002"})
    assert best["selected"]["quotationId"] == "QUO-006" and best["consideredCount"] == 3
    fast = w.ok("find_cheapest_valid_quotation", {"rfqId": "RFQ-002", "maxLeadTimeDays": 10})
    assert fast["selected"] is None
    assert fast["excluded"][1]["excludedBecause"] == "Lead time 12 days exceeds the 10-day limit."


def test_accept_expired_quotation_refused(w):
    err = w.err("accept_quotation", {"quotationId": "QUO-005", "actorUserId": "USR-002"})
    assert err["message"] == 'Quotation QUO-005 is "expired"; expected one of: received, under_review.'


def test_accept_quotation_awards_and_rejects_the_rest(w):
    out = w.ok("accept_quotation", {"quotationId": "QUO-006", "actorUserId": "USR-002"})
    assert out["quotation"]["status"] == "accepted" and out["rfq"]["status"] == "awarded"
    assert out["rfq"]["awardedQuotationId"] == "QUO-006" and out["rejectedQuotationIds"] == ["QUO-004"]
    assert out["rfq"]["closedAt"] == w.state["rfqs"]["RFQ-002"]["closedAt"] != "2026-03-16T09:00:00.000Z"
    assert w.state["quotations"]["QUO-005"]["status"] == "expired"
    assert w.state["auditLog"][-1]["summary"] == "Accepted QUO-006 from Redwood Conveyor Parts; awarded RFQ-002"


def test_record_quotation_rules(w):
    not_invited = w.err(
        "record_quotation",
        {"rfqId": "RFQ-003", "vendorId": "VEN-001", "lines": [{"productId": "PRD-013", "quantity": 1, "unitPrice": 1}],
         "actorUserId": "USR-002"},
    )
    assert not_invited["code"] == "not_allowed" and not_invited["details"] == {"invitedVendorIds": ["VEN-005", "VEN-012"]}
    twice = w.err(
        "record_quotation",
        {"rfqId": "RFQ-003", "vendorId": "VEN-005", "lines": [{"productId": "PRD-013", "quantity": 1, "unitPrice": 1}],
         "actorUserId": "USR-002"},
    )
    assert twice["code"] == "conflict" and twice["details"] == {"quotationId": "QUO-007"}
    wrong = w.err(
        "record_quotation",
        {"rfqId": "RFQ-003", "vendorId": "VEN-012", "lines": [{"productId": "PRD-001", "quantity": 1, "unitPrice": 1}],
         "actorUserId": "USR-002"},
    )
    assert wrong == {"code": "invalid_input", "message": "Product PRD-001 was not requested on RFQ-003."}
    out = w.ok(
        "record_quotation",
        {"rfqId": "RFQ-003", "vendorId": "VEN-012",
         "lines": [{"productId": "PRD-013", "quantity": 120, "unitPrice": 40.5}, {"productId": "PRD-015", "quantity": 2000, "unitPrice": 2.2}],
         "actorUserId": "USR-002"},
    )
    assert out["id"] == "QUO-009"  # QUO-008 was taken by the failed call above
    assert out["subtotal"] == out["totalAmount"] == {"amount": 9260, "currency": "USD"}
    assert out["leadTimeDays"] == 12 and out["validUntil"] == "2026-04-15T09:00:00.000Z" and out["notes"] == ""


def test_rfq_lifecycle(w):
    rfq = w.ok(
        "create_rfq",
        {"title": "Seals", "lines": [{"productId": "PRD-001", "quantity": 5}], "vendorIds": ["VEN-008"], "actorUserId": "USR-002"},
    )
    assert rfq["id"] == "RFQ-005" and rfq["invitedVendorIds"] == ["VEN-008"]  # blocked vendors are accepted here
    blocked = w.err("add_vendor_to_rfq", {"rfqId": "RFQ-005", "vendorId": "VEN-008", "actorUserId": "USR-002"})
    assert blocked["message"] == "Vendor VEN-008 is blocked and cannot be invited."
    w.ok("add_vendor_to_rfq", {"rfqId": "RFQ-005", "vendorId": "VEN-001", "actorUserId": "USR-002"})
    dup = w.err("add_vendor_to_rfq", {"rfqId": "RFQ-005", "vendorId": "VEN-001", "actorUserId": "USR-002"})
    assert dup["code"] == "conflict"
    w.ok("remove_vendor_from_rfq", {"rfqId": "RFQ-005", "vendorId": "VEN-008", "actorUserId": "USR-002"})
    sent = w.ok("send_rfq", {"rfqId": "RFQ-005", "actorUserId": "USR-002"})
    assert sent["status"] == "sent" and w.state["auditLog"][-1]["summary"] == "Sent RFQ-005 to 1 vendor(s)"
    quoted = w.err("remove_vendor_from_rfq", {"rfqId": "RFQ-003", "vendorId": "VEN-005", "actorUserId": "USR-002"})
    assert quoted["message"] == "Vendor VEN-005 already submitted QUO-007; reject the quotation instead."
    cancelled = w.ok("cancel_rfq", {"rfqId": "RFQ-002", "reason": "Re-scope", "actorUserId": "USR-002"})
    assert cancelled["status"] == "cancelled" and w.state["requisitions"]["PR-003"]["rfqId"] is None


def test_expire_quotations_audits_only_when_something_expired(w):
    audits = len(w.state["auditLog"])
    assert w.ok("expire_quotations", {"actorUserId": "USR-002"}) == {"expiredQuotationIds": [], "count": 0}
    assert len(w.state["auditLog"]) == audits
    w.ok("advance_clock", {"days": 30, "actorUserId": "USR-001"})
    out = w.ok("expire_quotations", {"actorUserId": "USR-002"})
    assert out == {"expiredQuotationIds": ["QUO-004", "QUO-006"], "count": 2}
    entry = w.state["auditLog"][-1]
    assert entry["entityId"] == "QUO-004" and entry["summary"] == "Expired 2 quotation(s)"


def test_reject_quotation_appends_to_notes(w):
    out = w.ok("reject_quotation", {"quotationId": "QUO-004", "reason": "Too slow", "actorUserId": "USR-002"})
    assert out["status"] == "rejected" and out["notes"].endswith(" | Rejected: Too slow")
