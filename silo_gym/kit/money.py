"""Money and numbers with JavaScript-compatible rounding (silo-format §14.3).

Whole results come back as ``int`` (JSON writes ``44`` either way, and ints keep tool outputs on
the observation writer's fast path); rounding never uses Python's ``round``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..rounding import js_round, percent_one_decimal, round2, to_fixed

__all__ = [
    "js_round",
    "money",
    "percent",
    "percent_one_decimal",
    "round1",
    "round1_plain",
    "round2",
    "sum_money",
    "to_fixed",
    "whole",
]

_EPSILON = 2.220446049250313e-16


def whole(x: Any) -> Any:
    """``x`` as an ``int`` when it is a whole float below 2**53 in magnitude, else unchanged."""
    if isinstance(x, float) and x.is_integer() and -(2**53) < x < 2**53:
        return int(x)
    return x


def money(a: float, currency: str = "USD") -> dict[str, Any]:
    """``{"amount": round2(a), "currency": currency}``, a whole amount as an ``int``."""
    return {"amount": whole(round2(a)), "currency": currency}


def sum_money(amounts: Iterable[Any], currency: str = "USD") -> dict[str, Any]:
    """``money`` of the sum of ``amounts``, added left to right; an item is a number or a Money
    dict (its ``amount`` counts)."""
    total: float = 0
    for a in amounts:
        total = total + (a["amount"] if isinstance(a, dict) else a)
    return money(total, currency)


def round1(x: float) -> Any:
    """One decimal, half up, with Silo's epsilon: ``js_round((x + 2.22e-16) * 10) / 10``."""
    return whole(js_round((x + _EPSILON) * 10) / 10)


def round1_plain(x: float) -> Any:
    """One decimal, half up, without the epsilon: ``js_round(x * 10) / 10``."""
    return whole(js_round(x * 10) / 10)


def percent(a: float, b: float) -> Any:
    """``a / b`` in percent to one decimal (``js_round(a / b * 1000) / 10``); ``None`` when ``b``
    is 0."""
    if b == 0:
        return None
    return whole(js_round(a / b * 1000) / 10)
