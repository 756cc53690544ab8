"""The canonical JSON writer, silo-format §7 (and §5.4 text forms, §14.1, §14.5).

JavaScript reference outputs come from ``tests/data/js_numbers.json``, generated with Node by
``tests/data/make_js_numbers.py``; Node is not needed to run these tests.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
import math
import struct
import uuid
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from silo_gym.jsonfmt import (
    MAX_DEPTH,
    _py_dumps,
    canonical,
    dumps_compact,
    dumps_compact_bytes,
    dumps_pretty,
    dumps_pretty_bytes,
    format_number,
    is_json_compatible,
    js_number,
    loads_strict,
    text_form,
)

FIXTURE = Path(__file__).parent / "data" / "js_numbers.json"


@cache
def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="ascii"))
    return data


def from_bits(h: str) -> float:
    return float(struct.unpack(">d", bytes.fromhex(h))[0])


def decode(v: Any) -> Any:
    """Undo make_js_numbers.encode: floats travel as bit patterns, ints as decimal strings."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if "f" in v:
        return from_bits(v["f"])
    if "i" in v:
        return int(v["i"])
    if "l" in v:
        return [decode(x) for x in v["l"]]
    return {k: decode(x) for k, x in v["d"]}


def nest(n: int, leaf: Any = 1, kind: str = "list") -> Any:
    v = leaf
    for _ in range(n):
        v = [v] if kind == "list" else {"k": v}
    return v


# --- JavaScript fixture ------------------------------------------------------------------------------


def test_fixture_is_big_and_varied() -> None:
    data = fixture()
    assert len(data["numbers"]) >= 2000
    xs = [from_bits(row[0]) for row in data["numbers"]]
    assert any(x != x for x in xs) and math.inf in xs and -math.inf in xs
    assert any(0 < abs(x) < 2.2250738585072014e-308 for x in xs)  # subnormals
    assert any(abs(x) >= 1e21 for x in xs) and any(0 < abs(x) < 1e-7 for x in xs)
    assert len(data["strings"]) >= 50 and len(data["documents"]) >= 100


def test_js_number_matches_javascript_string() -> None:
    bad = []
    for bits, py_repr, js_string, *_ in fixture()["numbers"]:
        x = from_bits(bits)
        assert repr(x) == py_repr
        if math.isfinite(x) and js_number(x) != js_string:
            bad.append((py_repr, js_string, js_number(x)))
    assert bad == []


def test_dumps_compact_of_number_matches_json_stringify() -> None:
    bad = []
    for bits, py_repr, _, js_json, *_ in fixture()["numbers"]:
        x = from_bits(bits)
        for got in (dumps_compact(x), dumps_compact([x])[1:-1], _py_dumps(x, False), dumps_pretty(x)[:-1]):
            if got != js_json:
                bad.append((py_repr, js_json, got))
    assert bad == []


def test_format_number_of_floats_matches_javascript() -> None:
    for bits, py_repr, js_string, *_ in fixture()["numbers"]:
        x = from_bits(bits)
        if math.isfinite(x):
            assert format_number(x) == js_string, py_repr


def test_strings_match_json_stringify() -> None:
    bad = []
    for s, js in fixture()["strings"]:
        for got in (dumps_compact(s), _py_dumps(s, False), dumps_pretty(s)[:-1],
                    dumps_compact_bytes(s).decode("utf-8")):
            if got != js:
                bad.append((s, js, got))
    assert bad == []


def test_documents_match_json_stringify_compact_and_pretty() -> None:
    bad = []
    for encoded, js_compact, js_pretty in fixture()["documents"]:
        v = decode(encoded)
        if dumps_compact(v) != js_compact or _py_dumps(v, False) != js_compact:
            bad.append(("compact", js_compact))
        if dumps_pretty(v) != js_pretty or _py_dumps(v, True) + "\n" != js_pretty:
            bad.append(("pretty", js_pretty))
        assert dumps_pretty_bytes(v) == js_pretty.encode("utf-8", "surrogatepass")
        assert canonical(v) == js_compact.encode("utf-8", "surrogatepass")
    assert bad == []


# --- pretty form, §7.1 -------------------------------------------------------------------------------


