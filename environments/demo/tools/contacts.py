"""Contact tools: the people at customer accounts."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State, full_name
from .contract import C
from .helpers import ACCOUNTS, CONTACT, CONTACTS, contact_summary


def _demote_primary(state: State, account_id: str) -> None:
    for contact in CONTACTS.linked(state, "accountId", account_id, sort=False):
        contact["isPrimary"] = False


@CONTACT.list
def list_contacts() -> dict[str, kit.Filter]:
    """List contacts (people at customer accounts), sorted by id, one page at a time, optionally only those of
    one account or only primary contacts. Each entry gives id, full name, accountId, accountName, email,
    phone, title and isPrimary. Read-only."""
    return {
        "accountId": kit.Filter(kit.String("Only contacts linked to this account id."), link="accountId"),
        "primaryOnly": kit.Filter(
            kit.Boolean("When true, only return each account's primary contact.", default=False),
            test=lambda s, contact, v: contact["isPrimary"],
        ),
    }


@CONTACT.list
def search_contacts() -> dict[str, kit.Filter]:
    """Find contacts whose id, full name, email or job title contains the query text (case-insensitive).
    Returns a page of contact summaries sorted by id. Read-only."""
    return {
        "query": kit.search_filter(
            "Text to look for, for example a surname or a title.",
            lambda s, c: (c["id"], full_name(c), c["email"], c["title"]),
        )
    }


@CONTACT.get("The contact's id, for example CON-001.")
def get_contact(state: State, contact: kit.Record) -> Any:
    """Get one contact by id: full name, account, email, phone, title and whether it is the account's primary
    contact. Read-only."""
    return contact_summary(state, contact)


@CONTACT.create(
    {
        "firstName": kit.String("First name.", required=True),
        "lastName": kit.String("Last name.", required=True),
        "email": kit.String("Email address.", required=True),
        "accountId": kit.String("Id of the account this person works at. Optional."),
        "phone": kit.String("Phone number. Optional."),
        "title": kit.String("Job title. Optional."),
        "isPrimary": kit.Boolean(
            "Make this the account's primary contact (requires accountId).", default=False
        ),
    },
)
def create_contact(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Create a contact person, optionally linked to an account. The contact gets the next CON- id. With
    isPrimary true the contact becomes the account's primary contact and every other contact of that
    account stops being primary (a primary contact needs an account). Writes one audit entry. Returns
    {"created": <contact summary>}."""
    account_id = C.read_optional_string(args, "accountId")
    ACCOUNTS.require_given(state, account_id)
    is_primary = C.read_boolean(args, "isPrimary", False)
    if is_primary and account_id is None:
        raise kit.invalid_input("A primary contact must belong to an account.")
    if is_primary:
        _demote_primary(state, account_id)  # type: ignore[arg-type]
    contact = {
        "id": CONTACTS.new_id(state),
        "accountId": account_id,
        "firstName": C.read_string(args, "firstName"),
        "lastName": C.read_string(args, "lastName"),
        "email": C.read_string(args, "email"),
        "phone": C.read_optional_string(args, "phone"),
        "title": C.read_optional_string(args, "title"),
        "isPrimary": is_primary,
    }
    return contact, f"Created {full_name(contact)}."


@CONTACT.change(
    "Id of the contact to change.",
    {
        "email": kit.String("New email address."),
        "phone": kit.String("New phone number."),
        "title": kit.String("New job title."),
    },
)
def update_contact(state: State, acting: kit.Record, contact: kit.Record, args: kit.Args) -> str:
    """Change a contact's email, phone or job title. Only the fields you pass are changed. Writes one audit
    entry. Returns {"updated": <contact summary>}."""
    email = C.read_optional_string(args, "email")
    phone = C.read_optional_string(args, "phone")
    title = C.read_optional_string(args, "title")
    kit.set_given(contact, {"email": email, "phone": phone, "title": title})
    return f"Updated {full_name(contact)}."


@CONTACT.change(
    "Id of the contact to link.",
    {
        "accountId": kit.String("Id of the account to link it to.", required=True),
        "makePrimary": kit.Boolean("Also make it the account's primary contact.", default=False),
    },
)
def link_contact_to_account(state: State, acting: kit.Record, contact: kit.Record, args: kit.Args) -> str:
    """Attach a contact to an account (moving it if it was linked elsewhere). With makePrimary true it also
    becomes that account's primary contact and the account's other contacts stop being primary; otherwise
    its primary flag is left unchanged. Writes one audit entry. Returns {"updated": <contact summary>}."""
    account = ACCOUNTS.require(state, C.read_string(args, "accountId"))
    if C.read_boolean(args, "makePrimary", False):
        _demote_primary(state, account["id"])
        contact["isPrimary"] = True
    CONTACTS.set_link(state, contact, "accountId", account["id"])
    return f"Linked {full_name(contact)} to {account['name']}."
