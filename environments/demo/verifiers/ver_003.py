"""VER-003 (TASK-003): OPP-007 closed won at the signed figure the task gives ($118,000 in the
canonical world, a variant's own otherwise: ``scenario.task_parameters``), today, with a note
logged on it (demo-crm.md §9.4)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from ..state import won_stage
from .shared import show

OPP_ID = "OPP-007"


def _collection(state: Any, key: str) -> dict:
    value = state.get(key) if isinstance(state, dict) else None
    return value if isinstance(value, dict) else {}


def _field(record: Any, key: str) -> Any:
    return record.get(key) if isinstance(record, dict) else None


def _check(final: Any, initial: Any, context: Any) -> list:
    signed = task_parameters("TASK-003", initial)["signedAmount"]  # the task's figure, from its world
    now = final.get("now")
    won = won_stage(final)
    won_id = _field(won, "id")
    opp = _collection(final, "opportunities").get(OPP_ID)
    opp = opp if isinstance(opp, dict) else None

    status = _field(opp, "status")
    money = _field(opp, "amount")
    amount = _field(money, "amount")
    amount_ok = isinstance(amount, int | float) and not isinstance(amount, bool) and amount == signed
    stage_id = _field(opp, "stageId")
    closed = _field(opp, "closedDate")

    initial_activities = _collection(initial, "activities")
    related = {"type": "opportunity", "id": OPP_ID}
    logged = [
        aid
        for aid, a in _collection(final, "activities").items()
        if _field(a, "relatedTo") == related
        and _field(a, "completedDate") == now
        and aid not in initial_activities
    ]

    changed = [
        oid
        for oid, o in _collection(initial, "opportunities").items()
        if oid != OPP_ID
        and _field(_collection(final, "opportunities").get(oid), "status") != _field(o, "status")
    ]

    missing = f"{OPP_ID} is missing from the final state"
    return [
        check(
            f"{OPP_ID} is won",
            opp is not None and status == "won",
            f"status is {show(status)}; expected won" if opp else missing,
        ),
        check(
            f"{OPP_ID} is booked at the signed {show(signed)}",
            opp is not None and amount_ok,
            f"amount is {show(amount)}; expected {show(signed)}" if opp else missing,
        ),
        check(
            f"{OPP_ID} sits in the closed-won stage",
            won is not None and opp is not None and stage_id == won_id,
            (f"stage is {show(stage_id)}; " if opp else missing + "; ")
            + (f"the won stage is {won_id}" if won is not None else "no closed-won stage is defined"),
        ),
        check(
            f"{OPP_ID} closed today",
            opp is not None and closed == now,
            f"closedDate is {show(closed)}; today is {show(now)}" if opp else missing,
        ),
        optional(
            f"A note completed today was logged on {OPP_ID}",
            bool(logged),
            f"new activity found: {', '.join(logged)}"
            if logged
            else f"no new activity on {OPP_ID} completed today",
        ),
        optional(
            "No other deal opened or closed",
            not changed,
            "every other deal kept its status"
            if not changed
            else f"{len(changed)} other deals changed status ({', '.join(changed)})",
        ),
    ]


ver_003 = define_verifier(
    id="VER-003",
    task_id="TASK-003",
    name="OPP-007 booked as won at the signed figure",
    check=_check,
)
