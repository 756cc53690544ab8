"""Shared tool conventions of the ERP world (erp-tools.md §6).

Schema builders (§6.1), paging (§6.2), input readers (§6.3), record lookups and guards (§6.4),
stock, status and payment helpers (§6.5), document totals (§6.6), audit (§6.7), and the output
projections (§6.12). Every domain module under ``tools/`` builds on these; messages and codes are
the ones erp-tools.md gives, byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from silo_gym import ToolError, format_number, js_round, kit, to_fixed

from ..state import (
    TAX_RATE,
    Record,
    State,
    add_money,
    available_quantity,
    budget_available,
    effective_reorder_point,
    inventory_id,
    is_zero_money,
    line_remaining,
    money,
    next_id,
    outstanding_amount,
    record_audit,
    subtract_money,
)

__all__ = [
    "APPROVAL_ENTITY",
    "APPROVAL_STATUS",
    "AUDIT_ENTITY",
    "Args",
    "CINV_STATUS",
    "CUSTOMER_STATUS",
    "DIRECTION",
    "DISCREPANCY_STATUS",
    "DISCREPANCY_TYPE",
    "EXPENSE_STATUS",
    "GR_STATUS",
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "PAYMENT_METHOD",
    "PAYMENT_STATUS",
    "PAYMENT_TERMS",
    "PO_STATUS",
    "PRODUCT_STATUS",
    "QUOTATION_STATUS",
    "REQUISITION_STATUS",
    "RFQ_STATUS",
    "SO_STATUS",
    "UOM",
    "VENDOR_STATUS",
    "VINV_STATUS",
    "actor",
    "apply_payment_to_invoice",
    "apply_stock_change",
    "array_prop",
    "assert_status",
    "audit",
    "boolean_prop",
    "budget_headroom",
    "budget_view",
    "cancel_pending_approval",
    "commit_to_budget",
    "create_approval",
    "customer_invoice_summary",
    "customer_summary",
    "decide_approval",
    "decide_with",
    "document_totals",
    "ensure_inventory",
    "enum_prop",
    "fixed2",
    "flag",
    "flag_default_true",
    "fmt",
    "integer_prop",
    "inventory_summary",
    "line_total",
    "linked_ids",
    "linked_records",
    "matches_text",
    "number_prop",
    "object_prop",
    "ordered_records",
    "paginate",
    "page_records",
    "paging_props",
    "payment_summary",
    "product_summary",
    "purchase_order_summary",
    "read_enum",
    "read_number",
    "read_object_array",
    "read_optional_enum",
    "read_optional_number",
    "read_optional_string",
    "read_string",
    "read_string_array",
    "recompute_purchase_order_status",
    "recompute_sales_order_status",
    "refresh_inbound_quantities",
    "release_commitment",
    "require_approval",
    "require_budget",
    "require_customer",
    "require_customer_invoice",
    "require_department",
    "require_discrepancy",
    "require_expense",
    "require_fulfillment",
    "require_goods_receipt",
    "require_inventory",
    "require_match",
    "require_movement",
    "require_payment",
    "require_product",
    "require_purchase_order",
    "require_quotation",
    "require_requisition",
    "require_rfq",
    "require_sales_order",
    "require_user",
    "require_vendor",
    "require_vendor_invoice",
    "require_warehouse",
    "requisition_summary",
    "rfq_summary",
    "sales_order_summary",
    "schema",
    "string_prop",
    "validity",
    "vendor_invoice_summary",
    "vendor_summary",
    "within_approval_limit",
    "assert_within_approval_limit",
]

Args = dict[str, Any]

LIMIT_DEFAULT = 50
LIMIT_MAX = 500

# ---------------------------------------------------------------------------------------------
# Enumerations (§6.1), each in the reference's order

VENDOR_STATUS = ("active", "inactive", "blocked", "pending_approval")
PAYMENT_TERMS = ("NET_15", "NET_30", "NET_45", "NET_60", "DUE_ON_RECEIPT")
CUSTOMER_STATUS = ("active", "inactive", "blocked", "credit_hold")
PRODUCT_STATUS = ("active", "discontinued", "draft")
UOM = ("each", "box", "case", "kg", "litre", "metre")
REQUISITION_STATUS = (
    "draft",
    "submitted",
    "pending_approval",
    "approved",
    "rejected",
    "cancelled",
    "converted",
)
APPROVAL_ENTITY = ("requisition", "purchase_order", "vendor_invoice", "payment", "expense")
APPROVAL_STATUS = ("pending", "approved", "rejected", "cancelled")
RFQ_STATUS = ("draft", "sent", "closed", "awarded", "cancelled")
QUOTATION_STATUS = ("received", "under_review", "accepted", "rejected", "expired")
PO_STATUS = (
    "draft",
    "pending_approval",
    "approved",
    "rejected",
    "sent",
    "partially_received",
    "received",
    "closed",
    "cancelled",
)
GR_STATUS = ("draft", "posted", "cancelled")
DISCREPANCY_TYPE = ("shortage", "overage", "damage", "wrong_item")
DISCREPANCY_STATUS = ("open", "resolved", "waived")
VINV_STATUS = (
    "draft",
    "pending_match",
    "matched",
    "pending_approval",
    "approved",
    "disputed",
    "partially_paid",
    "paid",
    "rejected",
    "cancelled",
)
PAYMENT_METHOD = ("bank_transfer", "ach", "check", "card")
PAYMENT_STATUS = ("draft", "pending_approval", "approved", "completed", "failed", "cancelled")
DIRECTION = ("outbound", "inbound")
SO_STATUS = ("draft", "confirmed", "partially_fulfilled", "fulfilled", "invoiced", "cancelled", "closed")
CINV_STATUS = ("draft", "issued", "partially_paid", "paid", "cancelled", "written_off")
EXPENSE_STATUS = ("draft", "submitted", "approved", "rejected", "paid")
AUDIT_ENTITY = (
    "company",
    "vendor",
    "customer",
    "product",
    "warehouse",
    "inventory",
    "requisition",
    "approval",
    "rfq",
    "quotation",
    "purchase_order",
    "goods_receipt",
    "discrepancy",
    "vendor_invoice",
    "three_way_match",
    "payment",
    "sales_order",
    "fulfillment",
    "customer_invoice",
    "expense",
    "budget",
)

# ---------------------------------------------------------------------------------------------
# Schema builders (§6.1). No property carries "default"; defaults live in the tools.


def string_prop(description: str) -> dict[str, Any]:
    """``{"type": "string", "description"}``: ids, free text and every date."""
    return {"type": "string", "description": description}


def _bounded(kind: str, description: str, minimum: float | None, maximum: float | None) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": kind, "description": description}
    if minimum is not None:
        prop["minimum"] = minimum
    if maximum is not None:
        prop["maximum"] = maximum
    return prop


def number_prop(
    description: str, minimum: float | None = None, maximum: float | None = None
) -> dict[str, Any]:
    """``{"type": "number", "description"}`` then ``minimum`` / ``maximum`` when given."""
    return _bounded("number", description, minimum, maximum)


def integer_prop(description: str, minimum: int | None = None, maximum: int | None = None) -> dict[str, Any]:
    """``{"type": "integer", "description"}`` then ``minimum`` / ``maximum`` when given."""
    return _bounded("integer", description, minimum, maximum)


def boolean_prop(description: str) -> dict[str, Any]:
    """``{"type": "boolean", "description"}``."""
    return {"type": "boolean", "description": description}


def enum_prop(values: Sequence[str], description: str) -> dict[str, Any]:
    """``{"type": "string", "description", "enum"}``: the description comes before the enum."""
    return {"type": "string", "description": description, "enum": list(values)}


def array_prop(description: str, items: dict[str, Any]) -> dict[str, Any]:
    """``{"type": "array", "description", "items"}`` (no ``minItems``)."""
    return {"type": "array", "description": description, "items": items}


def object_prop(
    description: str, properties: dict[str, dict[str, Any]], required: Iterable[str] = ()
) -> dict[str, Any]:
    """A line object: ``{"type": "object", "description", "properties", "required", "additionalProperties": false}``."""
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": _required(properties, required),
        "additionalProperties": False,
    }


def _required(properties: dict[str, Any], required: Iterable[str]) -> list[str]:
    wanted = list(required)
    unknown = [name for name in wanted if name not in properties]
    if unknown:
        raise ValueError(f"required names that are not properties: {unknown}")
    return wanted


def schema(
    properties: dict[str, dict[str, Any]] | None = None, required: Iterable[str] = ()
) -> dict[str, Any]:
    """``{"type": "object", "properties", "required", "additionalProperties": false}``.

    ``required`` is always present (``[]`` when empty) and kept in the order given.
    """
    props = properties or {}
    return {
        "type": "object",
        "properties": props,
        "required": _required(props, required),
        "additionalProperties": False,
    }


def paging_props() -> dict[str, dict[str, Any]]:
    """``limit`` (1..500, default 50) and ``offset`` (>= 0, default 0), spread last."""
    return {
        "limit": integer_prop("Rows per page (default 50).", minimum=1, maximum=LIMIT_MAX),
        "offset": integer_prop("Rows to skip before this page starts (default 0).", minimum=0),
    }


# ---------------------------------------------------------------------------------------------
# Number formatting for messages


def fmt(x: Any) -> str:
    """A number as JavaScript prints it in a template literal (``5076``, ``7084.8``)."""
    return format_number(x)


def fixed2(x: float) -> str:
    """JavaScript's ``x.toFixed(2)``."""
    return to_fixed(x, 2)


