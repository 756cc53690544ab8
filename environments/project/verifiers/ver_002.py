"""VER-002 (TASK-002): the payment retry scheduler unblocked and finished (project-world.md §9.3)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import unresolved_dependencies
from .shared import id_list, is_done_in, status_text, work_item_by_title

TITLE = "Payment retry scheduler"


def _check(final: Any, initial: Any, context: Any) -> list:
    target = work_item_by_title(initial, TITLE)
    if target is None:
        missing = f'no work item is titled "{TITLE}"'
        return [
            check("Everything the scheduler waited on is done", False, missing),
            check("The payment retry scheduler is done", False, missing),
            check("Nothing unfinished remains under the scheduler", False, missing),
            optional("The scheduler kept its dependencies", False, missing),
            optional("No unrelated work item changed status", False, missing),
        ]
    item_id = target["id"]
    blockers = [dep["id"] for dep in unresolved_dependencies(initial, target)]
    finished = [b for b in blockers if is_done_in(final, b)]
    after = final["workItems"].get(item_id)
    still_open = [dep["id"] for dep in unresolved_dependencies(final, after)] if after else []
    kept = after is not None and len(after["dependsOn"]) == len(target["dependsOn"])
    skip = {item_id, *blockers}
    moved = [
        i["id"]
        for i in initial["workItems"].values()
        if i["id"] not in skip and (final["workItems"].get(i["id"]) or {}).get("status") != i["status"]
    ]
    return [
        check(
            "Everything the scheduler waited on is done",
            bool(blockers) and len(finished) == len(blockers),
            f"{len(finished)} of {len(blockers)} blockers done ({id_list(blockers)})"
            if blockers
            else f"{item_id} had no unfinished dependency at the start",
        ),
        check(
            "The payment retry scheduler is done",
            is_done_in(final, item_id),
            f"{item_id} is in {status_text(final, after)}" if after else f"{item_id} is missing from the final state",
        ),
        check(
            "Nothing unfinished remains under the scheduler",
            after is not None and not still_open,
            "nothing unfinished remains under the scheduler"
            if after is not None and not still_open
            else f"still unfinished: {id_list(still_open)}"
            if after is not None
            else f"{item_id} is missing from the final state",
        ),
        optional(
            "The scheduler kept its dependencies",
            kept,
            f"{len(after['dependsOn'])} of {len(target['dependsOn'])} dependency entries kept"
            if after
            else f"{item_id} is missing from the final state",
        ),
        optional(
            "No unrelated work item changed status",
            not moved,
            "no other status changed" if not moved else f"other items changed status: {id_list(moved)}",
        ),
    ]


ver_002 = define_verifier(
    id="VER-002", task_id="TASK-002", name="Payment retry scheduler unblocked and finished", check=_check
)
