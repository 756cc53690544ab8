"""Task instructions rendered from an ERP world (erp-world.md §11.4, docs/variants.md).

One template per task. Its slots are facts of the world read through the ids the task names
(names of vendors, customers, products, warehouses, budgets and people; the quantities and the
price the task quotes) and the task's own figures from ``scenario.task_parameters``. Rendered on
the canonical world, every template gives the task file's instruction byte for byte, marker
phrase included; a test and ``silo-gym env validate`` hold it to that.
"""

from __future__ import annotations

import re
from typing import Any

from silo_gym import kit
from silo_gym.models import Task

from .scenario import task_parameters
from .state import State, line_remaining

__all__ = ["render_instruction", "stand_in"]

_TEMPLATES = {
    "TASK-001": (
        "{ven002} (VEN-002) has renegotiated its contract with us and agreed new payment terms. Change the "
        "vendor's payment terms to {terms}. You are acting as {usr003} (USR-003)."
    ),
    "TASK-002": (
        "{ven007} (VEN-007) has just failed its third quality audit. Block the vendor so that no further "
        "purchase orders can be placed with it, and record the reason for the block. You are acting as "
        "{usr003} (USR-003)."
    ),
    "TASK-003": (
        "Finance is chasing large unpaid debts. Find every customer invoice that is overdue as of today and "
        "has a total above $10,000. Then put the customer with the largest overdue balance on credit hold, "
        "giving non-payment as the reason. You are acting as {usr008} (USR-008)."
    ),
    "TASK-004": (
        "A customer wants {requested} units of {prd012} (PRD-012) from {wh001} (WH-001). Check whether that "
        "many units are available there today. If they are not, leave the stock as it is and instead raise a "
        "purchase requisition for the product's reorder quantity, charged to the {bud002} budget (BUD-002), "
        "with {usr004} (USR-004) as the requester for the {dept_ops} department (DEPT-OPS)."
    ),
    "TASK-005": (
        "Purchase requisition PR-002 is waiting for a decision from {usr003} (USR-003). Approve it only if the "
        "budget it is charged to, {bud004}, can cover it. If the budget cannot cover it, reject the "
        "requisition and state the budget shortfall in the reason. You are acting as {usr003} (USR-003)."
    ),
    "TASK-006": (
        "Stock of {prd010} (PRD-010) at {wh002} (WH-002) has dropped below its reorder point. Transfer "
        "{quantity} units from {wh001} (WH-001), which is well stocked, so that {wh002} ends up back above "
        "its reorder point. You are acting as {usr005} (USR-005)."
    ),
    "TASK-007": (
        "Purchase order PO-202 was partly delivered: only {received} of the {ordered} {plural} arrived. The "
        "remaining {remaining} have now reached {wh001} in good condition. Receive them and make sure the "
        "purchase order ends up fully received. You are acting as {usr004} (USR-004)."
    ),
    "TASK-008": (
        "Exactly one approved vendor invoice is due within the next 7 days. Find it and pay it in full by "
        "bank transfer, taking the payment all the way to completion so that the invoice shows as paid. "
        "{usr006} (USR-006) raises payments and {usr007} (USR-007) approves them."
    ),
    "TASK-009": (
        "Purchase order PO-205 was raised in error and has not been approved yet. Cancel it, recording that "
        "it was a duplicate request. You are acting as {usr002} (USR-002)."
    ),
    "TASK-010": (
        "Sales order SO-306 for {cus007} was shipped and delivered but never invoiced. Raise the customer "
        "invoice for what was actually shipped, and issue it. You are acting as {usr009} (USR-009)."
    ),
    "TASK-011": (
        "RFQ-002 is closed and has received {quotes} quotations. Award the cheapest quotation that is still "
        "valid today, then raise a purchase order to that vendor for the quoted lines, for delivery to "
        "{wh001} (WH-001) and charged to the {bud002} budget (BUD-002). Take the order through approval so "
        "that it ends up approved, but do not send it to the vendor. {usr002} (USR-002) is the buyer and "
        "{usr003} (USR-003) approves."
    ),
    "TASK-012": (
        "Accounts payable cannot approve invoice VINV-104 from {ven002}; work out why. The vendor confirms "
        "that only {received} {unit} were ever shipped and will credit the difference. Correct the invoice to "
        "what was actually received, run the match again and get the invoice approved. {usr006} (USR-006) "
        "handles the invoice and {usr007} (USR-007) approves it."
    ),
    "TASK-013": (
        "Invoice VINV-103 from {ven010} is blocked; find out what is blocking it. Procurement confirms that "
        "the purchase order price of {price} per unit is the agreed price and that the vendor billed the "
        "wrong rate. Correct the invoice to the agreed price, match it again and approve it. {usr006} "
        "(USR-006) handles the invoice and {usr007} (USR-007) approves it."
    ),
    "TASK-014": (
        "Sales order SO-307 for {cus008} needs {ordered} units of bearing {product}, and no single warehouse "
        "holds that many. Ship the whole order using stock from more than one warehouse, without "
        "transferring stock between warehouses first. You are acting as {usr004} (USR-004)."
    ),
    "TASK-015": (
        "Purchase requisition PR-006, for the Reno automation programme, is waiting for {usr003} (USR-003), "
        "but its value is higher than {usr003_poss} approval limit. Route it to someone who is authorised to "
        "approve that amount, and have that person approve it. Do not change the value of the requisition."
    ),
    "TASK-016": (
        "The payment for invoice VINV-108 failed because the bank details of {ven002} were out of date, and "
        "the invoice is now overdue. Their finance contact has confirmed new details. Record the corrected "
        "contact email, {email}, then make a fresh payment for the full outstanding amount and complete it "
        "so that the invoice is settled. {usr006} (USR-006) raises payments and {usr007} (USR-007) approves "
        "them."
    ),
    "TASK-017": (
        "Facilities need {quantity} {units} of {prd020} (PRD-020) delivered to {wh001} (WH-001). Run the "
        "whole procure-to-pay cycle: a purchase requisition for {usr011} (USR-011) in Facilities, charged to "
        "budget BUD-004 and approved; a purchase order on {ven009} (VEN-009) at {price} per {unit}, approved "
        "and sent; the goods received in full; and the vendor's invoice registered for exactly what was "
        "received at the agreed price, matched, approved and paid, so that the invoice ends up paid. If the "
        "Facilities budget cannot cover the requisition, raise its allocation first and say so. The people "
        "involved, in this order: {usr002} (USR-002) buys, {usr003} (USR-003) approves procurement, {usr004} "
        "(USR-004) receives the goods, {usr006} (USR-006) handles payables, {usr007} (USR-007) approves "
        "payments and {usr008} (USR-008) may change budgets."
    ),
    "TASK-018": (
        "Purchase order PO-207 was cancelled, yet invoice VINV-106 from {ven009} is still on file against "
        "it. Confirm that nothing was ever received on the order, then close the invoice out properly so "
        "that it can never be paid, and record what was done. You are acting as {usr006} (USR-006)."
    ),
}

