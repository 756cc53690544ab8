"""The ERP world's state and the helper formulas shared by tools and verifiers (erp-world.md §2-§3).

The state is a plain dict (27 keys, erp-world.md §1.3): collections are dicts keyed by id in
insertion order, ``auditLog`` is a list and ``sequences`` a prefix -> last-issued-number map.
Money is ``{"amount": number, "currency": "USD"}``, rounded with JavaScript's rules
(``silo_gym.round2``) when it is made. Timestamps are ``YYYY-MM-DDThh:mm:ss.sssZ`` strings, so
"before" and "after" are plain string comparisons. Nothing here reads the wall clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from silo_gym import kit, round2

__all__ = [
    "ENTITY_KEYS",
    "PAYMENT_TERM_DAYS",
    "Record",
    "State",
    "TAX_RATE",
    "add_days",
    "add_money",
    "available_quantity",
    "budget_available",
    "days_between",
    "effective_reorder_point",
    "find_inventory",
    "format_id",
    "format_instant",
    "index_by_id",
    "inventory_id",
    "is_overdue",
    "is_zero_money",
    "line_remaining",
    "money",
    "multiply_money",
    "next_id",
    "outstanding_amount",
    "parse_instant",
    "payment_term_days",
    "record_audit",
    "subtract_money",
    "sum_money",
    "unfulfilled_quantity",
    "uninvoiced_quantity",
]

State = dict[str, Any]
Record = dict[str, Any]

#: Tax on the subtotals of purchase orders, vendor invoices, sales orders and customer invoices.
TAX_RATE = 0.08

#: Days from invoice date to due date for each payment term (erp-world.md §1.2).
PAYMENT_TERM_DAYS: dict[str, int] = {
    "DUE_ON_RECEIPT": 0,
    "NET_15": 15,
    "NET_30": 30,
    "NET_45": 45,
    "NET_60": 60,
}

#: The 27 state keys in their fixed order (erp-world.md §1.3); the order drives the state diff.
ENTITY_KEYS: tuple[str, ...] = (
    "now",
    "company",
    "departments",
    "users",
    "vendors",
    "customers",
    "products",
    "warehouses",
    "inventory",
    "inventoryMovements",
    "requisitions",
    "approvals",
    "rfqs",
    "quotations",
    "purchaseOrders",
    "goodsReceipts",
    "receivingDiscrepancies",
    "vendorInvoices",
    "threeWayMatches",
    "payments",
    "salesOrders",
    "fulfillments",
    "customerInvoices",
    "expenses",
    "budgets",
    "auditLog",
    "sequences",
)

# ---------------------------------------------------------------------------------------------
# Money (§3.1)


def money(amount: float, currency: str = "USD") -> Record:
    """``{"amount": round2(amount), "currency": currency}``: money is rounded when it is made."""
    return {"amount": round2(amount), "currency": currency}


def _same_currency(a: Record, b: Record) -> None:
    if a["currency"] != b["currency"]:
        raise ValueError(f"Currency mismatch: {a['currency']} vs {b['currency']}")


def add_money(a: Record, b: Record) -> Record:
    """``money(a + b)`` in ``a``'s currency. Raises ValueError on a currency mismatch."""
    _same_currency(a, b)
    return money(a["amount"] + b["amount"], a["currency"])


def subtract_money(a: Record, b: Record) -> Record:
    """``money(a - b)`` in ``a``'s currency. Raises ValueError on a currency mismatch."""
    _same_currency(a, b)
    return money(a["amount"] - b["amount"], a["currency"])


def multiply_money(value: Record, factor: float) -> Record:
    """``money(value * factor)``."""
    return money(value["amount"] * factor, value["currency"])


def sum_money(values: Any, currency: str = "USD") -> Record:
    """Fold ``add_money`` over ``values`` from ``money(0)``: every partial sum is rounded."""
    total = money(0, currency)
    for value in values:
        total = add_money(total, value)
    return total


def is_zero_money(value: Record) -> bool:
    """True when the amount rounds to zero cents."""
    return bool(round2(value["amount"]) == 0)


# ---------------------------------------------------------------------------------------------
# Dates (§3.2)


def parse_instant(text: str) -> datetime:
    """Parse an ISO date or instant as UTC (a zoneless date-time is read as UTC).

    Accepts ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD`` (UTC midnight) and ``YYYY-MM-DDThh:mm[:ss[.sss]]``
    with ``Z``, ``±hh:mm`` or no offset. A day past the month's end but at most 31 overflows into
    the next month, as JavaScript's ``Date`` does.

    Raises:
        ValueError: the text is not one of those forms.
    """
    s = text.strip()
    if len(s) == 4 and s.isdigit():
        s = s + "-01-01"
    elif len(s) == 7 and s[4] == "-" and s[:4].isdigit() and s[5:].isdigit():
        s = s + "-01"
    date_part, sep, time_part = s.partition("T")
    pieces = date_part.split("-")
    if len(pieces) != 3 or len(pieces[0]) != 4 or len(pieces[1]) != 2 or len(pieces[2]) != 2:
        raise ValueError(f"not an ISO date: {text!r}")
    if not all(p.isdigit() for p in pieces):
        raise ValueError(f"not an ISO date: {text!r}")
    year, month, day = int(pieces[0]), int(pieces[1]), int(pieces[2])
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        raise ValueError(f"not an ISO date: {text!r}")
    base = datetime(year, month, 1, tzinfo=UTC) + timedelta(days=day - 1)
    if not sep:
        return base
    offset = timedelta(0)
    clock = time_part
    if clock.endswith("Z"):
        clock = clock[:-1]
    elif len(clock) > 6 and clock[-6] in "+-" and clock[-3] == ":":
        sign = 1 if clock[-6] == "+" else -1
        hh, mm = clock[-5:-3], clock[-2:]
        if not (hh.isdigit() and mm.isdigit()):
            raise ValueError(f"not an ISO date: {text!r}")
        offset = sign * timedelta(hours=int(hh), minutes=int(mm))
        clock = clock[:-6]
    fraction = "0"
    if "." in clock:
        clock, fraction = clock.split(".", 1)
        if not fraction.isdigit() or not 1 <= len(fraction) <= 3:
            raise ValueError(f"not an ISO date: {text!r}")
    parts = clock.split(":")
    if len(parts) not in (2, 3) or not all(len(p) == 2 and p.isdigit() for p in parts):
        raise ValueError(f"not an ISO date: {text!r}")
    hour, minute = int(parts[0]), int(parts[1])
    second = int(parts[2]) if len(parts) == 3 else 0
    if hour > 24 or minute > 59 or second > 59 or (hour == 24 and (minute or second or int(fraction))):
        raise ValueError(f"not an ISO date: {text!r}")
    millis = int(fraction.ljust(3, "0"))
    return base + timedelta(hours=hour, minutes=minute, seconds=second, milliseconds=millis) - offset


