"""Write steps that several ERP tool modules share (kit-style building blocks over ``helpers``).

Each step is one piece of a tool's effect that used to be written out again in every module that
needs it: the master-record steps of vendors and customers (a name taken, a new contact, a field
change listed for the audit, a status move), and the approval steps that requisitions, purchase
orders, vendor invoices, payments and expenses go through (submit, approve within limit and
budget, decide, reject). Messages, codes, audit actions and the order in which a step reads,
checks and writes are the tools' own (erp-tools.md §6-§7), so a tool built from steps gives the
same outputs byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from silo_gym import ToolError

from ..state import Record, State
from .helpers import (
    Args,
    assert_within_approval_limit,
    audit,
    commit_to_budget,
    create_approval,
    decide_approval,
    read_optional_string,
    read_string,
    require_approval,
    require_budget,
)

__all__ = [
    "approve_within_limit",
    "blank_address",
    "change_contact",
    "change_if_new",
    "decide_linked_approval",
    "master_code",
    "read_contact",
    "refuse_taken_name",
    "reject_document",
    "save_changes",
    "set_master_status",
    "submit_for_approval",
]

_NOT_CODE = re.compile(r"[^A-Z0-9]")

# ---------------------------------------------------------------------------------------------
# Master records (vendors, customers)


def refuse_taken_name(state: State, collection: str, label: str, name: str) -> None:
    """conflict ``A <label> named "<name>" already exists as <id>.`` (details ``{"<label>Id": id}``)
    when a record of ``state[collection]`` has that name, compared case-insensitively."""
    for record in state[collection].values():
        if record["name"].lower() == name.lower():
            raise ToolError(
                "conflict",
                f'A {label} named "{name}" already exists as {record["id"]}.',
                {f"{label}Id": record["id"]},
            )


def master_code(name: str, width: int) -> str:
    """A record code from a name: its upper-cased letters and digits, at most ``width`` of them."""
    return _NOT_CODE.sub("", name.upper())[:width]


def blank_address(company: Record) -> Record:
    """An empty postal address in the company's country (a new master record's default)."""
    return {"line1": "", "city": "", "region": "", "postalCode": "", "country": company["address"]["country"]}


def read_contact(args: Args, with_phone: bool) -> Record:
    """``{"name", "email", "phone"}`` from ``contactName`` (default ""), ``contactEmail`` (required)
    and, when ``with_phone``, ``contactPhone`` (default ""; otherwise always ""), read in that order.

    Raises:
        ToolError: invalid_input when ``contactEmail`` is missing or a field is not a string.
    """
    name = read_optional_string(args, "contactName") or ""
    email = read_string(args, "contactEmail")
    phone = (read_optional_string(args, "contactPhone") or "") if with_phone else ""
    return {"name": name, "email": email, "phone": phone}


def change_if_new(changes: list[Record], record: Record, field: str, value: Any) -> None:
    """Set ``record[field]`` to ``value`` and list ``{"field", "from", "to"}`` in ``changes``,
    unless ``value`` is None or already the field's value."""
    if value is not None and value != record[field]:
        changes.append({"field": field, "from": record[field], "to": value})
        record[field] = value


def change_contact(args: Args, record: Record, changes: list[Record], fields: tuple[tuple[str, str], ...]) -> None:
    """For each ``(argument, key)`` given as a string in ``args``: list the change of
    ``contact.<key>`` and write it (an equal value is still listed, as the tools always did).

    Raises:
        ToolError: invalid_input when a given argument is not a string.
    """
    for field, key in fields:
        value = read_optional_string(args, field)
        if value is not None:
            changes.append({"field": f"contact.{key}", "from": record["contact"][key], "to": value})
            record["contact"][key] = value


