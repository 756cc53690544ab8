"""Vendor tools (erp-tools.md §7.3, tools 4-11): the supplier master and what each vendor is owed."""

from __future__ import annotations

from typing import Any

from silo_gym import define_tool

from ..state import State, next_id, outstanding_amount, sum_money
from .helpers import (
    PAYMENT_TERMS,
    VENDOR_STATUS,
    actor,
    array_prop,
    audit,
    boolean_prop,
    enum_prop,
    flag,
    integer_prop,
    matches_text,
    page_records,
    paging_props,
    read_enum,
    read_optional_enum,
    read_optional_number,
    read_optional_string,
    read_string,
    require_vendor,
    schema,
    string_prop,
    vendor_summary,
)
from .steps import (
    blank_address,
    change_contact,
    change_if_new,
    master_code,
    read_contact,
    refuse_taken_name,
    save_changes,
    set_master_status,
)

Args = dict[str, Any]

_ACTOR = "Id of the user making the change (for example USR-001); must be an active user."
_VENDOR_ID = "The vendor's id, for example VEN-001."


def _list_vendors(state: State, args: Args) -> Any:
    status = read_optional_enum(args, "status", VENDOR_STATUS)
    category = read_optional_string(args, "category")
    preferred = flag(args, "preferredOnly")

    def keep(v: Any) -> bool:
        return (
            (status is None or v["status"] == status)
            and (category is None or any(matches_text(c, category) for c in v["categories"]))
            and (not preferred or v["isPreferred"])
        )

    unfiltered = status is None and category is None and not preferred
    page = page_records(state, "vendors", args, None if unfiltered else keep)
    return {**page, "results": [vendor_summary(v) for v in page["results"]]}


list_vendors = define_tool(
    name="list_vendors",
    description=(
        "List vendors sorted by id, a page at a time, optionally only one status, only vendors with a "
        "supply category containing the given text, or only preferred suppliers. Each row gives id, "
        "name, status, paymentTerms, categories, leadTimeDays and isPreferred. Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(VENDOR_STATUS, "Only vendors with this status."),
            "category": string_prop("Only vendors with a supply category containing this text, e.g. bearings."),
            "preferredOnly": boolean_prop("When true, only preferred suppliers."),
            **paging_props(),
        },
        [],
    ),
    run=_list_vendors,
)


def _search_vendors(state: State, args: Args) -> Any:
    query = read_string(args, "query")

    def keep(v: Any) -> bool:
        return (
            matches_text(v["name"], query)
            or matches_text(v["code"], query)
            or matches_text(v["contact"]["email"], query)
            or any(matches_text(c, query) for c in v["categories"])
        )

    page = page_records(state, "vendors", args, keep)
    return {**page, "results": [vendor_summary(v) for v in page["results"]]}


search_vendors = define_tool(
    name="search_vendors",
    description=(
        "Find vendors whose name, code, contact email or a supply category contains the text "
        "(case-insensitive); rows sorted by id, paged, as in list_vendors. Read-only."
    ),
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_vendors,
)


def _get_vendor(state: State, args: Args) -> Any:
    return require_vendor(state, read_string(args, "vendorId"))


get_vendor = define_tool(
    name="get_vendor",
    description=(
        "One vendor in full: status and its reason, categories, payment terms, currency, contact, "
        "address, tax id, rating, lead time and the preferred flag. Read-only."
    ),
    input_schema=schema({"vendorId": string_prop(_VENDOR_ID)}, ["vendorId"]),
    run=_get_vendor,
)


def _create_vendor(state: State, args: Args) -> Any:
    user = actor(state, args)
    name = read_string(args, "name")
    refuse_taken_name(state, "vendors", "vendor", name)
    given = args.get("categories")
    categories = [str(c) for c in given] if isinstance(given, list) else []
    vendor_id = next_id(state, "VEN")
    company = state["company"]
    vendor = {
        "id": vendor_id,
        "code": master_code(name, 10),
        "name": name,
        "status": "pending_approval",
        "categories": categories,
        "paymentTerms": read_enum(args, "paymentTerms", PAYMENT_TERMS),
        "currency": company["baseCurrency"],
        "contact": read_contact(args, with_phone=True),
        "address": blank_address(company),
        "taxId": "",
        "rating": 0,
        "leadTimeDays": _or(read_optional_number(args, "leadTimeDays", minimum=0, integer=True), 14),
        "isPreferred": False,
        "createdAt": state["now"],
        "statusReason": "Awaiting supplier qualification.",
    }
    state["vendors"][vendor_id] = vendor
    audit(state, user["id"], "vendor.created", "vendor", vendor_id, f"Created vendor {name}")
    return vendor


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


