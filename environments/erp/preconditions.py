"""``task_preconditions(task, state)``: what keeps a world from being handed out for a task
(erp-world.md §11.5). ``[]`` means a correct agent can reach reward 1 in that world.

The generator (``variants.py``) builds worlds that meet every task's preconditions by
construction; these checks are the contract it is held to, and ``reset`` moves on to the next
variant number when one fails. They read the world only and never raise on a missing record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from silo_gym.models import Task

from .instructions import stand_in
from .scenario import task_parameters
from .state import (
    State,
    add_days,
    available_quantity,
    budget_available,
    effective_reorder_point,
    is_overdue,
    line_remaining,
    money,
    outstanding_amount,
)

__all__ = ["task_preconditions"]


def _get(state: State, collection: str, record_id: str) -> dict[str, Any]:
    record = state.get(collection, {}).get(record_id)
    return record if isinstance(record, dict) else {}


def _active(state: State, user_id: str) -> bool:
    return _get(state, "users", user_id).get("isActive") is True


def _limit(state: State, user_id: str) -> float:
    return ((_get(state, "users", user_id).get("approvalLimit") or {}).get("amount")) or 0


def _t001(state: State) -> list[str]:
    vendor = _get(state, "vendors", "VEN-002")
    terms = task_parameters("TASK-001", state)["terms"]
    out = []
    if vendor.get("status") != "active":
        out.append("VEN-002 is not active.")
    if vendor.get("paymentTerms") == terms:
        out.append(f"VEN-002 already has payment terms {terms}.")
    return out


def _t004(state: State) -> list[str]:
    requested = task_parameters("TASK-004", state)["requested"]
    stock = _get(state, "inventory", "STK-PRD-012-WH-001")
    out = []
    if not stock:
        out.append("STK-PRD-012-WH-001 does not exist.")
    elif available_quantity(stock) >= requested:
        out.append(f"WH-001 has {requested} units of PRD-012 available: nothing to requisition.")
    if (_get(state, "products", "PRD-012").get("reorderQuantity") or 0) < 1:
        out.append("PRD-012 has no reorder quantity.")
    if not _get(state, "budgets", "BUD-002"):
        out.append("BUD-002 does not exist.")
    if not _active(state, "USR-004"):
        out.append("USR-004 is not active.")
    return out


def _t005(state: State) -> list[str]:
    requisition = _get(state, "requisitions", "PR-002")
    approval = _get(state, "approvals", "APR-002")
    budget = _get(state, "budgets", "BUD-004")
    out = []
    if requisition.get("status") != "pending_approval" or requisition.get("approvalId") != "APR-002":
        out.append("PR-002 is not pending on APR-002.")
    if requisition.get("budgetId") != "BUD-004":
        out.append("PR-002 is not charged to BUD-004.")
    if approval.get("status") != "pending" or approval.get("assignedToUserId") != "USR-003":
        out.append("APR-002 is not pending with USR-003.")
    if not _active(state, "USR-003"):
        out.append("USR-003 is not active.")
    total = (requisition.get("estimatedTotal") or {}).get("amount") or 0
    if not budget or budget_available(budget)["amount"] >= total:
        out.append("BUD-004 can cover PR-002: rejecting it would be wrong.")
    return out


def _t006(state: State) -> list[str]:
    quantity = task_parameters("TASK-006", state)["quantity"]
    product = _get(state, "products", "PRD-010")
    north = _get(state, "inventory", "STK-PRD-010-WH-001")
    south = _get(state, "inventory", "STK-PRD-010-WH-002")
    if not north or not south:
        return ["PRD-010 is not stocked at both WH-001 and WH-002."]
    out = []
    if _get(state, "warehouses", "WH-002").get("isActive") is not True:
        out.append("WH-002 is not active.")
    if available_quantity(north) < quantity or north["quantityOnHand"] < (
        effective_reorder_point(north, product) or 0
    ):
        out.append(f"WH-001 cannot spare {quantity} units of PRD-010.")
    point = effective_reorder_point(south, product) or 0
    if not south["quantityOnHand"] < point <= south["quantityOnHand"] + quantity:
        out.append(
            f"a transfer of {quantity} does not take WH-002 from below to back above its reorder point."
        )
    return out


def _t007(state: State) -> list[str]:
    order = _get(state, "purchaseOrders", "PO-202")
    lines = order.get("lines") or []
    out = []
    if order.get("status") not in ("sent", "partially_received") or order.get("warehouseId") != "WH-001":
        out.append("PO-202 is not an open order at WH-001.")
    if not lines or lines[0].get("id") != "PO-202-L1" or line_remaining(lines[0]) <= 0:
        out.append("PO-202-L1 has nothing outstanding.")
    if any(line_remaining(line) for line in lines[1:]):
        out.append("another line of PO-202 has units outstanding.")
    if not _get(state, "inventory", "STK-PRD-007-WH-001"):
        out.append("STK-PRD-007-WH-001 does not exist.")
    return out


def _t008(state: State) -> list[str]:
    now = state["now"]
    window = add_days(now, 7)
    due = [
        i["id"]
        for i in state.get("vendorInvoices", {}).values()
        if i.get("status") in ("approved", "partially_paid")
        and outstanding_amount(i)["amount"] > 0
        and now <= i.get("dueDate", "") <= window
    ]
    out = [] if due == ["VINV-107"] else [f"the invoices due this week are {due}, not VINV-107 alone."]
    invoice = _get(state, "vendorInvoices", "VINV-107")
    if invoice and _limit(state, "USR-007") < outstanding_amount(invoice)["amount"]:
        out.append("USR-007 cannot approve a payment of VINV-107's outstanding amount.")
    return out


def _t002(state: State) -> list[str]:
    vendor = _get(state, "vendors", "VEN-007")
    return (
        ["VEN-007 is missing or already blocked."] if not vendor or vendor.get("status") == "blocked" else []
    )


def _t009(state: State) -> list[str]:
    order = _get(state, "purchaseOrders", "PO-205")
    out = []
    if order.get("status") != "pending_approval" or any(
        line.get("quantityReceived") for line in order.get("lines") or []
    ):
        out.append("PO-205 is not an unreceived order pending approval.")
    if order.get("approvalId") != "APR-010" or _get(state, "approvals", "APR-010").get("status") != "pending":
        out.append("APR-010 is not PO-205's pending approval.")
    if order.get("budgetId") != "BUD-001" or not _get(state, "budgets", "BUD-001"):
        out.append("PO-205 is not charged to BUD-001.")
    return out


def _valid_quote(quotation: dict[str, Any], now: str) -> bool:
    """A quotation is valid with an open status and a validity date not yet passed (§3.6)."""
    return quotation.get("status") in ("received", "under_review") and quotation.get("validUntil", "") >= now


def _t011(state: State) -> list[str]:
    rfq = _get(state, "rfqs", "RFQ-002")
    quotes = [q for q in state.get("quotations", {}).values() if q.get("rfqId") == "RFQ-002"]
    winner = _get(state, "quotations", "QUO-006")
    lapsed = _get(state, "quotations", "QUO-005")
    now = state["now"]
    out = []
    if rfq.get("status") not in ("sent", "closed"):
        out.append("RFQ-002 is neither sent nor closed.")
    if winner.get("rfqId") != "RFQ-002" or not _valid_quote(winner, now):
        return [*out, "QUO-006 is not a valid quotation on RFQ-002."]
    total = winner["totalAmount"]["amount"]
    rivals = [q for q in quotes if q["id"] != "QUO-006" and _valid_quote(q, now)]
    if not rivals:
        out.append("QUO-006 is the only valid quotation on RFQ-002.")
    if any(q["totalAmount"]["amount"] <= total for q in rivals):
        out.append("QUO-006 is not strictly the cheapest valid quotation on RFQ-002.")
    if lapsed.get("rfqId") != "RFQ-002" or _valid_quote(lapsed, now):
        out.append("QUO-005 is not a lapsed quotation on RFQ-002.")
    elif not lapsed["totalAmount"]["amount"] < total:
        out.append("QUO-005 is not cheaper than QUO-006.")
    if winner.get("vendorId") != "VEN-012" or _get(state, "vendors", "VEN-012").get("status") != "active":
        out.append("QUO-006 is not from the active vendor VEN-012.")
    products = [line.get("productId") for line in winner.get("lines") or []]
    if products.count("PRD-008") != 1 or products.count("PRD-010") != 1:
        out.append("QUO-006 does not quote PRD-008 and PRD-010 once each.")
    order_total = money(winner["subtotal"]["amount"] * 1.08)["amount"]
    approver = stand_in(state, "USR-003")
    budget = _get(state, "budgets", "BUD-002")
    if _limit(state, approver) < order_total:
        out.append(f"{approver} cannot approve an order of QUO-006's total.")
    if not budget or budget_available(budget)["amount"] < order_total:
        out.append("BUD-002 cannot cover an order of QUO-006's total.")
    return out


def _posted(state: State, order_id: str, line_id: str) -> int:
    return sum(
        line.get("quantityReceived") or 0
        for receipt in state.get("goodsReceipts", {}).values()
        if receipt.get("purchaseOrderId") == order_id and receipt.get("status") == "posted"
        for line in receipt.get("lines") or []
        if line.get("purchaseOrderLineId") == line_id
    )


def _t012(state: State) -> list[str]:
    invoice = _get(state, "vendorInvoices", "VINV-104")
    order = _get(state, "purchaseOrders", "PO-203")
    if invoice.get("purchaseOrderId") != "PO-203" or invoice.get("status") not in (
        "pending_approval",
        "matched",
    ):
        return ["VINV-104 is not an open invoice on PO-203."]
    out = []
    approval = _get(state, "approvals", str(invoice.get("approvalId")))
    if invoice.get("approvalId") is not None and approval.get("status") != "pending":
        out.append("VINV-104's approval is not pending.")
    po_lines = {line["id"]: line for line in order.get("lines") or []}
    bolts = [line for line in invoice["lines"] if line.get("productId") == "PRD-004"]
    if len(bolts) != 1 or bolts[0].get("purchaseOrderLineId") != "PO-203-L1" or "PO-203-L1" not in po_lines:
        return [*out, "VINV-104 has no single PRD-004 line billing PO-203-L1."]
    if not bolts[0]["quantity"] > _posted(state, "PO-203", "PO-203-L1"):
        out.append("VINV-104 does not bill more bolts than were received.")
    if po_lines["PO-203-L1"]["quantityInvoiced"] != bolts[0]["quantity"]:
        out.append("PO-203-L1's invoiced quantity is not VINV-104's bolt quantity.")
    corrected = 0.0
    for line in invoice["lines"]:
        po_line = po_lines.get(line.get("purchaseOrderLineId"))
        if line is bolts[0]:
            corrected += money(_posted(state, "PO-203", "PO-203-L1") * line["unitPrice"]["amount"])["amount"]
            continue
        corrected += line["lineTotal"]["amount"]
        if po_line is None or line["quantity"] > _posted(state, "PO-203", po_line["id"]):
            out.append(f"{line['id']} bills more than was received.")
        elif line["unitPrice"]["amount"] > po_line["unitPrice"]["amount"] * 1.02:
            out.append(f"{line['id']} bills above the 2 % price tolerance.")
    matches = [m for m in state.get("threeWayMatches", {}).values() if m.get("vendorInvoiceId") == "VINV-104"]
    if not matches or max(matches, key=lambda m: m["id"]).get("status") != "failed":
        out.append("VINV-104's latest match has not failed.")
    total = money(money(corrected)["amount"] * 1.08)["amount"]
    if _limit(state, stand_in(state, "USR-007")) < total:
        out.append("the invoice approver cannot approve VINV-104's corrected total.")
    return out


def _t013(state: State) -> list[str]:
    invoice = _get(state, "vendorInvoices", "VINV-103")
    order = _get(state, "purchaseOrders", "PO-206")
    lines, po_lines = invoice.get("lines") or [], order.get("lines") or []
    if (
        invoice.get("status") not in ("pending_approval", "matched")
        or invoice.get("purchaseOrderId") != "PO-206"
    ):
        return ["VINV-103 is not an open invoice on PO-206."]
    if not lines or not po_lines or lines[0].get("purchaseOrderLineId") != "PO-206-L1":
        return ["VINV-103's first line does not bill PO-206-L1."]
    agreed, billed = po_lines[0]["unitPrice"]["amount"], lines[0]["unitPrice"]["amount"]
    out = []
    if not billed > agreed * 1.02:
        out.append("VINV-103 bills PO-206-L1 within the 2 % price tolerance.")
    if lines[0]["quantity"] > po_lines[0]["quantityReceived"]:
        out.append("VINV-103 bills more than was received.")
    return out


def _t018(state: State) -> list[str]:
    order = _get(state, "purchaseOrders", "PO-207")
    invoice = _get(state, "vendorInvoices", "VINV-106")
    out = []
    if order.get("status") != "cancelled" or any(
        line.get("quantityReceived") for line in order.get("lines") or []
    ):
        out.append("PO-207 is not a cancelled order with nothing received.")
    if invoice.get("status") in (None, "cancelled", "rejected") or (invoice.get("amountPaid") or {}).get(
        "amount"
    ):
        out.append("VINV-106 is not an open, unpaid invoice.")
    return out


def _t014(state: State) -> list[str]:
    order = _get(state, "salesOrders", "SO-307")
    lines = order.get("lines") or []
    if order.get("status") != "confirmed" or len(lines) != 1:
        return ["SO-307 is not a confirmed one-line order."]
    wanted = lines[0]["quantityOrdered"]
    available = {
        r["warehouseId"]: available_quantity(r)
        for r in state.get("inventory", {}).values()
        if r.get("productId") == lines[0].get("productId")
    }
    out = []
    if any(a >= wanted for a in available.values()):
        out.append("one warehouse can ship SO-307 alone.")
    if available.get("WH-001", 0) <= 0 or available.get("WH-001", 0) + available.get("WH-002", 0) < wanted:
        out.append("WH-001 and WH-002 together cannot ship SO-307.")
    customer = _get(state, "customers", "CUS-008")
    if customer.get("status") in ("blocked", "credit_hold"):
        out.append("CUS-008 cannot be shipped to.")
    return out


def _t015(state: State) -> list[str]:
    requisition = _get(state, "requisitions", "PR-006")
    approval = _get(state, "approvals", "APR-005")
    total = ((requisition.get("estimatedTotal") or {}).get("amount")) or 0
    out = []
    if requisition.get("status") != "pending_approval" or requisition.get("approvalId") != "APR-005":
        out.append("PR-006 is not pending on APR-005.")
    if approval.get("status") != "pending" or approval.get("assignedToUserId") != "USR-003":
        out.append("APR-005 is not pending with USR-003.")
    if not _active(state, "USR-003"):
        out.append("USR-003 is not active.")
    if not _limit(state, "USR-003") < total <= _limit(state, "USR-008"):
        out.append("PR-006's total is not between USR-003's and USR-008's limits.")
    if not _active(state, "USR-008"):
        out.append("USR-008 is not active.")
    budget = _get(state, "budgets", "BUD-002")
    if not budget or budget_available(budget)["amount"] < total:
        out.append("BUD-002 cannot cover PR-006.")
    return out


def _t016(state: State) -> list[str]:
    invoice = _get(state, "vendorInvoices", "VINV-108")
    email = task_parameters("TASK-016", state)["email"]
    out = []
    if invoice.get("status") != "approved" or not invoice or not is_overdue(invoice, state["now"]):
        out.append("VINV-108 is not an approved overdue invoice.")
    if ((_get(state, "vendors", "VEN-002").get("contact") or {}).get("email")) == email:
        out.append(f"VEN-002's e-mail is already {email}.")
    return out


def _t017(state: State) -> list[str]:
    params = task_parameters("TASK-017", state)
    amount = params["quantity"] * params["unitPrice"] * 1.08
    out = []
    if _get(state, "vendors", "VEN-009").get("status") != "active":
        out.append("VEN-009 is not active.")
    if _get(state, "products", "PRD-020").get("status") == "discontinued":
        out.append("PRD-020 is discontinued.")
    if _limit(state, "USR-003") < amount or _limit(state, "USR-007") < amount:
        out.append("an approver's limit does not cover the order.")
    return out


_CHECKS: dict[str, Callable[[State], list[str]]] = {
    "TASK-001": _t001,
    "TASK-002": _t002,
    "TASK-004": _t004,
    "TASK-005": _t005,
    "TASK-006": _t006,
    "TASK-007": _t007,
    "TASK-008": _t008,
    "TASK-009": _t009,
    "TASK-011": _t011,
    "TASK-012": _t012,
    "TASK-013": _t013,
    "TASK-014": _t014,
    "TASK-015": _t015,
    "TASK-016": _t016,
    "TASK-017": _t017,
    "TASK-018": _t018,
}


def task_preconditions(task: Task, state: State) -> list[str]:
    """Why ``state`` cannot serve ``task`` (one sentence each); ``[]`` when it can.

    Every task also needs its ``entities`` present. Reads ``state`` only.
    """
    out = []
    for entity in task.entities or []:
        if not any(isinstance(c, dict) and entity in c for k, c in state.items() if k != "company"):
            out.append(f"{entity} is missing.")
    check = _CHECKS.get(task.id)
    if check is not None:
        try:
            out.extend(check(state))
        except (KeyError, TypeError, ValueError) as error:
            out.append(f"the world cannot be read for {task.id}: {error!r}.")
    return out
