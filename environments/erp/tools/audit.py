"""Audit tools (erp-tools.md §7.20, read-only): the audit log by filter, document, user and recency."""

from __future__ import annotations

from typing import Any

from silo_gym import define_tool

from ..state import State
from .helpers import (
    AUDIT_ENTITY,
    enum_prop,
    integer_prop,
    matches_text,
    paginate,
    paging_props,
    read_optional_number,
    read_optional_string,
    read_string,
    require_user,
    schema,
    string_prop,
)

Args = dict[str, Any]


def _newest_first(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(events, key=lambda e: e["at"], reverse=True)


def _list_audit_events(state: State, args: Args) -> Any:
    entity_type = read_optional_string(args, "entityType")
    actor_id = read_optional_string(args, "actorUserId")
    action = read_optional_string(args, "action")
    start = read_optional_string(args, "fromDate") or "0000-01-01"
    end = read_optional_string(args, "toDate") or "9999-12-31"
    events = [
        e
        for e in state["auditLog"]
        if (entity_type is None or e["entityType"] == entity_type)
        and (actor_id is None or e["actorUserId"] == actor_id)
        and (action is None or matches_text(e["action"], action))
        and start <= e["at"] <= end
    ]
    return paginate(_newest_first(events), args)


list_audit_events = define_tool(
    name="list_audit_events",
    description=(
        "List audit events, newest first, optionally by entity type, acting user, text in the action "
        "(for example approved) or a time range. For one document's trail use get_entity_history. Read-only."
    ),
    input_schema=schema(
        {
            "entityType": enum_prop(AUDIT_ENTITY, "Only events about this kind of record."),
            "actorUserId": string_prop("Only events by this user."),
            "action": string_prop("Only events whose action contains this text."),
            "fromDate": string_prop("Only events at or after this ISO timestamp."),
            "toDate": string_prop("Only events at or before this ISO timestamp (compared as text)."),
            **paging_props(),
        },
        [],
    ),
    run=_list_audit_events,
)


def _get_entity_history(state: State, args: Args) -> Any:
    entity_id = read_string(args, "entityId")
    events = sorted((e for e in state["auditLog"] if e["entityId"] == entity_id), key=lambda e: e["at"])
    return {
        "entityId": entity_id,
        "eventCount": len(events),
        "firstSeen": events[0]["at"] if events else None,
        "lastSeen": events[-1]["at"] if events else None,
        "events": events,
    }


get_entity_history = define_tool(
    name="get_entity_history",
    description="Get the whole audit trail of one record (any kind), oldest first. Read-only.",
    input_schema=schema({"entityId": string_prop("The record id, for example PO-203.")}, ["entityId"]),
    run=_get_entity_history,
)


def _get_user_activity(state: State, args: Args) -> Any:
    user = require_user(state, read_string(args, "userId"))
    events = _newest_first([e for e in state["auditLog"] if e["actorUserId"] == user["id"]])
    counts: dict[str, int] = {}
    for e in events:
        counts[e["action"]] = counts.get(e["action"], 0) + 1
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    action_counts = [{"action": a, "count": n} for a, n in ranked]
    return {
        "userId": user["id"],
        "name": user["name"],
        "role": user["role"],
        **paginate(events, args),
        "actionCounts": action_counts,
    }


get_user_activity = define_tool(
    name="get_user_activity",
    description="List what one user did, newest first, with a count per action. Read-only.",
    input_schema=schema(
        {"userId": string_prop("The user id, for example USR-006."), **paging_props()}, ["userId"]
    ),
    run=_get_user_activity,
)


def _get_recent_changes(state: State, args: Args) -> Any:
    limit = read_optional_number(args, "limit", minimum=1, maximum=200, integer=True)
    count = 20 if limit is None else int(limit)
    return {"asOf": state["now"], "events": _newest_first(list(state["auditLog"]))[:count]}


get_recent_changes = define_tool(
    name="get_recent_changes",
    description="Show the latest audit events across the business, newest first (default 20). Read-only.",
    input_schema=schema(
        {"limit": integer_prop("How many events to show (default 20).", minimum=1, maximum=200)}, []
    ),
    run=_get_recent_changes,
)

TOOLS = [list_audit_events, get_entity_history, get_user_activity, get_recent_changes]
