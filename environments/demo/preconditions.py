"""What each task needs from a world to be solvable with one right answer (docs/variants.md,
"task_preconditions").

Each list mirrors what the task's verifier derives from the initial state (demo-crm.md §9) and
what its instruction claims, so a world that passes gives the agent a task it can complete with
reward 1, every optional check included:

- TASK-001: LEAD-004 is qualified and owned by an active user (who does the work), its company is
  not an account yet and a search for its short name finds this lead alone, a new deal can start
  in an open stage, and the close date lies ahead.
- TASK-002: USR-004 is a deactivated rep with open deals; USR-003 and USR-001 are active.
- TASK-003: OPP-007 is open, owned by an active user, on an existing account, the only open deal
  of that account with its name; a closed-won stage exists; the signed figure differs from the
  quoted one.
- TASK-004: some open deal falls under the cut-off.
- TASK-005: some deal is stalled at the threshold and one owner, a known user, has strictly the
  most.
- TASK-006: at least two active reps have a quota, the lowest attainment is strictly below the
  next, and no two users' names contain each other (answers are graded by substring).
"""

from __future__ import annotations

from typing import Any

from silo_gym import kit
from silo_gym.models import Task

from .instructions import short_company
from .scenario import task_parameters
from .state import State, first_open_stage, won_stage
from .verifiers.ver_005 import stale_counts
from .verifiers.ver_006 import attainment_ranking

__all__ = ["task_preconditions"]


def _active_user(state: State, user_id: Any, role: str) -> list[str]:
    user = state["users"].get(user_id)
    if user is None:
        return [f"{role} {user_id} does not exist."]
    if not user["active"]:
        return [f"{role} {user_id} is deactivated."]
    return []


def _task_001(state: State) -> list[str]:
    lead = state["leads"].get("LEAD-004")
    if lead is None:
        return ["LEAD-004 does not exist."]
    problems = []
    if lead["status"] != "qualified":
        problems.append(f"LEAD-004 is {lead['status']}, not qualified.")
    problems += _active_user(state, lead["ownerId"], "The lead's owner")
    short = short_company(lead["company"]).lower()
    if any(short in a["name"].lower() for a in state["accounts"].values()):
        problems.append(f"An account already carries the name {short_company(lead['company'])}.")
    # what search_leads matches: id, full name, company, e-mail (lower-cased; a NUL between the
    # fields keeps a match inside one of them)
    found = [
        other["id"]
        for other in state["leads"].values()
        if short
        in f"{other['id']}\0{other['firstName']} {other['lastName']}\0{other['company']}\0{other['email']}".lower()
    ]
    if found != ["LEAD-004"]:
        problems.append(f"A lead search for {short_company(lead['company'])} finds {found}, not LEAD-004 alone.")
    if first_open_stage(state) is None:
        problems.append("No open stage for the new deal.")
    if task_parameters("TASK-001", state)["closeDate"] <= state["now"]:
        problems.append("The deal's close date is not in the future.")
    return problems


def _task_002(state: State) -> list[str]:
    departed = state["users"].get("USR-004")
    if departed is None:
        return ["USR-004 does not exist."]
    problems = []
    if departed["role"] != "rep" or departed["active"]:
        problems.append("USR-004 is not a deactivated rep.")
    if not any(o["ownerId"] == "USR-004" and o["status"] == "open" for o in state["opportunities"].values()):
        problems.append("USR-004 owns no open deal.")
    problems += _active_user(state, "USR-003", "The new owner")
    problems += _active_user(state, "USR-001", "The manager")
    return problems


def _task_003(state: State) -> list[str]:
    opp = state["opportunities"].get("OPP-007")
    if opp is None:
        return ["OPP-007 does not exist."]
    problems = []
    if opp["status"] != "open":
        problems.append(f"OPP-007 is {opp['status']}, not open.")
    problems += _active_user(state, opp["ownerId"], "The deal's owner")
    if opp["accountId"] not in state["accounts"]:
        problems.append("OPP-007's account does not exist.")
    twins = [
        o["id"]
        for o in state["opportunities"].values()
        if o["id"] != "OPP-007" and o["status"] == "open" and o["accountId"] == opp["accountId"]
        and o["name"] == opp["name"]
    ]
    if twins:
        problems.append(f"Other open deals of the same account share OPP-007's name: {twins}.")
    if won_stage(state) is None:
        problems.append("No closed-won stage.")
    if task_parameters("TASK-003", state)["signedAmount"] == opp["amount"]["amount"]:
        problems.append("The signed figure equals the quoted one.")
    return problems


def _manager(state: State) -> list[str]:
    """TASK-004 to TASK-006 name the manager who asks."""
    return [] if "USR-001" in state["users"] else ["USR-001, the manager who asks, does not exist."]


def _task_004(state: State) -> list[str]:
    cutoff = task_parameters("TASK-004", state)["closingOnOrBefore"]
    problems = _manager(state)
    if not any(
        o["status"] == "open" and (cutoff is None or o["expectedCloseDate"] <= cutoff)
        for o in state["opportunities"].values()
    ):
        problems.append("No open deal falls under the cut-off." if cutoff else "No open deal.")
    return problems


def _task_005(state: State) -> list[str]:
    threshold = task_parameters("TASK-005", state)["thresholdDays"]
    ranked = stale_counts(state, threshold)
    if not ranked:
        return [*_manager(state), f"No deal has been in its stage for more than {threshold} days."]
    top, count = ranked[0]
    problems = _manager(state)
    if len(ranked) > 1 and ranked[1][1] == count:
        problems.append(f"Two owners tie at {count} stalled deals.")
    if top not in state["users"]:
        problems.append(f"The owner with the most stalled deals, {top}, is not a user.")
    return problems


def _task_006(state: State) -> list[str]:
    percents = [percent for percent, _, _ in attainment_ranking(state)]
    problems = _manager(state)
    if len(percents) < 2:
        problems.append("Fewer than two active reps have a quota.")
    elif percents[0] == percents[1]:
        problems.append(f"Two active reps tie at the lowest attainment, {percents[0]}%.")
    names = [u["name"].lower() for u in state["users"].values()]
    joined = "\0".join(names)
    for name in names:
        if joined.count(name) > 1:  # in another user's name too (or two users share it)
            problems.append(f"The user name {name!r} is part of another user's name.")
            break
    return problems


_CHECKS = kit.per_task(globals(), "_task_")


def task_preconditions(task: Task, state: State) -> list[str]:
    """The unmet preconditions of ``task`` in ``state``, one short sentence each; ``[]`` when the
    world may be handed out for that task (the variant contract's optional hook). Reads the
    state, never changes it. A task not listed here has no preconditions.
    """
    check = _CHECKS.get(task.id)
    return [] if check is None else check(state)
