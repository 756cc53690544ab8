"""VER-006 (TASK-006): the unassigned Atlas backlog moved into Atlas Sprint 13
(project-world.md §9.7)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from .shared import id_list, project_id_by_key, sprint_id_by_name, state_named

KEY = "ATL"
SPRINT = "Atlas Sprint 13"
STATE = "Backlog"


def _check(final: Any, initial: Any, context: Any) -> list:
    project = project_id_by_key(initial, KEY)
    sprint = sprint_id_by_name(initial, SPRINT)
    backlog = state_named(initial, STATE)
    if project is None or sprint is None or backlog is None:
        missing = "the project, the sprint or the Backlog state was not found"
        return [
            check("Every unassigned Atlas backlog item is in the sprint", False, missing),
            check("The sprint was empty at the start", False, missing),
            optional("Nothing else went into the sprint", False, missing),
            optional("The moved items kept their status", False, missing),
        ]
    items = sorted(initial["workItems"].values(), key=lambda i: i["id"])
    should_move = [
        i["id"] for i in items if i["projectId"] == project and i["status"] == backlog["id"] and i["assigneeId"] is None
    ]
    final_items = final["workItems"]
    moved = [i for i in should_move if (final_items.get(i) or {}).get("sprintId") == sprint]
    preloaded = [i["id"] for i in items if i["sprintId"] == sprint]
    extra = sorted(i["id"] for i in final_items.values() if i["sprintId"] == sprint and i["id"] not in should_move)
    restated = [i for i in moved if final_items[i]["status"] != initial["workItems"][i]["status"]]
    return [
        check(
            "Every unassigned Atlas backlog item is in the sprint",
            bool(should_move) and len(moved) == len(should_move),
            f"{len(moved)} of {len(should_move)} items ({id_list(should_move)}) are in {sprint}",
        ),
        check(
            "The sprint was empty at the start",
            not preloaded,
            "the sprint held nothing before" if not preloaded else f"it already held {id_list(preloaded)}",
        ),
        optional(
            "Nothing else went into the sprint",
            not extra,
            "nothing else went into the sprint" if not extra else f"also in the sprint: {id_list(extra)}",
        ),
        optional(
            "The moved items kept their status",
            not restated,
            "the moved items kept their status" if not restated else f"status changed on: {id_list(restated)}",
        ),
    ]


ver_006 = define_verifier(
    id="VER-006", task_id="TASK-006", name="Unassigned Atlas backlog loaded into the empty sprint", check=_check
)
