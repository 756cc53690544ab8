"""Answer parsing and name lookups shared by the project verifiers (project-world.md §9.1), plus
helpers for check details.

Only ASCII digits count as digits (silo-format §14.6): ``[0-9]``, never ``\\d``. Unlike the CRM,
``$`` is not removed: only ``,`` is.
"""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import is_done

__all__ = [
    "final_number",
    "id_list",
    "is_done_in",
    "member_id_by_name",
    "mentions",
    "numbers_in",
    "project_id_by_key",
    "show",
    "sprint_id_by_name",
    "state_named",
    "states_number",
    "status_text",
    "unchanged",
    "untouched_check",
    "work_item_by_title",
]

Record = dict[str, Any]

def numbers_in(text: Any) -> list[float]:
    """Every number in ``text``, in order, as floats, after deleting every ``,`` (not ``$``).

    Ids give negative numbers (``WI-004`` gives -4) and sprint names give their number
    (``Nimbus Sprint 4`` gives 4).
    """
    return kit.numbers_in(text, strip=",")


def final_number(text: Any) -> float | None:
    """The last number in ``text``, or ``None``."""
    return kit.final_number(text, strip=",")


def states_number(text: Any, value: float, tol: float = 0.01) -> bool:
    """True when some number in ``text`` lies within ``tol`` of ``value``."""
    return kit.states_number(text, value, tol, strip=",")


mentions = kit.mentions  # case-insensitive substring test
unchanged = kit.untouched  # equal canonical JSON, key order included (silo-format §8)
show = kit.show  # a value in a check detail: numbers as JavaScript prints them, null, true/false


def _first(records: Any, field: str, value: str) -> Record | None:
    if not isinstance(records, dict):
        return None
    for record in records.values():
        if isinstance(record, dict) and record.get(field) == value:
            return record
    return None


def work_item_by_title(state: Any, title: str) -> Record | None:
    """The first work item, in collection order, whose title equals ``title`` exactly."""
    return _first(state.get("workItems"), "title", title)


def member_id_by_name(state: Any, name: str) -> str | None:
    found = _first(state.get("members"), "name", name)
    return None if found is None else found["id"]


def project_id_by_key(state: Any, key: str) -> str | None:
    found = _first(state.get("projects"), "key", key)
    return None if found is None else found["id"]


def sprint_id_by_name(state: Any, name: str) -> str | None:
    found = _first(state.get("sprints"), "name", name)
    return None if found is None else found["id"]


def state_named(state: Any, name: str) -> Record | None:
    """The first workflow state with that exact name."""
    return _first(state.get("workflowStates"), "name", name)


def is_done_in(state: Any, item_id: Any) -> bool:
    """The item exists in ``state`` and is done there."""
    item = state["workItems"].get(item_id) if isinstance(item_id, str) else None
    return item is not None and is_done(state, item)


# ---------------------------------------------------------------------------------------------
# Details


def id_list(ids: list[str]) -> str:
    """Ids joined by ``", "``, or ``none``."""
    return ", ".join(ids) if ids else "none"


def status_text(state: Any, item: Record | None) -> str:
    """``<status id> (<state name>)`` of an item, the name ``unknown`` when the id dangles."""
    if item is None:
        return "missing"
    wfs = state["workflowStates"].get(item["status"])
    return f"{item['status']} ({wfs['name'] if wfs is not None else 'unknown state'})"


def untouched_check(final: Any, initial: Any) -> tuple[bool, str]:
    """``(passed, detail)`` of the answer tasks' "nothing changed" check."""
    same = unchanged(final, initial)
    return same, "nothing in the world changed" if same else "the final state differs from the initial state"
