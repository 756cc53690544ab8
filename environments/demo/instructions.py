"""Task instructions rendered from a world (docs/variants.md, "render_instruction").

One template per task. Its slots are facts of the world (names, ids, companies, deal names)
read through the ids the task names, and the task's own figures from ``scenario.py``. Rendered
on the canonical world, every template gives the task file's instruction byte for byte; a test
and ``silo-gym env validate`` hold it to that.
"""

from __future__ import annotations

from typing import Any

from silo_gym.models import Task

from .scenario import task_parameters
from .state import State
from .variant_pools import COMPANY_SUFFIXES, FIRST_NAMES, HE, SHE

__all__ = ["render_instruction", "short_company"]

#: (subject, object, possessive) pronouns by first name: the variant pools' and the canonical
#: world's people the instructions speak about.
_PRONOUNS: dict[str, tuple[str, str, str]] = {
    **{name: pronouns for name, pronouns in FIRST_NAMES},
    "Ingrid": SHE,
    "Tomas": HE,
    "Daniel": HE,
}

_TEMPLATES = {
    "TASK-001": (
        "{person} of {company} has been qualified. {short} is not one of our customers yet, so the "
        "conversion should set them up as a brand-new account. Convert {person_obj} and open a deal "
        "worth {amount} with an expected close date of {close}. The lead belongs to {owner} "
        "({owner_id}), and {owner_is} the one doing this work."
    ),
    "TASK-002": (
        "{departed} has left the company and {departed_poss} user account is deactivated, yet "
        "{departed_poss} open deals are still assigned to {departed_obj}. Hand every one of "
        "{departed_poss} open opportunities over to {new_owner} ({new_owner_id}). Any deal "
        "{departed_subj} already closed must stay exactly as it is. {manager} ({manager_id}) is the "
        "one making this change."
    ),
    "TASK-003": (
        "{account} has signed the {deal} for {signed}, which is not the figure we last quoted them. "
        "Record the deal as won at the contracted amount, and put a note on the deal saying the "
        "signed contract came back today. {owner} ({owner_id}) owns this deal and is the one "
        "recording it."
    ),
    "TASK-004": (
        "{manager_first} wants a single figure to show the board: the probability-weighted value of "
        "every deal currently open across the whole team{cutoff}, in US dollars. Work it out and "
        "report it."
    ),
    "TASK-005": (
        "{requester}Deals that have not moved stage in more than {days} days are a problem. Find the "
        "one sales rep who has the most of these deals open, and report that rep's name together "
        "with how many such deals they have."
    ),
    "TASK-006": (
        "{requester}Considering only the reps who are still with the company, find the one with the "
        "lowest quota attainment, measured on closed-won business. Report that rep's name and their "
        "attainment percentage."
    ),
}

_REQUESTS = {
    "TASK-005": "{manager} is preparing the pipeline review. ",
    "TASK-006": "{manager} is reviewing the team against quota. ",
}


def short_company(name: str) -> str:
    """A company's name without a trailing corporate suffix: ``Fjord Maritime Group`` ->
    ``Fjord Maritime``."""
    head, _, last = name.rpartition(" ")
    return head if head and last in COMPANY_SUFFIXES else name


def _dollars(amount: Any) -> str:
    """``$140,000``; cents only when there are any (``$1,234.50``)."""
    if isinstance(amount, float) and not amount.is_integer():
        return f"${amount:,.2f}"
    return f"${int(amount):,}"


def _pronouns(full_name: str) -> tuple[str, str, str]:
    """(subject, object, possessive) pronouns for a person: by first name, else they/them/their."""
    return _PRONOUNS.get(full_name.split(" ", 1)[0], ("they", "them", "their"))


def _subject_is(subject: str) -> str:
    return f"{subject} are" if subject == "they" else f"{subject} is"


def _facts(task_id: str, state: State) -> dict[str, Any]:
    users = state["users"]
    params = task_parameters(task_id, state)
    if task_id == "TASK-001":
        lead = state["leads"]["LEAD-004"]
        owner = users[lead["ownerId"]]
        person = f"{lead['firstName']} {lead['lastName']}"
        return {
            "person": person,
            "person_obj": _pronouns(person)[1],
            "company": lead["company"],
            "short": short_company(lead["company"]),
            "amount": _dollars(params["amount"]),
            "close": params["closeDate"],
            "owner": owner["name"],
            "owner_id": owner["id"],
            "owner_is": _subject_is(_pronouns(owner["name"])[0]),
        }
    if task_id == "TASK-002":
        departed = users["USR-004"]["name"]
        subj, obj, poss = _pronouns(departed)
        manager = users["USR-001"]
        return {
            "departed": departed,
            "departed_subj": subj,
            "departed_obj": obj,
            "departed_poss": poss,
            "new_owner": users["USR-003"]["name"],
            "new_owner_id": "USR-003",
            "manager": manager["name"],
            "manager_id": manager["id"],
        }
    if task_id == "TASK-003":
        opp = state["opportunities"]["OPP-007"]
        account = state["accounts"][opp["accountId"]]["name"]
        word = account.split(" ", 1)[0] + " "
        owner = users[opp["ownerId"]]
        return {
            "account": account,
            "deal": opp["name"][len(word) :] if opp["name"].startswith(word) else opp["name"],
            "signed": _dollars(params["signedAmount"]),
            "owner": owner["name"],
            "owner_id": owner["id"],
        }
    manager = users["USR-001"]["name"]
    if task_id == "TASK-004":
        cutoff = params["closingOnOrBefore"]
        return {
            "manager_first": manager.split(" ", 1)[0],
            "cutoff": "" if cutoff is None else f" that is expected to close on or before {cutoff}",
        }
    requester = _REQUESTS[task_id].format(manager=manager) if params["namesRequester"] else ""
    return {"requester": requester, "days": params.get("thresholdDays")}


def render_instruction(task: Task, state: State) -> str:
    """The instruction of ``task`` in the world ``state`` (the variant contract's optional hook).

    Reads the state, never changes it. A task without a template keeps its file's instruction.

    Raises:
        KeyError: the state lacks a record the template reads (``task_preconditions`` reports
            such a world before it is handed out).
    """
    template = _TEMPLATES.get(task.id)
    if template is None:
        return task.instruction
    return template.format(**_facts(task.id, state))
