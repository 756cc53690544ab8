"""Variants of the project world: the contract's optional parts (VARIANTS_CONTRACT.md; project-world.md §11).

- ``generate(k)`` (generator.py) builds variant ``k``; ``create_state(k)`` returns it.
- ``render_instruction(task, state)`` renders a task's instruction for a world (instructions.py);
  on the canonical world it is the task file's instruction, byte for byte.
- ``task_preconditions(task, state)`` lists what keeps a world from being handed out for a task
  (§11's table): each entry is one short sentence; ``[]`` means the task is solvable with one right
  answer there.
- ``world_problems(state)`` lists referential-integrity problems of a world (ids that do not
  resolve, cycles, inconsistent dates, sequences behind the ids in use, the workflow's shape).

None of them changes the state it is given.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date
from typing import Any

from silo_gym import kit

from .generator import WORKFLOW, generate
from .instructions import actor_of, render
from .state import (
    State,
    days_between,
    is_blocked,
    is_done,
    is_overdue,
    load_for,
    remaining_for_sprint,
    time_logs_for_work_item,
    total_hours_for,
    unresolved_dependencies,
    velocity_for_sprint,
    work_items_for_project,
)

__all__ = ["generate", "render_instruction", "task_preconditions", "world_problems"]

Record = dict[str, Any]


def render_instruction(task: Any, state: State) -> str:
    """The instruction of ``task`` for the world ``state`` (the task file's own instruction for a
    task this environment has no template for)."""
    rendered = render(task.id, state)
    return task.instruction if rendered is None else rendered


# ---------------------------------------------------------------------------------------------
# Lookups by the names the verifiers use


def _named(state: State, collection: str, field: str, value: str) -> list[Record]:
    return [r for r in state[collection].values() if r[field] == value]


def _one(state: State, collection: str, field: str, value: str, what: str, problems: list[str]) -> Record | None:
    """The single record whose ``field`` is ``value``; a problem is noted when there is none or
    more than one."""
    found = _named(state, collection, field, value)
    if len(found) != 1:
        problems.append(f'{"No" if not found else "More than one"} {what} "{value}".')
        return None
    return found[0]


def _actor_ok(task_id: str, state: State, problems: list[str], verb: str = "act") -> None:
    member = actor_of(task_id, state)
    if member is None:
        problems.append(f"Nobody is there to {verb} in the instruction.")
    elif not member["active"]:
        problems.append(f"{member['name']} ({member['id']}), named in the instruction, is not active.")


def _has_cycle(state: State, ids: list[str]) -> bool:
    """True when the dependencies among ``ids`` loop back on themselves."""
    inside = set(ids)
    items = state["workItems"]
    visiting: set[str] = set()
    finished: set[str] = set()

    def visit(item_id: str) -> bool:
        if item_id in finished:
            return False
        if item_id in visiting:
            return True
        visiting.add(item_id)
        for dep in items[item_id]["dependsOn"]:
            if dep in inside and visit(dep):
                return True
        visiting.discard(item_id)
        finished.add(item_id)
        return False

    return any(visit(i) for i in sorted(inside))


# ---------------------------------------------------------------------------------------------
# Preconditions, one function per task (§11's table)


def _t001(state: State, p: list[str]) -> None:
    target = _one(state, "workItems", "title", "Tax rules engine", "work item titled", p)
    if not any(s["isDone"] for s in state["workflowStates"].values()):
        p.append("No workflow state is a done state.")
    if target is not None:
        if is_done(state, target):
            p.append("The tax rules engine is already done.")
        if unresolved_dependencies(state, target):
            p.append("The tax rules engine depends on unfinished work, so it cannot be set done directly.")
    _actor_ok("TASK-001", state, p)


def _t002(state: State, p: list[str]) -> None:
    target = _one(state, "workItems", "title", "Payment retry scheduler", "work item titled", p)
    if target is not None:
        if is_done(state, target):
            p.append("The payment retry scheduler is already done.")
        blockers = unresolved_dependencies(state, target)
        if not blockers:
            p.append("The payment retry scheduler waits on nothing unfinished.")
        for blocker in blockers:
            if unresolved_dependencies(state, blocker):
                p.append(f"{blocker['id']}, which the scheduler waits on, itself waits on unfinished work.")
    _actor_ok("TASK-002", state, p)


def _t003(state: State, p: list[str]) -> None:
    departed = _one(state, "members", "name", "Devon Ito", "member named", p)
    owner = _one(state, "members", "name", "Farid Haddad", "member named", p)
    if departed is not None:
        if departed["active"]:
            p.append("Devon Ito is still active, but the instruction says he left.")
        open_items = [i for i in state["workItems"].values()
                      if i["assigneeId"] == departed["id"] and not is_done(state, i)]
        if not open_items:
            p.append("Devon Ito holds no unfinished work.")
        if owner is not None:
            if not owner["active"]:
                p.append("Farid Haddad is not active, so he cannot take work.")
            need = load_for(state, owner["id"]) + sum(i["estimatePoints"] for i in open_items)
            if need > owner["weeklyCapacityPoints"]:
                p.append("Devon Ito's open work does not fit within Farid Haddad's weekly capacity.")
    _actor_ok("TASK-003", state, p)


def _t004(state: State, p: list[str]) -> None:
    target = _one(state, "workItems", "title", "Usage metering", "work item titled", p)
    team = _one(state, "teams", "name", "Platform", "team named", p)
    if target is not None:
        if target["assigneeId"] is not None:
            p.append("Usage metering is already assigned.")
        if is_done(state, target):
            p.append("Usage metering is already done.")
    if target is not None and team is not None:
        rooms = sorted(
            m["weeklyCapacityPoints"] - load_for(state, m["id"]) - target["estimatePoints"]
            for m in state["members"].values()
            if m["teamId"] == team["id"] and m["active"]
        )
        fits = [r for r in rooms if r >= 0]
        if not fits:
            p.append("No active Platform member can take usage metering within capacity.")
        elif len(fits) > 1 and fits[0] == fits[1]:
            p.append("Two Platform members would be left with the same least room, so the rule picks no one.")
    _actor_ok("TASK-004", state, p)


def _t005(state: State, p: list[str]) -> None:
    bug = _one(state, "workItems", "title", "Duplicate invoice emails", "work item titled", p)
    upgrade = _one(state, "workItems", "title", "Email service upgrade", "work item titled", p)
    if bug is not None and upgrade is not None:
        if upgrade["id"] not in bug["dependsOn"]:
            p.append("The duplicate-email bug does not depend on the email service upgrade.")
        if is_done(state, upgrade):
            p.append("The email service upgrade is already done, so the bug waits on nothing.")
    _actor_ok("TASK-005", state, p, "write the note")


def _t006(state: State, p: list[str]) -> None:
    project = _one(state, "projects", "key", "ATL", "project with key", p)
    sprint = _one(state, "sprints", "name", "Atlas Sprint 13", "sprint named", p)
    backlog = _one(state, "workflowStates", "name", "Backlog", "workflow state named", p)
    if project is not None and sprint is not None:
        if sprint["projectId"] != project["id"]:
            p.append("Atlas Sprint 13 does not belong to the Atlas project.")
        if sprint["status"] == "completed":
            p.append("Atlas Sprint 13 is completed and cannot take work.")
        if any(i["sprintId"] == sprint["id"] for i in state["workItems"].values()):
            p.append("Atlas Sprint 13 is not empty.")
        if backlog is not None and not any(
            i["projectId"] == project["id"] and i["status"] == backlog["id"] and i["assigneeId"] is None
            for i in state["workItems"].values()
        ):
            p.append("No unassigned Atlas work item is in the Backlog state.")
    _actor_ok("TASK-006", state, p)


def _t007(state: State, p: list[str]) -> None:
    finished = _one(state, "sprints", "name", "Atlas Sprint 12", "sprint named", p)
    following = _one(state, "sprints", "name", "Atlas Sprint 13", "sprint named", p)
    if finished is not None and following is not None:
        if finished["status"] != "active":
            p.append("Atlas Sprint 12 is not running.")
        if following["status"] != "planned":
            p.append("Atlas Sprint 13 is not planned.")
        if finished["projectId"] != following["projectId"]:
            p.append("Atlas Sprints 12 and 13 belong to different projects.")
        if any(s["status"] == "active" and s["projectId"] == following["projectId"]
               and s["id"] not in (finished["id"], following["id"]) for s in state["sprints"].values()):
            p.append("Another sprint of the Atlas project is running.")
        if days_between(finished["endDate"], state["now"]) <= 0:
            p.append("Atlas Sprint 12 has not reached its end date.")
    _actor_ok("TASK-007", state, p)


def _t008(state: State, p: list[str]) -> None:
    project = _one(state, "projects", "key", "LED", "project with key", p)
    if project is not None:
        if project["status"] == "completed":
            p.append("The ledger project is already completed.")
        open_items = [i for i in work_items_for_project(state, project["id"]) if not is_done(state, i)]
        if not open_items:
            p.append("The ledger project has no open work.")
        open_ids = {i["id"] for i in open_items}
        items = state["workItems"]
        for item in open_items:
            for dep in item["dependsOn"]:
                if dep in items and dep not in open_ids and not is_done(state, items[dep]):
                    p.append(f"{item['id']} waits on {dep}, which is unfinished and outside the ledger's open work.")
        if _has_cycle(state, sorted(open_ids)):
            p.append("The ledger's open work items wait on each other in a cycle.")
    _actor_ok("TASK-008", state, p)


def _t009(state: State, p: list[str]) -> None:
    items = state["workItems"].values()
    if not any(is_blocked(state, i) for i in items):
        p.append("No work item is held up by an unfinished dependency.")
    if any(is_done(state, i) and is_blocked(state, i) for i in items):
        p.append("A done work item depends on unfinished work, which the question does not mean to count.")


def _completed_velocities(state: State) -> list[tuple[int, Record]]:
    return sorted(
        ((velocity_for_sprint(state, s["id"]), s) for s in state["sprints"].values() if s["status"] == "completed"),
        key=lambda pair: (-pair[0], pair[1]["id"]),
    )


def _t010(state: State, p: list[str]) -> None:
    ranked = _completed_velocities(state)
    if not ranked:
        p.append("No sprint is completed.")
    elif len(ranked) > 1 and ranked[0][0] == ranked[1][0]:
        p.append("Two completed sprints share the highest delivered points.")


def _t011(state: State, p: list[str]) -> None:
    project = _one(state, "projects", "key", "ATL", "project with key", p)
    if project is None:
        return

    def hours(project_id: str) -> float:
        return total_hours_for(
            log for i in work_items_for_project(state, project_id) for log in time_logs_for_work_item(state, i["id"])
        )

    atlas = hours(project["id"])
    if any(abs(hours(other) - atlas) <= 0.01 for other in state["projects"] if other != project["id"]):
        p.append("Another project has the same hours as Atlas, so the total does not tell them apart.")


def _t012(state: State, p: list[str]) -> None:
    members = state["members"]
    everyone = active = 0
    for item in state["workItems"].values():
        if is_overdue(state, item):
            everyone += item["estimatePoints"]
            member = members.get(item["assigneeId"]) if item["assigneeId"] is not None else None
            if member is not None and member["active"]:
                active += item["estimatePoints"]
    if everyone == active:
        p.append("All overdue work is held by active members, so the qualifier changes nothing.")


def _t013(state: State, p: list[str]) -> None:
    over = [m for m in state["members"].values() if load_for(state, m["id"]) > m["weeklyCapacityPoints"]]
    if len(over) != 1:
        p.append(f"Exactly one member should be over capacity; {len(over)} are.")


def _t014(state: State, p: list[str]) -> None:
    if not _named(state, "workflowStates", "name", "Backlog"):
        p.append('No workflow state is named "Backlog".')


def _t015(state: State, p: list[str]) -> None:
    carrying = [s for s in state["sprints"].values()
                if s["status"] == "completed" and remaining_for_sprint(state, s["id"]) > 0]
    if len(carrying) != 1:
        p.append(f"Exactly one completed sprint should hold unfinished work; {len(carrying)} do.")


_PRECONDITIONS: dict[str, Callable[[State, list[str]], None]] = kit.per_task(globals(), "_t")


def task_preconditions(task: Any, state: State) -> list[str]:
    """The unmet preconditions of ``task`` in ``state`` (project-world.md §11), each a short
    sentence; ``[]`` for a task this environment knows no preconditions for."""
    check = _PRECONDITIONS.get(task.id)
    problems: list[str] = []
    if check is not None:
        check(state, problems)
    return problems


# ---------------------------------------------------------------------------------------------
# Referential integrity


_PREFIXES = (
    ("projects", "PROJ", 3),
    ("workItems", "WI", 3),
    ("sprints", "SPR", 3),
    ("members", "MEM", 3),
    ("teams", "TEAM", 3),
    ("timeLogs", "TL", 3),
)


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_ID = re.compile(r"([A-Z]+)-([0-9]+)")


@functools.lru_cache(maxsize=4096)
def _real_date(value: Any) -> bool:
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _id_number(record_id: Any, prefix: str) -> int | None:
    match = _ID.fullmatch(record_id) if isinstance(record_id, str) else None
    return int(match.group(2)) if match and match.group(1) == prefix else None


def world_problems(state: State) -> list[str]:
    """Referential-integrity problems of a project world, each a sentence; ``[]`` when sound."""
    p: list[str] = []
    now = state["now"]
    projects, items, sprints = state["projects"], state["workItems"], state["sprints"]
    members, teams, states = state["members"], state["teams"], state["workflowStates"]

    shape = sorted((s["name"], s["order"], s["isDone"], s["isBlockedState"]) for s in states.values())
    if shape != sorted(WORKFLOW):
        p.append("The workflow states are not the six standard ones (names, orders and flags).")

    for key, prefix, _pad in _PREFIXES:
        for record_id, record in state[key].items():
            if record["id"] != record_id:
                p.append(f"{key} holds {record['id']} under the key {record_id}.")
            if _id_number(record_id, prefix) is None:
                p.append(f"{record_id} is not a {prefix} id.")
    for project in projects.values():
        if project["leadId"] not in members:
            p.append(f"{project['id']} is led by {project['leadId']}, who does not exist.")
        if not (_real_date(project["startDate"]) and _real_date(project["targetDate"])):
            p.append(f"{project['id']} has a malformed date.")
    for team in teams.values():
        if team["leadId"] is not None and team["leadId"] not in members:
            p.append(f"{team['id']} is led by {team['leadId']}, who does not exist.")
    for member in members.values():
        if member["teamId"] is not None and member["teamId"] not in teams:
            p.append(f"{member['id']} belongs to {member['teamId']}, which does not exist.")
        name = member["name"]
        if not name.isascii() or member["email"] != name.lower().replace(" ", ".") + "@example.com":
            p.append(f"{member['id']} breaks the name and e-mail rule (ASCII, first.last@example.com).")
    active_sprints: dict[str, list[str]] = {}
    for sprint in sprints.values():
        if sprint["projectId"] not in projects:
            p.append(f"{sprint['id']} belongs to {sprint['projectId']}, which does not exist.")
        if not (_real_date(sprint["startDate"]) and _real_date(sprint["endDate"])):
            p.append(f"{sprint['id']} has a malformed date.")
        elif sprint["endDate"] < sprint["startDate"]:
            p.append(f"{sprint['id']} ends before it starts.")
        if sprint["status"] == "active":
            active_sprints.setdefault(sprint["projectId"], []).append(sprint["id"])
    for project_id, running in active_sprints.items():
        if len(running) > 1:
            p.append(f"{project_id} has more than one active sprint: {', '.join(running)}.")
    for item in items.values():
        item_id = item["id"]
        if item["status"] not in states:
            p.append(f"{item_id} is in {item['status']}, which is not a workflow state.")
        if item["assigneeId"] is not None and item["assigneeId"] not in members:
            p.append(f"{item_id} is assigned to {item['assigneeId']}, who does not exist.")
        if item["projectId"] not in projects:
            p.append(f"{item_id} belongs to {item['projectId']}, which does not exist.")
        if item["sprintId"] is not None:
            sprint = sprints.get(item["sprintId"])
            if sprint is None:
                p.append(f"{item_id} is in {item['sprintId']}, which does not exist.")
            elif sprint["projectId"] != item["projectId"]:
                p.append(f"{item_id} is in {sprint['id']}, a sprint of another project.")
        if item["parentId"] is not None and item["parentId"] not in items:
            p.append(f"{item_id} has the parent {item['parentId']}, which does not exist.")
        for dep in item["dependsOn"]:
            if dep not in items:
                p.append(f"{item_id} depends on {dep}, which does not exist.")
        dates = (item["createdDate"], item["statusEnteredDate"])
        if not all(_real_date(d) for d in dates) or (item["dueDate"] is not None and not _real_date(item["dueDate"])):
            p.append(f"{item_id} has a malformed date.")
        elif not item["createdDate"] <= item["statusEnteredDate"] <= now:
            p.append(f"{item_id} entered its status before it was created or after today.")
        if projects.get(item["projectId"], {}).get("status") == "completed" and item["status"] in states \
                and not is_done(state, item):
            p.append(f"{item_id} is open in the completed project {item['projectId']}.")
        for comment in item["comments"]:
            if comment["authorId"] not in members:
                p.append(f"{comment['id']} on {item_id} was written by {comment['authorId']}, who does not exist.")
    if _has_cycle(state, [i for i in items if all(d in items for d in items[i]["dependsOn"])]):
        p.append("Work item dependencies form a cycle.")
    for item in items.values():
        seen = {item["id"]}
        parent = item["parentId"]
        while parent is not None and parent in items:
            if parent in seen:
                p.append(f"The parents of {item['id']} form a cycle.")
                break
            seen.add(parent)
            parent = items[parent]["parentId"]
    for log in state["timeLogs"].values():
        if log["workItemId"] not in items:
            p.append(f"{log['id']} is logged on {log['workItemId']}, which does not exist.")
        if log["memberId"] not in members:
            p.append(f"{log['id']} is logged by {log['memberId']}, who does not exist.")
        if not _real_date(log["date"]) or log["date"] > now:
            p.append(f"{log['id']} has a malformed or future date.")

    sequences = state["sequences"]
    in_use: dict[str, list[int | None]] = {prefix: [_id_number(i, prefix) for i in state[key]]
                                           for key, prefix, _pad in _PREFIXES}
    in_use["CMT"] = [_id_number(c["id"], "CMT") for i in items.values() for c in i["comments"]]
    in_use["AUD"] = [_id_number(e["id"], "AUD") for e in state["auditLog"]]
    for prefix, numbers in in_use.items():
        highest = max((n for n in numbers if n is not None), default=0)
        if sequences.get(prefix, 0) < highest:
            p.append(f"The {prefix} sequence ({sequences.get(prefix, 0)}) is behind the ids in use ({highest}).")
    if sequences.get("AUD") != len(state["auditLog"]):
        p.append("The AUD sequence does not equal the audit log's length.")
    for event in state["auditLog"]:
        if event["actorMemberId"] not in members:
            p.append(f"{event['id']} names the actor {event['actorMemberId']}, who does not exist.")
    texts = [r["title"] for r in items.values()] + [c["body"] for i in items.values() for c in i["comments"]]
    texts += [r["name"] for coll in (projects, sprints, teams) for r in coll.values()]
    if not all(t.isascii() for t in texts):
        p.append("Some names, titles or comments are not ASCII.")
    return p