def test_pretty_exact_bytes() -> None:
    value = {"name": "Café ☕", "n": 1.0, "list": [1, "two", None, True], "empty_list": [], "empty_obj": {},
             "nested": {"a": [{}], "b": -0.0}}
    expected = (
        "{\n"
        '  "name": "Café ☕",\n'
        '  "n": 1,\n'
        '  "list": [\n    1,\n    "two",\n    null,\n    true\n  ],\n'
        '  "empty_list": [],\n'
        '  "empty_obj": {},\n'
        '  "nested": {\n    "a": [\n      {}\n    ],\n    "b": 0\n  }\n'
        "}\n"
    )
    assert dumps_pretty(value) == expected
    assert dumps_pretty_bytes(value) == expected.encode("utf-8")
    assert _py_dumps(value, True) + "\n" == expected


def test_pretty_scalars_and_empties() -> None:
    assert dumps_pretty({}) == "{}\n"
    assert dumps_pretty([]) == "[]\n"
    assert dumps_pretty(None) == "null\n"
    assert dumps_pretty("x") == '"x"\n'
    assert dumps_pretty(2.5) == "2.5\n"
    assert dumps_pretty([[]]) == "[\n  []\n]\n"


def test_pretty_keeps_insertion_order_never_sorts() -> None:
    assert dumps_pretty({"b": 1, "a": 2}) == '{\n  "b": 1,\n  "a": 2\n}\n'
    assert dumps_compact({"z": 1, "10": 2, "2": 3}) == '{"z":1,"10":2,"2":3}'


def test_pretty_non_ascii_raw_and_trailing_single_newline() -> None:
    out = dumps_pretty({"k": "日本 é \U0001f600"})
    assert out == '{\n  "k": "日本 é \U0001f600"\n}\n'
    assert out.endswith("}\n") and not out.endswith("\n\n")
    assert "\\u" not in out


# --- compact form, §7.2 ------------------------------------------------------------------------------


def test_compact_no_whitespace() -> None:
    value = {"a": [1, 2.5, {"b": None}], "c": "d e", "f": {}, "g": []}
    assert dumps_compact(value) == '{"a":[1,2.5,{"b":null}],"c":"d e","f":{},"g":[]}'
    assert dumps_compact_bytes(value) == dumps_compact(value).encode()
    assert canonical(value) == dumps_compact(value).encode()
    assert _py_dumps(value, False) == dumps_compact(value)


def test_canonical_is_key_order_sensitive_and_int_float_blind() -> None:
    assert canonical({"a": 1, "b": 2}) != canonical({"b": 2, "a": 1})
    assert canonical({"x": 140000}) == canonical({"x": 140000.0}) == b'{"x":140000}'
    assert canonical([1, True]) == b"[1,true]"


def test_tuples_write_as_lists() -> None:
    assert dumps_compact((1, (2.0, "x"))) == '[1,[2,"x"]]'
    assert dumps_pretty({"t": ()}) == '{\n  "t": []\n}\n'


# --- values, §7.3 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("x", "expected"), [
    (math.nan, "null"), (math.inf, "null"), (-math.inf, "null"), (-0.0, "0"), (0.0, "0"),
    (507500.0, "507500"), (1e20, "100000000000000000000"), (1e21, "1e+21"), (52.8, "52.8"),
    (1234.5, "1234.5"), (0.5, "0.5"), (0.000001, "0.000001"), (2.5e-6, "0.0000025"),
    (1e-7, "1e-7"), (1.5e-7, "1.5e-7"), (-2.5, "-2.5"), (1e16, "10000000000000000"),
    (123456789012345680000.0, "123456789012345680000"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    (5e-324, "5e-324"), (0.1 + 0.2, "0.30000000000000004"), (2.0**53, "9007199254740992"),
    (2.0**53 + 2, "9007199254740994"), (-1e-7, "-1e-7"), (0.0001, "0.0001"), (1e-5, "0.00001"),
])
def test_js_number_spec_examples(x: float, expected: str) -> None:
    assert js_number(x) == expected
    assert dumps_compact(x) == expected
    assert dumps_compact({"v": x}) == '{"v":' + expected + "}"


def test_nan_inf_negative_zero_in_containers() -> None:
    assert dumps_compact([math.nan, math.inf, -math.inf, -0.0, 0.0]) == "[null,null,null,0,0]"
    assert dumps_pretty({"a": math.nan}) == '{\n  "a": null\n}\n'


def test_booleans_none_ints() -> None:
    assert dumps_compact([True, False, None, 0, -1, 2**63 - 1, -(2**63), 2**64 - 1]) == (
        "[true,false,null,0,-1,9223372036854775807,-9223372036854775808,18446744073709551615]"
    )