def save_changes(state: State, user: Record, record: Record, kind: str, changes: list[Record]) -> Record:
    """The end of an update tool: invalid_input ``No <kind> fields were supplied to update.`` when
    nothing changed, else the ``<kind>.updated`` audit entry listing ``changes``; returns ``record``."""
    if not changes:
        raise ToolError("invalid_input", f"No {kind} fields were supplied to update.")
    audit(state, user["id"], f"{kind}.updated", kind, record["id"], f"Updated {record['name']}", changes)
    return record


def set_master_status(
    state: State, user: Record, record: Record, kind: str, status: str, reason: str | None, action: str, summary: str
) -> Record:
    """Move a vendor or customer to ``status`` with ``statusReason`` ``reason``, audited as
    ``action`` with the status change listed; returns the record.

    Raises:
        ToolError: invalid_state ``<Kind> <id> is already <status>.`` when it is in that status.
    """
    if record["status"] == status:
        raise ToolError("invalid_state", f"{kind.capitalize()} {record['id']} is already {status}.")
    previous = record["status"]
    record["status"] = status
    record["statusReason"] = reason
    audit(state, user["id"], action, kind, record["id"], summary, [{"field": "status", "from": previous, "to": status}])
    return record


# ---------------------------------------------------------------------------------------------
# Approval steps (requisitions, purchase orders, vendor invoices, payments, expenses)


def submit_for_approval(
    state: State,
    user: Record,
    document: Record,
    entity_type: str,
    approver: Record,
    amount: Record,
    status: str = "pending_approval",
    stamp: tuple[str, ...] = (),
) -> Record:
    """Open a pending approval of ``amount`` for ``document`` assigned to ``approver``; the
    document moves to ``status``, each field of ``stamp`` is set to now, ``approvalId`` links the
    approval, and the ``<entity_type>.submitted`` audit entry is written. Returns the approval."""
    approval = create_approval(state, entity_type, document["id"], user["id"], approver["id"], amount)
    document["status"] = status
    for field in stamp:
        document[field] = state["now"]
    document["approvalId"] = approval["id"]
    audit(
        state, user["id"], f"{entity_type}.submitted", entity_type, document["id"],
        f"Submitted {document['id']} to {approver['name']}",
    )
    return approval


def approve_within_limit(state: State, approver: Record, document: Record, amount: Record, subject: str) -> None:
    """The approver's limit must cover ``amount`` (``subject`` names the document in the message),
    then ``amount`` is committed to the document's budget when it has one.

    Raises:
        ToolError: limit_exceeded from the approval limit or the budget's headroom; not_found for
            a dangling budget id.
    """
    assert_within_approval_limit(approver, amount, subject)
    if document["budgetId"]:
        commit_to_budget(require_budget(state, document["budgetId"]), amount)


def decide_linked_approval(
    state: State, document: Record, decision: str, user_id: str, note: Callable[[], Any]
) -> Record | None:
    """Decide the approval ``document["approvalId"]`` links, if any, appending the note; returns it
    (None without a link). ``note`` is called only when there is an approval to decide, so an
    argument is read exactly when the tools always read it.

    Raises:
        ToolError: not_found for a dangling approval id; invalid_state when it is already decided.
    """
    if not document["approvalId"]:
        return None
    return decide_approval(state, require_approval(state, document["approvalId"]), decision, user_id, note())


def reject_document(
    state: State, approver: Record, document: Record, entity_type: str, reason: str, stamp: tuple[str, ...] = ()
) -> Record | None:
    """Reject ``document``: its linked approval (if any) is decided ``rejected`` with the reason,
    the document becomes ``rejected`` with each ``stamp`` field set to now, and the
    ``<entity_type>.rejected`` audit entry is written. Returns the approval (None without one)."""
    approval = decide_linked_approval(state, document, "rejected", approver["id"], lambda: reason)
    document["status"] = "rejected"
    for field in stamp:
        document[field] = state["now"]
    audit(
        state, approver["id"], f"{entity_type}.rejected", entity_type, document["id"],
        f"Rejected {document['id']}: {reason}",
    )
    return approval
