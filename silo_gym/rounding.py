"""JavaScript-compatible rounding: ``js_round``, ``round2`` and ``to_fixed`` (silo-format §14.3)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext

from .jsonfmt import js_number

__all__ = ["js_round", "percent_one_decimal", "round2", "to_fixed"]

_EPSILON = 2.220446049250313e-16
_MAX_SAFE = 2.0**53


def js_round(x: float) -> float:
    """Round half up, toward +infinity, like JavaScript's ``Math.round`` (silo-format §14.3).

    The subtraction ``x - floor(x)`` is exact, so 0.49999999999999994 rounds to 0.
    Returns an ``int`` for finite input below 2**53 in magnitude; larger values are already
    integers and come back as the same ``float`` (so they print as JavaScript prints them,
    ``1e+300``, not as 301 digits). ``NaN``/infinities are returned as they are.
    """
    if x != x or x in (math.inf, -math.inf):
        return x
    if not -_MAX_SAFE < x < _MAX_SAFE:
        return x
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def round2(v: float) -> float:
    """Round to 2 decimals, half up: ``js_round((v + 2.220446049250313e-16) * 100) / 100``.

    The epsilon and the order of operations are Silo's (silo-format §4.2); ``round2(0.125)`` is 0.13.
    """
    return js_round((v + _EPSILON) * 100) / 100


def percent_one_decimal(a: float, b: float) -> float:
    """Whole-number percentage to one decimal, half up: ``js_round(a / b * 1000) / 10`` (§14.3).

    Division by zero gives what JavaScript gives, never ``ZeroDivisionError``: ``NaN`` for
    ``0 / 0`` (or a ``NaN`` numerator), else an infinity with the sign of ``a`` times the sign of
    ``b`` (``-0.0`` counts as negative); the canonical JSON writer shows either as ``null``.
    """
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return js_round(a / b * 1000) / 10


def to_fixed(x: float, digits: int) -> str:
    """JavaScript's ``x.toFixed(digits)``: the exact binary value rounded half up (§14.3).

    As in JavaScript (ECMA-262 ``Number.prototype.toFixed``): ``NaN`` gives ``"NaN"``, infinities
    give ``"Infinity"``/``"-Infinity"``, a magnitude of at least ``1e21`` gives ``String(x)``
    (exponent form), a negative value keeps its ``-`` even when it rounds to zero
    (``(-0.001).toFixed(2)`` is ``"-0.00"``) while ``-0.0`` gives ``"0.00"``, and a tie rounds
    away from zero. ``digits`` must be 0..100, else ``ValueError`` (JavaScript's RangeError).
    """
    if not 0 <= digits <= 100:
        raise ValueError("toFixed() digits argument must be between 0 and 100")
    x = float(x)
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "Infinity" if x > 0 else "-Infinity"
    if abs(x) >= 1e21:
        return js_number(x)
    sign = "-" if x < 0 else ""
    d = Decimal(abs(x))
    # Enough precision for every digit: |x| < 1e21 has at most 21 integer digits.
    with localcontext() as ctx:
        ctx.prec = 21 + digits + 5
        text = format(d.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP), "f")
    return sign + text