# ---------------------------------------------------------------------------------------------
# Readers (§6.3). Every failure is invalid_input; the field is named without its path.


def _invalid(message: str, details: Any = None) -> ToolError:
    return kit.invalid_input(message, details)


def read_string(args: Args, field: str) -> str:
    """A string that is non-empty after trimming; returns the trimmed value."""
    value = args.get(field)
    if isinstance(value, str):
        trimmed = value.strip()
        if trimmed:
            return trimmed
    raise _invalid(f'"{field}" must be a non-empty string.')


def read_optional_string(args: Args, field: str) -> str | None:
    """Missing or null gives None; otherwise :func:`read_string` (``""`` and blanks fail)."""
    if args.get(field) is None:
        return None
    return read_string(args, field)


def read_number(
    args: Args,
    field: str,
    minimum: float | None = None,
    maximum: float | None = None,
    integer: bool = False,
) -> Any:
    """A finite number (not a bool); whole when ``integer``; ``>= minimum``; ``<= maximum`` (that order).

    A whole float read with ``integer`` comes back as an int.
    """
    value = args.get(field)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _invalid(f'"{field}" must be a number.')
    if integer:
        if not float(value).is_integer():
            raise _invalid(f'"{field}" must be a whole number.')
        value = int(value)
    if minimum is not None and value < minimum:
        raise _invalid(f'"{field}" must be at least {fmt(minimum)}.')
    if maximum is not None and value > maximum:
        raise _invalid(f'"{field}" must be at most {fmt(maximum)}.')
    return value


