"""VER-002 (TASK-002): every open deal of the departed USR-004 handed to USR-003, closed deals and
other reps' deals left alone (demo-crm.md §9.3)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

DEPARTED = "USR-004"
NEW_OWNER = "USR-003"


def _opportunities(state: Any) -> dict:
    opps = state.get("opportunities") if isinstance(state, dict) else None
    return opps if isinstance(opps, dict) else {}


def _field(record: Any, key: str) -> Any:
    return record.get(key) if isinstance(record, dict) else None


def _check(final: Any, initial: Any, context: Any) -> list:
    before = _opportunities(initial)
    after = _opportunities(final)

    should_move = [
        oid for oid, o in before.items() if _field(o, "ownerId") == DEPARTED and _field(o, "status") == "open"
    ]
    moved = [oid for oid in should_move if _field(after.get(oid), "ownerId") == NEW_OWNER]
    still_open = [oid for oid in should_move if _field(after.get(oid), "status") == "open"]
    remaining = [
        oid for oid, o in after.items() if _field(o, "status") == "open" and _field(o, "ownerId") == DEPARTED
    ]

    closed_before = [
        oid for oid, o in before.items() if _field(o, "ownerId") == DEPARTED and _field(o, "status") != "open"
    ]
    closed_moved = [oid for oid in closed_before if _field(after.get(oid), "ownerId") != DEPARTED]

    others = [oid for oid, o in before.items() if _field(o, "ownerId") != DEPARTED]
    others_changed = [
        oid
        for oid in others
        if oid not in after or _field(after.get(oid), "ownerId") != _field(before[oid], "ownerId")
    ]

    remaining_detail = f"{len(remaining)} open opportunities remain with {DEPARTED}"
    if remaining:
        remaining_detail += f" ({', '.join(remaining)})"
    closed_detail = (
        f"{DEPARTED} had no won or lost deals, so none changed owner"
        if not closed_before
        else f"all {len(closed_before)} of {DEPARTED}'s won and lost deals kept their owner"
        if not closed_moved
        else f"{len(closed_moved)} of {DEPARTED}'s closed deals changed owner ({', '.join(closed_moved)})"
    )
    others_detail = (
        "no other rep's deal changed hands"
        if not others_changed
        else f"{len(others_changed)} other deals changed owner ({', '.join(others_changed)})"
    )

    return [
        check(
            f"Every open deal of {DEPARTED} now belongs to {NEW_OWNER}",
            bool(should_move) and len(moved) == len(should_move),
            f"{len(moved)} of {len(should_move)} moved to {NEW_OWNER}",
        ),
        check(f"{DEPARTED} owns no open deal", not remaining, remaining_detail),
        check(
            "The moved deals are still open",
            len(still_open) == len(should_move),
            f"{len(still_open)} of {len(should_move)} are still open",
        ),
        optional(f"{DEPARTED}'s closed deals keep their owner", not closed_moved, closed_detail),
        optional("No other rep's deal changes owner", not others_changed, others_detail),
    ]


ver_002 = define_verifier(
    id="VER-002",
    task_id="TASK-002",
    name="Departed rep USR-004's open pipeline rehomed to USR-003",
    check=_check,
)
