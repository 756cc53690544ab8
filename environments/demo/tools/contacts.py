"""Contact tools: the people at customer accounts."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import State, full_name, next_id
from .contract import C, actor_prop, schema
from .helpers import (
    ACCOUNTS,
    CONTACTS,
    actor,
    audit,
    contact_summary,
)
from .index import linked_ids, relinked


def _demote_primary(state: State, account_id: str) -> None:
    contacts = state["contacts"]
    for contact_id in linked_ids(contacts, "accountId", account_id):
        contacts[contact_id]["isPrimary"] = False


list_contacts = kit.list_tool(
    name="list_contacts",
    description=(
        "List contacts (people at customer accounts), sorted by id, one page at a time, optionally "
        "only those of one account or only primary contacts. Each entry gives id, full name, "
        "accountId, accountName, email, phone, title and isPrimary. Read-only."
    ),
    collection=CONTACTS,
    summary=contact_summary,
    filters={
        "accountId": kit.Filter(kit.String("Only contacts linked to this account id."), link="accountId"),
        "primaryOnly": kit.Filter(
            kit.Boolean("When true, only return each account's primary contact.", default=False),
            test=lambda s, contact, v: contact["isPrimary"],
        ),
    },
    contract=C,
)


search_contacts = kit.list_tool(
    name="search_contacts",
    description=(
        "Find contacts whose id, full name, email or job title contains the query text "
        "(case-insensitive). Returns a page of contact summaries sorted by id. Read-only."
    ),
    collection=CONTACTS,
    summary=contact_summary,
    filters={"query": kit.search_filter(
        "Text to look for, for example a surname or a title.", lambda s, c: (c["id"], full_name(c), c["email"], c["title"])
    )},
    contract=C,
)


get_contact = kit.get_tool(
    name="get_contact",
    description="Get one contact by id: full name, account, email, phone, title and whether it is the "
    "account's primary contact. Read-only.",
    collection=CONTACTS,
    id_key="contactId",
    id_description="The contact's id, for example CON-001.",
    show=contact_summary,
    contract=C,
)


def _create_contact(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    account_id = C.read_optional_string(args, "accountId")
    if account_id is not None:
        ACCOUNTS.require(state, account_id)
    is_primary = C.read_boolean(args, "isPrimary", False)
    if is_primary and account_id is None:
        raise ToolError("invalid_input", "A primary contact must belong to an account.")
    if is_primary:
        _demote_primary(state, account_id)  # type: ignore[arg-type]
    contact_id = next_id(state, "CON")
    contact = {
        "id": contact_id,
        "accountId": account_id,
        "firstName": C.read_string(args, "firstName"),
        "lastName": C.read_string(args, "lastName"),
        "email": C.read_string(args, "email"),
        "phone": C.read_optional_string(args, "phone"),
        "title": C.read_optional_string(args, "title"),
        "isPrimary": is_primary,
    }
    state["contacts"][contact_id] = contact
    audit(state, acting, "create_contact", "contact", contact_id, f"Created {full_name(contact)}.")
    return {"created": contact_summary(state, contact)}


create_contact = kit.write_tool(
    name="create_contact",
    description=(
        "Create a contact person, optionally linked to an account. The contact gets the next CON- "
        "id. With isPrimary true the contact becomes the account's primary contact and every other "
        "contact of that account stops being primary (a primary contact needs an account). Writes "
        'one audit entry. Returns {"created": <contact summary>}.'
    ),
    input_schema=schema(
        {
            "firstName": C.string_prop("First name."),
            "lastName": C.string_prop("Last name."),
            "email": C.string_prop("Email address."),
            "accountId": C.string_prop("Id of the account this person works at. Optional."),
            "phone": C.string_prop("Phone number. Optional."),
            "title": C.string_prop("Job title. Optional."),
            "isPrimary": C.boolean_prop(
                "Make this the account's primary contact (requires accountId).", default=False
            ),
            "actorUserId": actor_prop(),
        },
        required=["firstName", "lastName", "email", "actorUserId"],
    ),
    run=_create_contact,
)


def _update_contact(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    contact = CONTACTS.require(state, C.read_string(args, "contactId"))
    email = C.read_optional_string(args, "email")
    phone = C.read_optional_string(args, "phone")
    title = C.read_optional_string(args, "title")
    if email is not None:
        contact["email"] = email
    if phone is not None:
        contact["phone"] = phone
    if title is not None:
        contact["title"] = title
    audit(state, acting, "update_contact", "contact", contact["id"], f"Updated {full_name(contact)}.")
    return {"updated": contact_summary(state, contact)}


update_contact = kit.write_tool(
    name="update_contact",
    description=(
        "Change a contact's email, phone or job title. Only the fields you pass are changed. Writes "
        'one audit entry. Returns {"updated": <contact summary>}.'
    ),
    input_schema=schema(
        {
            "contactId": C.string_prop("Id of the contact to change."),
            "email": C.string_prop("New email address."),
            "phone": C.string_prop("New phone number."),
            "title": C.string_prop("New job title."),
            "actorUserId": actor_prop(),
        },
        required=["contactId", "actorUserId"],
    ),
    run=_update_contact,
)


def _link_contact_to_account(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    contact = CONTACTS.require(state, C.read_string(args, "contactId"))
    account = ACCOUNTS.require(state, C.read_string(args, "accountId"))
    if C.read_boolean(args, "makePrimary", False):
        _demote_primary(state, account["id"])
        contact["isPrimary"] = True
    old_account_id = contact["accountId"]
    contact["accountId"] = account["id"]
    relinked(state["contacts"], contact["id"], "accountId", old_account_id)
    audit(
        state,
        acting,
        "link_contact_to_account",
        "contact",
        contact["id"],
        f"Linked {full_name(contact)} to {account['name']}.",
    )
    return {"updated": contact_summary(state, contact)}


link_contact_to_account = kit.write_tool(
    name="link_contact_to_account",
    description=(
        "Attach a contact to an account (moving it if it was linked elsewhere). With makePrimary "
        "true it also becomes that account's primary contact and the account's other contacts stop "
        "being primary; otherwise its primary flag is left unchanged. Writes one audit entry. "
        'Returns {"updated": <contact summary>}.'
    ),
    input_schema=schema(
        {
            "contactId": C.string_prop("Id of the contact to link."),
            "accountId": C.string_prop("Id of the account to link it to."),
            "makePrimary": C.boolean_prop("Also make it the account's primary contact.", default=False),
            "actorUserId": actor_prop(),
        },
        required=["contactId", "accountId", "actorUserId"],
    ),
    run=_link_contact_to_account,
)
