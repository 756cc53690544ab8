"""Budget tools (erp-tools.md §7.18): headroom, commitments, spend and allocations."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, money, next_id, sum_money
from .helpers import (
    actor,
    audit,
    budget_headroom,
    budget_view,
    commit_to_budget,
    enum_prop,
    fmt,
    linked_ids,
    linked_records,
    number_prop,
    page_records,
    paging_props,
    read_number,
    read_optional_string,
    read_string,
    release_commitment,
    require_budget,
    require_department,
    schema,
    string_prop,
)

Args = dict[str, Any]
_ACTOR = "Id of the active user doing this (for example USR-008); recorded in the audit log."
_BUDGET = "The budget id, for example BUD-004."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _list_budgets(state: State, args: Args) -> Any:
    department = read_optional_string(args, "departmentId")
    year = read_optional_string(args, "fiscalYear")

    def keep(b: Any) -> bool:
        return year is None or b["fiscalYear"] == year

    ids = None if department is None else linked_ids(state, "budgets", "departmentId", department)
    page = page_records(state, "budgets", args, None if year is None else keep, ids)
    page["results"] = [budget_view(b) for b in page["results"]]
    return page


list_budgets = define_tool(
    name="list_budgets",
    description=(
        "List budgets sorted by id with allocated, committed, spent and available amounts and the "
        "utilisation, optionally of one department or fiscal year. Read-only."
    ),
    input_schema=schema(
        {
            "departmentId": string_prop("Only budgets of this department (for example DEPT-FAC)."),
            "fiscalYear": string_prop("Only budgets of this fiscal year (for example FY2026)."),
            **paging_props(),
        },
        [],
    ),
    run=_list_budgets,
)


def _get_budget(state: State, args: Args) -> Any:
    budget = require_budget(state, read_string(args, "budgetId"))
    bid = budget["id"]
    return {
        **budget_view(budget),
        "requisitions": [
            {"id": r["id"], "status": r["status"], "estimatedTotal": r["estimatedTotal"]}
            for r in state["requisitions"].values()
            if r["budgetId"] == bid
        ],
        "purchaseOrders": [
            {"id": o["id"], "status": o["status"], "totalAmount": o["totalAmount"]}
            for o in state["purchaseOrders"].values()
            if o["budgetId"] == bid
        ],
        "expenses": [
            {"id": e["id"], "status": e["status"], "amount": e["amount"]}
            for e in state["expenses"].values()
            if e["budgetId"] == bid
        ],
    }


get_budget = define_tool(
    name="get_budget",
    description=(
        "Get one budget with its headroom and the requisitions, purchase orders and expenses charged to "
        "it. Read-only."
    ),
    input_schema=schema({"budgetId": string_prop(_BUDGET)}, ["budgetId"]),
    run=_get_budget,
)


def _get_department_budget(state: State, args: Args) -> Any:
    department = require_department(state, read_string(args, "departmentId"))
    budgets = linked_records(state, "budgets", "departmentId", department["id"], sort=False)
    return {
        "departmentId": department["id"],
        "departmentName": department["name"],
        "budgetCount": len(budgets),
        "allocated": sum_money([b["allocatedAmount"] for b in budgets]),
        "committed": sum_money([b["committedAmount"] for b in budgets]),
        "spent": sum_money([b["spentAmount"] for b in budgets]),
        "available": sum_money([budget_headroom(b) for b in budgets]),
        "budgets": [budget_view(b) for b in budgets],
    }


get_department_budget = define_tool(
    name="get_department_budget",
    description="Show a department's position over all its budgets: totals and each budget. Read-only.",
    input_schema=schema(
        {"departmentId": string_prop("The department id, for example DEPT-FAC.")}, ["departmentId"]
    ),
    run=_get_department_budget,
)


def _check_budget_availability(state: State, args: Args) -> Any:
    budget = require_budget(state, read_string(args, "budgetId"))
    amount = read_number(args, "amount", minimum=0)
    available = budget_headroom(budget)
    sufficient = amount <= available["amount"]
    return {
        "budgetId": budget["id"],
        "budgetName": budget["name"],
        "requested": money(amount),
        "available": available,
        "sufficient": sufficient,
        "shortfall": money(0) if sufficient else money(amount - available["amount"]),
        "status": budget["status"],
    }


check_budget_availability = define_tool(
    name="check_budget_availability",
    description="Say whether a budget could absorb an amount, and the shortfall if not. Commits nothing. Read-only.",
    input_schema=schema(
        {"budgetId": string_prop(_BUDGET), "amount": number_prop("The amount in USD.", minimum=0)},
        ["budgetId", "amount"],
    ),
    run=_check_budget_availability,
)


def _commit_budget(state: State, args: Args) -> Any:
    user = actor(state, args)
    budget = require_budget(state, read_string(args, "budgetId"))
    amount = read_number(args, "amount", minimum=0)
    reference = read_optional_string(args, "reference") or "manual commitment"
    if budget["status"] == "closed":
        raise ToolError("invalid_state", f"Budget {budget['id']} is closed.")
    commit_to_budget(budget, money(amount))
    audit(
        state,
        user["id"],
        "budget.committed",
        "budget",
        budget["id"],
        f"Committed {fmt(amount)} to {budget['id']} for {reference}",
        [],
    )
    return budget_view(budget)


_AMOUNT = number_prop("The amount in USD.", minimum=0)

commit_budget = define_tool(
    name="commit_budget",
    description="Reserve budget headroom for planned spend; refused beyond what is available or on a closed budget. Returns the budget.",
    input_schema=schema(
        {
            "budgetId": string_prop(_BUDGET),
            "amount": _AMOUNT,
            "reference": string_prop("What the commitment is for."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["budgetId", "amount", "actorUserId"],
    ),
    run=_commit_budget,
)


def _release_budget_commitment(state: State, args: Args) -> Any:
    user = actor(state, args)
    budget = require_budget(state, read_string(args, "budgetId"))
    amount = read_number(args, "amount", minimum=0)
    reference = read_optional_string(args, "reference") or "manual release"
    release_commitment(budget, money(amount))
    audit(
        state,
        user["id"],
        "budget.released",
        "budget",
        budget["id"],
        f"Released {fmt(amount)} on {budget['id']} for {reference}",
        [],
    )
    return budget_view(budget)


release_budget_commitment = define_tool(
    name="release_budget_commitment",
    description="Give committed money back to a budget's headroom (at most what is committed). Returns the budget.",
    input_schema=schema(
        {
            "budgetId": string_prop(_BUDGET),
            "amount": _AMOUNT,
            "reference": string_prop("What the release is for."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["budgetId", "amount", "actorUserId"],
    ),
    run=_release_budget_commitment,
)


def _record_budget_spend(state: State, args: Args) -> Any:
    user = actor(state, args)
    budget = require_budget(state, read_string(args, "budgetId"))
    amount = read_number(args, "amount", minimum=0)
    reference = read_optional_string(args, "reference") or "spend"
    committed = budget["committedAmount"]
    from_commitment = min(amount, committed["amount"])
    beyond = amount - from_commitment
    available = budget_headroom(budget)
    if beyond > available["amount"]:
        raise ToolError(
            "limit_exceeded",
            f"Budget {budget['id']} cannot absorb {fmt(amount)}: {fmt(committed['amount'])} committed and "
            f"{fmt(available['amount'])} uncommitted headroom.",
            {"committed": committed["amount"], "available": available["amount"]},
        )
    budget["committedAmount"] = money(committed["amount"] - from_commitment)
    budget["spentAmount"] = money(budget["spentAmount"]["amount"] + amount)
    audit(
        state,
        user["id"],
        "budget.spend_recorded",
        "budget",
        budget["id"],
        f"Recorded spend of {fmt(amount)} on {budget['id']} for {reference}",
        [],
    )
    return budget_view(budget)


record_budget_spend = define_tool(
    name="record_budget_spend",
    description=(
        "Book spend against a budget, taken from its commitment first; anything beyond the commitment "
        "must fit the uncommitted headroom. Returns the budget."
    ),
    input_schema=schema(
        {
            "budgetId": string_prop(_BUDGET),
            "amount": _AMOUNT,
            "reference": string_prop("What was spent."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["budgetId", "amount", "actorUserId"],
    ),
    run=_record_budget_spend,
)


def _update_budget(state: State, args: Args) -> Any:
    user = actor(state, args)
    budget = require_budget(state, read_string(args, "budgetId"))
    changes: list[dict[str, Any]] = []
    if _is_number(args.get("allocatedAmount")):
        allocated = read_number(args, "allocatedAmount", minimum=0)
        consumed = budget["committedAmount"]["amount"] + budget["spentAmount"]["amount"]
        if allocated < consumed:
            raise ToolError(
                "invalid_input",
                f"Allocation {fmt(allocated)} is below the {fmt(consumed)} already committed and spent on {budget['id']}.",
                {"committed": budget["committedAmount"]["amount"], "spent": budget["spentAmount"]["amount"]},
            )
        changes.append(
            {"field": "allocatedAmount", "from": budget["allocatedAmount"]["amount"], "to": allocated}
        )
        budget["allocatedAmount"] = money(allocated)
    status = read_optional_string(args, "status")
    if status is not None:
        changes.append({"field": "status", "from": budget["status"], "to": status})
        budget["status"] = status
    if not changes:
        raise ToolError("invalid_input", "No budget fields were supplied to update.")
    audit(state, user["id"], "budget.updated", "budget", budget["id"], f"Updated {budget['id']}", changes)
    return budget_view(budget)


update_budget = define_tool(
    name="update_budget",
    description=(
        "Change a budget's allocation (never below what is already committed and spent) or close or "
        "reopen it. Returns the budget."
    ),
    input_schema=schema(
        {
            "budgetId": string_prop(_BUDGET),
            "allocatedAmount": number_prop("The new allocation in USD.", minimum=0),
            "status": enum_prop(("active", "closed"), "Close the budget or make it active again."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["budgetId", "actorUserId"],
    ),
    run=_update_budget,
)


def _create_budget(state: State, args: Args) -> Any:
    user = actor(state, args)
    department_id = read_string(args, "departmentId")
    require_department(state, department_id)
    bud_id = next_id(state, "BUD")
    company = state["company"]
    record = {
        "id": bud_id,
        "name": read_string(args, "name"),
        "departmentId": department_id,
        "fiscalYear": read_optional_string(args, "fiscalYear") or company["fiscalYear"],
        "category": read_optional_string(args, "category") or "general",
        "allocatedAmount": money(read_number(args, "allocatedAmount", minimum=0)),
        "committedAmount": money(0),
        "spentAmount": money(0),
        "currency": company["baseCurrency"],
        "status": "active",
    }
    state["budgets"][bud_id] = record
    audit(
        state,
        user["id"],
        "budget.created",
        "budget",
        bud_id,
        f"Created {bud_id} with {fmt(record['allocatedAmount']['amount'])}",
        [],
    )
    return budget_view(record)


create_budget = define_tool(
    name="create_budget",
    description="Create an active budget for a department. Returns the budget.",
    input_schema=schema(
        {
            "name": string_prop("The budget's name."),
            "departmentId": string_prop("The owning department, for example DEPT-FAC."),
            "category": string_prop("What it covers (default general)."),
            "allocatedAmount": number_prop("The allocation in USD.", minimum=0),
            "fiscalYear": string_prop("The fiscal year, for example FY2026 (default the company's)."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["name", "departmentId", "allocatedAmount", "actorUserId"],
    ),
    run=_create_budget,
)


def _get_budget_utilisation(state: State, args: Args) -> Any:
    year = read_optional_string(args, "fiscalYear")
    rows = [budget_view(b) for b in state["budgets"].values() if year is None or b["fiscalYear"] == year]
    rows.sort(key=lambda r: r["utilisationPercent"], reverse=True)
    return {
        "asOf": state["now"],
        "budgetCount": len(rows),
        "totalAllocated": sum_money([r["allocated"] for r in rows]),
        "totalCommitted": sum_money([r["committed"] for r in rows]),
        "totalSpent": sum_money([r["spent"] for r in rows]),
        "totalAvailable": sum_money([r["available"] for r in rows]),
        "exhausted": [r["id"] for r in rows if r["available"]["amount"] <= 0],
        "budgets": rows,
    }


get_budget_utilisation = define_tool(
    name="get_budget_utilisation",
    description=(
        "Show the utilisation of every budget (optionally of one fiscal year), most used first, with "
        "totals and the ids of exhausted budgets. Read-only."
    ),
    input_schema=schema({"fiscalYear": string_prop("Only budgets of this fiscal year.")}, []),
    run=_get_budget_utilisation,
)

TOOLS = [
    list_budgets,
    get_budget,
    get_department_budget,
    check_budget_availability,
    commit_budget,
    release_budget_commitment,
    record_budget_spend,
    update_budget,
    create_budget,
    get_budget_utilisation,
]
