"""The CRM world's types and the domain helpers shared by the tools and the verifiers.

Every helper that needs "today" reads ``state["now"]``; nothing here reads the wall clock.
Rounding follows JavaScript (``silo_gym.round2`` / ``silo_gym.js_round``), never Python's ``round``.
"""

from __future__ import annotations

import functools
from datetime import date, timedelta
from typing import Any

from silo_gym import js_round, kit

__all__ = [
    "AUDIT",
    "STALE_STAGE_DAYS",
    "State",
    "add_days",
    "age_in_days",
    "days_between",
    "days_in_stage",
    "first_open_stage",
    "full_name",
    "is_past_due",
    "is_stale",
    "lost_stage",
    "money",
    "next_id",
    "next_stage",
    "open_pipeline_for",
    "probability_of",
    "quota_attainment_percent",
    "record_audit",
    "stages_in_order",
    "sum_money",
    "weighted_amount",
    "won_amount_for",
    "won_amounts",
    "won_stage",
]


#: The world: ``now, users, accounts, contacts, leads, opportunities, activities, stages,
#: auditLog, sequences`` (demo-crm.md §1). The entity collections are dicts keyed by id, their
#: records' fields declared once, in stored order, on the kit collections (``tools/helpers.py``);
#: ``auditLog`` is a list; ``sequences`` maps an id prefix to its last issued number.
State = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Money and dates

STALE_STAGE_DAYS = 30


money = kit.money  # {"amount": round2(a), "currency": "USD"}, a whole amount as an int
sum_money = kit.sum_money  # money of the sum, added left to right (numbers or Money dicts)


@functools.lru_cache(maxsize=4096)
def _day_number(d: str) -> int:
    """The proleptic ordinal of a ``YYYY-MM-DD`` date (cached: a world holds few distinct dates,
    and reports compare each deal's with today)."""
    return date.fromisoformat(d).toordinal()


def days_between(a: str, b: str) -> int:
    """Whole days from date ``a`` to date ``b`` (first 10 characters of each)."""
    return _day_number(b[:10]) - _day_number(a[:10])


def add_days(d: str, n: int) -> str:
    """``d`` plus ``n`` days, as ``YYYY-MM-DD``."""
    return (date.fromisoformat(d[:10]) + timedelta(days=n)).isoformat()


def full_name(p: dict[str, Any]) -> str:
    """``firstName + " " + lastName`` of a contact or lead."""
    return p["firstName"] + " " + p["lastName"]


# ---------------------------------------------------------------------------------------------
# Opportunities


def probability_of(state: State, opp: dict[str, Any]) -> float:
    """100 when won, 0 when lost, else the probability of the opportunity's stage (0 if unknown)."""
    status = opp["status"]
    if status == "won":
        return 100
    if status == "lost":
        return 0
    stage = state["stages"].get(opp["stageId"])
    return 0 if stage is None else stage["probability"]


def weighted_amount(state: State, opp: dict[str, Any]) -> dict[str, Any]:
    """``money(amount * probability / 100)``, multiplied first, then divided."""
    return money(opp["amount"]["amount"] * probability_of(state, opp) / 100)


def days_in_stage(state: State, opp: dict[str, Any]) -> int:
    """Days since the opportunity entered its current stage (for every status)."""
    return days_between(opp["stageEnteredDate"], state["now"])


def age_in_days(state: State, d: str) -> int:
    """Days from ``d`` to today."""
    return days_between(d, state["now"])


def is_stale(state: State, opp: dict[str, Any], threshold: int = STALE_STAGE_DAYS) -> bool:
    """An open opportunity that has sat in its stage for more than ``threshold`` days."""
    return opp["status"] == "open" and days_in_stage(state, opp) > threshold


def is_past_due(state: State, opp: dict[str, Any]) -> bool:
    """An open opportunity whose expected close date lies before today."""
    return opp["status"] == "open" and days_between(opp["expectedCloseDate"], state["now"]) > 0


# ---------------------------------------------------------------------------------------------
# Stages


def stages_in_order(state: State) -> list[dict[str, Any]]:
    """The stages sorted by ``order``, ascending (stable)."""
    return sorted(state["stages"].values(), key=lambda s: s["order"])


def first_open_stage(state: State) -> dict[str, Any] | None:
    """The first stage in order that is not closed, or ``None``."""
    for stage in stages_in_order(state):
        if not stage["isClosed"]:
            return stage
    return None


def next_stage(state: State, stage_id: str) -> dict[str, Any] | None:
    """The first open stage after ``stage_id`` in order; ``None`` when unknown or none follows."""
    ordered = stages_in_order(state)
    for i, stage in enumerate(ordered):
        if stage["id"] == stage_id:
            for later in ordered[i + 1 :]:
                if not later["isClosed"]:
                    return later
            return None
    return None


def won_stage(state: State) -> dict[str, Any] | None:
    """The first closed stage in order with probability 100, or ``None``."""
    for stage in stages_in_order(state):
        if stage["isClosed"] and stage["probability"] == 100:
            return stage
    return None


def lost_stage(state: State) -> dict[str, Any] | None:
    """The first closed stage in order with probability 0, or ``None``."""
    for stage in stages_in_order(state):
        if stage["isClosed"] and stage["probability"] == 0:
            return stage
    return None


# ---------------------------------------------------------------------------------------------
# People


def open_pipeline_for(state: State, user_id: str) -> dict[str, Any]:
    """Sum of the amounts of the user's open opportunities (Money)."""
    return sum_money(
        o["amount"]["amount"]
        for o in state["opportunities"].values()
        if o["ownerId"] == user_id and o["status"] == "open"
    )


def won_amount_for(state: State, user_id: str) -> dict[str, Any]:
    """Sum of the amounts of the user's won opportunities (Money)."""
    return sum_money(
        o["amount"]["amount"]
        for o in state["opportunities"].values()
        if o["ownerId"] == user_id and o["status"] == "won"
    )


def won_amounts(state: State) -> dict[str, dict[str, Any]]:
    """``won_amount_for`` of every owner with a won deal, in one pass: each owner's amounts are
    added in the same order (Money by owner id)."""
    totals: dict[str, float] = {}
    for o in state["opportunities"].values():
        if o["status"] == "won":
            owner = o["ownerId"]
            totals[owner] = totals.get(owner, 0) + o["amount"]["amount"]
    return {owner: money(total) for owner, total in totals.items()}


def quota_attainment_percent(
    state: State, user: dict[str, Any], won: dict[str, dict[str, Any]] | None = None
) -> float | None:
    """Won amount over quota, in percent with one decimal (half up); ``None`` for a zero quota.

    ``won`` is ``won_amounts(state)`` when the caller ranks many users (else computed here).
    """
    quota = user["quota"]["amount"]
    if quota == 0:
        return None
    if won is None:
        amount = won_amount_for(state, user["id"])["amount"]
    else:
        amount = won[user["id"]]["amount"] if user["id"] in won else 0
    return js_round(amount / quota * 1000) / 10


# ---------------------------------------------------------------------------------------------
# Ids and audit


next_id = kit.next_id  # advance sequences[prefix] and return <prefix>-<n zero-padded to pad>
#: The audit log: one event per write, stamped with ``now`` and the next ``AUD-`` id.
AUDIT = kit.AuditLog("actorUserId")


def record_audit(state: State, actor: str, action: str, entity_type: str, entity_id: str, detail: str) -> None:
    """Append one audit event (what every write tool does last)."""
    AUDIT.record(state, actor, action, entity_type, entity_id, detail)
