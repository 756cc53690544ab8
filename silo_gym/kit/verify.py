"""Verifier helpers: reading the agent's answer, and "untouched except" checks.

Only ASCII digits count as digits (silo-format §14.6): ``[0-9]``, never ``\\d``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from ..jsonfmt import canonical, format_number

__all__ = [
    "final_number",
    "ids_in",
    "mentions",
    "numbers_in",
    "show",
    "states_number",
    "untouched",
    "untouched_except",
]

_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def numbers_in(text: Any, strip: str = "$,") -> list[float]:
    """Every number in ``text``, in order, as floats; the characters of ``strip`` are deleted
    first, so ``$1,234.5`` reads as 1234.5 (a non-string gives ``[]``). Ids give negative
    numbers (``USR-002`` gives -2) and dates split into pieces."""
    if not isinstance(text, str):
        return []
    for char in strip:
        text = text.replace(char, "")
    return [float(m) for m in _NUMBER.findall(text)]


def final_number(text: Any, strip: str = "$,") -> float | None:
    """The last number in ``text``, or ``None``."""
    found = numbers_in(text, strip)
    return found[-1] if found else None


def states_number(text: Any, value: float, tol: float = 0.01, strip: str = "$,") -> bool:
    """Some number in ``text`` lies within ``tol`` of ``value``."""
    return any(abs(n - value) <= tol for n in numbers_in(text, strip))


def mentions(text: Any, name: Any) -> bool:
    """Case-insensitive substring test (``False`` unless both are strings)."""
    if not isinstance(text, str) or not isinstance(name, str):
        return False
    return name.lower() in text.lower()


def ids_in(text: Any, prefix: str) -> list[str]:
    """The ``<prefix>-<digits>`` ids in ``text``, in order (upper-cased prefix match)."""
    if not isinstance(text, str):
        return []
    return re.findall(rf"\b{re.escape(prefix)}-[0-9]+\b", text.upper())


def show(value: Any) -> str:
    """A value in a check detail: numbers as JavaScript prints them, ``null``, ``true``/``false``."""
    if value is None:
        return "null"
    if isinstance(value, bool | int | float):
        return format_number(value)
    return str(value)


def _same(a: Any, b: Any) -> bool:
    try:
        if orjson.dumps(a) == orjson.dumps(b):
            return True
    except (TypeError, orjson.JSONEncodeError):
        pass
    return canonical(a) == canonical(b)


def untouched(final_state: Any, initial_state: Any) -> bool:
    """The two states have the same canonical JSON, key order included (silo-format §8)."""
    return _same(final_state, initial_state)


def untouched_except(
    final_state: Mapping[str, Any],
    initial_state: Mapping[str, Any],
    allowed: Mapping[str, Iterable[str] | None],
    collections: Iterable[str] | None = None,
) -> list[str]:
    """What changed that was not allowed to, as ``"<key>"`` or ``"<key>/<id>"`` strings (empty:
    nothing else changed).

    ``allowed`` maps a state key to the record ids that may change (added, removed or edited)
    in it, or to ``None`` when anything in it may change. ``collections`` (for example
    ``World.keys()``) names the keys compared record by record; every other key of either state
    is compared whole.
    """
    per_record = set(collections or ())
    problems: list[str] = []
    for key in list(dict.fromkeys([*initial_state, *final_state])):
        rule = allowed.get(key, ())
        if key in allowed and rule is None:
            continue
        before, after = initial_state.get(key), final_state.get(key)
        if key in per_record and isinstance(before, dict) and isinstance(after, dict):
            may = set(rule or ())
            for record_id in dict.fromkeys([*before, *after]):
                if record_id not in may and not _same(before.get(record_id), after.get(record_id)):
                    problems.append(f"{key}/{record_id}")
        elif not _same(before, after):
            problems.append(key)
    return problems
