"""Lookups and guards (demo-crm.md §6.4), audit (§6.5) and output projections (§6.7)."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import (
    AUDIT,
    State,
    age_in_days,
    days_in_stage,
    full_name,
    is_past_due,
    probability_of,
    weighted_amount,
)
from .contract import ACTOR_DESCRIPTION, C

__all__ = [
    "ACCOUNT",
    "ACCOUNTS",
    "ACTIVITIES",
    "ACTIVITY",
    "ACTOR",
    "CONTACT",
    "CONTACTS",
    "LEAD",
    "LEADS",
    "OPPORTUNITIES",
    "OPPORTUNITY",
    "STAGES",
    "USER",
    "USERS",
    "WORLD",
    "WRITES",
    "account_summary",
    "activity_summary",
    "actor",
    "assert_assignable",
    "assert_open",
    "contact_summary",
    "lead_summary",
    "opportunity_summary",
    "require_related",
    "stage_summary",
    "user_summary",
]

Record = dict[str, Any]

# ---------------------------------------------------------------------------------------------
# Lookups (O(1), with the world's not-found message)

USERS = kit.Collection("users", "USR", "User", links=("managerId",), fields=(
    "id", "name", "email", "role", "managerId", "quota", "active"))
ACCOUNTS = kit.Collection("accounts", "ACC", "Account", links=("ownerId",), fields=(
    "id", "name", "industry", "tier", "ownerId", "website", "createdDate"))
CONTACTS = kit.Collection("contacts", "CON", "Contact", links=("accountId",), fields=(
    "id", "accountId", "firstName", "lastName", "email", "phone", "title", "isPrimary"))
LEADS = kit.Collection("leads", "LEAD", "Lead", links=("ownerId",), fields=(
    "id", "firstName", "lastName", "company", "email", "phone", "title", "source", "status", "ownerId",
    "createdDate", "lastContactedDate", "disqualifyReason", "convertedAccountId", "convertedContactId",
    "convertedOpportunityId"))
OPPORTUNITIES = kit.Collection("opportunities", "OPP", "Opportunity", links=("accountId", "ownerId"), fields=(
    "id", "name", "accountId", "primaryContactId", "ownerId", "stageId", "amount", "expectedCloseDate",
    "createdDate", "stageEnteredDate", "status", "closedDate", "lostReason", "sourceLeadId"))
STAGES = kit.Collection("stages", None, "Stage", fields=("id", "name", "order", "probability", "isClosed"))
ACTIVITIES = kit.Collection("activities", "ACT", "Activity", links=("ownerId", "relatedTo"), fields=(
    "id", "type", "subject", "ownerId", "relatedTo", "dueDate", "completedDate", "notes"))
#: The world's collections (the fields of each record kind, in stored order, are declared here).
WORLD = kit.World(USERS, ACCOUNTS, CONTACTS, LEADS, OPPORTUNITIES, STAGES, ACTIVITIES)


_RELATED = {"lead": LEADS, "account": ACCOUNTS, "contact": CONTACTS, "opportunity": OPPORTUNITIES}


def require_related(state: State, related_type: str, related_id: str) -> Record:
    """The record an activity points at: ``require_<relatedType>(relatedId)``."""
    return _RELATED[related_type].require(state, related_id)


# ---------------------------------------------------------------------------------------------
# Guards

ACTOR = kit.Actor(USERS, "actorUserId", ACTOR_DESCRIPTION, contract=C)
actor = ACTOR.read  # read ``actorUserId``; the user must exist and be active
#: Every write tool reads ``actorUserId`` first and writes one audit entry last (§6.5).
WRITES = kit.Writes(ACTOR, AUDIT)


def assert_assignable(state: State, user_id: str) -> Record:
    """The user must exist and be active to own records."""
    return ACTOR.require_active(state, user_id, '{label} "{id}" ({name}) is deactivated and cannot own records.')


def assert_open(opp: Record) -> None:
    """Only an open opportunity can change."""
    if opp["status"] != "open":
        raise kit.invalid_transition(f"Opportunity {opp['id']} is {opp['status']} and can no longer be changed.")


# ---------------------------------------------------------------------------------------------
# Projections


def user_summary(user: Record) -> Record:
    return kit.pick(user, USERS.fields)


def account_summary(state: State, account: Record) -> Record:
    return {
        "id": account["id"],
        "name": account["name"],
        "industry": account["industry"],
        "tier": account["tier"],
        "ownerId": account["ownerId"],
        "ownerName": USERS.field_of(state, account["ownerId"]),
        "website": account["website"],
        "createdDate": account["createdDate"],
    }


def contact_summary(state: State, contact: Record) -> Record:
    return {
        "id": contact["id"],
        "name": full_name(contact),
        "accountId": contact["accountId"],
        "accountName": ACCOUNTS.field_of(state, contact["accountId"]),
        "email": contact["email"],
        "phone": contact["phone"],
        "title": contact["title"],
        "isPrimary": contact["isPrimary"],
    }


def lead_summary(state: State, lead: Record) -> Record:
    return {
        "id": lead["id"],
        "name": full_name(lead),
        "company": lead["company"],
        "email": lead["email"],
        "phone": lead["phone"],
        "title": lead["title"],
        "source": lead["source"],
        "status": lead["status"],
        "ownerId": lead["ownerId"],
        "ownerName": USERS.field_of(state, lead["ownerId"]),
        "createdDate": lead["createdDate"],
        "ageDays": age_in_days(state, lead["createdDate"]),
        "lastContactedDate": lead["lastContactedDate"],
        "disqualifyReason": lead["disqualifyReason"],
        "convertedAccountId": lead["convertedAccountId"],
        "convertedContactId": lead["convertedContactId"],
        "convertedOpportunityId": lead["convertedOpportunityId"],
    }


def opportunity_summary(state: State, opp: Record) -> Record:
    return {
        "id": opp["id"],
        "name": opp["name"],
        "accountId": opp["accountId"],
        "accountName": ACCOUNTS.field_of(state, opp["accountId"]),
        "primaryContactId": opp["primaryContactId"],
        "ownerId": opp["ownerId"],
        "ownerName": USERS.field_of(state, opp["ownerId"]),
        "stageId": opp["stageId"],
        "stageName": STAGES.field_of(state, opp["stageId"]),
        "probability": probability_of(state, opp),
        "amount": opp["amount"],
        "weightedAmount": weighted_amount(state, opp),
        "expectedCloseDate": opp["expectedCloseDate"],
        "createdDate": opp["createdDate"],
        "stageEnteredDate": opp["stageEnteredDate"],
        "daysInStage": days_in_stage(state, opp),
        "pastDue": is_past_due(state, opp),
        "status": opp["status"],
        "closedDate": opp["closedDate"],
        "lostReason": opp["lostReason"],
        "sourceLeadId": opp["sourceLeadId"],
    }


def activity_summary(state: State, activity: Record) -> Record:
    return {
        "id": activity["id"],
        "type": activity["type"],
        "subject": activity["subject"],
        "ownerId": activity["ownerId"],
        "ownerName": USERS.field_of(state, activity["ownerId"]),
        "relatedTo": activity["relatedTo"],
        "dueDate": activity["dueDate"],
        "completedDate": activity["completedDate"],
        "open": activity["completedDate"] is None,
        "notes": activity["notes"],
    }


def stage_summary(stage: Record) -> Record:
    return kit.pick(stage, STAGES.fields)


# ---------------------------------------------------------------------------------------------
# Write tools per collection: the input key of the record's id, and the summary a result shows

USER = WRITES.on(USERS, "userId", lambda state, user: user_summary(user))
ACCOUNT = WRITES.on(ACCOUNTS, "accountId", account_summary)
CONTACT = WRITES.on(CONTACTS, "contactId", contact_summary)
LEAD = WRITES.on(LEADS, "leadId", lead_summary)
OPPORTUNITY = WRITES.on(OPPORTUNITIES, "opportunityId", opportunity_summary)
ACTIVITY = WRITES.on(ACTIVITIES, "activityId", activity_summary)