# Every "(USR-nnn)" of a template names whoever holds that role in the world (``stand_in``).
_TEMPLATES = {
    task_id: re.sub(r"\(USR-([0-9]{3})\)", r"({usr\1_id})", template)
    for task_id, template in _TEMPLATES.items()
}

#: Unit of measure -> its plural in an instruction.
_PLURAL_UNITS = {"each": "units", "box": "boxes", "case": "cases", "pack": "packs", "roll": "rolls"}
_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _name(state: State, collection: str, record_id: str) -> str:
    record = state.get(collection, {}).get(record_id) or {}
    name = record.get("name")
    return name if isinstance(name, str) else record_id


def _line(state: State, collection: str, line_id: str) -> dict[str, Any]:
    document = state.get(collection, {}).get(line_id.rsplit("-L", 1)[0]) or {}
    for line in document.get("lines") or []:
        if line.get("id") == line_id:
            return dict(line)
    return {}


def _price(amount: float) -> str:
    return f"${amount:,.2f}"


def _plural(name: str) -> str:
    """A product name as a lower-case plural noun phrase (``Hydraulic Cylinder 50mm Bore`` ->
    ``hydraulic cylinders``): its words before the first one holding a digit."""
    words: list[str] = []
    for word in name.split():
        if any(ch.isdigit() for ch in word):
            break
        words.append(word.lower())
    phrase = " ".join(words) or name.lower()
    return phrase if phrase.endswith("s") else phrase + "s"


