"""The figures a task hands the agent, derived from the world the task runs in (docs/variants.md).

Most facts an instruction names are facts of the world (a lead's name, a deal's owner) and are
read from the state. A few are not: the amount and close date of the deal TASK-001 opens, the
signed amount of TASK-003, the cut-off date of TASK-004, the stall threshold of TASK-005, and
whether TASK-005/006 name who asks. A verifier sees only the initial state, so these must be a
function of it too. :func:`task_parameters` draws them from the identity of the task's subject:

- TASK-001: the lead LEAD-004 (first name, last name, company);
- TASK-003: the deal OPP-007 (its name and its account's name);
- TASK-004, TASK-005, TASK-006: the team, identified by its manager USR-001 (name).

A subject identical to the canonical world's gives the task file's figures; any other identity
gives figures drawn from a SHA-256 of it, so they are deterministic in every process. The variant
generator renames every subject, so each variant draws its own figures, while editing any other
fact of a world (amounts, owners, dates, the clock) leaves a task's figures where they were.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from .state import State, add_days

__all__ = ["CANONICAL", "subject_key", "task_parameters"]

#: The task files' own figures (demo-crm.md §8), for the canonical subjects.
CANONICAL: dict[str, dict[str, Any]] = {
    "TASK-001": {"amount": 140000, "closeDate": "2026-06-30"},
    "TASK-002": {},
    "TASK-003": {"signedAmount": 118000},
    "TASK-004": {"closingOnOrBefore": None},
    "TASK-005": {"thresholdDays": 30, "namesRequester": False},
    "TASK-006": {"namesRequester": False},
}

#: Each task's subject: whose identity its figures are drawn from.
_SUBJECTS = {"TASK-001": "lead", "TASK-003": "deal", "TASK-004": "team", "TASK-005": "team", "TASK-006": "team"}


def _field(record: Any, key: str) -> Any:
    return record.get(key) if isinstance(record, dict) else None


def _record(state: Any, collection: str, record_id: Any) -> Any:
    records = _field(state, collection)
    return records.get(record_id) if isinstance(records, dict) and isinstance(record_id, str) else None


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else repr(value)


def subject_key(task_id: str, state: Any) -> tuple[str | None, ...] | None:
    """The identity of ``task_id``'s subject in ``state`` (a tuple of strings), or ``None`` when
    the task has no drawn figures or the subject is missing."""
    key = _subject(_SUBJECTS.get(task_id), state)
    return None if key is None else tuple(_text(part) for part in key)


def _subject(subject: str | None, state: Any) -> tuple[Any, ...] | None:
    if subject == "lead":
        lead = _record(state, "leads", "LEAD-004")
        if lead is None:
            return None
        return (_field(lead, "firstName"), _field(lead, "lastName"), _field(lead, "company"))
    if subject == "deal":
        opp = _record(state, "opportunities", "OPP-007")
        if opp is None:
            return None
        account = _record(state, "accounts", _field(opp, "accountId"))
        return (_field(opp, "name"), _field(account, "name"))
    if subject == "team":
        manager = _record(state, "users", "USR-001")
        return None if manager is None else (_field(manager, "name"),)
    return None


_canonical_keys: dict[str, tuple[str | None, ...] | None] = {}


def _canonical_key(task_id: str) -> tuple[str | None, ...] | None:
    if task_id not in _canonical_keys:
        from .environment import create_state  # deferred: environment imports the generator

        _canonical_keys[task_id] = subject_key(task_id, create_state())
    return _canonical_keys[task_id]


def _pick(h: int, values: range, exclude: Any = None) -> tuple[Any, int]:
    """A value of ``values`` chosen by ``h`` (never ``exclude``), and the unused part of ``h``."""
    skip = exclude is not None and exclude in values  # ``None in range`` would scan the range
    n = len(values) - skip
    value = values[h % n]
    if skip and value >= exclude:
        value = values[h % n + 1]
    return value, h // n


@functools.lru_cache(maxsize=1024)
def _drawn(subject: str, key: tuple[str | None, ...], now: str) -> dict[str, Any]:
    """Every figure drawn for one non-canonical subject, from a SHA-256 of its identity. Cached
    (callers copy): a variant reset draws them, renders the instruction and checks the
    preconditions of the same world, and the verifier reads them again."""
    text = "\x1f".join([subject, *(str(part) for part in key)])
    h = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest(), "big")
    if subject == "lead":
        amount, h = _pick(h, range(30000, 400001, 5000), exclude=140000)
        offset, h = _pick(h, range(30, 241))
        close = add_days(now, offset)
        if close == CANONICAL["TASK-001"]["closeDate"]:
            close = add_days(close, 1)
        return {"amount": amount, "closeDate": close}
    if subject == "deal":
        signed, h = _pick(h, range(20000, 300001, 1000), exclude=118000)
        return {"signedAmount": signed}
    offset, h = _pick(h, range(20, 241))
    days, h = _pick(h, range(14, 61))
    return {"closingOnOrBefore": add_days(now, offset), "thresholdDays": days, "namesRequester": True}


def task_parameters(task_id: str, state: State) -> dict[str, Any]:
    """The figures ``task_id`` hands the agent in ``state``, as a new dict.

    Keys: TASK-001 ``amount`` (USD, int), ``closeDate`` (``YYYY-MM-DD``); TASK-003
    ``signedAmount`` (USD, int); TASK-004 ``closingOnOrBefore`` (date or ``None`` for no cut-off);
    TASK-005 ``thresholdDays`` (int) and ``namesRequester`` (bool); TASK-006 ``namesRequester``.
    An unknown task gives ``{}``. Never raises on a malformed state: a missing subject gives the
    canonical figures. Drawn figures never equal the canonical ones where that would let the
    canonical answer pass (amounts, dates).
    """
    canonical = CANONICAL.get(task_id)
    if canonical is None:
        return {}
    key = subject_key(task_id, state)
    if key is None or key == _canonical_key(task_id):
        return dict(canonical)
    now = _field(state, "now")
    drawn = _drawn(_SUBJECTS[task_id], key, now if isinstance(now, str) else "2026-03-16")
    return {name: drawn[name] for name in canonical}
