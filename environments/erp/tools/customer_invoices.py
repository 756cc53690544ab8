"""Customer invoice tools (erp-tools.md §7.16): billing shipments, receivables and their ageing."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import (
    State,
    add_days,
    days_between,
    is_overdue,
    money,
    next_id,
    outstanding_amount,
    payment_term_days,
    sum_money,
)
from .helpers import (
    CINV_STATUS,
    actor,
    array_prop,
    assert_status,
    audit,
    boolean_prop,
    customer_invoice_summary,
    document_totals,
    enum_prop,
    flag,
    fmt,
    line_total,
    linked_records,
    matches_text,
    number_prop,
    object_prop,
    ordered_records,
    page_records,
    paginate,
    paging_props,
    read_number,
    read_object_array,
    read_optional_number,
    read_optional_string,
    read_string,
    require_customer,
    require_customer_invoice,
    require_product,
    require_sales_order,
    schema,
    string_prop,
)

Args = dict[str, Any]
_ACTOR = "Id of the active user doing this (for example USR-009); recorded in the audit log."
_INVOICE = "The customer invoice id, for example CINV-403."
_OPEN_EXCLUDED = ("draft", "cancelled", "written_off", "paid")


def _list_customer_invoices(state: State, args: Args) -> Any:
    status = read_optional_string(args, "status")
    customer = read_optional_string(args, "customerId")
    overdue = flag(args, "overdueOnly")
    minimum = read_optional_number(args, "minimumAmount", minimum=0)
    now = state["now"]
    if customer is None:
        pool = ordered_records(state, "customerInvoices")
    else:
        pool = linked_records(state, "customerInvoices", "customerId", customer)
    invoices = [
        i
        for i in pool
        if (status is None or i["status"] == status)
        and (customer is None or i["customerId"] == customer)
        and (not overdue or is_overdue(i, now))
        and (minimum is None or i["totalAmount"]["amount"] >= minimum)
    ]
    page = paginate(invoices, args)
    page["results"] = [
        {**customer_invoice_summary(i), "isOverdue": is_overdue(i, now)} for i in page["results"]
    ]
    return {**page, "totalOutstanding": sum_money([outstanding_amount(i) for i in invoices])}


list_customer_invoices = define_tool(
    name="list_customer_invoices",
    description=(
        "List customer invoices sorted by id, optionally by status, customer, overdue flag or minimum "
        "total, with the total still outstanding over all that match. Read-only."
    ),
    input_schema=schema(
        {
            "status": enum_prop(CINV_STATUS, "Only invoices in this status."),
            "customerId": string_prop("Only invoices of this customer (for example CUS-003)."),
            "overdueOnly": boolean_prop("When true, only invoices past their due date with money owed."),
            "minimumAmount": number_prop("Only invoices whose total is at least this many USD.", minimum=0),
            **paging_props(),
        },
        [],
    ),
    run=_list_customer_invoices,
)


def _search_customer_invoices(state: State, args: Args) -> Any:
    query = read_string(args, "query")
    customers = state["customers"]

    def keep(i: Any) -> bool:
        customer = customers.get(i["customerId"])
        return matches_text(i["id"], query) or matches_text(customer["name"] if customer else None, query)

    page = page_records(state, "customerInvoices", args, keep)
    page["results"] = [customer_invoice_summary(i) for i in page["results"]]
    return page


search_customer_invoices = define_tool(
    name="search_customer_invoices",
    description="Find customer invoices whose id or customer name contains the text (case-insensitive). Read-only.",
    input_schema=schema({"query": string_prop("Text to look for."), **paging_props()}, ["query"]),
    run=_search_customer_invoices,
)


def _get_customer_invoice(state: State, args: Args) -> Any:
    invoice = require_customer_invoice(state, read_string(args, "customerInvoiceId"))
    now = state["now"]
    overdue = is_overdue(invoice, now)
    payments = [
        {"id": p["id"], "status": p["status"], "amount": p["amount"], "processedAt": p["processedAt"]}
        for p in state["payments"].values()
        if any(a["invoiceId"] == invoice["id"] for a in p["allocations"])
    ]
    return {
        **invoice,
        "outstanding": outstanding_amount(invoice),
        "isOverdue": overdue,
        "daysOverdue": days_between(invoice["dueDate"], now) if overdue else 0,
        "payments": payments,
    }


get_customer_invoice = define_tool(
    name="get_customer_invoice",
    description=(
        "Get one customer invoice with its outstanding amount, overdue flag and days overdue, and the "
        "payments applied to it. Read-only."
    ),
    input_schema=schema({"customerInvoiceId": string_prop(_INVOICE)}, ["customerInvoiceId"]),
    run=_get_customer_invoice,
)


def _create_customer_invoice(state: State, args: Args) -> Any:
    user = actor(state, args)
    customer = require_customer(state, read_string(args, "customerId"))
    order = None
    so_id = read_optional_string(args, "salesOrderId")
    if so_id is not None:
        order = require_sales_order(state, so_id)
        if order["customerId"] != customer["id"]:
            raise ToolError(
                "invalid_input",
                f"{order['id']} belongs to customer {order['customerId']}, not {customer['id']}.",
            )
        if order["status"] == "cancelled":
            raise ToolError("invalid_state", f"{order['id']} is cancelled and cannot be invoiced.")
    inv_id = next_id(state, "CINV")
    if isinstance(args.get("lines"), list):
        specs = read_object_array(args, "lines")
    elif order is not None:
        specs = []
        for line in order["lines"]:
            if line["quantityFulfilled"] > 0:
                product = state["products"].get(line["productId"])
                specs.append(
                    {
                        "productId": line["productId"],
                        "description": product["name"] if product else line["productId"],
                        "quantity": line["quantityFulfilled"],
                        "unitPrice": line["unitPrice"]["amount"],
                        "salesOrderLineId": line["id"],
                    }
                )
    else:
        specs = []
    if not specs:
        if order is not None:
            raise ToolError(
                "invalid_input", f"Nothing has shipped on {order['id']} yet, so there is nothing to invoice."
            )
        raise ToolError("invalid_input", 'Provide "lines" when there is no sales order.')
    lines = []
    for i, spec in enumerate(specs, start=1):
        product = require_product(state, read_string(spec, "productId"))
        quantity = read_number(spec, "quantity", minimum=0)
        unit_price = read_number(spec, "unitPrice", minimum=0)
        so_line = read_optional_string(spec, "salesOrderLineId")
        description = read_optional_string(spec, "description") or product["name"]
        lines.append(
            {
                "id": f"{inv_id}-L{i}",
                "salesOrderLineId": so_line,
                "productId": product["id"],
                "description": description,
                "quantity": quantity,
                "unitPrice": money(unit_price),
                "lineTotal": line_total(quantity, unit_price),
            }
        )
    totals = document_totals(lines)
    fulfillment_ids = (
        [
            f["id"]
            for f in state["fulfillments"].values()
            if f["salesOrderId"] == order["id"] and f["status"] != "cancelled"
        ]
        if order is not None
        else []
    )
    record = {
        "id": inv_id,
        "number": inv_id,
        "customerId": customer["id"],
        "salesOrderId": order["id"] if order is not None else None,
        "fulfillmentIds": fulfillment_ids,
        "status": "draft",
        "lines": lines,
        "subtotal": totals["subtotal"],
        "taxAmount": totals["taxAmount"],
        "totalAmount": totals["totalAmount"],
        "amountPaid": money(0),
        "issueDate": state["now"],
        "dueDate": add_days(state["now"], payment_term_days(customer["paymentTerms"])),
        "paidAt": None,
    }
    state["customerInvoices"][inv_id] = record
    audit(
        state,
        user["id"],
        "customer_invoice.created",
        "customer_invoice",
        inv_id,
        f"Raised {inv_id} for {customer['name']}",
        [],
    )
    return record


_CI_LINE = object_prop(
    "One billed line.",
    {
        "productId": string_prop("The product billed, for example PRD-005."),
        "description": string_prop("What is billed; default the product's name."),
        "quantity": number_prop("Quantity billed.", minimum=0),
        "unitPrice": number_prop("Price per unit in USD.", minimum=0),
        "salesOrderLineId": string_prop("The sales order line billed."),
    },
    ["productId", "quantity", "unitPrice"],
)

create_customer_invoice = define_tool(
    name="create_customer_invoice",
    description=(
        "Raise a draft customer invoice, normally for what shipped on a sales order: omit lines to bill "
        "the order's fulfilled quantities at the order's prices. Issue it afterwards. Returns the invoice."
    ),
    input_schema=schema(
        {
            "customerId": string_prop("The customer billed, for example CUS-007."),
            "salesOrderId": string_prop("The sales order billed, for example SO-306."),
            "lines": array_prop("The billed lines; omit to bill what shipped on the order.", _CI_LINE),
            "actorUserId": string_prop(_ACTOR),
        },
        ["customerId", "actorUserId"],
    ),
    run=_create_customer_invoice,
)


def _issue_customer_invoice(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_customer_invoice(state, read_string(args, "customerInvoiceId"))
    customer = require_customer(state, invoice["customerId"])
    assert_status(invoice["status"], ["draft"], f"Invoice {invoice['id']}")
    invoice["status"] = "issued"
    invoice["issueDate"] = state["now"]
    invoice["dueDate"] = add_days(state["now"], payment_term_days(customer["paymentTerms"]))
    if invoice["salesOrderId"]:
        order = require_sales_order(state, invoice["salesOrderId"])
        if order["status"] == "fulfilled":
            order["status"] = "invoiced"
    audit(
        state,
        user["id"],
        "customer_invoice.issued",
        "customer_invoice",
        invoice["id"],
        f"Issued {invoice['id']} due {invoice['dueDate']}",
        [],
    )
    return invoice


issue_customer_invoice = define_tool(
    name="issue_customer_invoice",
    description=(
        "Issue a draft customer invoice: its dates restart from now and the customer's payment terms, "
        "and a fulfilled sales order becomes invoiced. Returns the invoice."
    ),
    input_schema=schema(
        {"customerInvoiceId": string_prop(_INVOICE), "actorUserId": string_prop(_ACTOR)},
        ["customerInvoiceId", "actorUserId"],
    ),
    run=_issue_customer_invoice,
)


def _cancel_customer_invoice(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_customer_invoice(state, read_string(args, "customerInvoiceId"))
    reason = read_string(args, "reason")
    assert_status(invoice["status"], ["draft", "issued"], f"Invoice {invoice['id']}")
    if invoice["amountPaid"]["amount"] > 0:
        raise ToolError(
            "invalid_state",
            f"Invoice {invoice['id']} has {fmt(invoice['amountPaid']['amount'])} paid against it; write it off instead.",
        )
    invoice["status"] = "cancelled"
    audit(
        state,
        user["id"],
        "customer_invoice.cancelled",
        "customer_invoice",
        invoice["id"],
        f"Cancelled {invoice['id']}: {reason}",
        [],
    )
    return invoice


cancel_customer_invoice = define_tool(
    name="cancel_customer_invoice",
    description="Cancel a draft or issued customer invoice that has taken no payment. Returns the invoice.",
    input_schema=schema(
        {
            "customerInvoiceId": string_prop(_INVOICE),
            "reason": string_prop("Why it is cancelled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["customerInvoiceId", "reason", "actorUserId"],
    ),
    run=_cancel_customer_invoice,
)


def _write_off_customer_invoice(state: State, args: Args) -> Any:
    user = actor(state, args)
    invoice = require_customer_invoice(state, read_string(args, "customerInvoiceId"))
    reason = read_string(args, "reason")
    assert_status(invoice["status"], ["issued", "partially_paid"], f"Invoice {invoice['id']}")
    written_off = outstanding_amount(invoice)
    invoice["status"] = "written_off"
    audit(
        state,
        user["id"],
        "customer_invoice.written_off",
        "customer_invoice",
        invoice["id"],
        f"Wrote off {fmt(written_off['amount'])} on {invoice['id']}: {reason}",
        [],
    )
    return {"invoice": invoice, "amountWrittenOff": written_off}


write_off_customer_invoice = define_tool(
    name="write_off_customer_invoice",
    description="Write off an unpaid or part-paid customer invoice as uncollectable. Returns the invoice and the amount written off.",
    input_schema=schema(
        {
            "customerInvoiceId": string_prop(_INVOICE),
            "reason": string_prop("Why the debt is written off."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["customerInvoiceId", "reason", "actorUserId"],
    ),
    run=_write_off_customer_invoice,
)


def _list_overdue_customer_invoices(state: State, args: Args) -> Any:
    minimum = read_optional_number(args, "minimumAmount", minimum=0)
    customer_id = read_optional_string(args, "customerId")
    now = state["now"]
    rows = []
    if customer_id is None:
        pool: Any = state["customerInvoices"].values()
    else:
        pool = linked_records(state, "customerInvoices", "customerId", customer_id, sort=False)
    for i in pool:
        if not is_overdue(i, now):
            continue
        if minimum is not None and i["totalAmount"]["amount"] < minimum:
            continue
        if customer_id is not None and i["customerId"] != customer_id:
            continue
        customer = state["customers"].get(i["customerId"])
        row = {
            **customer_invoice_summary(i),
            "customerName": customer["name"] if customer else i["customerId"],
        }
        if customer is not None:
            row["customerStatus"] = customer["status"]
        row["daysOverdue"] = days_between(i["dueDate"], now)
        rows.append(row)
    rows.sort(key=lambda r: r["daysOverdue"], reverse=True)
    page = paginate(rows, args)
    return {**page, "totalOverdue": sum_money([r["outstanding"] for r in rows])}


list_overdue_customer_invoices = define_tool(
    name="list_overdue_customer_invoices",
    description=(
        "List overdue customer invoices, most days late first, optionally only those whose total is at "
        "least an amount or of one customer, with the customer's name and status and the total overdue. "
        "Read-only."
    ),
    input_schema=schema(
        {
            "minimumAmount": number_prop("Only invoices whose total is at least this many USD.", minimum=0),
            "customerId": string_prop("Only invoices of this customer."),
            **paging_props(),
        },
        [],
    ),
    run=_list_overdue_customer_invoices,
)


def _list_receivables_by_customer(state: State, args: Args) -> Any:
    now = state["now"]
    groups: dict[str, dict[str, Any]] = {}
    for i in state["customerInvoices"].values():
        if i["status"] in _OPEN_EXCLUDED:
            continue
        group = groups.setdefault(i["customerId"], {"total": 0.0, "overdue": 0.0, "ids": []})
        amount = outstanding_amount(i)["amount"]
        group["total"] += amount
        if is_overdue(i, now):
            group["overdue"] += amount
        group["ids"].append(i["id"])
    rows = []
    for customer_id, group in groups.items():
        customer = state["customers"].get(customer_id)
        row: dict[str, Any] = {
            "customerId": customer_id,
            "customerName": customer["name"] if customer else customer_id,
        }
        if customer is not None:
            row["customerStatus"] = customer["status"]
            row["creditLimit"] = customer["creditLimit"]
        row["totalOutstanding"] = money(group["total"])
        row["overdueOutstanding"] = money(group["overdue"])
        row["invoiceCount"] = len(group["ids"])
        row["invoiceIds"] = sorted(group["ids"])
        rows.append(row)
    rows.sort(key=lambda r: r["totalOutstanding"]["amount"], reverse=True)
    return paginate(rows, args)


list_receivables_by_customer = define_tool(
    name="list_receivables_by_customer",
    description=(
        "List open receivables per customer, largest balance first: total and overdue outstanding, "
        "credit limit, status and invoice ids. Read-only."
    ),
    input_schema=schema({**paging_props()}, []),
    run=_list_receivables_by_customer,
)


def aging_buckets(invoices: list[dict[str, Any]], now: str) -> tuple[dict[str, Any], Any]:
    """Outstanding amounts aged by days past due into five buckets, and the grand total (Money)."""
    names = ("current", "days1to30", "days31to60", "days61to90", "days90plus")
    totals = {n: 0.0 for n in names}
    ids: dict[str, list[str]] = {n: [] for n in names}
    for i in invoices:
        days = days_between(i["dueDate"], now) if i["dueDate"] < now else 0
        name = (
            "current"
            if days <= 0
            else "days1to30"
            if days <= 30
            else "days31to60"
            if days <= 60
            else "days61to90"
            if days <= 90
            else "days90plus"
        )
        totals[name] += outstanding_amount(i)["amount"]
        ids[name].append(i["id"])
    buckets: dict[str, Any] = {n: {"total": money(totals[n]), "invoiceIds": ids[n]} for n in names}
    return buckets, money(sum(totals[n] for n in names))


def _get_ar_aging(state: State, args: Args) -> Any:
    customer_id = read_optional_string(args, "customerId")
    invoices = [
        i
        for i in state["customerInvoices"].values()
        if i["status"] not in _OPEN_EXCLUDED
        and (customer_id is None or i["customerId"] == customer_id)
        and outstanding_amount(i)["amount"] > 0
    ]
    buckets, grand = aging_buckets(invoices, state["now"])
    return {"asOf": state["now"], "customerId": customer_id, "buckets": buckets, "grandTotal": grand}


get_ar_aging = define_tool(
    name="get_ar_aging",
    description=(
        "Age open receivables into current, 1-30, 31-60, 61-90 and over 90 days past due, with totals "
        "and invoice ids per bucket; optionally for one customer. Read-only."
    ),
    input_schema=schema({"customerId": string_prop("Only this customer's invoices.")}, []),
    run=_get_ar_aging,
)


def _list_uninvoiced_shipments(state: State, args: Args) -> Any:
    rows = []
    for order in state["salesOrders"].values():
        if order["status"] in ("cancelled", "draft"):
            continue
        shipped = sum(line["quantityFulfilled"] * line["unitPrice"]["amount"] for line in order["lines"])
        if shipped <= 0:
            continue
        invoiced = sum(
            c["subtotal"]["amount"]
            for c in state["customerInvoices"].values()
            if c["salesOrderId"] == order["id"] and c["status"] != "cancelled"
        )
        if invoiced >= shipped:
            continue
        customer = state["customers"].get(order["customerId"])
        rows.append(
            {
                "salesOrderId": order["id"],
                "customerId": order["customerId"],
                "customerName": customer["name"] if customer else order["customerId"],
                "status": order["status"],
                "shippedValue": money(shipped),
                "invoicedValue": money(invoiced),
                "uninvoicedValue": money(shipped - invoiced),
            }
        )
    rows.sort(key=lambda r: r["uninvoicedValue"]["amount"], reverse=True)
    page = paginate(rows, args)
    return {**page, "totalUninvoiced": sum_money([r["uninvoicedValue"] for r in rows])}


list_uninvoiced_shipments = define_tool(
    name="list_uninvoiced_shipments",
    description=(
        "List sales orders whose shipped value exceeds what has been invoiced, largest gap first, with "
        "the total not yet invoiced. Read-only."
    ),
    input_schema=schema({**paging_props()}, []),
    run=_list_uninvoiced_shipments,
)

TOOLS = [
    list_customer_invoices,
    search_customer_invoices,
    get_customer_invoice,
    create_customer_invoice,
    issue_customer_invoice,
    cancel_customer_invoice,
    write_off_customer_invoice,
    list_overdue_customer_invoices,
    list_receivables_by_customer,
    get_ar_aging,
    list_uninvoiced_shipments,
]