def test_ints_beyond_64_bits_exact() -> None:
    for n in (2**64, -(2**63) - 1, 2**200 + 1, -(10**40) - 7):
        assert dumps_compact(n) == str(n)
        assert dumps_compact({"n": [n]}) == '{"n":[' + str(n) + "]}"
        assert dumps_pretty([n]) == "[\n  " + str(n) + "\n]\n"


def test_ints_beyond_python_str_digit_limit() -> None:
    n = 7 * 10**5000 + 123
    text = dumps_compact(n)
    assert len(text) == 5001 and text.startswith("7000") and text.endswith("000123")
    assert dumps_compact(-n) == "-" + text
    assert format_number(10**4500) == "1" + "0" * 4500
    assert dumps_compact([10**1000]) == "[1" + "0" * 1000 + "]"


def test_int_and_float_subclasses() -> None:
    class Color(enum.IntEnum):
        RED = 3

    class Name(str, enum.Enum):  # noqa: UP042  (str() is "Name.A", not the value)
        A = "alpha"

    class MyFloat(float):
        pass

    class MyDict(dict):  # type: ignore[type-arg]
        pass

    class MyList(list):  # type: ignore[type-arg]
        pass

    value = MyDict(a=Color.RED, b=Name.A, c=MyFloat(2.0), d=MyList([MyFloat(0.5)]), e=True)
    assert dumps_compact(value) == '{"a":3,"b":"alpha","c":2,"d":[0.5],"e":true}'
    assert _py_dumps(value, False) == dumps_compact(value)


@pytest.mark.parametrize("bad", [
    {1, 2}, frozenset(), datetime.date(2026, 3, 20), datetime.datetime(2026, 3, 20, 1, 2),
    datetime.time(1, 2), uuid.UUID(int=5), decimal.Decimal("1.5"), b"bytes", bytearray(b"x"), object(),
    1 + 2j, range(3), iter([1]),
])
def test_not_json_compatible_values_are_null(bad: Any) -> None:
    assert dumps_compact(bad) == "null"
    assert dumps_compact({"a": bad, "b": 1}) == '{"a":null,"b":1}'
    assert dumps_compact([bad]) == "[null]"
    assert dumps_pretty({"a": bad}) == '{\n  "a": null\n}\n'
    assert _py_dumps({"a": bad}, False) == '{"a":null}'


def test_enum_and_dataclass_are_null() -> None:
    class Plain(enum.Enum):
        A = "x"

    @dataclasses.dataclass
    class Point:
        x: int = 1

    assert dumps_compact({"e": Plain.A, "d": Point(), "t": datetime.date(2026, 1, 1)}) == (
        '{"e":null,"d":null,"t":null}'
    )


def test_non_string_keys_make_that_dict_null() -> None:
    assert dumps_compact({1: "a"}) == "null"
    assert dumps_compact({"ok": {1: "a"}, "b": 2}) == '{"ok":null,"b":2}'
    assert dumps_compact({"ok": {None: 1, "x": 2}}) == '{"ok":null}'
    assert dumps_compact([{(1, 2): 3}, {"a": 1}]) == '[null,{"a":1}]'
    assert dumps_pretty({"x": {True: 1}}) == '{\n  "x": null\n}\n'


def test_string_escapes() -> None:
    s = '"\\\b\f\n\r\t\x00\x01\x1f\x7f\u2028\u2029/é'
    expected = '"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u0001\\u001f\x7f\u2028\u2029/é"'
    assert dumps_compact(s) == expected
    assert _py_dumps(s, False) == expected


def test_control_chars_lowercase_hex() -> None:
    assert dumps_compact("\x1f\x1b\x0b") == '"\\u001f\\u001b\\u000b"'


def test_lone_surrogates_escaped_lowercase() -> None:
    assert dumps_compact("\ud800") == '"\\ud800"'
    assert dumps_compact("a\udfffb\udabc") == '"a\\udfffb\\udabc"'
    assert dumps_compact({"k\udc00": ["\ud83d"]}) == '{"k\\udc00":["\\ud83d"]}'
    assert dumps_pretty({"k": "\udbff"}) == '{\n  "k": "\\udbff"\n}\n'
    assert dumps_compact_bytes(["\ud800", 1.5]) == b'["\\ud800",1.5]'
    assert dumps_pretty_bytes("\ud800") == b'"\\ud800"\n'
    assert canonical("\ud800") == b'"\\ud800"'
    # A surrogate pair as one character is written raw.
    assert dumps_compact("\U0001f600") == '"\U0001f600"'


