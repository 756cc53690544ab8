"""Customer tools (erp-tools.md §7.4, tools 12-19): the customer master, holds and receivables."""

from __future__ import annotations

from typing import Any

from silo_gym import define_tool

from ..state import State, is_overdue, next_id, outstanding_amount, subtract_money, sum_money
from .helpers import (
    CUSTOMER_STATUS,
    PAYMENT_TERMS,
    actor,
    audit,
    customer_summary,
    enum_prop,
    matches_text,
    number_prop,
    page_records,
    paging_props,
    read_enum,
    read_optional_enum,
    read_optional_string,
    read_string,
    require_customer,
    schema,
    string_prop,
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
_CUSTOMER_ID = "The customer's id, for example CUS-001."


def _list_customers(state: State, args: Args) -> Any:
    status = read_optional_enum(args, "status", CUSTOMER_STATUS)
    segment = read_optional_string(args, "segment")

    def keep(c: Any) -> bool:
        return (status is None or c["status"] == status) and (segment is None or matches_text(c["segment"], segment))

    page = page_records(state, "customers", args, None if status is None and segment is None else keep)
    return {**page, "results": [customer_summary(c) for c in page["results"]]}


list_customers = define_tool(
    name="list_customers",
    description=(
        "List customers sorted by id, a page at a time, optionally one status or segments containing "
        "the text. Rows: id, name, status, segment, paymentTerms, creditLimit. Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(CUSTOMER_STATUS, "Only customers with this status."),
            "segment": string_prop("Only customers whose segment contains this text."),
            **paging_props(),
        },
        [],
    ),
    run=_list_customers,
)


def _search_customers(state: State, args: Args) -> Any:
    query = read_string(args, "query")

    def keep(c: Any) -> bool:
        return (
            matches_text(c["name"], query)
            or matches_text(c["code"], query)
            or matches_text(c["segment"], query)
            or matches_text(c["contact"]["email"], query)
        )

    page = page_records(state, "customers", args, keep)
    return {**page, "results": [customer_summary(c) for c in page["results"]]}


search_customers = define_tool(
    name="search_customers",
    description=(
        "Find customers whose name, code, segment or contact email contains the text "
        "(case-insensitive); rows as in list_customers, sorted by id, paged. Read-only."
    ),
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_customers,
)


def _get_customer(state: State, args: Args) -> Any:
    return require_customer(state, read_string(args, "customerId"))


get_customer = define_tool(
    name="get_customer",
    description="One customer in full: status and reason, segment, credit limit, terms, contact and addresses. Read-only.",
    input_schema=schema({"customerId": string_prop(_CUSTOMER_ID)}, ["customerId"]),
    run=_get_customer,
)


def _create_customer(state: State, args: Args) -> Any:
    user = actor(state, args)
    name = read_string(args, "name")
    refuse_taken_name(state, "customers", "customer", name)
    customer_id = next_id(state, "CUS")
    company = state["company"]
    currency = company["baseCurrency"]
    segment = read_optional_string(args, "segment")
    limit = args.get("creditLimit")
    address = blank_address(company)
    customer = {
        "id": customer_id,
        "code": master_code(name, 12),
        "name": name,
        "status": "active",
        "segment": "general" if segment is None else segment,
        "creditLimit": {
            "amount": limit if isinstance(limit, (int, float)) and not isinstance(limit, bool) else 0,
            "currency": currency,
        },
        "paymentTerms": read_enum(args, "paymentTerms", PAYMENT_TERMS),
        "currency": currency,
        "contact": read_contact(args, with_phone=False),
        "billingAddress": address,
        "shippingAddress": dict(address),
        "createdAt": state["now"],
        "statusReason": None,
    }
    state["customers"][customer_id] = customer
    audit(state, user["id"], "customer.created", "customer", customer_id, f"Created customer {name}")
    return customer


