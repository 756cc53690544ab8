"""Answer parsing shared by the demo verifiers (demo-crm.md §9.1), plus detail and state helpers.

Only ASCII digits count as digits (silo-format §14.6): ``[0-9]``, never ``\\d``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from silo_gym import canonical, format_number

__all__ = ["final_number", "mentions", "numbers_in", "show", "states_number", "untouched"]

_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def numbers_in(text: str) -> list[float]:
    """Every number in ``text``, in order, as floats.

    ``$`` and ``,`` are deleted first, so ``$1,234.5`` reads as 1234.5. Ids give negative
    numbers (``USR-002`` gives -2) and dates split into pieces.
    """
    if not isinstance(text, str):
        return []
    cleaned = text.replace("$", "").replace(",", "")
    return [float(m) for m in _NUMBER.findall(cleaned)]


def final_number(text: str) -> float | None:
    """The last number in ``text``, or ``None`` when there is none."""
    found = numbers_in(text)
    return found[-1] if found else None


def states_number(text: str, value: float, tol: float = 0.01) -> bool:
    """True when some number in ``text`` lies within ``tol`` of ``value``."""
    return any(abs(n - value) <= tol for n in numbers_in(text))


def mentions(text: str, name: str) -> bool:
    """Case-insensitive substring test (``str.lower`` on both sides, like ``toLowerCase``)."""
    if not isinstance(text, str) or not isinstance(name, str):
        return False
    return name.lower() in text.lower()


def show(value: Any) -> str:
    """Text form of a value in a check detail: numbers as JavaScript prints them, ``null``,
    ``true``/``false``; strings as they are; anything else through ``str``."""
    if value is None:
        return "null"
    if isinstance(value, bool | int | float):
        return format_number(value)
    return str(value)


def untouched(final_state: Any, initial_state: Any) -> bool:
    """True when the final state's canonical compact JSON equals the initial one's, key order
    included (silo-format §8).

    Equal orjson bytes mean equal canonical bytes (same keys in the same order, same values of the
    same types), so an untouched world, the common case, is settled by orjson; anything else (a
    difference, or a value orjson refuses) goes through the canonical serializer.
    """
    try:
        if orjson.dumps(final_state) == orjson.dumps(initial_state):
            return True
    except (TypeError, orjson.JSONEncodeError):
        pass
    return canonical(final_state) == canonical(initial_state)
