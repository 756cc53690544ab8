"""Activity tools: calls, emails, meetings and notes against CRM records."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State
from .contract import C
from .helpers import ACTIVITIES, ACTIVITY, activity_summary, assert_assignable, require_related

ACTIVITY_TYPES = ("call", "email", "meeting", "note")
RELATED_TYPES = ("lead", "account", "contact", "opportunity")


@ACTIVITY.list
def list_activities() -> dict[str, kit.Filter]:
    """List activities (calls, emails, meetings and notes), sorted by id, one page at a time, filtered by any
    of owner, the kind and id of the record they relate to, type, and whether they are still open (not
    completed). Each entry gives subject, owner, relatedTo, dueDate, completedDate, open and notes.
    Read-only."""
    return {
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
    }


@ACTIVITY.get("The activity's id, for example ACT-001.")
def get_activity(state: State, activity: kit.Record) -> Any:
    """Get one activity by id: type, subject, owner, related record, dates and notes. Read-only."""
    return activity_summary(state, activity)


def _new_activity(state: State, args: kit.Args, scheduled: bool) -> tuple[kit.Record, str]:
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    related_type = C.read_enum(args, "relatedType", RELATED_TYPES)
    related = require_related(state, related_type, C.read_string(args, "relatedId"))
    activity_id = ACTIVITIES.new_id(state)
    activity_type = C.read_enum(args, "type", ACTIVITY_TYPES)
    subject = C.read_string(args, "subject")
    if scheduled:
        due_date = C.read_date(args, "dueDate")
        completed_date = None
    else:
        due_date = completed_date = state["now"]
    activity = {
        "id": activity_id,
        "type": activity_type,
        "subject": subject,
        "ownerId": owner_id,
        "relatedTo": {"type": related_type, "id": related["id"]},
        "dueDate": due_date,
        "completedDate": completed_date,
        "notes": C.read_optional_string(args, "notes"),
    }
    if scheduled:
        return activity, f"Scheduled {activity_type} on {related['id']} for {due_date}."
    return activity, f"Logged {activity_type} on {related['id']}."


def _activity_params(with_due_date: bool) -> dict[str, kit.Param]:
    params: dict[str, kit.Param] = {
        "type": kit.Enum(ACTIVITY_TYPES, "Kind of activity.", required=True),
        "subject": kit.String("Short subject line.", required=True),
        "relatedType": kit.Enum(RELATED_TYPES, "Kind of record the activity is about.", required=True),
        "relatedId": kit.String("Id of that record, for example OPP-007 or LEAD-004.", required=True),
        "ownerId": kit.String("Id of the active user responsible for the activity.", required=True),
    }
    if with_due_date:
        params["dueDate"] = kit.Date("Date the follow-up is due, YYYY-MM-DD.", required=True)
    params["notes"] = kit.String("Free-text notes. Optional.")
    return params


@ACTIVITY.create(_activity_params(False))
def log_activity(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Record an activity that already happened today (a call, email, meeting or note) against a lead,
    account, contact or opportunity. It gets the next ACT- id, and both its due date and completed date are
    today. The owner must be an active user and the related record must exist. Writes one audit entry.
    Returns {"created": <activity summary>}."""
    return _new_activity(state, args, scheduled=False)


@ACTIVITY.create(_activity_params(True))
def schedule_followup(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Plan a future activity (a call, email, meeting or note) against a lead, account, contact or
    opportunity. It gets the next ACT- id, the given due date and no completed date, so it stays open until
    complete_activity is called. The owner must be an active user and the related record must exist. Writes
    one audit entry. Returns {"created": <activity summary>}."""
    return _new_activity(state, args, scheduled=True)


@ACTIVITY.change(
    "Id of the open activity to complete.",
    {
        "completedDate": kit.Date("Date it was completed, YYYY-MM-DD. Defaults to today."),
        "notes": kit.String("Notes to store on the activity, replacing any existing notes."),
    },
)
def complete_activity(state: State, acting: kit.Record, activity: kit.Record, args: kit.Args) -> str:
    """Mark an open activity as done. completedDate defaults to today; notes, when given, replace the
    activity's existing notes. An activity that is already completed cannot be completed again. Writes one
    audit entry. Returns {"updated": <activity summary>}."""
    if activity["completedDate"] is not None:
        raise kit.invalid_state(
            f"Activity {activity['id']} was already completed on {activity['completedDate']}."
        )
    completed_date = C.read_optional_date(args, "completedDate", default=state["now"])
    notes = C.read_optional_string(args, "notes")
    activity["completedDate"] = completed_date
    kit.set_given(activity, {"notes": notes})
    return f"Completed {activity['id']}."