def read_optional_number(
    args: Args,
    field: str,
    minimum: float | None = None,
    maximum: float | None = None,
    integer: bool = False,
) -> Any:
    """Missing or null gives None; otherwise :func:`read_number`."""
    if args.get(field) is None:
        return None
    return read_number(args, field, minimum=minimum, maximum=maximum, integer=integer)


def read_enum(args: Args, field: str, values: Sequence[str]) -> str:
    """:func:`read_string`, then membership; details ``{"received": <trimmed value>}``."""
    value = read_string(args, field)
    if value not in values:
        raise _invalid(f'"{field}" must be one of: {", ".join(values)}.', {"received": value})
    return value


def read_optional_enum(args: Args, field: str, values: Sequence[str]) -> str | None:
    """Missing or null gives None; otherwise :func:`read_enum`."""
    if args.get(field) is None:
        return None
    return read_enum(args, field, values)


def read_string_array(args: Args, field: str) -> list[str]:
    """A non-empty list of strings, each non-empty after trimming; returns the trimmed items."""
    value = args.get(field)
    if not isinstance(value, list) or not value:
        raise _invalid(f'"{field}" must be a non-empty array.')
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise _invalid(f'"{field}[{i}]" must be a non-empty string.')
        out.append(item.strip())
    return out


def read_object_array(args: Args, field: str) -> list[dict[str, Any]]:
    """A non-empty list whose items are all objects."""
    value = args.get(field)
    if not isinstance(value, list) or not value:
        raise _invalid(f'"{field}" must be a non-empty array.')
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise _invalid(f'"{field}[{i}]" must be an object.')
    return value


def flag(args: Args, field: str) -> bool:
    """Reads "flag": true only when the value is exactly ``true``."""
    return args.get(field) is True


def flag_default_true(args: Args, field: str) -> bool:
    """Reads "flag, default true": false only when the value is exactly ``false``."""
    return args.get(field) is not False


def matches_text(haystack: Any, needle: str) -> bool:
    """Case-insensitive substring test (None and non-strings never match)."""
    return isinstance(haystack, str) and needle.lower() in haystack.lower()


# ---------------------------------------------------------------------------------------------
# Paging (§6.2)


def _read_paging(args: Args) -> tuple[int, int]:
    limit = read_optional_number(args, "limit", minimum=1, maximum=LIMIT_MAX, integer=True)
    offset = read_optional_number(args, "offset", minimum=0, integer=True)
    return (LIMIT_DEFAULT if limit is None else limit), (0 if offset is None else offset)


