"""Helpers of the ERP verifiers (erp-world.md §3.7, §9.1).

A record or field that is absent reads as ``MISSING`` (JavaScript's ``undefined``): it never
equals a number or a string, and it prints as ``undefined`` in a detail. ``text(x)`` interpolates
a value the way a JavaScript template literal prints it.
"""

from __future__ import annotations

from typing import Any

from silo_gym import format_number, round2

from ..state import Record, State, find_inventory, is_overdue, outstanding_amount

__all__ = [
    "MISSING",
    "above",
    "at_least",
    "at_most",
    "first",
    "rounded",
    "same",
    "completed_payments_for",
    "field",
    "is_overdue_safe",
    "latest_match_for",
    "new_ids",
    "non_empty_text",
    "number",
    "outstanding_text",
    "record",
    "stock_on_hand",
    "text",
    "text_or_null",
]


class _Missing:
    """JavaScript's ``undefined``: falsy, equal only to itself, printed ``undefined``."""

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


def record(state: State, collection: str, record_id: str) -> Any:
    """``state[collection][record_id]``, or MISSING."""
    found = state.get(collection, {}).get(record_id)
    return MISSING if found is None else found


def field(obj: Any, *path: str | int) -> Any:
    """Follow keys (or list indexes) from ``obj``; MISSING as soon as one is absent."""
    current = obj
    for key in path:
        if isinstance(key, int):
            if not isinstance(current, list) or not -len(current) <= key < len(current):
                return MISSING
            current = current[key]
        else:
            if not isinstance(current, dict) or key not in current:
                return MISSING
            current = current[key]
    return current


def number(value: Any) -> bool:
    """True for an int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def text(value: Any) -> str:
    """A value as a JavaScript template literal prints it."""
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if number(value):
        return format_number(value)
    return str(value)


def text_or_null(value: Any) -> str:
    """As :func:`text`, but a missing value prints ``null`` (``<x or null>`` in the spec)."""
    return "null" if value is MISSING or value is None else text(value)


def non_empty_text(value: Any) -> bool:
    """A string that is non-empty after trimming."""
    return isinstance(value, str) and bool(value.strip())


def stock_on_hand(state: State, product_id: str, warehouse_id: str) -> Any:
    """``quantityOnHand`` of the pair's inventory record, or 0 when there is none."""
    found = find_inventory(state, product_id, warehouse_id)
    return 0 if found is None else found["quantityOnHand"]


def completed_payments_for(state: State, invoice_id: str) -> float:
    """round2 of the sum of completed payments' allocations to ``invoice_id`` (any direction)."""
    total = 0.0
    for payment in state["payments"].values():
        if payment.get("status") != "completed":
            continue
        for allocation in payment.get("allocations") or []:
            if allocation.get("invoiceId") == invoice_id:
                total += allocation["amount"]["amount"]
    return round2(total)


def latest_match_for(state: State, invoice_id: str) -> Any:
    """The three-way match of ``invoice_id`` whose id sorts last, or MISSING."""
    matches = [m for m in state["threeWayMatches"].values() if m.get("vendorInvoiceId") == invoice_id]
    if not matches:
        return MISSING
    return max(matches, key=lambda m: m["id"])


def new_ids(final: State, initial: State, key: str) -> list[str]:
    """Ids of ``final[key]`` (final order) that ``initial[key]`` does not have."""
    before = initial.get(key, {})
    return [record_id for record_id in final.get(key, {}) if record_id not in before]


def is_overdue_safe(invoice: Record, now: str) -> bool:
    """:func:`state.is_overdue`, False when the invoice lacks a needed field."""
    try:
        return is_overdue(invoice, now)
    except (KeyError, TypeError):
        return False


def outstanding_text(invoice: Any) -> tuple[Any, str]:
    """``(outstanding amount, "outstanding = <amount>")``, or ``(MISSING, "outstanding = n/a")``."""
    if invoice is MISSING:
        return MISSING, "outstanding = n/a"
    amount = outstanding_amount(invoice)["amount"]
    return amount, f"outstanding = {text(amount)}"


def same(a: Any, b: Any) -> bool:
    """JavaScript ``===`` on JSON values: MISSING equals nothing; a bool never equals a number."""
    if a is MISSING or b is MISSING:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if number(a) and number(b):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def at_least(a: Any, b: Any) -> bool:
    """``a >= b`` for two numbers; False when either is not a number."""
    return number(a) and number(b) and bool(a >= b)


def at_most(a: Any, b: Any) -> bool:
    """``a <= b`` for two numbers; False when either is not a number."""
    return number(a) and number(b) and bool(a <= b)


def above(a: Any, b: Any) -> bool:
    """``a > b`` for two numbers; False when either is not a number."""
    return number(a) and number(b) and bool(a > b)


def rounded(value: Any) -> Any:
    """round2 of a number; MISSING for anything else."""
    return round2(value) if number(value) else MISSING


def first(rows: Any, predicate: Any) -> Any:
    """The first item of ``rows`` that satisfies ``predicate``, or MISSING."""
    for row in rows:
        if predicate(row):
            return row
    return MISSING
