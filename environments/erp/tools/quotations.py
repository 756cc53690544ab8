"""Quotation tools (erp-tools.md §7.10, tools 70-78): vendors' replies to RFQs, their comparison
and award."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, add_days, money, next_id, sum_money
from .helpers import (
    QUOTATION_STATUS,
    actor,
    array_prop,
    assert_status,
    audit,
    enum_prop,
    integer_prop,
    linked_ids,
    linked_records,
    number_prop,
    object_prop,
    page_records,
    paging_props,
    read_number,
    read_object_array,
    read_optional_enum,
    read_optional_number,
    read_optional_string,
    read_string,
    require_product,
    require_quotation,
    require_rfq,
    require_vendor,
    schema,
    string_prop,
    validity,
)

Args = dict[str, Any]
Record = dict[str, Any]

_ACTOR = "Id of the user making the change (for example USR-001); must be an active user."
_QUOTATION_ID = "The quotation's id, for example QUO-001."
_RFQ_ID = "The RFQ's id, for example RFQ-001."


def _line_schema() -> dict[str, Any]:
    return object_prop(
        "One quoted item.",
        {
            "productId": string_prop("Product id, for example PRD-001."),
            "quantity": integer_prop("Units quoted.", minimum=1),
            "unitPrice": number_prop("Quoted price per unit.", minimum=0),
        },
        ["productId", "quantity", "unitPrice"],
    )


def _build_line(state: State, quotation_id: str, index: int, spec: Record) -> Record:
    product = require_product(state, read_string(spec, "productId"))
    quantity = read_number(spec, "quantity", minimum=1, integer=True)
    unit_price = read_number(spec, "unitPrice", minimum=0)
    return {
        "id": f"{quotation_id}-L{index}",
        "productId": product["id"],
        "quantity": quantity,
        "unitPrice": money(unit_price),
        "lineTotal": money(quantity * unit_price),
    }


def _vendor_name(state: State, vendor_id: str) -> str:
    vendor = state["vendors"].get(vendor_id)
    return vendor["name"] if vendor is not None else vendor_id  # type: ignore[no-any-return]


def _list_quotations(state: State, args: Args) -> Any:
    rfq_id = read_optional_string(args, "rfqId")
    vendor_id = read_optional_string(args, "vendorId")
    status = read_optional_enum(args, "status", QUOTATION_STATUS)
    now = state["now"]

    def keep(q: Any) -> bool:
        return (
            (rfq_id is None or q["rfqId"] == rfq_id)
            and (vendor_id is None or q["vendorId"] == vendor_id)
            and (status is None or q["status"] == status)
        )

    ids = None
    if rfq_id is not None:
        ids = linked_ids(state, "quotations", "rfqId", rfq_id)
    elif vendor_id is not None:
        ids = linked_ids(state, "quotations", "vendorId", vendor_id)
    unfiltered = rfq_id is None and vendor_id is None and status is None
    page = page_records(state, "quotations", args, None if unfiltered else keep, ids)
    page["results"] = [
        {
            "id": q["id"],
            "rfqId": q["rfqId"],
            "vendorId": q["vendorId"],
            "status": q["status"],
            "totalAmount": q["totalAmount"],
            "leadTimeDays": q["leadTimeDays"],
            "validUntil": q["validUntil"],
            "isValid": validity(q, now)["isValid"],
        }
        for q in page["results"]
    ]
    return page


list_quotations = define_tool(
    name="list_quotations",
    description=(
        "Quotations sorted by id, a page at a time, optionally for one RFQ, one vendor or one status; "
        "each row says whether it is still valid (open status and not past validUntil). Read-only."
    ),
    input_schema=schema(
        {
            "rfqId": string_prop("Only quotations on this RFQ."),
            "vendorId": string_prop("Only quotations from this vendor."),
            "status": enum_prop(QUOTATION_STATUS, "Only quotations with this status."),
            **paging_props(),
        },
        [],
    ),
    run=_list_quotations,
)


def _get_quotation(state: State, args: Args) -> Any:
    quotation = require_quotation(state, read_string(args, "quotationId"))
    return {**quotation, "validity": validity(quotation, state["now"])}


get_quotation = define_tool(
    name="get_quotation",
    description=(
        "One quotation in full (lines, totals, lead time, validity date, notes) with its validity "
        "now: isValid, expired and the reason when not valid. Read-only."
    ),
    input_schema=schema({"quotationId": string_prop(_QUOTATION_ID)}, ["quotationId"]),
    run=_get_quotation,
)


def _record_quotation(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq = require_rfq(state, read_string(args, "rfqId"))
    vendor = require_vendor(state, read_string(args, "vendorId"))
    rid, vid = rfq["id"], vendor["id"]
    assert_status(rfq["status"], ["sent"], f"RFQ {rid}")
    if vid not in rfq["invitedVendorIds"]:
        raise ToolError(
            "not_allowed",
            f"Vendor {vid} was not invited to {rid}.",
            {"invitedVendorIds": list(rfq["invitedVendorIds"])},
        )
    for q in state["quotations"].values():
        if q["rfqId"] == rid and q["vendorId"] == vid:
            raise ToolError(
                "conflict",
                f"Vendor {vid} already submitted {q['id']} for {rid}; update it instead.",
                {"quotationId": q["id"]},
            )
    quotation_id = next_id(state, "QUO")
    requested = {line["productId"] for line in rfq["lines"]}
    lines = []
    for i, spec in enumerate(read_object_array(args, "lines"), start=1):
        line = _build_line(state, quotation_id, i, spec)
        if line["productId"] not in requested:
            raise ToolError("invalid_input", f"Product {line['productId']} was not requested on {rid}.")
        lines.append(line)
    subtotal = sum_money([line["lineTotal"] for line in lines])
    lead = read_optional_number(args, "leadTimeDays", minimum=0, integer=True)
    valid_until = read_optional_string(args, "validUntil")
    notes = read_optional_string(args, "notes")
    quotation = {
        "id": quotation_id,
        "number": quotation_id,
        "rfqId": rid,
        "vendorId": vid,
        "status": "received",
        "lines": lines,
        "subtotal": subtotal,
        "totalAmount": dict(subtotal),
        "leadTimeDays": vendor["leadTimeDays"] if lead is None else lead,
        "validUntil": add_days(state["now"], 30) if valid_until is None else valid_until,
        "receivedAt": state["now"],
        "notes": "" if notes is None else notes,
    }
    state["quotations"][quotation_id] = quotation
    audit(
        state, user["id"], "quotation.recorded", "quotation", quotation_id,
        f"Recorded {quotation_id} from {vendor['name']} for {rid}",
    )
    return quotation


record_quotation = define_tool(
    name="record_quotation",
    description=(
        "Record an invited vendor's reply to a sent RFQ (one quotation per vendor per RFQ; update it "
        "instead of recording twice). Every quoted product must be on the RFQ. Lead time defaults to "
        "the vendor's, validity to 30 days from now. Quotations carry no tax. Audited."
    ),
    input_schema=schema(
        {
            "rfqId": string_prop(_RFQ_ID),
            "vendorId": string_prop("The replying vendor, for example VEN-001."),
            "lines": array_prop("Quoted items.", _line_schema()),
            "leadTimeDays": integer_prop("Promised delivery lead time in days.", minimum=0),
            "validUntil": string_prop("Date the quotation expires (ISO)."),
            "notes": string_prop("Free-text notes."),
            "actorUserId": string_prop("Id of the user recording it; must be an active user."),
        },
        ["rfqId", "vendorId", "lines", "actorUserId"],
    ),
    run=_record_quotation,
)


def _update_quotation(state: State, args: Args) -> Any:
    user = actor(state, args)
    quotation = require_quotation(state, read_string(args, "quotationId"))
    qid = quotation["id"]
    assert_status(quotation["status"], ["received", "under_review", "expired"], f"Quotation {qid}")
    lead = read_optional_number(args, "leadTimeDays", minimum=0, integer=True)
    if lead is not None:
        quotation["leadTimeDays"] = lead
    valid_until = read_optional_string(args, "validUntil")
    if valid_until is not None:
        quotation["validUntil"] = valid_until
        if quotation["status"] == "expired" and valid_until > state["now"]:
            quotation["status"] = "received"
    notes = read_optional_string(args, "notes")
    if notes is not None:
        quotation["notes"] = notes
    if isinstance(args.get("lines"), list):
        specs = read_object_array(args, "lines")
        quotation["lines"] = [_build_line(state, qid, i, spec) for i, spec in enumerate(specs, start=1)]
        quotation["subtotal"] = sum_money([line["lineTotal"] for line in quotation["lines"]])
        quotation["totalAmount"] = dict(quotation["subtotal"])
    audit(state, user["id"], "quotation.updated", "quotation", qid, f"Updated {qid}")
    return quotation


update_quotation = define_tool(
    name="update_quotation",
    description=(
        "Revise an open or expired quotation (e.g. after a re-quote): lead time, validity date, notes "
        "or lines (replacing all of them). Extending an expired quotation's validity past now reopens "
        "it as received. Audited."
    ),
    input_schema=schema(
        {
            "quotationId": string_prop(_QUOTATION_ID),
            "leadTimeDays": integer_prop("New lead time in days.", minimum=0),
            "validUntil": string_prop("New expiry date (ISO)."),
            "notes": string_prop("New notes."),
            "lines": array_prop("Replacement lines.", _line_schema()),
            "actorUserId": string_prop(_ACTOR),
        },
        ["quotationId", "actorUserId"],
    ),
    run=_update_quotation,
)


def _accept_quotation(state: State, args: Args) -> Any:
    user = actor(state, args)
    quotation = require_quotation(state, read_string(args, "quotationId"))
    rfq = require_rfq(state, quotation["rfqId"])
    qid = quotation["id"]
    assert_status(quotation["status"], ["received", "under_review"], f"Quotation {qid}")
    assert_status(rfq["status"], ["sent", "closed"], f"RFQ {rfq['id']}")
    now = state["now"]
    check = validity(quotation, now)
    if not check["isValid"]:
        raise ToolError(
            "invalid_state",
            f"Quotation {qid} cannot be accepted. {check['reason'] or ''}".strip(),
            {"validUntil": quotation["validUntil"], "now": now},
        )
    vendor = require_vendor(state, quotation["vendorId"])
    if vendor["status"] == "blocked":
        raise ToolError("not_allowed", f"Vendor {vendor['id']} is blocked; its quotation cannot be awarded.")
    quotation["status"] = "accepted"
    rfq["status"] = "awarded"
    rfq["awardedQuotationId"] = qid
    if rfq["closedAt"] is None:
        rfq["closedAt"] = now
    rejected = []
    for other in state["quotations"].values():
        if other["rfqId"] == rfq["id"] and other["id"] != qid and other["status"] in ("received", "under_review"):
            other["status"] = "rejected"
            rejected.append(other["id"])
    audit(
        state, user["id"], "quotation.accepted", "quotation", qid,
        f"Accepted {qid} from {vendor['name']}; awarded {rfq['id']}",
    )
    return {"quotation": quotation, "rfq": rfq, "rejectedQuotationIds": rejected}


accept_quotation = define_tool(
    name="accept_quotation",
    description=(
        "Accept a valid quotation (open status, not past validUntil, vendor not blocked) on a sent or "
        "closed RFQ: the RFQ is awarded to it and the competing open quotations are rejected. Then "
        "raise the purchase order with create_purchase_order. Audited."
    ),
    input_schema=schema(
        {"quotationId": string_prop(_QUOTATION_ID), "actorUserId": string_prop(_ACTOR)},
        ["quotationId", "actorUserId"],
    ),
    run=_accept_quotation,
)


def _reject_quotation(state: State, args: Args) -> Any:
    user = actor(state, args)
    quotation = require_quotation(state, read_string(args, "quotationId"))
    reason = read_string(args, "reason")
    qid = quotation["id"]
    assert_status(quotation["status"], ["received", "under_review", "expired"], f"Quotation {qid}")
    quotation["status"] = "rejected"
    notes = quotation["notes"]
    quotation["notes"] = f"{notes} | Rejected: {reason}" if notes else f"Rejected: {reason}"
    audit(state, user["id"], "quotation.rejected", "quotation", qid, f"Rejected {qid}: {reason}")
    return quotation


reject_quotation = define_tool(
    name="reject_quotation",
    description=(
        "Reject one open or expired quotation without awarding the RFQ; the reason is appended to its "
        "notes. Audited."
    ),
    input_schema=schema(
        {
            "quotationId": string_prop(_QUOTATION_ID),
            "reason": string_prop("Why it is rejected."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["quotationId", "reason", "actorUserId"],
    ),
    run=_reject_quotation,
)


def _by_total(quotations: list[Record]) -> list[Record]:
    return sorted(quotations, key=lambda q: q["totalAmount"]["amount"])


def _compare_quotations(state: State, args: Args) -> Any:
    rfq = require_rfq(state, read_string(args, "rfqId"))
    now = state["now"]
    rows = []
    for q in _by_total(linked_records(state, "quotations", "rfqId", rfq["id"], sort=False)):
        check = validity(q, now)
        rows.append(
            {
                "quotationId": q["id"],
                "vendorId": q["vendorId"],
                "vendorName": _vendor_name(state, q["vendorId"]),
                "status": q["status"],
                "totalAmount": q["totalAmount"],
                "leadTimeDays": q["leadTimeDays"],
                "validUntil": q["validUntil"],
                "isValid": check["isValid"],
                "invalidReason": check["reason"],
                "lines": [
                    {
                        "productId": line["productId"],
                        "quantity": line["quantity"],
                        "unitPrice": line["unitPrice"],
                        "lineTotal": line["lineTotal"],
                    }
                    for line in q["lines"]
                ],
            }
        )
    cheapest = rows[0]["quotationId"] if rows else None
    cheapest_valid = next((row["quotationId"] for row in rows if row["isValid"]), None)
    return {
        "rfqId": rfq["id"],
        "rfqStatus": rfq["status"],
        "quotationCount": len(rows),
        "validQuotationCount": sum(1 for row in rows if row["isValid"]),
        "cheapestQuotationId": cheapest,
        "cheapestValidQuotationId": cheapest_valid,
        "cheapestIsInvalid": cheapest is not None and cheapest_valid is not None and cheapest != cheapest_valid,
        "quotations": rows,
    }


compare_quotations = define_tool(
    name="compare_quotations",
    description=(
        "All quotations on an RFQ side by side, cheapest total first, with vendor, status, lead time, "
        "validity (and why not valid) and lines; names the cheapest and the cheapest valid "
        "quotation, which can differ. Read-only."
    ),
    input_schema=schema({"rfqId": string_prop(_RFQ_ID)}, ["rfqId"]),
    run=_compare_quotations,
)


def _find_cheapest_valid_quotation(state: State, args: Args) -> Any:
    rfq = require_rfq(state, read_string(args, "rfqId"))
    limit = read_optional_number(args, "maxLeadTimeDays", minimum=0, integer=True)
    now = state["now"]
    rows = []
    for q in _by_total(linked_records(state, "quotations", "rfqId", rfq["id"], sort=False)):
        check = validity(q, now)
        too_slow = limit is not None and q["leadTimeDays"] > limit
        if not check["isValid"]:
            why = check["reason"]
        elif too_slow:
            why = f"Lead time {q['leadTimeDays']} days exceeds the {limit}-day limit."
        else:
            why = None
        rows.append(
            {
                "quotationId": q["id"],
                "vendorId": q["vendorId"],
                "totalAmount": q["totalAmount"],
                "leadTimeDays": q["leadTimeDays"],
                "eligible": check["isValid"] and not too_slow,
                "excludedBecause": why,
            }
        )
    return {
        "rfqId": rfq["id"],
        "selected": next((row for row in rows if row["eligible"]), None),
        "consideredCount": len(rows),
        "excluded": [row for row in rows if not row["eligible"]],
    }


find_cheapest_valid_quotation = define_tool(
    name="find_cheapest_valid_quotation",
    description=(
        "The cheapest quotation on an RFQ that is open and not expired, optionally no slower than a "
        "lead-time limit, plus every excluded quotation with the reason. Read-only."
    ),
    input_schema=schema(
        {
            "rfqId": string_prop(_RFQ_ID),
            "maxLeadTimeDays": integer_prop("Longest acceptable lead time in days.", minimum=0),
        },
        ["rfqId"],
    ),
    run=_find_cheapest_valid_quotation,
)


def _expire_quotations(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq_id = read_optional_string(args, "rfqId")
    now = state["now"]
    expired = []
    for q in state["quotations"].values():
        if rfq_id is not None and q["rfqId"] != rfq_id:
            continue
        if q["status"] not in ("received", "under_review") or q["validUntil"] >= now:
            continue
        q["status"] = "expired"
        expired.append(q["id"])
    if expired:
        audit(state, user["id"], "quotation.expired", "quotation", expired[0], f"Expired {len(expired)} quotation(s)")
    return {"expiredQuotationIds": expired, "count": len(expired)}


expire_quotations = define_tool(
    name="expire_quotations",
    description=(
        "Housekeeping: mark open quotations whose validUntil has passed as expired, across all RFQs "
        "or for one. Audited when anything expired."
    ),
    input_schema=schema(
        {"rfqId": string_prop("Only quotations on this RFQ."), "actorUserId": string_prop(_ACTOR)},
        ["actorUserId"],
    ),
    run=_expire_quotations,
)

TOOLS = [
    list_quotations,
    get_quotation,
    record_quotation,
    update_quotation,
    accept_quotation,
    reject_quotation,
    compare_quotations,
    find_cheapest_valid_quotation,
    expire_quotations,
]
