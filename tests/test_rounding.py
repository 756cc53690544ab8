"""JavaScript rounding: ``js_round``, ``round2``, ``percent_one_decimal``, ``to_fixed`` (silo-format §4.2, §14.3).

JavaScript reference outputs come from ``tests/data/js_numbers.json`` (see ``tests/data/make_js_numbers.py``).
"""

from __future__ import annotations

import json
import math
import struct
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from silo_gym.jsonfmt import dumps_compact, js_number
from silo_gym.rounding import js_round, percent_one_decimal, round2, to_fixed

FIXTURE = Path(__file__).parent / "data" / "js_numbers.json"


@cache
def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="ascii"))
    return data


def from_bits(h: str) -> float:
    return float(struct.unpack(">d", bytes.fromhex(h))[0])


def js_value(text: str) -> float:
    """A number printed by JavaScript's String(): "-0", "NaN", "Infinity", "1e+21", ..."""
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(text) or float(text)


def same_number(got: float, js_text: str) -> bool:
    want = js_value(js_text)
    if want != want:
        return got != got
    if got != want:
        return False
    # Same printed form too (ints and floats both print as JavaScript would). -0 prints as 0.
    printed = dumps_compact(got)
    return printed == dumps_compact(want)


# --- fixture -----------------------------------------------------------------------------------------


def test_js_round_matches_math_round() -> None:
    bad = []
    for bits, py_repr, _, _, js_rounded, *_ in fixture()["numbers"]:
        x = from_bits(bits)
        if not same_number(js_round(x), js_rounded):
            bad.append((py_repr, js_rounded, js_round(x)))
    assert bad == []


def test_round2_matches_javascript_formula() -> None:
    bad = []
    for bits, py_repr, _, _, _, js_r2, _ in fixture()["numbers"]:
        x = from_bits(bits)
        if not same_number(round2(x), js_r2):
            bad.append((py_repr, js_r2, round2(x)))
    assert bad == []


def test_to_fixed_2_matches_javascript() -> None:
    bad = []
    for bits, py_repr, *_, js_fixed in fixture()["numbers"]:
        x = from_bits(bits)
        if to_fixed(x, 2) != js_fixed:
            bad.append((py_repr, js_fixed, to_fixed(x, 2)))
    assert bad == []


def test_to_fixed_other_digits_match_javascript() -> None:
    bad = []
    for bits, digits, js_fixed in fixture()["fixed"]:
        x = from_bits(bits)
        if to_fixed(x, digits) != js_fixed:
            bad.append((repr(x), digits, js_fixed, to_fixed(x, digits)))
    assert bad == []
    assert {d for _, d, _ in fixture()["fixed"]} >= {0, 1, 2, 3, 20, 100}


def test_percent_one_decimal_matches_javascript() -> None:
    for a, b, js_text in fixture()["percent"]:
        assert same_number(percent_one_decimal(a, b), js_text), (a, b, js_text)


# --- literal cases -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("v", "expected"), [
    (1 / 3, 0.33), (2 / 3, 0.67), (1 / 7, 0.14), (5 / 6, 0.83), (1 / 8, 0.13), (3 / 5, 0.6),
    (0.125, 0.13), (1.005, 1.01), (0, 0), (1, 1), (0.5, 0.5), (2 / 7, 0.29), (0.0049, 0), (0.005, 0.01),
])
def test_round2_spec_examples(v: float, expected: float) -> None:
    assert round2(v) == expected
    assert js_number(round2(v)) == js_number(float(expected))


def test_round2_differs_from_python_round() -> None:
    assert round(0.125, 2) == 0.12
    assert round2(0.125) == 0.13
    assert dumps_compact(round2(1.0)) == "1"
    assert dumps_compact(round2(3 / 5)) == "0.6"


@pytest.mark.parametrize(("x", "expected"), [
    (0.49999999999999994, 0), (0.5, 1), (1.5, 2), (2.5, 3), (-0.5, 0), (-1.5, -1), (-2.5, -2),
    (-0.49999999999999994, 0), (-0.5000000000000001, -1), (0.4, 0), (-0.4, 0), (3.7, 4), (-3.7, -4),
    (4503599627370495.5, 4503599627370496), (-4503599627370495.5, -4503599627370495), (0.0, 0), (7, 7),
])
def test_js_round_literal(x: float, expected: int) -> None:
    got = js_round(x)
    assert got == expected
    assert type(got) is int


