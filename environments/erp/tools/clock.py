"""Clock tools (erp-tools.md §7.2, tools 1-3): read the simulated instant and move it forward."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, add_days, days_between, format_instant, is_overdue, parse_instant
from .helpers import (
    actor,
    audit,
    integer_prop,
    read_number,
    read_optional_string,
    read_string,
    schema,
    string_prop,
)

Args = dict[str, Any]

_ACTOR = "Id of the user doing this (for example USR-001); must be an active user."


def _late_purchase_order_count(state: State) -> int:
    now = state["now"]
    return sum(
        1
        for o in state["purchaseOrders"].values()
        if o["status"] in ("sent", "partially_received") and o["expectedDeliveryDate"] < now
    )


def _get_current_date(state: State, args: Args) -> Any:
    now = state["now"]
    company = state["company"]
    return {
        "now": now,
        "fiscalYear": company["fiscalYear"],
        "fiscalYearStart": company["fiscalYearStart"],
        "overdueVendorInvoiceCount": sum(1 for i in state["vendorInvoices"].values() if is_overdue(i, now)),
        "overdueCustomerInvoiceCount": sum(1 for i in state["customerInvoices"].values() if is_overdue(i, now)),
        "latePurchaseOrderCount": _late_purchase_order_count(state),
    }


get_current_date = define_tool(
    name="get_current_date",
    description=(
        "The simulated current instant of the ERP (an ISO timestamp), the fiscal year, and how many "
        "vendor invoices, customer invoices and purchase orders are late at that instant. Every due "
        "date, validity and overdue rule in this world is judged against this clock. Read-only."
    ),
    input_schema=schema({}, []),
    run=_get_current_date,
)


def _newly_overdue(rows: Any, previous: str, now: str) -> list[str]:
    return [i["id"] for i in rows if not is_overdue(i, previous) and is_overdue(i, now)]


def _advance_clock(state: State, args: Args) -> Any:
    user = actor(state, args)
    days = read_number(args, "days", minimum=1, maximum=365, integer=True)
    reason = read_optional_string(args, "reason") or "Clock advanced"
    previous = state["now"]
    now = add_days(previous, days)
    state["now"] = now
    vendor = _newly_overdue(state["vendorInvoices"].values(), previous, now)
    customer = _newly_overdue(state["customerInvoices"].values(), previous, now)
    expired = [
        q["id"]
        for q in state["quotations"].values()
        if q["status"] in ("received", "under_review") and previous <= q["validUntil"] < now
    ]
    audit(
        state,
        user["id"],
        "clock.advanced",
        "company",
        state["company"]["id"],
        f"Advanced the clock {days} day(s): {reason}",
        [{"field": "now", "from": previous, "to": now}],
    )
    return {
        "previousDate": previous,
        "now": now,
        "daysAdvanced": days_between(previous, now),
        "newlyOverdueVendorInvoices": vendor,
        "newlyOverdueCustomerInvoices": customer,
        "newlyExpiredQuotations": expired,
    }


advance_clock = define_tool(
    name="advance_clock",
    description=(
        "Move the simulated clock forward by a whole number of days (1 to 365; it never goes back). "
        "Reports the invoices that become overdue and the open quotations whose validity lapses in "
        "that span; no record's status changes (run expire_quotations for that). Audited."
    ),
    input_schema=schema(
        {
            "days": integer_prop("How many days to move forward; a positive whole number.", minimum=1, maximum=365),
            "reason": string_prop("Why the clock is moved (kept in the audit entry)."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["days", "actorUserId"],
    ),
    run=_advance_clock,
)


def _set_clock(state: State, args: Args) -> Any:
    user = actor(state, args)
    date = read_string(args, "date")
    try:
        target = format_instant(parse_instant(date))
    except ValueError:
        raise ToolError("invalid_input", f'"{date}" is not a valid ISO date.') from None
    now = state["now"]
    if target < now:
        raise ToolError(
            "invalid_input",
            f"The clock cannot move backwards from {now} to {target}.",
            {"now": now, "requested": target},
        )
    state["now"] = target
    audit(
        state, user["id"], "clock.set", "company", state["company"]["id"], f"Set the clock to {target}",
        [{"field": "now", "from": now, "to": target}],
    )
    return {"previousDate": now, "now": target, "daysAdvanced": days_between(now, target)}


set_clock = define_tool(
    name="set_clock",
    description=(
        "Jump the simulated clock to a given ISO date or timestamp (a date alone means midnight UTC). "
        "Forward only: an earlier instant is refused, the same instant is accepted. Audited."
    ),
    input_schema=schema(
        {
            "date": string_prop("The ISO date or timestamp to move to, e.g. 2026-03-20 or 2026-03-20T09:00:00.000Z."),
            "reason": string_prop("Why the clock is set (not recorded)."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["date", "actorUserId"],
    ),
    run=_set_clock,
)

TOOLS = [get_current_date, advance_clock, set_clock]