def format_instant(moment: datetime) -> str:
    """``YYYY-MM-DDThh:mm:ss.sssZ`` in UTC (JavaScript's ``toISOString``)."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def add_days(iso: str, days: int) -> str:
    """``iso`` moved by whole UTC days, time of day kept. Raises ValueError when unparseable."""
    return format_instant(parse_instant(iso) + timedelta(days=days))


def days_between(start: str, end: str) -> int:
    """Whole days from ``start`` to ``end``, floored (negative when ``end`` is earlier)."""
    delta = parse_instant(end) - parse_instant(start)
    millis = delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000
    return millis // 86_400_000


def payment_term_days(terms: str) -> int:
    """Days a payment term gives (0 for an unknown term)."""
    return PAYMENT_TERM_DAYS.get(terms, 0)


# ---------------------------------------------------------------------------------------------
# Stock (§3.3)


def inventory_id(product_id: str, warehouse_id: str) -> str:
    """``STK-<productId>-<warehouseId>``."""
    return f"STK-{product_id}-{warehouse_id}"


def find_inventory(state: State, product_id: str, warehouse_id: str) -> Record | None:
    """The inventory record of that pair, or None."""
    record: Record | None = state["inventory"].get(inventory_id(product_id, warehouse_id))
    return record


def available_quantity(record: Record) -> int:
    """On hand less reserved."""
    return int(record["quantityOnHand"] - record["quantityReserved"])


def effective_reorder_point(record: Record, product: Record | None) -> Any:
    """The record's reorder point, else the product's (None when neither is known)."""
    if record.get("reorderPoint") is not None:
        return record["reorderPoint"]
    return product.get("reorderPoint") if product is not None else None


# ---------------------------------------------------------------------------------------------
# Documents (§3.4)


def outstanding_amount(invoice: Record) -> Record:
    """Total less paid, as money."""
    return subtract_money(invoice["totalAmount"], invoice["amountPaid"])


def is_overdue(invoice: Record, now: str) -> bool:
    """Open (not paid, cancelled, written off or draft), due before ``now`` and not settled."""
    if invoice.get("status") in ("paid", "cancelled", "written_off", "draft"):
        return False
    return bool(invoice["dueDate"] < now and not is_zero_money(outstanding_amount(invoice)))


def budget_available(budget: Record) -> Record:
    """Allocated less committed less spent (rounded at each step)."""
    return subtract_money(
        subtract_money(budget["allocatedAmount"], budget["committedAmount"]), budget["spentAmount"]
    )


def line_remaining(po_line: Record) -> int:
    """Units still to arrive on a purchase order line; rejected units count as delivered."""
    return max(0, po_line["quantityOrdered"] - po_line["quantityReceived"] - po_line["quantityRejected"])


def uninvoiced_quantity(po_line: Record) -> int:
    """Received less invoiced (may be negative)."""
    return int(po_line["quantityReceived"] - po_line["quantityInvoiced"])


def unfulfilled_quantity(so_line: Record) -> int:
    """Ordered less fulfilled."""
    return int(so_line["quantityOrdered"] - so_line["quantityFulfilled"])


# ---------------------------------------------------------------------------------------------
# Ids and the audit log (§3.5)


def format_id(prefix: str, n: int, pad: int = 3) -> str:
    """``<prefix>-<n zero-padded to pad digits>`` (never truncated)."""
    return kit.format_id(prefix, n, pad)


def next_id(state: State, prefix: str, pad: int = 3) -> str:
    """Issue the next id of ``prefix``: a missing prefix counts from 1, so it issues ``-002``."""
    sequences = state["sequences"]
    n = int(sequences.get(prefix, 1)) + 1
    sequences[prefix] = n
    return format_id(prefix, n, pad)


def index_by_id(rows: list[Record]) -> dict[str, Record]:
    """A dict keyed by each row's ``id``, in list order."""
    return {row["id"]: row for row in rows}


def record_audit(
    state: State,
    actor_user_id: str,
    action: str,
    entity_type: str,
    entity_id: str,
    summary: str,
    changes: list[Record] | None = None,
    at: str | None = None,
) -> Record:
    """Append one audit event (id ``AUD-NNNN``) to ``auditLog`` and return it."""
    event = {
        "id": next_id(state, "AUD", 4),
        "at": at if at is not None else state["now"],
        "actorUserId": actor_user_id,
        "action": action,
        "entityType": entity_type,
        "entityId": entity_id,
        "summary": summary,
        "changes": list(changes) if changes else [],
    }
    state["auditLog"].append(event)
    return event
