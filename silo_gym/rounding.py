"""JavaScript-compatible rounding: ``js_round``, ``round2`` and ``to_fixed`` (silo-format §14.3)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

__all__ = ["js_round", "percent_one_decimal", "round2", "to_fixed"]

_EPSILON = 2.220446049250313e-16


def js_round(x: float) -> float:
    """Round half up, toward +infinity, like JavaScript's ``Math.round``.

    The subtraction ``x - floor(x)`` is exact, so 0.49999999999999994 rounds to 0.
    Returns an ``int`` for finite input (``NaN``/infinities are returned as they are).
    """
    if x != x or x in (math.inf, -math.inf):
        return x
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def round2(v: float) -> float:
    """Round to 2 decimals, half up: ``js_round((v + 2.220446049250313e-16) * 100) / 100``.

    The epsilon and the order of operations are Silo's (silo-format §4.2); ``round2(0.125)`` is 0.13.
    """
    return js_round((v + _EPSILON) * 100) / 100


def percent_one_decimal(a: float, b: float) -> float:
    """Whole-number percentage to one decimal, half up: ``js_round(a / b * 1000) / 10`` (§14.3)."""
    return js_round(a / b * 1000) / 10


def to_fixed(x: float, digits: int) -> str:
    """JavaScript's ``x.toFixed(digits)``: the exact binary value rounded half up (§14.3)."""
    if x != x:
        return "NaN"
    q = Decimal(1).scaleb(-digits)
    d = Decimal(x).quantize(q, rounding=ROUND_HALF_UP)
    text = format(d, "f")
    if text.startswith("-") and Decimal(text) == 0:
        text = text[1:]
    return text
