"""VER-003 (TASK-003): Devon Ito's open work moved to Farid Haddad (project-world.md §9.4)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import is_done
from .shared import id_list, member_id_by_name

DEPARTED = "Devon Ito"
NEW_OWNER = "Farid Haddad"


def _check(final: Any, initial: Any, context: Any) -> list:
    departed = member_id_by_name(initial, DEPARTED)
    new_owner = member_id_by_name(initial, NEW_OWNER)
    if departed is None or new_owner is None:
        missing = f'no member is named "{DEPARTED if departed is None else NEW_OWNER}"'
        return [
            check("Every open item of the departed member went to the new owner", False, missing),
            check("The departed member holds no unfinished work", False, missing),
            check("The moved items are still open", False, missing),
            optional("Finished items kept their owner", False, missing),
            optional("Nobody else's work changed hands", False, missing),
        ]
    initial_items = sorted(initial["workItems"].values(), key=lambda i: i["id"])
    final_items = final["workItems"]
    should_move = [i["id"] for i in initial_items if i["assigneeId"] == departed and not is_done(initial, i)]
    moved = [i for i in should_move if (final_items.get(i) or {}).get("assigneeId") == new_owner]
    left = sorted(i["id"] for i in final_items.values() if i["assigneeId"] == departed and not is_done(final, i))
    still_open = [i for i in should_move if i in final_items and not is_done(final, final_items[i])]
    history = [i["id"] for i in initial_items if i["assigneeId"] == departed and is_done(initial, i)]
    history_lost = [i for i in history if (final_items.get(i) or {}).get("assigneeId") != departed]
    others = [
        i["id"]
        for i in initial_items
        if i["assigneeId"] != departed and (final_items.get(i["id"]) or {}).get("assigneeId") != i["assigneeId"]
    ]
    return [
        check(
            "Every open item of the departed member went to the new owner",
            bool(should_move) and len(moved) == len(should_move),
            f"{len(moved)} of {len(should_move)} open items ({id_list(should_move)}) now belong to {new_owner}"
            if should_move
            else f"{departed} held no open work at the start",
        ),
        check(
            "The departed member holds no unfinished work",
            not left,
            f"{len(left)} unfinished items remain with {departed}" + (f" ({id_list(left)})" if left else ""),
        ),
        check(
            "The moved items are still open",
            len(still_open) == len(should_move),
            f"{len(still_open)} of {len(should_move)} items are still open",
        ),
        optional(
            "Finished items kept their owner",
            not history_lost,
            "finished history kept its owner"
            if not history_lost
            else f"finished items that changed hands: {id_list(history_lost)}",
        ),
        optional(
            "Nobody else's work changed hands",
            not others,
            "nobody else's work changed hands" if not others else f"other items reassigned: {id_list(others)}",
        ),
    ]


ver_003 = define_verifier(
    id="VER-003", task_id="TASK-003", name="Departed engineer's open work handed to a teammate", check=_check
)