create_vendor = define_tool(
    name="create_vendor",
    description=(
        "Add a vendor. New vendors start in pending_approval (not orderable) until activate_vendor "
        "qualifies them; names must be unique (case-insensitive). Lead time defaults to 14 days. "
        "Audited."
    ),
    input_schema=schema(
        {
            "name": string_prop("The vendor's trading name."),
            "categories": array_prop("Supply categories, e.g. bearings.", {"type": "string"}),
            "paymentTerms": enum_prop(PAYMENT_TERMS, "Payment terms agreed with the vendor."),
            "contactName": string_prop("Contact person."),
            "contactEmail": string_prop("Contact email."),
            "contactPhone": string_prop("Contact phone."),
            "leadTimeDays": integer_prop("Typical delivery lead time in days (default 14).", minimum=0),
            "actorUserId": string_prop(_ACTOR),
        },
        ["name", "paymentTerms", "contactEmail", "actorUserId"],
    ),
    run=_create_vendor,
)


def _update_vendor(state: State, args: Args) -> Any:
    user = actor(state, args)
    vendor = require_vendor(state, read_string(args, "vendorId"))
    changes: list[dict[str, Any]] = []
    change_if_new(changes, vendor, "paymentTerms", read_optional_enum(args, "paymentTerms", PAYMENT_TERMS))
    change_if_new(changes, vendor, "leadTimeDays", read_optional_number(args, "leadTimeDays", minimum=0, integer=True))
    change_contact(args, vendor, changes, (("contactName", "name"), ("contactEmail", "email"), ("contactPhone", "phone")))
    preferred = args.get("isPreferred")
    change_if_new(changes, vendor, "isPreferred", preferred if isinstance(preferred, bool) else None)
    return save_changes(state, user, vendor, "vendor", changes)


update_vendor = define_tool(
    name="update_vendor",
    description=(
        "Change a vendor's payment terms, lead time, contact name/email/phone or preferred flag; "
        "give at least one. Each change is listed in the audit entry."
    ),
    input_schema=schema(
        {
            "vendorId": string_prop(_VENDOR_ID),
            "paymentTerms": enum_prop(PAYMENT_TERMS, "New payment terms."),
            "leadTimeDays": integer_prop("New typical lead time in days.", minimum=0),
            "contactName": string_prop("New contact person."),
            "contactEmail": string_prop("New contact email."),
            "contactPhone": string_prop("New contact phone."),
            "isPreferred": boolean_prop("Whether the vendor is a preferred supplier."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorId", "actorUserId"],
    ),
    run=_update_vendor,
)


def _activate_vendor(state: State, args: Args) -> Any:
    user = actor(state, args)
    vendor = require_vendor(state, read_string(args, "vendorId"))
    return set_master_status(
        state, user, vendor, "vendor", "active", None, "vendor.activated", f"Activated {vendor['name']}"
    )


activate_vendor = define_tool(
    name="activate_vendor",
    description=(
        "Make a vendor active so purchase orders can be raised with it (from pending, inactive or "
        "blocked); clears the status reason. Audited."
    ),
    input_schema=schema(
        {"vendorId": string_prop(_VENDOR_ID), "actorUserId": string_prop(_ACTOR)}, ["vendorId", "actorUserId"]
    ),
    run=_activate_vendor,
)


def _block_vendor(state: State, args: Args) -> Any:
    user = actor(state, args)
    vendor = require_vendor(state, read_string(args, "vendorId"))
    reason = read_string(args, "reason")
    return set_master_status(
        state, user, vendor, "vendor", "blocked", reason, "vendor.blocked", f"Blocked {vendor['name']}: {reason}"
    )


block_vendor = define_tool(
    name="block_vendor",
    description=(
        "Block a vendor: no new purchase orders, RFQ invitations or awards. The reason is stored on "
        "the vendor. Audited."
    ),
    input_schema=schema(
        {
            "vendorId": string_prop(_VENDOR_ID),
            "reason": string_prop("Why the vendor is blocked."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["vendorId", "reason", "actorUserId"],
    ),
    run=_block_vendor,
)


def _get_vendor_balance(state: State, args: Args) -> Any:
    vendor = require_vendor(state, read_string(args, "vendorId"))
    now = state["now"]
    invoices = [
        i
        for i in state["vendorInvoices"].values()
        if i["vendorId"] == vendor["id"] and i["status"] not in ("cancelled", "rejected")
    ]
    return {
        "vendorId": vendor["id"],
        "vendorName": vendor["name"],
        "openInvoiceCount": sum(1 for i in invoices if i["status"] != "paid"),
        "totalOutstanding": sum_money([outstanding_amount(i) for i in invoices]),
        "overdueOutstanding": sum_money(
            [outstanding_amount(i) for i in invoices if i["dueDate"] < now and i["status"] != "paid"]
        ),
        "currency": vendor["currency"],
    }


get_vendor_balance = define_tool(
    name="get_vendor_balance",
    description=(
        "What the company owes one vendor: open (unpaid) invoice count, total outstanding and the "
        "part past its due date, over invoices that are not cancelled or rejected. Read-only."
    ),
    input_schema=schema({"vendorId": string_prop(_VENDOR_ID)}, ["vendorId"]),
    run=_get_vendor_balance,
)

TOOLS = [
    list_vendors,
    search_vendors,
    get_vendor,
    create_vendor,
    update_vendor,
    activate_vendor,
    block_vendor,
    get_vendor_balance,
]