create_customer = define_tool(
    name="create_customer",
    description=(
        "Add an active customer with payment terms and a credit limit in company currency (default "
        "0); names must be unique (case-insensitive); segment defaults to general. Audited."
    ),
    input_schema=schema(
        {
            "name": string_prop("The customer's name."),
            "segment": string_prop("Industry segment."),
            "creditLimit": number_prop("Credit limit in company currency.", minimum=0),
            "paymentTerms": enum_prop(PAYMENT_TERMS, "Payment terms for the customer's invoices."),
            "contactName": string_prop("Contact person."),
            "contactEmail": string_prop("Contact email."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["name", "paymentTerms", "contactEmail", "actorUserId"],
    ),
    run=_create_customer,
)


def _update_customer(state: State, args: Args) -> Any:
    user = actor(state, args)
    customer = require_customer(state, read_string(args, "customerId"))
    changes: list[dict[str, Any]] = []
    change_if_new(changes, customer, "paymentTerms", read_optional_enum(args, "paymentTerms", PAYMENT_TERMS))
    limit = args.get("creditLimit")
    if isinstance(limit, (int, float)) and not isinstance(limit, bool):
        changes.append({"field": "creditLimit", "from": customer["creditLimit"]["amount"], "to": limit})
        customer["creditLimit"] = {"amount": limit, "currency": customer["currency"]}
    change_contact(args, customer, changes, (("contactName", "name"), ("contactEmail", "email")))
    return save_changes(state, user, customer, "customer", changes)


update_customer = define_tool(
    name="update_customer",
    description=(
        "Change a customer's payment terms, credit limit or contact name/email; give at least one. "
        "Changes are listed in the audit entry."
    ),
    input_schema=schema(
        {
            "customerId": string_prop(_CUSTOMER_ID),
            "paymentTerms": enum_prop(PAYMENT_TERMS, "New payment terms."),
            "creditLimit": number_prop("New credit limit in company currency.", minimum=0),
            "contactName": string_prop("New contact person."),
            "contactEmail": string_prop("New contact email."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["customerId", "actorUserId"],
    ),
    run=_update_customer,
)


def _activate_customer(state: State, args: Args) -> Any:
    user = actor(state, args)
    customer = require_customer(state, read_string(args, "customerId"))
    return set_master_status(
        state, user, customer, "customer", "active", None, "customer.activated", f"Activated {customer['name']}"
    )


activate_customer = define_tool(
    name="activate_customer",
    description="Return a customer to active trading, lifting a block or credit hold. Audited.",
    input_schema=schema(
        {"customerId": string_prop(_CUSTOMER_ID), "actorUserId": string_prop(_ACTOR)},
        ["customerId", "actorUserId"],
    ),
    run=_activate_customer,
)

_HOLDS = ("blocked", "credit_hold")


def _block_customer(state: State, args: Args) -> Any:
    user = actor(state, args)
    customer = require_customer(state, read_string(args, "customerId"))
    status = read_enum(args, "status", _HOLDS)
    reason = read_string(args, "reason")
    return set_master_status(
        state, user, customer, "customer", status, reason, f"customer.{status}", f"{customer['name']}: {reason}"
    )


block_customer = define_tool(
    name="block_customer",
    description=(
        "Block a customer or put them on credit hold, with a reason; either status stops stock "
        "reservations and shipments for them. Audited."
    ),
    input_schema=schema(
        {
            "customerId": string_prop(_CUSTOMER_ID),
            "status": enum_prop(_HOLDS, "blocked or credit_hold."),
            "reason": string_prop("Why."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["customerId", "status", "reason", "actorUserId"],
    ),
    run=_block_customer,
)


def _get_customer_balance(state: State, args: Args) -> Any:
    customer = require_customer(state, read_string(args, "customerId"))
    now = state["now"]
    invoices = [
        i
        for i in state["customerInvoices"].values()
        if i["customerId"] == customer["id"] and i["status"] not in ("cancelled", "written_off", "draft")
    ]
    total = sum_money([outstanding_amount(i) for i in invoices], customer["currency"])
    return {
        "customerId": customer["id"],
        "customerName": customer["name"],
        "status": customer["status"],
        "openInvoiceCount": sum(1 for i in invoices if i["status"] != "paid"),
        "totalOutstanding": total,
        "overdueOutstanding": sum_money([outstanding_amount(i) for i in invoices if is_overdue(i, now)]),
        "creditLimit": customer["creditLimit"],
        "creditAvailable": subtract_money(customer["creditLimit"], total),
    }


get_customer_balance = define_tool(
    name="get_customer_balance",
    description=(
        "One customer's receivable position over issued invoices: open count, total outstanding, "
        "the overdue part, credit limit and credit still available. Read-only."
    ),
    input_schema=schema({"customerId": string_prop(_CUSTOMER_ID)}, ["customerId"]),
    run=_get_customer_balance,
)

TOOLS = [
    list_customers,
    search_customers,
    get_customer,
    create_customer,
    update_customer,
    activate_customer,
    block_customer,
    get_customer_balance,
]
