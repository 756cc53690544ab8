"""VER-001 (TASK-001): the tax rules engine is done (project-world.md §9.2)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import id_list, is_done_in, status_text, work_item_by_title

TITLE = "Tax rules engine"


def _check(final: Any, initial: Any, context: Any) -> list:
    target = work_item_by_title(initial, TITLE)
    if target is None:
        missing = f'no work item is titled "{TITLE}"'
        return [
            check("The tax rules engine is done", False, missing),
            check("The tax rules engine was still open at the start", False, missing),
            optional("No other work item changed status", False, missing),
        ]
    item_id = target["id"]
    after = final["workItems"].get(item_id)
    done_now = is_done_in(final, item_id)
    done_before = is_done_in(initial, item_id)
    moved = [
        i["id"]
        for i in initial["workItems"].values()
        if i["id"] != item_id and (final["workItems"].get(i["id"]) or {}).get("status") != i["status"]
    ]
    return [
        check(
            "The tax rules engine is done",
            done_now,
            f"{item_id} is in {status_text(final, after)}" if after else f"{item_id} is missing from the final state",
        ),
        check(
            "The tax rules engine was still open at the start",
            not done_before,
            f"{item_id} started in {status_text(initial, target)}",
        ),
        optional(
            "No other work item changed status",
            not moved,
            "no other status changed" if not moved else f"other items changed status: {id_list(moved)}",
        ),
    ]


ver_001 = define_verifier(id="VER-001", task_id="TASK-001", name="Tax rules engine recorded as done", check=_check)
