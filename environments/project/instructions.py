"""Task instructions rendered from a world (project-world.md §8, §11; VARIANTS_CONTRACT.md 2).

One template per task serves every world: rendered on the canonical world it gives the task
file's ``instruction`` byte for byte, and on a variant world it names that world's acting or asking
member and the facts the instruction quotes (the finished sprint's end date, how much ledger work
is left). Every rendering keeps the task's marker phrase, names records by title, name, key or
sprint name, and carries no member id except the actor's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from silo_gym import kit

from .state import State, days_between, is_done, work_items_for_project

__all__ = ["MARKERS", "actor_of", "render"]

Record = dict[str, Any]

#: The marker phrase of each task (§8): each appears in its own task's instruction only.
MARKERS: dict[str, str] = {
    "TASK-001": "tax rules engine",
    "TASK-002": "payment retry scheduler",
    "TASK-003": "Devon Ito",
    "TASK-004": "Usage metering",
    "TASK-005": "Leave a note",
    "TASK-006": "Atlas Sprint 13 is empty",
    "TASK-007": "ran to its end date",
    "TASK-008": "ledger data migration",
    "TASK-009": "held up by an unfinished dependency",
    "TASK-010": "delivered the most points",
    "TASK-011": "total number of hours",
    "TASK-012": "who is still active",
    "TASK-013": "weekly capacity allows",
    "TASK-014": "Backlog state right now",
    "TASK-015": "closed out while work was still unfinished",
}

# Records the instructions are anchored on (task entities, §8).
ATLAS = "PROJ-001"
LEDGER = "PROJ-003"
DEPARTED = "MEM-004"
BUG = "WI-006"
FINISHED_SPRINT = "SPR-002"


def _member(state: State, member_id: str | None) -> Record | None:
    return state["members"].get(member_id) if member_id is not None else None


def _project_lead(project_id: str) -> Callable[[State], Record | None]:
    def lead(state: State) -> Record | None:
        project = state["projects"].get(project_id)
        return None if project is None else _member(state, project["leadId"])

    return lead


def _departed_team_lead(state: State) -> Record | None:
    departed = state["members"].get(DEPARTED)
    team = state["teams"].get(departed["teamId"]) if departed is not None and departed["teamId"] else None
    return None if team is None else _member(state, team["leadId"])


def _bug_assignee(state: State) -> Record | None:
    bug = state["workItems"].get(BUG)
    return None if bug is None else _member(state, bug["assigneeId"])


def _manager(state: State) -> Record | None:
    """The first active manager by id: the member who asks the reporting questions."""
    for member in sorted(state["members"].values(), key=lambda m: m["id"]):
        if member["role"] == "manager" and member["active"]:
            return member
    return None


#: Who acts (state-changing tasks) or asks (answer tasks) in each task's instruction.
_PERSON: dict[str, Callable[[State], Record | None]] = {
    "TASK-001": _project_lead(ATLAS),
    "TASK-002": _project_lead(ATLAS),
    "TASK-003": _departed_team_lead,
    "TASK-004": _project_lead(ATLAS),
    "TASK-005": _bug_assignee,
    "TASK-006": _project_lead(ATLAS),
    "TASK-007": _project_lead(ATLAS),
    "TASK-008": _project_lead(LEDGER),
    "TASK-009": _manager,
    "TASK-010": _manager,
    "TASK-011": _manager,
    "TASK-012": _manager,
    "TASK-013": _manager,
    "TASK-014": _project_lead(ATLAS),
    "TASK-015": _manager,
}


def actor_of(task_id: str, state: State) -> Record | None:
    """The member an instruction names as acting or asking, or ``None`` when the world has none."""
    person = _PERSON.get(task_id)
    return None if person is None else person(state)


def _acting(member: Record | None) -> str:
    if member is None:
        return "Nobody is available to act on this."
    return f"You are acting as {member['name']} ({member['id']})."


def _name(member: Record | None) -> str:
    return "A colleague" if member is None else member["name"]


def _days_ago(state: State, day: str) -> str:
    n = days_between(day, state["now"])
    if n == 1:
        return "yesterday"
    if n == 0:
        return "today"
    if n < 0:
        return f"in {-n} days"
    return f"{n} days ago"


def _ledger_work(state: State) -> str:
    open_items = [i for i in work_items_for_project(state, LEDGER) if not is_done(state, i)]
    if len(open_items) == 1:
        return f'its remaining open work ("{open_items[0]["title"]}") has passed review'
    return "its remaining open items have all passed review"


def _t001(state: State, who: Record | None) -> str:
    return (
        "The tax rules engine work item on the Atlas Billing Platform project has passed review and is "
        'finished. Please record "Tax rules engine" as done. ' + _acting(who)
    )


def _t002(state: State, who: Record | None) -> str:
    return (
        "The payment retry scheduler on the Atlas Billing Platform cannot be marked done yet: work it "
        "depends on is still unfinished. Finish the work it is waiting on (keep its dependencies in "
        'place rather than removing them), then mark "Payment retry scheduler" itself as done. '
        + _acting(who)
    )


def _t003(state: State, who: Record | None) -> str:
    return (
        "Devon Ito has left the company and his account is deactivated, but unfinished work is still "
        "assigned to him. Reassign every one of his work items that is not done to Farid Haddad; his "
        "finished items stay as they are. " + _acting(who)
    )


def _t004(state: State, who: Record | None) -> str:
    return (
        "Usage metering is sitting unassigned in the Atlas backlog. Assign it to an active member of "
        "the Platform team who can take its whole estimate, as it stands, without going over their "
        "weekly capacity. If several members can, choose the one who would have the least spare "
        "capacity left after taking it. " + _acting(who)
    )


def _t005(state: State, who: Record | None) -> str:
    return (
        'Leave a note (a comment) on the "Duplicate invoice emails" bug saying that it is waiting on '
        'the "Email service upgrade" work item, and include that work item\'s id in the comment. '
        + _acting(who)
    )


def _t006(state: State, who: Record | None) -> str:
    return (
        "Atlas Sprint 13 is empty. Move into it every work item of the Atlas Billing Platform project "
        "(key ATL) that is in the Backlog state and has no assignee, and change nothing else about "
        "those items. " + _acting(who)
    )


def _t007(state: State, who: Record | None) -> str:
    sprint = state["sprints"].get(FINISHED_SPRINT)
    end = sprint["endDate"] if sprint is not None else state["now"]
    return (
        f"Atlas Sprint 12 ran to its end date ({end}, {_days_ago(state, end)}). Complete it and leave "
        "its unfinished items on it as carry-over, then start Atlas Sprint 13. " + _acting(who)
    )


def _t008(state: State, who: Record | None) -> str:
    return (
        "The ledger data migration project (Ledger Data Migration, key LED) is effectively finished: "
        f"{_ledger_work(state)}. Mark the remaining open work done, then close the project as "
        "completed. " + _acting(who)
    )


def _t009(state: State, who: Record | None) -> str:
    return (
        f"{_name(who)} asks how many work items are currently held up by an unfinished dependency, and "
        "which ones. Report the count and the ids of those work items."
    )


def _t010(state: State, who: Record | None) -> str:
    return (
        f"{_name(who)} wants to know which of the completed sprints delivered the most points, counting "
        "the estimates of its done work items. Report that sprint's name and its points."
    )


def _t011(state: State, who: Record | None) -> str:
    return (
        f"{_name(who)} is passing on a request from finance: they need the total number of hours logged "
        "against the Atlas Billing Platform project (key ATL), by everyone. Report the total."
    )


def _t012(state: State, who: Record | None) -> str:
    return (
        f"For {_name(who)}'s recovery plan: across all projects, add up the estimate points of the "
        "overdue work items (not done, with a due date before today) that are assigned to a member "
        "who is still active. Report the total."
    )


def _t013(state: State, who: Record | None) -> str:
    return (
        f"{_name(who)} has heard that one member is committed to more points of unfinished work than "
        "their weekly capacity allows. Name that member and say by how many points they are over."
    )


def _t014(state: State, who: Record | None) -> str:
    return (
        f"{_name(who)} asks: how many work items, across all projects, are in the Backlog state right "
        "now? Report the count."
    )


def _t015(state: State, who: Record | None) -> str:
    return (
        f"{_name(who)} says one sprint was closed out while work was still unfinished in it. Name that "
        "sprint and report how many estimate points of unfinished work remain in it."
    )


_TEMPLATES: dict[str, Callable[[State, Record | None], str]] = kit.per_task(globals(), "_t")


def render(task_id: str, state: State) -> str | None:
    """The instruction of ``task_id`` for ``state``, or ``None`` for a task without a template."""
    template = _TEMPLATES.get(task_id)
    if template is None:
        return None
    return template(state, actor_of(task_id, state))
