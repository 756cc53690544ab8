"""Activity tools: calls, emails, meetings and notes against CRM records."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, kit

from ..state import State, next_id
from .contract import C, actor_prop, schema
from .helpers import (
    ACTIVITIES,
    activity_summary,
    actor,
    assert_assignable,
    audit,
    require_related,
)

ACTIVITY_TYPES = ("call", "email", "meeting", "note")
RELATED_TYPES = ("lead", "account", "contact", "opportunity")


list_activities = kit.list_tool(
    name="list_activities",
    description=(
        "List activities (calls, emails, meetings and notes), sorted by id, one page at a time, "
        "filtered by any of owner, the kind and id of the record they relate to, type, and whether "
        "they are still open (not completed). Each entry gives subject, owner, relatedTo, dueDate, "
        "completedDate, open and notes. Read-only."
    ),
    collection=ACTIVITIES,
    summary=activity_summary,
    filters={
        "ownerId": kit.Filter(kit.String("Only activities owned by this user id."), link="ownerId"),
        "relatedType": kit.Filter(
            kit.Enum(RELATED_TYPES, "Only activities attached to this kind of record."),
            test=lambda s, activity, kind: activity["relatedTo"]["type"] == kind,
        ),
        "relatedId": kit.Filter(kit.String("Only activities attached to the record with this id."), link="relatedTo"),
        "openOnly": kit.Filter(
            kit.Boolean("When true, only activities that have not been completed yet.", default=False),
            test=lambda s, activity, v: activity["completedDate"] is None,
        ),
        "type": kit.Filter(kit.Enum(ACTIVITY_TYPES, "Only activities of this type."), field="type"),
    },
    contract=C,
)


get_activity = kit.get_tool(
    name="get_activity",
    description="Get one activity by id: type, subject, owner, related record, dates and notes. Read-only.",
    collection=ACTIVITIES,
    id_key="activityId",
    id_description="The activity's id, for example ACT-001.",
    show=activity_summary,
    contract=C,
)


def _new_activity(state: State, args: dict[str, Any], action: str, scheduled: bool) -> Any:
    acting = actor(state, args)
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    related_type = C.read_enum(args, "relatedType", RELATED_TYPES)
    related = require_related(state, related_type, C.read_string(args, "relatedId"))
    activity_id = next_id(state, "ACT")
    activity_type = C.read_enum(args, "type", ACTIVITY_TYPES)
    subject = C.read_string(args, "subject")
    if scheduled:
        due_date = C.read_date(args, "dueDate")
        completed_date = None
    else:
        due_date = completed_date = state["now"]
    notes = C.read_optional_string(args, "notes")
    activity = {
        "id": activity_id,
        "type": activity_type,
        "subject": subject,
        "ownerId": owner_id,
        "relatedTo": {"type": related_type, "id": related["id"]},
        "dueDate": due_date,
        "completedDate": completed_date,
        "notes": notes,
    }
    state["activities"][activity_id] = activity
    if scheduled:
        detail = f"Scheduled {activity_type} on {related['id']} for {due_date}."
    else:
        detail = f"Logged {activity_type} on {related['id']}."
    audit(state, acting, action, "activity", activity_id, detail)
    return {"created": activity_summary(state, activity)}


def _log_activity(state: State, args: dict[str, Any]) -> Any:
    return _new_activity(state, args, "log_activity", scheduled=False)


def _schedule_followup(state: State, args: dict[str, Any]) -> Any:
    return _new_activity(state, args, "schedule_followup", scheduled=True)


def _activity_props(with_due_date: bool) -> dict[str, dict[str, Any]]:
    props = {
        "type": C.enum_prop(ACTIVITY_TYPES, "Kind of activity."),
        "subject": C.string_prop("Short subject line."),
        "relatedType": C.enum_prop(RELATED_TYPES, "Kind of record the activity is about."),
        "relatedId": C.string_prop("Id of that record, for example OPP-007 or LEAD-004."),
        "ownerId": C.string_prop("Id of the active user responsible for the activity."),
    }
    if with_due_date:
        props["dueDate"] = C.date_prop("Date the follow-up is due, YYYY-MM-DD.")
    props["notes"] = C.string_prop("Free-text notes. Optional.")
    props["actorUserId"] = actor_prop()
    return props


_ACTIVITY_REQUIRED = ["type", "subject", "relatedType", "relatedId", "ownerId", "actorUserId"]

log_activity = kit.write_tool(
    name="log_activity",
    description=(
        "Record an activity that already happened today (a call, email, meeting or note) against a "
        "lead, account, contact or opportunity. It gets the next ACT- id, and both its due date and "
        "completed date are today. The owner must be an active user and the related record must "
        'exist. Writes one audit entry. Returns {"created": <activity summary>}.'
    ),
    input_schema=schema(_activity_props(False), required=_ACTIVITY_REQUIRED),
    run=_log_activity,
)

schedule_followup = kit.write_tool(
    name="schedule_followup",
    description=(
        "Plan a future activity (a call, email, meeting or note) against a lead, account, contact "
        "or opportunity. It gets the next ACT- id, the given due date and no completed date, so it "
        "stays open until complete_activity is called. The owner must be an active user and the "
        'related record must exist. Writes one audit entry. Returns {"created": <activity '
        "summary>}."
    ),
    input_schema=schema(_activity_props(True), required=[*_ACTIVITY_REQUIRED, "dueDate"]),
    run=_schedule_followup,
)


def _complete_activity(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    activity = ACTIVITIES.require(state, C.read_string(args, "activityId"))
    if activity["completedDate"] is not None:
        raise ToolError(
            "invalid_state",
            f"Activity {activity['id']} was already completed on {activity['completedDate']}.",
        )
    completed_date = C.read_optional_date(args, "completedDate", default=state["now"])
    notes = C.read_optional_string(args, "notes")
    activity["completedDate"] = completed_date
    if notes is not None:
        activity["notes"] = notes
    audit(state, acting, "complete_activity", "activity", activity["id"], f"Completed {activity['id']}.")
    return {"updated": activity_summary(state, activity)}


complete_activity = kit.write_tool(
    name="complete_activity",
    description=(
        "Mark an open activity as done. completedDate defaults to today; notes, when given, replace "
        "the activity's existing notes. An activity that is already completed cannot be completed "
        'again. Writes one audit entry. Returns {"updated": <activity summary>}.'
    ),
    input_schema=schema(
        {
            "activityId": C.string_prop("Id of the open activity to complete."),
            "completedDate": C.date_prop("Date it was completed, YYYY-MM-DD. Defaults to today."),
            "notes": C.string_prop("Notes to store on the activity, replacing any existing notes."),
            "actorUserId": actor_prop(),
        },
        required=["activityId", "actorUserId"],
    ),
    run=_complete_activity,
)
