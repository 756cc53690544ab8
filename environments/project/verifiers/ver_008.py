"""VER-008 (TASK-008): the ledger migration finished and closed (project-world.md §9.9)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..state import is_done
from .shared import id_list, is_done_in, project_id_by_key, show

KEY = "LED"


def _check(final: Any, initial: Any, context: Any) -> list:
    project = project_id_by_key(initial, KEY)
    if project is None:
        missing = f'no project has the key "{KEY}"'
        return [
            check("The project is completed", False, missing),
            check("All of its open work is done", False, missing),
            check("The project was not completed at the start", False, missing),
            optional("Its work items are still there", False, missing),
            optional("No other project changed status", False, missing),
        ]
    after = final["projects"].get(project)
    status = None if after is None else after["status"]
    must_finish = sorted(
        i["id"] for i in initial["workItems"].values() if i["projectId"] == project and not is_done(initial, i)
    )
    finished = [i for i in must_finish if is_done_in(final, i)]
    gone = [i for i in must_finish if i not in final["workItems"]]
    started = initial["projects"][project]["status"]
    changed = [
        p["id"]
        for p in initial["projects"].values()
        if p["id"] != project and (final["projects"].get(p["id"]) or {}).get("status") != p["status"]
    ]
    return [
        check(
            "The project is completed",
            status == "completed",
            f"{project} is {show(status)}" if after is not None else f"{project} is missing from the final state",
        ),
        check(
            "All of its open work is done",
            bool(must_finish) and len(finished) == len(must_finish),
            f"{len(finished)} of {len(must_finish)} items ({id_list(must_finish)}) are done",
        ),
        check("The project was not completed at the start", started != "completed", f"it started as {started}"),
        optional(
            "Its work items are still there",
            not gone,
            "the work items are still there" if not gone else f"missing: {id_list(gone)}",
        ),
        optional(
            "No other project changed status",
            not changed,
            "no other project changed status" if not changed else f"changed: {id_list(changed)}",
        ),
    ]


ver_008 = define_verifier(id="VER-008", task_id="TASK-008", name="Ledger migration finished and closed", check=_check)
