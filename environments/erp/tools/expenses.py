"""Expense tools (erp-tools.md §7.17): employee claims, their approval, budget spend and reimbursement."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, money, next_id, sum_money
from .helpers import (
    EXPENSE_STATUS,
    actor,
    assert_status,
    audit,
    boolean_prop,
    budget_headroom,
    enum_prop,
    flag,
    fmt,
    linked_records,
    number_prop,
    ordered_records,
    paginate,
    paging_props,
    read_number,
    read_optional_string,
    read_string,
    require_budget,
    require_expense,
    require_user,
    schema,
    string_prop,
)
from .steps import (
    decide_linked_approval,
    reject_document,
    submit_for_approval,
)

Args = dict[str, Any]
_ACTOR = "Id of the active user doing this; recorded in the audit log."
_EXPENSE = "The expense id, for example EXP-002."


def _list_expenses(state: State, args: Args) -> Any:
    status = read_optional_string(args, "status")
    employee = read_optional_string(args, "employeeUserId")
    department = read_optional_string(args, "departmentId")
    if employee is not None:
        pool = linked_records(state, "expenses", "employeeUserId", employee)
    elif department is not None:
        pool = linked_records(state, "expenses", "departmentId", department)
    else:
        pool = ordered_records(state, "expenses")
    rows = [
        e
        for e in pool
        if (status is None or e["status"] == status)
        and (employee is None or e["employeeUserId"] == employee)
        and (department is None or e["departmentId"] == department)
    ]
    page = paginate(rows, args)
    return {**page, "totalValue": sum_money([e["amount"] for e in rows])}


list_expenses = define_tool(
    name="list_expenses",
    description=(
        "List expense claims sorted by id, optionally by status, employee or department, with the total "
        "value of all that match. Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(EXPENSE_STATUS, "Only claims in this status."),
            "employeeUserId": string_prop("Only claims of this employee (for example USR-010)."),
            "departmentId": string_prop("Only claims of this department (for example DEPT-FAC)."),
            **paging_props(),
        },
        [],
    ),
    run=_list_expenses,
)


def _get_expense(state: State, args: Args) -> Any:
    expense = require_expense(state, read_string(args, "expenseId"))
    approval = state["approvals"].get(expense["approvalId"]) if expense["approvalId"] else None
    return {**expense, "approval": approval}


get_expense = define_tool(
    name="get_expense",
    description="Get one expense claim with its approval record. Read-only.",
    input_schema=schema({"expenseId": string_prop(_EXPENSE)}, ["expenseId"]),
    run=_get_expense,
)


def _create_expense(state: State, args: Args) -> Any:
    user = actor(state, args, "employeeUserId")
    budget_id = read_optional_string(args, "budgetId")
    if budget_id is not None:
        require_budget(state, budget_id)
    exp_id = next_id(state, "EXP")
    record = {
        "id": exp_id,
        "number": exp_id,
        "employeeUserId": user["id"],
        "departmentId": user["departmentId"],
        "category": read_string(args, "category"),
        "description": read_string(args, "description"),
        "amount": money(read_number(args, "amount", minimum=0)),
        "status": "draft",
        "incurredAt": read_optional_string(args, "incurredAt") or state["now"],
        "submittedAt": None,
        "approvalId": None,
        "budgetId": budget_id,
        "paymentId": None,
        "hasReceipt": flag(args, "hasReceipt"),
    }
    state["expenses"][exp_id] = record
    audit(
        state,
        user["id"],
        "expense.created",
        "expense",
        exp_id,
        f"Raised {exp_id} for {fmt(record['amount']['amount'])}",
        [],
    )
    return record


create_expense = define_tool(
    name="create_expense",
    description=(
        "Raise a draft expense claim for an employee (the employee is the acting user). A claim can only "
        "be submitted later if a receipt is attached now. Returns the claim."
    ),
    input_schema=schema(
        {
            "employeeUserId": string_prop(
                "The employee claiming (also the acting user), for example USR-010."
            ),
            "category": string_prop("Kind of expense, for example travel."),
            "description": string_prop("What the money was spent on."),
            "amount": number_prop("Amount claimed in USD.", minimum=0),
            "budgetId": string_prop("The budget it is charged to, for example BUD-004."),
            "incurredAt": string_prop("When it was spent; default now."),
            "hasReceipt": boolean_prop("True when a receipt is attached."),
        },
        ["employeeUserId", "category", "description", "amount"],
    ),
    run=_create_expense,
)


def _submit_expense(state: State, args: Args) -> Any:
    user = actor(state, args)
    expense = require_expense(state, read_string(args, "expenseId"))
    approver = require_user(state, read_string(args, "approverUserId"))
    assert_status(expense["status"], ["draft"], f"Expense {expense['id']}")
    if not expense["hasReceipt"]:
        raise ToolError(
            "invalid_state", f"Expense {expense['id']} has no receipt attached and cannot be submitted."
        )
    approval = submit_for_approval(
        state, user, expense, "expense", approver, expense["amount"], status="submitted", stamp=("submittedAt",)
    )
    return {"expense": expense, "approval": approval}


submit_expense = define_tool(
    name="submit_expense",
    description="Send a draft expense claim with a receipt to an approver. Returns the claim and the new approval.",
    input_schema=schema(
        {
            "expenseId": string_prop(_EXPENSE),
            "approverUserId": string_prop("The user who should approve it."),
            "actorUserId": string_prop("The user submitting it."),
        },
        ["expenseId", "approverUserId", "actorUserId"],
    ),
    run=_submit_expense,
)


def _approve_expense(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    expense = require_expense(state, read_string(args, "expenseId"))
    assert_status(expense["status"], ["submitted"], f"Expense {expense['id']}")
    amount = expense["amount"]
    if expense["budgetId"]:
        budget = require_budget(state, expense["budgetId"])
        headroom = budget_headroom(budget)
        if amount["amount"] > headroom["amount"]:
            raise ToolError(
                "limit_exceeded",
                f"Budget {budget['id']} has {fmt(headroom['amount'])} available; expense {expense['id']} is {fmt(amount['amount'])}.",
                {"available": headroom["amount"], "requested": amount["amount"]},
            )
        budget["spentAmount"] = money(budget["spentAmount"]["amount"] + amount["amount"])
    decide_linked_approval(state, expense, "approved", approver["id"], lambda: read_optional_string(args, "note"))
    expense["status"] = "approved"
    audit(
        state,
        approver["id"],
        "expense.approved",
        "expense",
        expense["id"],
        f"Approved {expense['id']} for {fmt(amount['amount'])}",
        [],
    )
    return expense


approve_expense = define_tool(
    name="approve_expense",
    description=(
        "Approve a submitted expense claim and book it to its budget as spend (refused when the budget "
        "lacks the headroom). Returns the claim."
    ),
    input_schema=schema(
        {
            "expenseId": string_prop(_EXPENSE),
            "approverUserId": string_prop("The approving user (also the acting user)."),
            "note": string_prop("A note added to the approval."),
        },
        ["expenseId", "approverUserId"],
    ),
    run=_approve_expense,
)


def _reject_expense(state: State, args: Args) -> Any:
    approver = actor(state, args, "approverUserId")
    expense = require_expense(state, read_string(args, "expenseId"))
    reason = read_string(args, "reason")
    assert_status(expense["status"], ["submitted"], f"Expense {expense['id']}")
    reject_document(state, approver, expense, "expense", reason)
    return expense


reject_expense = define_tool(
    name="reject_expense",
    description="Reject a submitted expense claim. Returns the claim.",
    input_schema=schema(
        {
            "expenseId": string_prop(_EXPENSE),
            "approverUserId": string_prop("The rejecting user (also the acting user)."),
            "reason": string_prop("Why it is rejected."),
        },
        ["expenseId", "approverUserId", "reason"],
    ),
    run=_reject_expense,
)


def _pay_expense(state: State, args: Args) -> Any:
    user = actor(state, args)
    expense = require_expense(state, read_string(args, "expenseId"))
    assert_status(expense["status"], ["approved"], f"Expense {expense['id']}")
    pay_id = next_id(state, "PAY")
    payment = {
        "id": pay_id,
        "number": pay_id,
        "direction": "outbound",
        "vendorId": None,
        "customerId": None,
        "allocations": [],
        "amount": expense["amount"],
        "method": "ach",
        "status": "completed",
        "reference": f"REIMB-{expense['id']}",
        "scheduledDate": state["now"],
        "processedAt": state["now"],
        "failureReason": None,
        "createdByUserId": user["id"],
        "approvalId": None,
        "approvedByUserId": user["id"],
        "createdAt": state["now"],
    }
    state["payments"][pay_id] = payment
    expense["status"] = "paid"
    expense["paymentId"] = pay_id
    audit(
        state,
        user["id"],
        "expense.paid",
        "expense",
        expense["id"],
        f"Reimbursed {expense['id']} via {pay_id}",
        [],
    )
    return {"expense": expense, "payment": payment}


pay_expense = define_tool(
    name="pay_expense",
    description="Reimburse an approved expense claim with a completed outbound payment. Returns the claim and the payment.",
    input_schema=schema(
        {"expenseId": string_prop(_EXPENSE), "actorUserId": string_prop(_ACTOR)}, ["expenseId", "actorUserId"]
    ),
    run=_pay_expense,
)

_ACTIONS = {"submitted": "approve_expense / reject_expense", "approved": "pay_expense"}


def _list_expenses_awaiting_action(state: State, args: Args) -> Any:
    rows = []
    for e in state["expenses"].values():
        if e["status"] == "draft":
            action = "submit_expense" if e["hasReceipt"] else "attach a receipt before submitting"
        elif e["status"] in _ACTIONS:
            action = _ACTIONS[e["status"]]
        else:
            continue
        rows.append(
            {
                "expenseId": e["id"],
                "status": e["status"],
                "amount": e["amount"],
                "employeeUserId": e["employeeUserId"],
                "action": action,
            }
        )
    rows.sort(key=lambda r: r["expenseId"])
    return paginate(rows, args)


list_expenses_awaiting_action = define_tool(
    name="list_expenses_awaiting_action",
    description=(
        "List expense claims someone has to act on (draft, submitted or approved), sorted by id, each "
        "with the next action. Read-only."
    ),
    input_schema=schema({**paging_props()}, []),
    run=_list_expenses_awaiting_action,
)

TOOLS = [
    list_expenses,
    get_expense,
    create_expense,
    submit_expense,
    approve_expense,
    reject_expense,
    pay_expense,
    list_expenses_awaiting_action,
]