def test_surrogate_fallback_keeps_float_formatting() -> None:
    assert dumps_compact({"s": "\ud800", "f": [1.0, 1e21, 2.5e-6, math.nan, -0.0]}) == (
        '{"s":"\\ud800","f":[1,1e+21,0.0000025,null,0]}'
    )


# --- deep nesting ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["list", "dict"])
@pytest.mark.parametrize("depth", [10, 253, 254, 255, 300, 999, 1000, 1001, 5000, 100_000])
def test_deep_nesting_does_not_crash(kind: str, depth: int) -> None:
    v = nest(depth, 1.5, kind)
    compact = dumps_compact(v)
    assert dumps_compact_bytes(v) == compact.encode()
    assert canonical(v) == compact.encode()
    pretty = dumps_pretty(v)
    assert pretty.endswith("\n")
    assert dumps_pretty_bytes(v) == pretty.encode()
    opener, closer = ("[", "]") if kind == "list" else ('{"k":', "}")
    if depth - 1 <= MAX_DEPTH:  # nest(depth) has containers at depths 0 .. depth - 1
        assert compact == opener * depth + "1.5" + closer * depth
        assert len(pretty.splitlines()) == 2 * depth + 1
        assert pretty.splitlines()[depth] == "  " * depth + ('"k": 1.5' if kind == "dict" else "1.5")
        assert is_json_compatible(v)
    else:
        # Containers nested deeper than MAX_DEPTH are written as null (our rule).
        kept = MAX_DEPTH + 1  # the containers at depths 0..MAX_DEPTH
        assert compact == opener * kept + "null" + closer * kept
        assert not is_json_compatible(v)
        assert text_form(v) == ""


def test_depth_limit_is_exact() -> None:
    assert dumps_compact(nest(MAX_DEPTH + 1, 7)) == "[" * (MAX_DEPTH + 1) + "7" + "]" * (MAX_DEPTH + 1)
    assert dumps_compact(nest(MAX_DEPTH + 2, 7)) == "[" * (MAX_DEPTH + 1) + "null" + "]" * (MAX_DEPTH + 1)
    assert is_json_compatible(nest(MAX_DEPTH + 1, 7))
    assert not is_json_compatible(nest(MAX_DEPTH + 2, 7))


def test_pretty_deep_nesting_indentation() -> None:
    v = nest(300, {}, "dict")
    pretty = dumps_pretty(v)
    lines = pretty.splitlines()
    assert lines[0] == "{" and lines[1] == '  "k": {' and lines[300] == "  " * 300 + '"k": {}'
    assert lines[-1] == "}"


# --- JSON compatibility and text form, §5.4 ----------------------------------------------------------


@pytest.mark.parametrize(("value", "ok"), [
    (None, True), ("s", True), (1, True), (1.5, True), (math.nan, True), (True, True), ([], True),
    ({}, True), ({"a": [1, {"b": (2,)}]}, True), ({1: 2}, False), ({"a": {1: 2}}, False),
    ({1, 2}, False), ([datetime.date(2026, 1, 1)], False), ({"a": object()}, False), (b"x", False),
])
def test_is_json_compatible(value: Any, ok: bool) -> None:
    assert is_json_compatible(value) is ok


@pytest.mark.parametrize(("value", "expected"), [
    ("plain", "plain"), ("", ""), ("  spaced \n", "  spaced \n"), ('{"a":1}', '{"a":1}'),
    (None, ""), (100, "100"), (100.0, "100"), (2.5, "2.5"), (True, "true"), (False, "false"),
    ({"a": 1}, '{"a":1}'), ([1, "x", None], '[1,"x",null]'), ({"b": {"c": [1.0]}}, '{"b":{"c":[1]}}'),
    (0, "0"), (math.nan, "null"), ({1, 2}, ""), ({"a": {1, 2}}, ""), ({1: "x"}, ""),
    (datetime.date(2026, 1, 1), ""), (object(), ""), ([object()], ""), ("\ud800", "\ud800"),
])
def test_text_form(value: Any, expected: str) -> None:
    assert text_form(value) == expected


# --- format_number, §14.1 ----------------------------------------------------------------------------


@pytest.mark.parametrize(("x", "expected"), [
    (True, "true"), (False, "false"), (5, "5"), (-3, "-3"), (140000.0, "140000"), (0.1, "0.1"),
    (-0.0, "0"), (math.nan, "null"), (1e21, "1e+21"), (2**70, str(2**70)), ("x", "x"),
])
def test_format_number(x: Any, expected: str) -> None:
    assert format_number(x) == expected