def paginate(items: list[Any], args: Args) -> dict[str, Any]:
    """``{"total", "count", "offset", "results"}`` for one page of ``items`` (built order kept)."""
    limit, offset = _read_paging(args)
    return kit.page_of(len(items), offset, items[offset : offset + limit])


def page_records(
    state: State,
    collection: str,
    args: Args,
    keep: Callable[[Record], bool] | None = None,
    ids: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One page (as :func:`paginate`) of the records of ``state[collection]`` in id order (§6.11),
    only those ``keep`` accepts; ``ids`` (in id order, e.g. from :func:`linked_ids`): only those
    records. The id order comes from the kit's index, so with ``keep=None`` (no filter given) a page
    costs its own length, not the collection's; a filter costs one pass over ``ids`` (all by default)."""
    records = state[collection]
    if ids is None:
        ids = kit.index.ordered_ids(records)
    if keep is not None:
        ids = [record_id for record_id in ids if keep(records[record_id])]
    limit, offset = _read_paging(args)
    return kit.page_of(len(ids), offset, [records[record_id] for record_id in ids[offset : offset + limit]])


def ordered_records(state: State, collection: str) -> list[Record]:
    """Every record of ``state[collection]`` in id order (from the kit's index: no sort per call)."""
    records = state[collection]
    return [records[record_id] for record_id in kit.index.ordered_ids(records)]


def linked_ids(state: State, collection: str, field: str, value: Any, *, sort: bool = True) -> list[str]:
    """Ids of the records of ``state[collection]`` whose ``field`` equals ``value``, in id order (or,
    ``sort=False``, in the collection's own order, as ``state[collection].values()`` gives them): one
    bucket of the kit's link index, so it costs the bucket, not the collection (a new list).

    Only for fields the tools set when a record is made and never change afterwards (the index
    would not see a record moved into a value); ``value`` ``None`` names no bucket: ``[]``."""
    if value is None:
        return []
    found = kit.index.linked_ids(state[collection], field, value)
    if sort:
        found.sort()
    return found


def linked_records(state: State, collection: str, field: str, value: Any, *, sort: bool = True) -> list[Record]:
    """The records of :func:`linked_ids` (same order)."""
    records = state[collection]
    return [records[record_id] for record_id in linked_ids(state, collection, field, value, sort=sort)]


# ---------------------------------------------------------------------------------------------
# Lookups (§6.4)


def _require(state: State, collection: str, label: str, record_id: Any) -> Record:
    record = state[collection].get(record_id) if isinstance(record_id, str) else None
    if record is None:
        raise kit.not_found(label, record_id)
    return record  # type: ignore[no-any-return]


def require_vendor(state: State, record_id: str) -> Record:
    return _require(state, "vendors", "Vendor", record_id)


def require_customer(state: State, record_id: str) -> Record:
    return _require(state, "customers", "Customer", record_id)


def require_product(state: State, record_id: str) -> Record:
    return _require(state, "products", "Product", record_id)


def require_warehouse(state: State, record_id: str) -> Record:
    return _require(state, "warehouses", "Warehouse", record_id)


def require_user(state: State, record_id: str) -> Record:
    return _require(state, "users", "User", record_id)


def require_department(state: State, record_id: str) -> Record:
    return _require(state, "departments", "Department", record_id)


def require_requisition(state: State, record_id: str) -> Record:
    return _require(state, "requisitions", "Purchase requisition", record_id)


def require_approval(state: State, record_id: str) -> Record:
    return _require(state, "approvals", "Approval", record_id)


def require_rfq(state: State, record_id: str) -> Record:
    return _require(state, "rfqs", "RFQ", record_id)


def require_quotation(state: State, record_id: str) -> Record:
    return _require(state, "quotations", "Quotation", record_id)


def require_purchase_order(state: State, record_id: str) -> Record:
    return _require(state, "purchaseOrders", "Purchase order", record_id)


def require_goods_receipt(state: State, record_id: str) -> Record:
    return _require(state, "goodsReceipts", "Goods receipt", record_id)


def require_discrepancy(state: State, record_id: str) -> Record:
    return _require(state, "receivingDiscrepancies", "Receiving discrepancy", record_id)


def require_vendor_invoice(state: State, record_id: str) -> Record:
    return _require(state, "vendorInvoices", "Vendor invoice", record_id)


def require_match(state: State, record_id: str) -> Record:
    return _require(state, "threeWayMatches", "Three-way match", record_id)


def require_payment(state: State, record_id: str) -> Record:
    return _require(state, "payments", "Payment", record_id)


def require_sales_order(state: State, record_id: str) -> Record:
    return _require(state, "salesOrders", "Sales order", record_id)


def require_fulfillment(state: State, record_id: str) -> Record:
    return _require(state, "fulfillments", "Fulfillment", record_id)


def require_customer_invoice(state: State, record_id: str) -> Record:
    return _require(state, "customerInvoices", "Customer invoice", record_id)


def require_expense(state: State, record_id: str) -> Record:
    return _require(state, "expenses", "Expense", record_id)


def require_budget(state: State, record_id: str) -> Record:
    return _require(state, "budgets", "Budget", record_id)


def require_movement(state: State, record_id: str) -> Record:
    return _require(state, "inventoryMovements", "Inventory movement", record_id)


def require_inventory(state: State, product_id: str, warehouse_id: str) -> Record:
    """The record of that pair, else not_found (product and warehouse are not checked)."""
    record = state["inventory"].get(inventory_id(product_id, warehouse_id))
    if record is None:
        raise ToolError(
            kit.NOT_FOUND, f'No inventory record for product "{product_id}" at warehouse "{warehouse_id}".'
        )
    return record  # type: ignore[no-any-return]


def ensure_inventory(state: State, product_id: str, warehouse_id: str) -> Record:
    """The pair's record, created (and appended to ``inventory``) when missing.

    Raises not_found for an unknown product, then for an unknown warehouse.
    """
    require_product(state, product_id)
    require_warehouse(state, warehouse_id)
    key = inventory_id(product_id, warehouse_id)
    record = state["inventory"].get(key)
    if record is None:
        record = {
            "id": key,
            "productId": product_id,
            "warehouseId": warehouse_id,
            "quantityOnHand": 0,
            "quantityReserved": 0,
            "quantityInbound": 0,
            "binLocation": "UNASSIGNED",
            "reorderPoint": None,
            "lastCountedAt": None,
        }
        state["inventory"][key] = record
    return record  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# Guards (§6.4)


def actor(state: State, args: Args, field: str = "actorUserId") -> Record:
    """Read ``field``; the user must exist and be active (not_found, then not_allowed)."""
    user = require_user(state, read_string(args, field))
    if not user["isActive"]:
        raise kit.not_allowed(f'User "{user["id"]}" is not active.')
    return user


def assert_status(actual: str, allowed: Sequence[str], label: str) -> None:
    """invalid_state ``<label> is "<actual>"; expected one of: ...`` unless ``actual`` is allowed."""
    if actual not in allowed:
        raise kit.invalid_state(
            f'{label} is "{actual}"; expected one of: {", ".join(allowed)}.',
            {"current": actual, "allowed": list(allowed)},
        )


def within_approval_limit(user: Record, amount: Record) -> bool:
    """False when the user has no limit, else ``amount <= limit``."""
    limit = user.get("approvalLimit")
    if limit is None:
        return False
    return bool(amount["amount"] <= limit["amount"])


def assert_within_approval_limit(user: Record, amount: Record, subject: str) -> None:
    """limit_exceeded ``<name> has an approval limit of <limit or 0>; <subject> totals <amount>.``

    ``subject`` is ``requisition <id>`` for requisitions and the bare document id otherwise.
    """
    if within_approval_limit(user, amount):
        return
    limit = user["approvalLimit"]["amount"] if user.get("approvalLimit") is not None else 0
    raise ToolError(
        "limit_exceeded",
        f"{user['name']} has an approval limit of {fmt(limit)}; {subject} totals {fmt(amount['amount'])}.",
        {"approvalLimit": limit, "amount": amount["amount"]},
    )


# ---------------------------------------------------------------------------------------------
# Approvals (§6.4)


def create_approval(
    state: State, entity_type: str, entity_id: str, requested_by: str, assigned_to: str, amount: Record | None
) -> Record:
    """Store a pending approval under the next ``APR`` id and return it."""
    approval = {
        "id": next_id(state, "APR"),
        "entityType": entity_type,
        "entityId": entity_id,
        "status": "pending",
        "requestedByUserId": requested_by,
        "assignedToUserId": assigned_to,
        "amount": dict(amount) if amount is not None else None,
        "requestedAt": state["now"],
        "decidedAt": None,
        "decidedByUserId": None,
        "notes": [],
    }
    state["approvals"][approval["id"]] = approval
    return approval


def decide_approval(state: State, approval: Record, decision: str, user_id: str, note: Any = None) -> Record:
    """Decide a pending approval (invalid_state ``Approval <id> was already <status>.`` otherwise).

    Appends ``note`` when it is a non-empty string.
    """
    if approval["status"] != "pending":
        raise kit.invalid_state(
            f"Approval {approval['id']} was already {approval['status']}.",
            {"current": approval["status"]},
        )
    approval["status"] = decision
    approval["decidedAt"] = state["now"]
    approval["decidedByUserId"] = user_id
    if isinstance(note, str) and note:
        approval["notes"].append(note)
    return approval


def cancel_pending_approval(state: State, approval_id: str | None, strict: bool = False) -> None:
    """A pending linked approval becomes ``cancelled`` (decidedAt now, decider null); others stay.

    No id (None or "") does nothing. A dangling id is passed over, or with ``strict`` raises
    not_found (the cancel tools look their approval up that way).
    """
    if not approval_id:
        return
    approval = require_approval(state, approval_id) if strict else state["approvals"].get(approval_id)
    if approval is not None and approval["status"] == "pending":
        approval["status"] = "cancelled"
        approval["decidedAt"] = state["now"]


def decide_with(entity_type: str) -> str:
    """The tools that decide an approval of this entity type."""
    return {
        "requisition": "approve_requisition / reject_requisition",
        "purchase_order": "approve_purchase_order / reject_purchase_order",
        "vendor_invoice": "approve_vendor_invoice / reject_vendor_invoice",
        "payment": "approve_payment",
        "expense": "approve_expense / reject_expense",
    }.get(entity_type, "")


# ---------------------------------------------------------------------------------------------
# Budgets (§6.4)


def budget_headroom(budget: Record) -> Record:
    """Allocated less committed less spent (the same as ``state.budget_available``)."""
    return budget_available(budget)


def commit_to_budget(budget: Record, amount: Record) -> None:
    """Add ``amount`` to committed; limit_exceeded when it is above the headroom."""
    headroom = budget_headroom(budget)
    if amount["amount"] > headroom["amount"]:
        raise ToolError(
            "limit_exceeded",
            f"Budget {budget['id']} has {fmt(headroom['amount'])} available; cannot commit {fmt(amount['amount'])}.",
            {"available": headroom["amount"], "requested": amount["amount"]},
        )
    budget["committedAmount"] = add_money(budget["committedAmount"], amount)


def release_commitment(budget: Record, amount: Record) -> None:
    """Subtract ``min(amount, committed)`` from committed. Never fails."""
    released = min(amount["amount"], budget["committedAmount"]["amount"])
    budget["committedAmount"] = subtract_money(budget["committedAmount"], money(released))


# ---------------------------------------------------------------------------------------------
# Stock and status (§6.5)


def apply_stock_change(
    state: State,
    *,
    product_id: str,
    warehouse_id: str,
    quantity_delta: int,
    reserved_delta: int,
    type: str,
    reference_type: str,
    reference_id: str | None,
    actor_user_id: str,
    note: str = "",
) -> Record:
    """The only way stock moves: check, write both quantities, store a movement; returns it.

    Raises insufficient_stock (on hand below 0, or reserved above on hand) and invalid_state
    (reserved below 0), with the §6.5 messages. The record made by ``ensure_inventory`` stays.
    """
    record = ensure_inventory(state, product_id, warehouse_id)
    on_hand = record["quantityOnHand"]
    reserved = record["quantityReserved"]
    next_on_hand = on_hand + quantity_delta
    next_reserved = reserved + reserved_delta
    if next_on_hand < 0:
        raise ToolError(
            "insufficient_stock",
            f"Cannot move {fmt(abs(quantity_delta))} of {product_id} out of {warehouse_id}: only {fmt(on_hand)} on hand.",
            {"onHand": on_hand, "requested": abs(quantity_delta)},
        )
    if next_reserved < 0:
        raise kit.invalid_state(
            f"Cannot release {fmt(abs(reserved_delta))} of {product_id} at {warehouse_id}: only {fmt(reserved)} reserved.",
            {"reserved": reserved},
        )
    if next_reserved > next_on_hand:
        raise ToolError(
            "insufficient_stock",
            f"Cannot reserve {fmt(reserved_delta)} of {product_id} at {warehouse_id}: {fmt(on_hand - reserved)} available.",
            {"available": on_hand - reserved, "requested": reserved_delta},
        )
    record["quantityOnHand"] = next_on_hand
    record["quantityReserved"] = next_reserved
    movement = {
        "id": next_id(state, "MOV"),
        "type": type,
        "productId": product_id,
        "warehouseId": warehouse_id,
        "quantityDelta": quantity_delta,
        "reservedDelta": reserved_delta,
        "referenceType": reference_type,
        "referenceId": reference_id,
        "occurredAt": state["now"],
        "actorUserId": actor_user_id,
        "note": note,
    }
    state["inventoryMovements"][movement["id"]] = movement
    return movement


def refresh_inbound_quantities(state: State, warehouse_id: str) -> None:
    """Set every inventory record of the warehouse to the units still due on its open orders."""
    expected: dict[str, int] = {}
    for order in state["purchaseOrders"].values():
        if order["warehouseId"] != warehouse_id or order["status"] not in ("sent", "partially_received"):
            continue
        for line in order["lines"]:
            remaining = line_remaining(line)
            if remaining > 0:
                expected[line["productId"]] = expected.get(line["productId"], 0) + remaining
    for record in state["inventory"].values():
        if record["warehouseId"] == warehouse_id:
            record["quantityInbound"] = expected.get(record["productId"], 0)
    for product_id, units in expected.items():
        ensure_inventory(state, product_id, warehouse_id)["quantityInbound"] = units


def recompute_purchase_order_status(state: State, order: Record) -> None:
    """received / partially_received from the lines (cancelled and closed orders left alone),
    then the inbound refresh of the order's warehouse."""
    if order["status"] in ("cancelled", "closed"):
        return
    lines = order["lines"]
    if all(line_remaining(line) == 0 for line in lines):
        order["status"] = "received"
    elif any(line["quantityReceived"] > 0 or line["quantityRejected"] > 0 for line in lines):
        order["status"] = "partially_received"
    refresh_inbound_quantities(state, order["warehouseId"])


def recompute_sales_order_status(order: Record) -> None:
    """fulfilled / partially_fulfilled from the lines (cancelled, closed and draft left alone)."""
    if order["status"] in ("cancelled", "closed", "draft"):
        return
    lines = order["lines"]
    if all(line["quantityFulfilled"] >= line["quantityOrdered"] for line in lines):
        order["status"] = "fulfilled"
    elif any(line["quantityFulfilled"] > 0 for line in lines):
        order["status"] = "partially_fulfilled"


def apply_payment_to_invoice(invoice: Record, amount: Record, paid_at: str) -> None:
    """Add ``amount`` to amountPaid; ``paid`` (with paidAt) at zero outstanding, else partially_paid.

    Raises invalid_input ``Payment of <a> exceeds the <o> outstanding on <id>.`` when too large.
    """
    remaining = outstanding_amount(invoice)
    if amount["amount"] > remaining["amount"]:
        raise kit.invalid_input(
            f"Payment of {fmt(amount['amount'])} exceeds the {fmt(remaining['amount'])} outstanding on {invoice['id']}.",
            {"outstanding": remaining},
        )
    invoice["amountPaid"] = add_money(invoice["amountPaid"], amount)
    if is_zero_money(outstanding_amount(invoice)):
        invoice["status"] = "paid"
        invoice["paidAt"] = paid_at
    else:
        invoice["status"] = "partially_paid"


# ---------------------------------------------------------------------------------------------
# Document totals (§6.6)


def line_total(quantity: float, unit_price: float) -> Record:
    """``money(quantity * unitPrice)`` from the unrounded price."""
    return money(quantity * unit_price)


def document_totals(lines: list[Record], taxed: bool = True) -> dict[str, Record]:
    """``subtotal`` (sum_money of the line totals), ``taxAmount`` and ``totalAmount``.

    Quotations (``taxed=False``) get only ``subtotal`` and an equal ``totalAmount``.
    """
    subtotal = money(0)
    for line in lines:
        subtotal = add_money(subtotal, line["lineTotal"])
    if not taxed:
        return {"subtotal": subtotal, "totalAmount": dict(subtotal)}
    tax = money(subtotal["amount"] * TAX_RATE)
    return {"subtotal": subtotal, "taxAmount": tax, "totalAmount": money(subtotal["amount"] + tax["amount"])}


# ---------------------------------------------------------------------------------------------
# Audit (§6.7)


#: Append the tool's one audit entry (``AUD-NNNN``, at ``now``) and return it; write it last.
#: ``audit(state, actor_user_id, action, entity_type, entity_id, summary, changes=None)``.
audit = record_audit


# ---------------------------------------------------------------------------------------------
# Projections (§6.12)


def vendor_summary(v: Record) -> Record:
    return {
        k: v[k] for k in ("id", "name", "status", "paymentTerms", "categories", "leadTimeDays", "isPreferred")
    }


def customer_summary(c: Record) -> Record:
    return {k: c[k] for k in ("id", "name", "status", "segment", "paymentTerms", "creditLimit")}


def product_summary(p: Record) -> Record:
    return {k: p[k] for k in ("id", "sku", "name", "category", "uom", "status", "listPrice", "standardCost")}


def inventory_summary(state: State, record: Record) -> Record:
    """The record without its id, with ``quantityAvailable`` and the effective reorder point (else 0)."""
    product = state["products"].get(record["productId"])
    reorder = effective_reorder_point(record, product)
    return {
        "productId": record["productId"],
        "warehouseId": record["warehouseId"],
        "quantityOnHand": record["quantityOnHand"],
        "quantityReserved": record["quantityReserved"],
        "quantityAvailable": available_quantity(record),
        "quantityInbound": record["quantityInbound"],
        "reorderPoint": reorder if reorder is not None else 0,
        "binLocation": record["binLocation"],
    }


def _with_line_count(o: Record, keys: tuple[str, ...]) -> Record:
    return {**{k: o[k] for k in keys}, "lineCount": len(o["lines"])}


def _with_balance(inv: Record, keys: tuple[str, ...]) -> Record:
    """``keys`` of the invoice, then its total, amount paid, outstanding amount and due date."""
    return {
        **{k: inv[k] for k in keys},
        "totalAmount": inv["totalAmount"],
        "amountPaid": inv["amountPaid"],
        "outstanding": outstanding_amount(inv),
        "dueDate": inv["dueDate"],
    }


def purchase_order_summary(o: Record) -> Record:
    return _with_line_count(o, ("id", "vendorId", "status", "warehouseId", "totalAmount", "expectedDeliveryDate"))


def vendor_invoice_summary(inv: Record) -> Record:
    return _with_balance(inv, ("id", "vendorId", "vendorInvoiceNumber", "status", "purchaseOrderId"))


def customer_invoice_summary(inv: Record) -> Record:
    return _with_balance(inv, ("id", "customerId", "status", "salesOrderId"))


def sales_order_summary(o: Record) -> Record:
    return _with_line_count(
        o, ("id", "customerId", "status", "totalAmount", "orderDate", "requestedDeliveryDate")
    )


def requisition_summary(r: Record) -> Record:
    return {
        k: r[k]
        for k in (
            "id",
            "requesterUserId",
            "departmentId",
            "status",
            "estimatedTotal",
            "budgetId",
            "createdAt",
        )
    }


def rfq_summary(state: State, rfq: Record) -> Record:
    """Includes ``invitedVendorCount`` and ``quotationCount`` (quotations of any status)."""
    quotations = sum(1 for q in state["quotations"].values() if q["rfqId"] == rfq["id"])
    return {
        "id": rfq["id"],
        "title": rfq["title"],
        "status": rfq["status"],
        "requisitionId": rfq["requisitionId"],
        "invitedVendorCount": len(rfq["invitedVendorIds"]),
        "quotationCount": quotations,
        "responseDueDate": rfq["responseDueDate"],
        "awardedQuotationId": rfq["awardedQuotationId"],
    }


def payment_summary(p: Record) -> Record:
    return {
        "id": p["id"],
        "direction": p["direction"],
        "vendorId": p["vendorId"],
        "customerId": p["customerId"],
        "status": p["status"],
        "amount": p["amount"],
        "method": p["method"],
        "scheduledDate": p["scheduledDate"],
        "processedAt": p["processedAt"],
        "invoiceIds": [a["invoiceId"] for a in p["allocations"]],
    }


def budget_view(b: Record) -> Record:
    """The budget's figures with ``available`` (headroom) and ``utilisationPercent``."""
    allocated = b["allocatedAmount"]["amount"]
    committed = b["committedAmount"]["amount"]
    spent = b["spentAmount"]["amount"]
    utilisation = 0 if allocated == 0 else js_round((committed + spent) / allocated * 1000) / 10
    return {
        "id": b["id"],
        "name": b["name"],
        "departmentId": b["departmentId"],
        "fiscalYear": b["fiscalYear"],
        "category": b["category"],
        "status": b["status"],
        "allocated": b["allocatedAmount"],
        "committed": b["committedAmount"],
        "spent": b["spentAmount"],
        "available": budget_headroom(b),
        "utilisationPercent": utilisation,
    }


def validity(q: Record, now: str) -> Record:
    """``{"isValid", "expired", "reason"}`` of a quotation at ``now``."""
    open_status = q["status"] in ("received", "under_review")
    expired = bool(q["validUntil"] < now)
    if not open_status:
        reason: str | None = f'Status is "{q["status"]}".'
    elif expired:
        reason = f"Validity lapsed on {q['validUntil']}."
    else:
        reason = None
    return {"isValid": open_status and not expired, "expired": expired, "reason": reason}
