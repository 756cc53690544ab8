"""Time tools (project-world.md §7, tools 42-46): hours logged against work items."""

from __future__ import annotations

from typing import Any

from silo_gym import format_number, kit

from ..state import (
    MEMBERS,
    TIME_LOGS,
    WORK_ITEMS,
    State,
    hours_on_work_item,
    is_done,
    round1_plain,
    time_logs_for_member,
    time_logs_for_work_item,
    total_hours_for,
)
from .contract import C, paginate_ids, schema
from .helpers import ITEM, MEMBER, TIME_LOG, name_of, time_log_summary

MIN_HOURS = 0.1
MAX_HOURS = 24


def _grouped_hours(logs: list[dict[str, Any]], key: str) -> list[tuple[str, float]]:
    """``(key value, hours)`` per distinct ``log[key]``, sorted by that value; each sum is taken in
    the logs' order and rounded to one decimal without epsilon (§7, tools 45-46)."""
    sums: dict[str, float] = {}
    for log in logs:
        sums[log[key]] = sums.get(log[key], 0) + log["hours"]
    return [(k, round1_plain(sums[k])) for k in sorted(sums)]


@TIME_LOG.create(
    {
        "workItemId": kit.String("The work item, for example WI-005.", required=True),
        "memberId": kit.String("Who did the work, for example MEM-003.", required=True),
        "hours": kit.Number("Hours spent.", required=True, minimum=MIN_HOURS, maximum=MAX_HOURS),
        "date": kit.Date("Day the work was done, YYYY-MM-DD; today when left out."),
    },
)
def log_time(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Record hours a member spent on an unfinished work item (0.1 to 24 hours, dated today unless date is
    given). Time may be logged for a deactivated member. Returns the new log and the item's total hours.
    Recorded in the audit log under actorMemberId."""
    item = WORK_ITEMS.require(state, C.read_string(args, "workItemId"))
    member = MEMBERS.require(state, C.read_string(args, "memberId"))
    if is_done(state, item):
        raise kit.not_allowed(f"{item['id']} is done; time cannot be logged against it.")
    log_id = TIME_LOGS.new_id(state)
    day = C.read_optional_date(args, "date", state["now"])
    hours = C.read_number(args, "hours", minimum=MIN_HOURS, maximum=MAX_HOURS)
    log = {"id": log_id, "workItemId": item["id"], "memberId": member["id"], "date": day, "hours": hours}
    state["timeLogs"][log_id] = log  # stored before the item's hours are summed
    detail = f"{member['name']} logged {format_number(hours)}h on {item['id']}."
    return log, (detail, {"hoursOnWorkItem": hours_on_work_item(state, item["id"])})


def _list_time_logs(state: State, args: kit.Args) -> Any:
    item_id = C.read_optional_string(args, "workItemId")
    member_id = C.read_optional_string(args, "memberId")
    start = C.read_optional_date(args, "from")
    end = C.read_optional_date(args, "to")
    if item_id is not None:
        WORK_ITEMS.require(state, item_id)
    if member_id is not None:
        MEMBERS.require(state, member_id)
    records = state["timeLogs"]
    ids = TIME_LOGS.ids_where(state, {"workItemId": item_id, "memberId": member_id})
    if start is not None or end is not None:
        ids = [
            k
            for k in ids
            if (start is None or records[k]["date"] >= start) and (end is None or records[k]["date"] <= end)
        ]
    logs = [records[k] for k in ids]
    page = paginate_ids(ids, records, args, lambda t: time_log_summary(state, t))
    page["totalHours"] = total_hours_for(logs)
    return page


list_time_logs = kit.read_tool(
    name="list_time_logs",
    description=(
        "List time logs, sorted by id, one page at a time, filtered by work item, member and an "
        "inclusive date range. totalHours adds up every log that matches the filters, not only the "
        "ones on this page. Read-only."
    ),
    input_schema=schema(
        {
            "workItemId": C.string_prop("Only logs on this work item id."),
            "memberId": C.string_prop("Only logs by this member id."),
            "from": C.date_prop("Only logs on or after this day, YYYY-MM-DD."),
            "to": C.date_prop("Only logs on or before this day, YYYY-MM-DD."),
            **C.paging_props(),
        }
    ),
    run=_list_time_logs,
)


@TIME_LOG.change(
    "The log to correct, for example TL-004.",
    {
        "hours": kit.Number("Corrected hours.", minimum=MIN_HOURS, maximum=MAX_HOURS),
        "date": kit.Date("Corrected day, YYYY-MM-DD."),
    },
)
def update_time_log(state: State, acting: kit.Record, log: kit.Record, args: kit.Args) -> str:
    """Correct a time log's hours (0.1 to 24) or date; leave out what should stay. A malformed date is refused
    after new hours were written. Recorded in the audit log under actorMemberId."""
    if args.get("hours") is not None:
        log["hours"] = C.read_number(args, "hours", minimum=MIN_HOURS, maximum=MAX_HOURS)
    if args.get("date") is not None:
        log["date"] = C.read_date(args, "date")  # refused after the hours were written (§6.6)
    return f"Corrected {log['id']} to {format_number(log['hours'])}h on {log['date']}."


@MEMBER.get("The member, for example MEM-002.")
def member_time_summary(state: State, member: kit.Record) -> Any:
    """Total hours a member has logged, with a breakdown per work item (sorted by work item id). Read-only."""
    logs = time_logs_for_member(state, member["id"])
    return {
        "memberId": member["id"],
        "name": member["name"],
        "totalHours": total_hours_for(logs),
        "byWorkItem": [
            {"workItemId": item_id, "title": name_of(state, "workItems", item_id, "title"), "hours": hours}
            for item_id, hours in _grouped_hours(logs, "workItemId")
        ],
    }


@ITEM.get("The work item, for example WI-003.")
def work_item_time_summary(state: State, item: kit.Record) -> Any:
    """Total hours logged on a work item, with a breakdown per member (sorted by member id). Read-only."""
    logs = time_logs_for_work_item(state, item["id"])
    return {
        "workItemId": item["id"],
        "title": item["title"],
        "totalHours": total_hours_for(logs),
        "byMember": [
            {"memberId": member_id, "name": name_of(state, "members", member_id), "hours": hours}
            for member_id, hours in _grouped_hours(logs, "memberId")
        ],
    }