# --- loads_strict --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "NaN", "[NaN]", "Infinity", '{"a": -Infinity}', "[1] x", '{"a":1}{"b":2}', "", "[1,]", "{'a':1}",
    "[1", "01", "tru", '"\x00"',
])
def test_loads_strict_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        loads_strict(text)


def test_loads_strict_duplicate_keys_keep_last_and_position_of_first() -> None:
    out = loads_strict('{"a": 1, "b": 2, "a": 3}')
    assert out == {"a": 3, "b": 2}
    assert list(out) == ["a", "b"]


def test_loads_strict_accepts_and_keeps_types() -> None:
    assert loads_strict(b'{"x": [1, 1.0, -0.0, 1e400, "\\ud800", null, true]}  \n') == {
        "x": [1, 1.0, -0.0, math.inf, "\ud800", None, True]
    }
    v = loads_strict('{"b": 1, "a": 2}')
    assert list(v) == ["b", "a"]
    assert type(loads_strict("5")) is int and type(loads_strict("5.0")) is float
    assert loads_strict(bytearray(b'"\xc3\xa9"')) == "é"


def test_loads_strict_deep_nesting_is_value_error() -> None:
    with pytest.raises(ValueError):
        loads_strict("[" * 100_000 + "]" * 100_000)


def test_round_trip_through_loads_strict() -> None:
    value = {"a": [1, 2.5, None, True, "é\u2028"], "b": {"c": {}}, "d": []}
    assert loads_strict(dumps_pretty(value)) == value
    assert loads_strict(dumps_compact(value)) == value


# --- properties: orjson path == pure-Python path; agreement with json ---------------------------------

_keys = st.text(max_size=5)
json_like = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(_keys, ch, max_size=4),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(json_like)
def test_property_orjson_and_python_writers_agree(value: Any) -> None:
    assert dumps_compact(value) == _py_dumps(value, False)
    assert dumps_pretty(value) == _py_dumps(value, True) + "\n"
    assert dumps_compact_bytes(value) == dumps_compact(value).encode("utf-8", "surrogatepass")
    assert dumps_pretty_bytes(value) == dumps_pretty(value).encode("utf-8", "surrogatepass")


def _no_surrogates(v: Any) -> bool:
    if isinstance(v, str):
        return not any(0xD800 <= ord(c) <= 0xDFFF for c in v)
    if isinstance(v, dict):
        return all(_no_surrogates(k) and _no_surrogates(x) for k, x in v.items())
    if isinstance(v, list):
        return all(_no_surrogates(x) for x in v)
    return True


def _js_equivalent(v: Any) -> Any:
    """What JavaScript reads back: every number is a double, NaN/inf became null."""
    if isinstance(v, float):
        return None if not math.isfinite(v) else v
    if isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, dict):
        return {k: _js_equivalent(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_js_equivalent(x) for x in v]
    return v


@settings(max_examples=300, deadline=None)
@given(json_like)
def test_property_output_parses_back(value: Any) -> None:
    assert _js_equivalent(loads_strict(dumps_compact(value))) == _js_equivalent(value)
    assert _js_equivalent(loads_strict(dumps_pretty(value))) == _js_equivalent(value)
    if _no_surrogates(value) and all(math.isfinite(x) for x in _floats(value)):
        no_float = _floats(value) == []
        if no_float:
            # Without floats our bytes are exactly Python's json with the §7 separators.
            assert dumps_compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            assert dumps_pretty(value) == json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def _floats(v: Any) -> list[float]:
    if isinstance(v, float):
        return [v]
    if isinstance(v, dict):
        return [f for x in v.values() for f in _floats(x)]
    if isinstance(v, list):
        return [f for x in v for f in _floats(x)]
    return []


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_property_js_number_round_trips(x: float) -> None:
    text = js_number(x)
    assert float(text) == x
    assert "e" not in text or not 1e-7 <= abs(x) < 1e21 or abs(x) < 1e-6


def test_ordered_dict_and_key_order_kept() -> None:
    assert dumps_compact(OrderedDict([("b", 1), ("a", 2.0)])) == '{"b":1,"a":2}'


def test_loads_strict_reads_integers_of_any_length():
    import sys

    value = 10**9000 + 12345
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        text = str(value)
    finally:
        sys.set_int_max_str_digits(limit)
    assert loads_strict('{"a": [' + text + ", -" + text + ", 1]}") == {"a": [value, -value, 1]}
    with pytest.raises(ValueError, match="NaN is not valid JSON"):  # the other refusals stay
        loads_strict('[' + text + ', NaN]')
