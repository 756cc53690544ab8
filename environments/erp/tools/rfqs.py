"""RFQ tools (erp-tools.md §7.9, tools 61-69): requests for quotation and their invited vendors."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State, add_days, next_id
from .helpers import (
    RFQ_STATUS,
    actor,
    array_prop,
    assert_status,
    audit,
    enum_prop,
    integer_prop,
    linked_records,
    object_prop,
    page_records,
    paging_props,
    read_number,
    read_object_array,
    read_optional_enum,
    read_optional_string,
    read_string,
    read_string_array,
    require_product,
    require_rfq,
    require_vendor,
    rfq_summary,
    schema,
    string_prop,
)

Args = dict[str, Any]

_ACTOR = "Id of the user making the change (for example USR-001); must be an active user."
_RFQ_ID = "The RFQ's id, for example RFQ-001."


def _quotations_of(state: State, rfq_id: str) -> list[dict[str, Any]]:
    return linked_records(state, "quotations", "rfqId", rfq_id)


def _list_rfqs(state: State, args: Args) -> Any:
    status = read_optional_enum(args, "status", RFQ_STATUS)
    page = page_records(state, "rfqs", args, None if status is None else lambda r: bool(r["status"] == status))
    return {**page, "results": [rfq_summary(state, r) for r in page["results"]]}


list_rfqs = define_tool(
    name="list_rfqs",
    description=(
        "Requests for quotation sorted by id, a page at a time, optionally one status. Rows: title, "
        "status, requisition, number of invited vendors and of quotations, response due date, "
        "awarded quotation. Read-only."
    ),
    input_schema=schema({"status": enum_prop(RFQ_STATUS, "Only RFQs with this status."), **paging_props()}, []),
    run=_list_rfqs,
)


def _get_rfq(state: State, args: Args) -> Any:
    rfq = require_rfq(state, read_string(args, "rfqId"))
    return {
        **rfq,
        "quotations": [
            {
                "id": q["id"],
                "vendorId": q["vendorId"],
                "status": q["status"],
                "totalAmount": q["totalAmount"],
                "leadTimeDays": q["leadTimeDays"],
                "validUntil": q["validUntil"],
            }
            for q in _quotations_of(state, rfq["id"])
        ],
    }


get_rfq = define_tool(
    name="get_rfq",
    description="One RFQ with its lines, invited vendors and the quotations received (by id). Read-only.",
    input_schema=schema({"rfqId": string_prop(_RFQ_ID)}, ["rfqId"]),
    run=_get_rfq,
)


def _create_rfq(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq_id = next_id(state, "RFQ")
    lines = [
        {
            "id": f"{rfq_id}-L{i}",
            "productId": require_product(state, read_string(spec, "productId"))["id"],
            "quantity": read_number(spec, "quantity", minimum=1, integer=True),
        }
        for i, spec in enumerate(read_object_array(args, "lines"), start=1)
    ]
    vendor_ids: list[str] = []
    if isinstance(args.get("vendorIds"), list):
        vendor_ids = read_string_array(args, "vendorIds")
        for vendor_id in vendor_ids:
            require_vendor(state, vendor_id)
    title = read_string(args, "title")
    rfq: dict[str, Any] = {
        "id": rfq_id,
        "number": rfq_id,
        "title": title,
        "status": "draft",
        "requisitionId": None,
        "lines": lines,
        "invitedVendorIds": vendor_ids,
        "issuedByUserId": user["id"],
        "createdAt": state["now"],
        "sentAt": None,
    }
    due = read_optional_string(args, "responseDueDate")
    rfq["responseDueDate"] = add_days(state["now"], 10) if due is None else due
    rfq["closedAt"] = None
    rfq["awardedQuotationId"] = None
    state["rfqs"][rfq_id] = rfq
    audit(state, user["id"], "rfq.created", "rfq", rfq_id, f"Created {rfq_id}: {title}")
    return rfq


create_rfq = define_tool(
    name="create_rfq",
    description=(
        "Create a stand-alone draft RFQ (not tied to a requisition) with lines and, optionally, "
        "invited vendors; replies are due in 10 days unless a date is given. Send it with send_rfq. "
        "Audited."
    ),
    input_schema=schema(
        {
            "title": string_prop("Short title of the sourcing request."),
            "lines": array_prop(
                "Items to quote for.",
                object_prop(
                    "One requested item.",
                    {
                        "productId": string_prop("Product id, for example PRD-001."),
                        "quantity": integer_prop("Units wanted.", minimum=1),
                    },
                    ["productId", "quantity"],
                ),
            ),
            "vendorIds": array_prop("Vendors to invite.", {"type": "string"}),
            "responseDueDate": string_prop("Date replies are due (ISO)."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["title", "lines", "actorUserId"],
    ),
    run=_create_rfq,
)


def _add_vendor_to_rfq(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq = require_rfq(state, read_string(args, "rfqId"))
    vendor = require_vendor(state, read_string(args, "vendorId"))
    assert_status(rfq["status"], ["draft", "sent"], f"RFQ {rfq['id']}")
    if vendor["status"] == "blocked":
        raise ToolError("not_allowed", f"Vendor {vendor['id']} is blocked and cannot be invited.")
    if vendor["id"] in rfq["invitedVendorIds"]:
        raise ToolError("conflict", f"Vendor {vendor['id']} is already invited to {rfq['id']}.")
    rfq["invitedVendorIds"].append(vendor["id"])
    audit(state, user["id"], "rfq.vendor_added", "rfq", rfq["id"], f"Invited {vendor['name']} to {rfq['id']}")
    return rfq


add_vendor_to_rfq = define_tool(
    name="add_vendor_to_rfq",
    description="Invite one more vendor to a draft or sent RFQ; blocked vendors are refused. Audited.",
    input_schema=schema(
        {
            "rfqId": string_prop(_RFQ_ID),
            "vendorId": string_prop("The vendor to invite, for example VEN-001."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["rfqId", "vendorId", "actorUserId"],
    ),
    run=_add_vendor_to_rfq,
)


def _remove_vendor_from_rfq(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq = require_rfq(state, read_string(args, "rfqId"))
    vendor_id = read_string(args, "vendorId")
    assert_status(rfq["status"], ["draft", "sent"], f"RFQ {rfq['id']}")
    if vendor_id not in rfq["invitedVendorIds"]:
        raise ToolError("not_found", f"Vendor {vendor_id} is not invited to {rfq['id']}.")
    for q in state["quotations"].values():
        if q["rfqId"] == rfq["id"] and q["vendorId"] == vendor_id:
            raise ToolError(
                "invalid_state",
                f"Vendor {vendor_id} already submitted {q['id']}; reject the quotation instead.",
                {"quotationId": q["id"]},
            )
    rfq["invitedVendorIds"] = [v for v in rfq["invitedVendorIds"] if v != vendor_id]
    audit(state, user["id"], "rfq.vendor_removed", "rfq", rfq["id"], f"Removed {vendor_id} from {rfq['id']}")
    return rfq


remove_vendor_from_rfq = define_tool(
    name="remove_vendor_from_rfq",
    description=(
        "Withdraw a vendor's invitation to a draft or sent RFQ, unless that vendor already quoted "
        "(reject the quotation instead). Audited."
    ),
    input_schema=schema(
        {
            "rfqId": string_prop(_RFQ_ID),
            "vendorId": string_prop("The invited vendor to remove."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["rfqId", "vendorId", "actorUserId"],
    ),
    run=_remove_vendor_from_rfq,
)


def _send_rfq(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq = require_rfq(state, read_string(args, "rfqId"))
    rid = rfq["id"]
    assert_status(rfq["status"], ["draft"], f"RFQ {rid}")
    if not rfq["invitedVendorIds"]:
        raise ToolError("invalid_state", f"RFQ {rid} has no invited vendors.")
    if not rfq["lines"]:
        raise ToolError("invalid_state", f"RFQ {rid} has no lines.")
    rfq["status"] = "sent"
    rfq["sentAt"] = state["now"]
    audit(state, user["id"], "rfq.sent", "rfq", rid, f"Sent {rid} to {len(rfq['invitedVendorIds'])} vendor(s)")
    return rfq


send_rfq = define_tool(
    name="send_rfq",
    description=(
        "Issue a draft RFQ to its invited vendors (it needs at least one vendor and one line); "
        "quotations can be recorded once it is sent. Audited."
    ),
    input_schema=schema({"rfqId": string_prop(_RFQ_ID), "actorUserId": string_prop(_ACTOR)}, ["rfqId", "actorUserId"]),
    run=_send_rfq,
)


def _close_rfq(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq = require_rfq(state, read_string(args, "rfqId"))
    assert_status(rfq["status"], ["sent"], f"RFQ {rfq['id']}")
    rfq["status"] = "closed"
    rfq["closedAt"] = state["now"]
    audit(state, user["id"], "rfq.closed", "rfq", rfq["id"], f"Closed {rfq['id']}")
    return rfq


close_rfq = define_tool(
    name="close_rfq",
    description=(
        "Stop further replies to a sent RFQ; quotations already received stay comparable and can "
        "still be accepted. Audited."
    ),
    input_schema=schema({"rfqId": string_prop(_RFQ_ID), "actorUserId": string_prop(_ACTOR)}, ["rfqId", "actorUserId"]),
    run=_close_rfq,
)


def _cancel_rfq(state: State, args: Args) -> Any:
    user = actor(state, args)
    rfq = require_rfq(state, read_string(args, "rfqId"))
    reason = read_string(args, "reason")
    rid = rfq["id"]
    assert_status(rfq["status"], ["draft", "sent", "closed"], f"RFQ {rid}")
    rfq["status"] = "cancelled"
    rfq["closedAt"] = state["now"]
    requisition = state["requisitions"].get(rfq["requisitionId"]) if rfq["requisitionId"] else None
    if requisition is not None and requisition["rfqId"] == rid:
        requisition["rfqId"] = None
    audit(state, user["id"], "rfq.cancelled", "rfq", rid, f"Cancelled {rid}: {reason}")
    return rfq


cancel_rfq = define_tool(
    name="cancel_rfq",
    description=(
        "Cancel an RFQ that was not awarded; its requisition is freed to be converted again. "
        "Quotations are left as they are. Audited."
    ),
    input_schema=schema(
        {
            "rfqId": string_prop(_RFQ_ID),
            "reason": string_prop("Why it is cancelled."),
            "actorUserId": string_prop(_ACTOR),
        },
        ["rfqId", "reason", "actorUserId"],
    ),
    run=_cancel_rfq,
)


def _list_rfq_quotations(state: State, args: Args) -> Any:
    rfq = require_rfq(state, read_string(args, "rfqId"))
    return _quotations_of(state, rfq["id"])


list_rfq_quotations = define_tool(
    name="list_rfq_quotations",
    description="Every quotation received on one RFQ, in full, sorted by id (a plain list). Read-only.",
    input_schema=schema({"rfqId": string_prop(_RFQ_ID)}, ["rfqId"]),
    run=_list_rfq_quotations,
)

TOOLS = [
    list_rfqs,
    get_rfq,
    create_rfq,
    add_vendor_to_rfq,
    remove_vendor_from_rfq,
    send_rfq,
    close_rfq,
    cancel_rfq,
    list_rfq_quotations,
]
