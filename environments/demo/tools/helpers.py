"""Lookups and guards (demo-crm.md §6.4), audit (§6.5) and output projections (§6.7)."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError

from ..state import (
    State,
    age_in_days,
    days_in_stage,
    full_name,
    is_past_due,
    probability_of,
    record_audit,
    weighted_amount,
)
from .contract import read_string

__all__ = [
    "account_summary",
    "activity_summary",
    "actor",
    "assert_assignable",
    "assert_open",
    "audit",
    "contact_summary",
    "lead_summary",
    "opportunity_summary",
    "require_account",
    "require_activity",
    "require_contact",
    "require_lead",
    "require_opportunity",
    "require_related",
    "require_stage",
    "require_user",
    "stage_summary",
    "user_summary",
]

Record = dict[str, Any]

# ---------------------------------------------------------------------------------------------
# Lookups


def _require(state: State, collection: str, label: str, record_id: str) -> Record:
    record = state[collection].get(record_id)
    if record is None:
        raise ToolError("not_found", f'{label} "{record_id}" was not found.')
    return record


def require_user(state: State, user_id: str) -> Record:
    return _require(state, "users", "User", user_id)


def require_account(state: State, account_id: str) -> Record:
    return _require(state, "accounts", "Account", account_id)


def require_contact(state: State, contact_id: str) -> Record:
    return _require(state, "contacts", "Contact", contact_id)


def require_lead(state: State, lead_id: str) -> Record:
    return _require(state, "leads", "Lead", lead_id)


def require_opportunity(state: State, opportunity_id: str) -> Record:
    return _require(state, "opportunities", "Opportunity", opportunity_id)


def require_stage(state: State, stage_id: str) -> Record:
    return _require(state, "stages", "Stage", stage_id)


def require_activity(state: State, activity_id: str) -> Record:
    return _require(state, "activities", "Activity", activity_id)


_RELATED = {
    "lead": require_lead,
    "account": require_account,
    "contact": require_contact,
    "opportunity": require_opportunity,
}


def require_related(state: State, related_type: str, related_id: str) -> Record:
    """The record an activity points at: ``require_<relatedType>(relatedId)``."""
    return _RELATED[related_type](state, related_id)


# ---------------------------------------------------------------------------------------------
# Guards


def actor(state: State, args: dict[str, Any]) -> Record:
    """Read ``actorUserId``; the user must exist and be active."""
    user = require_user(state, read_string(args, "actorUserId"))
    if not user["active"]:
        raise ToolError("not_allowed", f'User "{user["id"]}" ({user["name"]}) is deactivated and cannot act.')
    return user


def assert_assignable(state: State, user_id: str) -> Record:
    """The user must exist and be active to own records."""
    user = require_user(state, user_id)
    if not user["active"]:
        raise ToolError(
            "not_allowed", f'User "{user["id"]}" ({user["name"]}) is deactivated and cannot own records.'
        )
    return user


def assert_open(opp: Record) -> None:
    """Only an open opportunity can change."""
    if opp["status"] != "open":
        raise ToolError(
            "not_allowed", f"Opportunity {opp['id']} is {opp['status']} and can no longer be changed."
        )


# ---------------------------------------------------------------------------------------------
# Audit


def audit(
    state: State, actor_user: Record, action: str, entity_type: str, entity_id: str, detail: str
) -> None:
    """Write the tool's single audit entry (its last state change)."""
    record_audit(state, actor_user["id"], action, entity_type, entity_id, detail)


# ---------------------------------------------------------------------------------------------
# Projections


def _name_of(state: State, collection: str, record_id: str | None) -> str | None:
    if record_id is None:
        return None
    record = state[collection].get(record_id)
    return None if record is None else record["name"]


def user_summary(user: Record) -> Record:
    return {
        "id": user["id"],
        "name": user["name"],
        "email": user["email"],
        "role": user["role"],
        "managerId": user["managerId"],
        "quota": user["quota"],
        "active": user["active"],
    }


def account_summary(state: State, account: Record) -> Record:
    return {
        "id": account["id"],
        "name": account["name"],
        "industry": account["industry"],
        "tier": account["tier"],
        "ownerId": account["ownerId"],
        "ownerName": _name_of(state, "users", account["ownerId"]),
        "website": account["website"],
        "createdDate": account["createdDate"],
    }


def contact_summary(state: State, contact: Record) -> Record:
    return {
        "id": contact["id"],
        "name": full_name(contact),
        "accountId": contact["accountId"],
        "accountName": _name_of(state, "accounts", contact["accountId"]),
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
        "ownerName": _name_of(state, "users", lead["ownerId"]),
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
        "accountName": _name_of(state, "accounts", opp["accountId"]),
        "primaryContactId": opp["primaryContactId"],
        "ownerId": opp["ownerId"],
        "ownerName": _name_of(state, "users", opp["ownerId"]),
        "stageId": opp["stageId"],
        "stageName": _name_of(state, "stages", opp["stageId"]),
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
        "ownerName": _name_of(state, "users", activity["ownerId"]),
        "relatedTo": activity["relatedTo"],
        "dueDate": activity["dueDate"],
        "completedDate": activity["completedDate"],
        "open": activity["completedDate"] is None,
        "notes": activity["notes"],
    }


def stage_summary(stage: Record) -> Record:
    return {
        "id": stage["id"],
        "name": stage["name"],
        "order": stage["order"],
        "probability": stage["probability"],
        "isClosed": stage["isClosed"],
    }
