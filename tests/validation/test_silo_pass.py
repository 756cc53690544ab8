"""silo_gym.validation.silo_pass: the Silo pass, its exact wordings and order (silo-format §3.3, §7.3, §14.1–14.2)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from silo_gym import bind_tools, define_tool
from silo_gym.validation import compile_schema, text_form_value, type_name


def problems(schema: Any, value: Any) -> list[str]:
    return compile_schema(schema).problems(value)


SHIP_ORDER = {
    "type": "object",
    "properties": {
        "orderId": {"type": "string"},
        "carrier": {"type": "string"},
        "express": {"type": "boolean"},
    },
    "required": ["orderId", "carrier"],
    "additionalProperties": False,
}

# ---------------------------------------------------------------------------------------------
# Type names and text forms


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (False, "boolean"),
        (0, "number"),
        (1.5, "number"),
        (math.nan, "number"),
        ("x", "string"),
        ([], "array"),
        ((1,), "array"),
        ({}, "object"),
        ({1, 2}, "set"),
        (b"x", "bytes"),
    ],
)
def test_type_name(value: Any, name: str) -> None:
    assert type_name(value) == name


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("a b", "a b"),
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (5, "5"),
        (5.0, "5"),
        (0.5, "0.5"),
        (1e21, "1e+21"),
        (2.5e-6, "0.0000025"),
        (-0.0, "0"),
        ({"a": [1, 2.0]}, '{"a":[1,2]}'),
        ([1, "x"], '[1,"x"]'),
    ],
)
def test_text_form_value(value: Any, text: str) -> None:
    assert text_form_value(value) == text


# ---------------------------------------------------------------------------------------------
# The worked examples of §3.3, verbatim


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, ['"orderId" is required', '"carrier" is required']),
        (
            {"orderId": 7, "carrier": None},
            ['"carrier" is required', '"orderId" must be string, received number'],
        ),
        (
            {"orderId": "O-1", "carrier": "x", "order": 1},
            ['"order" is not a parameter; expected one of: orderId, carrier, express'],
        ),
        (
            {"orderId": "O-1", "carrier": "x", "express": "yes"},
            ['"express" must be boolean, received string'],
        ),
        ({"orderId": "O-1", "carrier": "x", "express": True}, []),
    ],
)
def test_ship_order_table(value: Any, expected: list[str]) -> None:
    assert problems(SHIP_ORDER, value) == expected


def test_ship_order_message_through_execute() -> None:
    calls: list[Any] = []
    tool = define_tool(
        name="ship_order", description="Ship.", input_schema=SHIP_ORDER, run=lambda s, i: calls.append(i)
    )
    [bound] = bind_tools({}, [tool])
    result = bound.execute({})
    assert result == {
        "output": {
            "code": "invalid_input",
            "message": 'Invalid arguments for "ship_order": "orderId" is required; "carrier" is required.',
            "details": {"problems": ['"orderId" is required', '"carrier" is required']},
        },
        "isError": True,
    }
    assert calls == []


NESTED = {
    "type": "object",
    "properties": {
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "street": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def test_nested_paths() -> None:
    assert problems(NESTED, {"address": {"street": "Main"}}) == ['"address.city" is required']
    assert problems(NESTED, {"tags": ["a", 3]}) == ['"tags[1]" must be string, received number']
    assert problems(NESTED, {"address": {"city": "X", "zip": "1"}}) == [
        '"zip" is not a parameter; expected one of: city, street'
    ]


def test_unknown_key_without_declared_properties() -> None:
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert problems(schema, {"x": 1, "y": 2}) == ['"x" is not a parameter', '"y" is not a parameter']
    assert problems({"type": "object", "additionalProperties": False}, {"x": 1}) == ['"x" is not a parameter']


def test_unknown_keys_pass_unless_additional_properties_is_false() -> None:
    for ap in (True, {}, None, {"type": "integer"}):
        schema = {"type": "object", "properties": {"a": {"type": "string"}}}
        if ap is not None:
            schema["additionalProperties"] = ap
        assert problems(schema, {"b": 1}) == []


def test_required_null_counts_as_missing_and_optional_null_is_accepted() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a"],
    }
    assert problems(schema, {"a": None, "b": None}) == ['"a" is required']


def test_type_failure_stops_checking_that_value() -> None:
    schema = {
        "type": "object",
        "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
    }
    assert problems(schema, {"o": [1]}) == ['"o" must be object, received array']


# ---------------------------------------------------------------------------------------------
# Type matching, §14.1–14.2


@pytest.mark.parametrize(
    ("t", "value", "ok", "received"),
    [
        ("integer", 5, True, ""),
        ("integer", 5.0, True, ""),
        ("integer", -0.0, True, ""),
        ("integer", 2**80, True, ""),
        ("integer", 5.5, False, "number"),
        ("integer", math.inf, False, "number"),
        ("integer", math.nan, False, "number"),
        ("integer", True, False, "boolean"),
        ("number", 1.5, True, ""),
        ("number", 10**400, True, ""),
        ("number", math.nan, False, "number"),
        ("number", -math.inf, False, "number"),
        ("number", False, False, "boolean"),
        ("number", "1", False, "string"),
        ("string", "", True, ""),
        ("string", 1, False, "number"),
        ("boolean", False, True, ""),
        ("boolean", 0, False, "number"),
        ("array", [], True, ""),
        ("array", (1, 2), True, ""),
        ("array", {}, False, "object"),
        ("object", {}, True, ""),
        ("object", [], False, "array"),
    ],
)
def test_type_table(t: str, value: Any, ok: bool, received: str) -> None:
    schema = {"type": "object", "properties": {"v": {"type": t}}}
    expected = [] if ok else [f'"v" must be {t}, received {received}']
    assert problems(schema, {"v": value}) == expected


def test_null_type_in_items() -> None:
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {"type": "null"}}}}
    assert problems(schema, {"v": [None, 0]}) == ['"v[1]" must be null, received number']


@pytest.mark.parametrize(
    ("enum", "value", "ok"),
    [
        ([1], True, False),
        ([True], 1, False),
        ([0], False, False),
        ([False], 0, False),
        ([1], 1.0, True),
        ([1.0], 1, True),
        ([math.nan], math.nan, False),
        ([[1]], [1], False),
        ([{"a": 1}], {"a": 1}, False),
        (["a", 1, None, True], "a", True),
        (["a", 1, None, True], "b", False),
        (["1"], 1, False),
        ([1], "1", False),
    ],
)
def test_enum_strict_equality(enum: list[Any], value: Any, ok: bool) -> None:
    schema = {"type": "object", "properties": {"v": {"enum": enum}}}
    expected = [] if ok else ['"v" must be one of: ' + ", ".join(text_form_value(i) for i in enum)]
    assert problems(schema, {"v": value}) == expected


def test_enum_null_item_and_message_text_forms() -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"type": "array", "items": {"enum": [None, 1.0, "x y", False]}}},
    }
    assert problems(schema, {"v": [None, 1, "x y", False, 2.5]}) == ['"v[4]" must be one of: null, 1, x y, false']


def test_enum_after_type_and_items() -> None:
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "enum": ["a", "b"]}, "n": {"type": "integer", "enum": [1, 2]}},
    }
    assert problems(schema, {"s": 1, "n": 3}) == [
        '"s" must be string, received number',
        '"n" must be one of: 1, 2',
    ]




def test_silo_problems_come_first_in_the_spec_order() -> None:
    schema = {
        "type": "object",
        "properties": {"b": {"type": "string"}, "a": {"enum": ["x"]}},
        "required": ["z", "y"],
        "additionalProperties": False,
    }
    assert problems(schema, {"a": "q", "k": 1, "b": 2, "j": None}) == [
        '"z" is required',
        '"y" is required',
        '"k" is not a parameter; expected one of: b, a',
        '"j" is not a parameter; expected one of: b, a',
        '"b" must be string, received number',
        '"a" must be one of: x',
    ]
