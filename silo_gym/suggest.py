""""Did you mean ...?" for a name that is not known: a command, a flag, a task id, an environment."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(word: str, choices: Iterable[str], cutoff: float = 0.75) -> str | None:
    """The choice ``word`` most likely meant, or None: the one equal to it but for case, else the
    closest by :func:`difflib.get_close_matches` (similarity at least ``cutoff``, 0..1, compared
    without case)."""
    options = [c for c in dict.fromkeys(choices) if c != word]
    by_lower: dict[str, str] = {}
    for option in options:
        by_lower.setdefault(option.lower(), option)
    lowered = word.lower()
    if lowered in by_lower:
        return by_lower[lowered]
    match = difflib.get_close_matches(lowered, list(by_lower), n=1, cutoff=cutoff)
    return by_lower[match[0]] if match else None


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.75) -> str:
    """`` Did you mean "<choice>"?`` (with its leading space) for :func:`closest`, or ``""``."""
    match = closest(word, choices, cutoff)
    return f' Did you mean "{match}"?' if match is not None else ""