def stand_in(state: State, user_id: str) -> str:
    """Who acts for ``user_id`` in ``state``: the user itself, or, when it is deactivated, the
    active user with the same role and department and the highest id (a variant's successor,
    always added after the canonical roster)."""
    users = state.get("users", {})
    user = users.get(user_id) or {}
    if user.get("isActive") is not False:
        return user_id
    successors = [
        other_id
        for other_id, other in users.items()
        if other.get("isActive") is True
        and other.get("role") == user.get("role")
        and other.get("departmentId") == user.get("departmentId")
    ]
    return max(successors, key=lambda i: (len(i), i)) if successors else user_id


def _values(task_id: str, state: State) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for n in range(1, 14):
        acting = stand_in(state, f"USR-{n:03d}")
        values[f"usr{n:03d}"] = _name(state, "users", acting)
        values[f"usr{n:03d}_id"] = acting
    values.update(
        ven002=_name(state, "vendors", "VEN-002"),
        ven007=_name(state, "vendors", "VEN-007"),
        ven009=_name(state, "vendors", "VEN-009"),
        ven010=_name(state, "vendors", "VEN-010"),
        cus007=_name(state, "customers", "CUS-007"),
        cus008=_name(state, "customers", "CUS-008"),
        prd010=_name(state, "products", "PRD-010"),
        prd012=_name(state, "products", "PRD-012"),
        prd020=_name(state, "products", "PRD-020"),
        wh001=_name(state, "warehouses", "WH-001"),
        wh002=_name(state, "warehouses", "WH-002"),
        bud002=_name(state, "budgets", "BUD-002"),
        bud004=_name(state, "budgets", "BUD-004"),
        dept_ops=_name(state, "departments", "DEPT-OPS"),
    )
    values.update(task_parameters(task_id, state))
    if task_id == "TASK-007":
        line = _line(state, "purchaseOrders", "PO-202-L1")
        product = _name(state, "products", str(line.get("productId")))
        values.update(
            received=line.get("quantityReceived"),
            ordered=line.get("quantityOrdered"),
            remaining=line_remaining(line) if line else 0,
            plural=_plural(product),
        )
    elif task_id == "TASK-011":
        count = sum(1 for q in state.get("quotations", {}).values() if q.get("rfqId") == "RFQ-002")
        values["quotes"] = _NUMBER_WORDS[count] if count < len(_NUMBER_WORDS) else str(count)
    elif task_id == "TASK-012":
        line = _line(state, "purchaseOrders", "PO-203-L1")
        record = state.get("products", {}).get(line.get("productId")) or {}
        values.update(
            received=line.get("quantityReceived"), unit=_PLURAL_UNITS.get(str(record.get("uom")), "units")
        )
    elif task_id == "TASK-013":
        line = _line(state, "purchaseOrders", "PO-206-L1")
        values["price"] = _price((line.get("unitPrice") or {}).get("amount") or 0)
    elif task_id == "TASK-014":
        line = _line(state, "salesOrders", "SO-307-L1")
        values.update(ordered=line.get("quantityOrdered"), product=line.get("productId"))
    if task_id in ("TASK-005", "TASK-015"):
        values["usr003"] = _name(state, "users", "USR-003")
    if task_id == "TASK-015":
        values["usr003_poss"] = "her" if values["usr003"] == "Priya Nair" else f"{values['usr003']}'s"
    elif task_id == "TASK-017":
        gloves = state.get("products", {}).get("PRD-020") or {}
        uom = str(gloves.get("uom") or "unit")
        values.update(unit=uom, units=_PLURAL_UNITS.get(uom, uom + "s"), price=_price(values["unitPrice"]))
    return values


def render_instruction(task: Task, state: State) -> str:
    """``task``'s instruction for the world ``state`` (the task file's own text on the canonical world).

    A task without a template keeps its file's instruction. Reads ``state`` only.
    """
    template = _TEMPLATES.get(task.id)
    if template is None:
        return task.instruction
    return kit.render(template, _values(task.id, state))
