"""Referential integrity of a CRM world (docs/variants.md, "world_problems").

``world_problems(state)`` lists what does not hold together: ids that do not resolve, records
keyed under another id, sequences behind the ids already issued, statuses that disagree with the
stage or the dates, dates after today. The canonical world has none; neither may any variant.
``silo-gym env validate`` runs it on the canonical world and on sampled variants.
"""

from __future__ import annotations

import re
from typing import Any

from .state import State

__all__ = ["world_problems"]

#: Collection -> the id prefix its records use (and the sequence that numbers them).
_PREFIXES = {
    "users": "USR",
    "accounts": "ACC",
    "contacts": "CON",
    "leads": "LEAD",
    "opportunities": "OPP",
    "activities": "ACT",
    "stages": "STG",
}
_SEQUENCED = ("accounts", "contacts", "leads", "opportunities", "activities")
_ID = re.compile(r"([A-Z]+)-([0-9]+)")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_RELATED = {"lead": "leads", "account": "accounts", "contact": "contacts", "opportunity": "opportunities"}


def _number(record_id: Any, prefix: str) -> int | None:
    match = _ID.fullmatch(record_id) if isinstance(record_id, str) else None
    return int(match.group(2)) if match and match.group(1) == prefix else None


def world_problems(state: State) -> list[str]:
    """Every referential-integrity problem of ``state``, one sentence each; ``[]`` when sound
    (the variant contract's optional hook). Reads the state, never changes it; never raises on a
    malformed state (a shape problem is reported, and the checks that need that part skip it)."""
    problems: list[str] = []
    add = problems.append
    now = state.get("now")
    if not (isinstance(now, str) and _DATE.fullmatch(now)):
        add(f"now is {now!r}, not a YYYY-MM-DD date.")
        now = "9999-12-31"
    collections: dict[str, dict[str, Any]] = {}
    for key, prefix in _PREFIXES.items():
        records = state.get(key)
        if not isinstance(records, dict):
            add(f"{key} is not an object keyed by id.")
            records = {}
        collections[key] = records
        for record_id, record in records.items():
            if not isinstance(record, dict) or record.get("id") != record_id:
                add(f"{key}[{record_id}] does not hold the record with that id.")
            elif _number(record_id, prefix) is None:
                add(f"{key}[{record_id}] is not a {prefix}-<number> id.")
    users, accounts, contacts = collections["users"], collections["accounts"], collections["contacts"]
    leads, opps, stages = collections["leads"], collections["opportunities"], collections["stages"]

    def ref(where: str, field: str, value: Any, target: dict[str, Any], nullable: bool = False) -> bool:
        if value is None and nullable:
            return False
        if value not in target:
            add(f"{where}.{field} = {value!r} does not resolve.")
            return False
        return True

    def dated(where: str, field: str, value: Any, nullable: bool = False) -> None:
        if value is None and nullable:
            return
        if not (isinstance(value, str) and _DATE.fullmatch(value)):
            add(f"{where}.{field} = {value!r} is not a YYYY-MM-DD date.")
        elif value > now:
            add(f"{where}.{field} = {value} is after today ({now}).")

    for uid, user in users.items():
        ref(uid, "managerId", user.get("managerId"), users, nullable=True)
    for aid, account in accounts.items():
        ref(aid, "ownerId", account.get("ownerId"), users)
        dated(aid, "createdDate", account.get("createdDate"))
    for cid, contact in contacts.items():
        ref(cid, "accountId", contact.get("accountId"), accounts, nullable=True)
    for lid, lead in leads.items():
        ref(lid, "ownerId", lead.get("ownerId"), users)
        dated(lid, "createdDate", lead.get("createdDate"))
        dated(lid, "lastContactedDate", lead.get("lastContactedDate"), nullable=True)
        touched = lead.get("lastContactedDate")
        if isinstance(touched, str) and touched < str(lead.get("createdDate")):
            add(f"{lid} was last contacted before it was created.")
        links = (lead.get("convertedAccountId"), lead.get("convertedContactId"), lead.get("convertedOpportunityId"))
        if lead.get("status") == "converted":
            ref(lid, "convertedAccountId", links[0], accounts)
            ref(lid, "convertedContactId", links[1], contacts)
            if ref(lid, "convertedOpportunityId", links[2], opps, nullable=True):
                if opps[links[2]].get("sourceLeadId") != lid:
                    add(f"{lid} converted into {links[2]}, which does not name it as its source.")
        elif links != (None, None, None):
            add(f"{lid} is {lead.get('status')} but points at converted records.")
        if (lead.get("status") == "disqualified") != (lead.get("disqualifyReason") is not None):
            add(f"{lid} has a disqualify reason if and only if it is not disqualified.")
    for oid, opp in opps.items():
        ref(oid, "ownerId", opp.get("ownerId"), users)
        has_account = ref(oid, "accountId", opp.get("accountId"), accounts)
        if ref(oid, "primaryContactId", opp.get("primaryContactId"), contacts, nullable=True) and has_account:
            if contacts[opp["primaryContactId"]].get("accountId") != opp["accountId"]:
                add(f"{oid}'s primary contact belongs to another account.")
        if ref(oid, "sourceLeadId", opp.get("sourceLeadId"), leads, nullable=True):
            if leads[opp["sourceLeadId"]].get("convertedOpportunityId") != oid:
                add(f"{oid} names {opp['sourceLeadId']} as its source, which did not convert into it.")
        status = opp.get("status")
        if ref(oid, "stageId", opp.get("stageId"), stages):
            stage = stages[opp["stageId"]]
            probability = stage.get("probability")
            expected = "open" if not stage.get("isClosed") else "won" if probability == 100 else "lost"
            if status != expected:
                add(f"{oid} is {status} in stage {opp['stageId']}, which holds {expected} deals.")
        for field in ("createdDate", "stageEnteredDate"):
            dated(oid, field, opp.get(field))
        dated(oid, "closedDate", opp.get("closedDate"), nullable=True)
        if str(opp.get("stageEnteredDate")) < str(opp.get("createdDate")):
            add(f"{oid} entered its stage before it was created.")
        if (status == "open") != (opp.get("closedDate") is None):
            add(f"{oid} is {status} but its closedDate is {opp.get('closedDate')!r}.")
        if (status == "lost") != (opp.get("lostReason") is not None):
            add(f"{oid} has a lost reason if and only if it is not lost.")
    for act_id, activity in collections["activities"].items():
        ref(act_id, "ownerId", activity.get("ownerId"), users)
        related = activity.get("relatedTo")
        kind = related.get("type") if isinstance(related, dict) else None
        if kind not in _RELATED:
            add(f"{act_id}.relatedTo = {related!r} is not a lead, account, contact or opportunity.")
        else:
            ref(act_id, "relatedTo.id", related.get("id"), collections[_RELATED[kind]])
        dated(act_id, "completedDate", activity.get("completedDate"), nullable=True)
    orders = [s.get("order") for s in stages.values()]
    if len(set(orders)) != len(orders):
        add("Two stages share an order.")
    audit = state.get("auditLog")
    if not isinstance(audit, list):
        add("auditLog is not a list.")
        audit = []
    for event in audit:
        if isinstance(event, dict):
            ref(str(event.get("id")), "actorUserId", event.get("actorUserId"), users)
    sequences = state.get("sequences")
    if not isinstance(sequences, dict):
        add("sequences is not an object.")
        sequences = {}
    for key in _SEQUENCED:
        prefix = _PREFIXES[key]
        highest = max((_number(rid, prefix) or 0 for rid in collections[key]), default=0)
        if not isinstance(sequences.get(prefix), int) or sequences[prefix] < highest:
            add(f"sequences.{prefix} = {sequences.get(prefix)!r} is behind the highest {prefix} id issued ({highest}).")
    issued = max((_number(e.get("id"), "AUD") or 0 for e in audit if isinstance(e, dict)), default=0)
    if not isinstance(sequences.get("AUD"), int) or sequences["AUD"] < issued:
        add(f"sequences.AUD = {sequences.get('AUD')!r} is behind the highest audit id issued ({issued}).")
    return problems
