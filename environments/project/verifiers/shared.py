"""Answer parsing and name lookups shared by the project verifiers (project-world.md §9.1), plus
helpers for check details.

Only ASCII digits count as digits (silo-format §14.6): ``[0-9]``, never ``\\d``. Unlike the CRM,
``$`` is not removed: only ``,`` is.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from silo_gym import canonical, format_number

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

_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def numbers_in(text: Any) -> list[float]:
    """Every number in ``text``, in order, as floats, after deleting every ``,``.

    Ids give negative numbers (``WI-004`` gives -4) and sprint names give their number
    (``Nimbus Sprint 4`` gives 4).
    """
    if not isinstance(text, str):
        return []
    return [float(m) for m in _NUMBER.findall(text.replace(",", ""))]


def final_number(text: Any) -> float | None:
    """The last number in ``text``, or ``None``."""
    found = numbers_in(text)
    return found[-1] if found else None


def states_number(text: Any, value: float, tol: float = 0.01) -> bool:
    """True when some number in ``text`` lies within ``tol`` of ``value``."""
    return any(abs(n - value) <= tol for n in numbers_in(text))


def mentions(text: Any, s: Any) -> bool:
    """Case-insensitive substring test (``str.lower`` on both sides)."""
    if not isinstance(text, str) or not isinstance(s, str):
        return False
    return s.lower() in text.lower()


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


def unchanged(final: Any, initial: Any) -> bool:
    """The compact canonical JSON of both states is equal, key order included (silo-format §8).

    Equal orjson bytes imply equal canonical bytes, so that cheap test comes first; only when it
    fails (or orjson cannot write the state) is the canonical form compared (``4`` and ``4.0``
    differ for orjson but not for the canonical writer).
    """
    try:
        if orjson.dumps(final) == orjson.dumps(initial):
            return True
    except (TypeError, orjson.JSONEncodeError):
        pass
    return canonical(final) == canonical(initial)


# ---------------------------------------------------------------------------------------------
# Details


def show(value: Any) -> str:
    """A value in a check detail: numbers as JavaScript prints them, ``null``, ``true``/``false``."""
    if value is None:
        return "null"
    if isinstance(value, bool | int | float):
        return format_number(value)
    return str(value)


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
