"""VER-005 (TASK-005): the blocker of the duplicate-email bug recorded in a comment
(project-world.md §9.6)."""

from __future__ import annotations

from typing import Any

from silo_gym import canonical, check, define_verifier, optional

from .shared import id_list, work_item_by_title

TARGET = "Duplicate invoice emails"
BLOCKER = "Email service upgrade"


def _comment_count(state: Any, item_id: str) -> int | None:
    item = state["workItems"].get(item_id)
    return None if item is None else len(item["comments"])


def _check(final: Any, initial: Any, context: Any) -> list:
    target = work_item_by_title(initial, TARGET)
    blocker = work_item_by_title(initial, BLOCKER)
    after = final["workItems"].get(target["id"]) if target is not None else None
    before_comments = target["comments"] if target is not None else []
    final_comments = after["comments"] if after is not None else []
    before, count = len(before_comments), len(final_comments)
    added = final_comments[before:]
    names_id = blocker is not None and any(blocker["id"] in c["body"] for c in added)
    kept = after is not None and canonical(final_comments[:before]) == canonical(before_comments)
    target_id = None if target is None else target["id"]
    others = [
        i["id"]
        for i in initial["workItems"].values()
        if i["id"] != target_id and _comment_count(final, i["id"]) != len(i["comments"])
    ]
    if target is None:
        count_detail = f'no work item is titled "{TARGET}"'
    elif after is None:
        count_detail = f"{target['id']} is missing from the final state"
    else:
        count_detail = f"{target['id']} had {before} comment(s) and now has {count}"
    return [
        check("Exactly one comment was added to the bug", after is not None and count == before + 1, count_detail),
        check(
            "The new comment names the blocking work item's id",
            names_id,
            f"looked for {blocker['id']} in the new comment(s)"
            if blocker is not None
            else f'no work item is titled "{BLOCKER}"',
        ),
        optional(
            "The earlier comments are untouched",
            kept,
            "earlier comments are untouched" if kept else "the earlier comments differ",
        ),
        optional(
            "No other work item gained a comment",
            not others,
            "no other item gained a comment" if not others else f"comment counts changed on: {id_list(others)}",
        ),
    ]


ver_005 = define_verifier(
    id="VER-005", task_id="TASK-005", name="Duplicate-email bug notes what it waits on", check=_check
)