def test_js_round_naive_floor_trap() -> None:
    # floor(x + 0.5) gives 1 for this value; Math.round gives 0.
    x = 0.49999999999999994
    assert math.floor(x + 0.5) == 1
    assert js_round(x) == 0


def test_js_round_non_finite_and_huge() -> None:
    assert math.isnan(js_round(math.nan))
    assert js_round(math.inf) == math.inf and js_round(-math.inf) == -math.inf
    # Beyond 2**53 every double is an integer: the same float comes back, printed as JS does.
    assert js_round(1e300) == 1e300 and type(js_round(1e300)) is float
    assert dumps_compact(js_round(1e300)) == "1e+300"
    assert dumps_compact(js_round(-1e22)) == "-1e+22"
    assert js_round(2.0**53) == 2.0**53


def test_round2_non_finite_and_huge() -> None:
    assert math.isnan(round2(math.nan))
    assert round2(math.inf) == math.inf
    assert round2(1e307) == math.inf  # (x + eps) * 100 overflows, as in JavaScript
    assert dumps_compact(round2(1e300)) == "1e+300"


def test_percent_one_decimal_literal() -> None:
    assert percent_one_decimal(1, 3) == 33.3
    assert percent_one_decimal(2, 3) == 66.7
    assert percent_one_decimal(1, 8) == 12.5
    assert percent_one_decimal(1, 1) == 100
    assert dumps_compact(percent_one_decimal(1, 1)) == "100"


@pytest.mark.parametrize(("x", "digits", "expected"), [
    (1.0, 2, "1.00"), (0.125, 2, "0.13"), (0.375, 2, "0.38"), (1.005, 2, "1.00"), (2.675, 2, "2.67"),
    (1.45, 1, "1.4"), (0.5, 0, "1"), (1.5, 0, "2"), (2.5, 0, "3"), (-0.5, 0, "-1"), (-1.5, 0, "-2"),
    (-2.5, 0, "-3"), (-0.001, 2, "-0.00"), (-0.0, 2, "0.00"), (0.0, 0, "0"), (-1e-300, 0, "-0"),
    (123.456, 0, "123"), (1e20, 2, "100000000000000000000.00"), (1e21, 2, "1e+21"), (-1e21, 2, "-1e+21"),
    (1.5e300, 3, "1.5e+300"), (math.nan, 2, "NaN"), (math.inf, 2, "Infinity"), (-math.inf, 2, "-Infinity"),
    (0.1, 20, "0.10000000000000000555"), (5e-324, 3, "0.000"), (0.000001, 7, "0.0000010"),
    (99.995, 2, "100.00"), (99.994999, 2, "99.99"), (140000.0, 2, "140000.00"),
])
def test_to_fixed_literal(x: float, digits: int, expected: str) -> None:
    assert to_fixed(x, digits) == expected


def test_to_fixed_exact_binary_value_half_up() -> None:
    # 0.125 is exact in binary: a true tie, rounded up (Python's format rounds half to even).
    assert f"{0.125:.2f}" == "0.12"
    assert to_fixed(0.125, 2) == "0.13"
    # 1.005 is 1.00499999999999989... in binary: rounds down.
    assert to_fixed(1.005, 2) == "1.00"


def test_to_fixed_large_digits_and_range() -> None:
    assert to_fixed(1e20, 100) == "100000000000000000000." + "0" * 100
    assert len(to_fixed(5e-324, 100)) == 102
    for bad in (-1, 101):
        with pytest.raises(ValueError):
            to_fixed(1.0, bad)


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False), st.integers(min_value=0, max_value=12))
def test_property_to_fixed_is_closest_with_ties_up(x: float, digits: int) -> None:
    from decimal import Decimal

    text = to_fixed(x, digits)
    if digits:
        assert len(text.split(".")[1]) == digits
    else:
        assert "." not in text
    got = Decimal(text)
    exact = Decimal(x)
    step = Decimal(1).scaleb(-digits)
    assert abs(got - exact) <= step / 2
    if abs(got - exact) == step / 2:
        assert abs(got) > abs(exact)  # ties away from zero
    assert text.startswith("-") == (x < 0)  # -0.0 is not < 0: no sign


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=-(2.0**52), max_value=2.0**52, allow_nan=False))
def test_property_js_round_is_nearest_ties_up(x: float) -> None:
    r = js_round(x)
    assert isinstance(r, int)
    assert abs(r - x) <= 0.5
    if abs(r - x) == 0.5:
        assert r > x
