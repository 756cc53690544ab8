"""VER-007 (TASK-007): Atlas Sprint 12 completed and Atlas Sprint 13 started (project-world.md §9.8)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import id_list, show, sprint_id_by_name

FINISHED = "Atlas Sprint 12"
NEXT = "Atlas Sprint 13"


def _status(state: Any, sprint_id: str | None) -> str | None:
    sprint = state["sprints"].get(sprint_id) if sprint_id is not None else None
    return None if sprint is None else sprint["status"]


def _check(final: Any, initial: Any, context: Any) -> list:
    finished = sprint_id_by_name(initial, FINISHED)
    following = sprint_id_by_name(initial, NEXT)
    finished_status = _status(final, finished)
    next_status = _status(final, following)
    project = initial["sprints"][following]["projectId"] if following is not None else None
    running = sorted(
        s["id"] for s in final["sprints"].values() if project is not None and s["projectId"] == project
        and s["status"] == "active"
    )
    left = [
        i["id"]
        for i in initial["workItems"].values()
        if finished is not None and i["sprintId"] == finished
        and (final["workItems"].get(i["id"]) or {}).get("sprintId") != finished
    ]
    return [
        check(
            "The finished sprint is completed",
            finished_status == "completed",
            f"{finished} is {show(finished_status)}" if finished else f'no sprint is named "{FINISHED}"',
        ),
        check(
            "The next sprint is running",
            next_status == "active",
            f"{following} is {show(next_status)}" if following else f'no sprint is named "{NEXT}"',
        ),
        check(
            "Exactly one sprint runs on the project",
            project is not None and len(running) == 1,
            f"active sprints on {show(project)}: {id_list(running)}",
        ),
        optional(
            "The carry-over stayed on the finished sprint",
            finished is not None and not left,
            "the carry-over stayed on its sprint" if not left else f"moved off the sprint: {id_list(left)}",
        ),
    ]


ver_007 = define_verifier(id="VER-007", task_id="TASK-007", name="Atlas sprint rolled over", check=_check)
