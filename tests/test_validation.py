"""silo_gym.validation: the Silo pass and the full-schema pass (silo-format §3.3, §7.3, §14.1–14.2)."""

from __future__ import annotations

import math
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from silo_gym import bind_tools, define_tool
from silo_gym.validation import (
    NATIVE_KEYWORDS,
    CompiledSchema,
    compile_schema,
    text_form_value,
    type_name,
    validate_tool_input,
)

ENGINES = ["native", "library"]


def problems(schema: Any, value: Any, engine: str = "auto") -> list[str]:
    return compile_schema(schema, engine=engine).problems(value)


def both(schema: Any, value: Any) -> list[str]:
    """Problems from the native engine, asserted equal to the library engine's."""
    native = problems(schema, value, "native")
    assert problems(schema, value, "library") == native
    return native


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

# A demo-like schema (demo-crm.md §6.1): typed properties, an enum, ranges, defaults, closed.
DEMO = {
    "type": "object",
    "properties": {
        "ownerId": {"type": "string", "description": "Owner user id."},
        "tier": {"type": "string", "enum": ["enterprise", "mid_market", "smb"], "description": "Tier."},
        "activeOnly": {"type": "boolean", "description": "Only active rows.", "default": False},
        "amount": {"type": "number", "description": "Amount.", "minimum": 0},
        "limit": {"type": "integer", "description": "Max rows.", "minimum": 1, "maximum": 500, "default": 50},
        "offset": {"type": "integer", "description": "Rows to skip.", "minimum": 0, "default": 0},
    },
    "required": ["ownerId"],
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


@pytest.mark.parametrize("engine", ["auto", *ENGINES])
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
def test_ship_order_table(engine: str, value: Any, expected: list[str]) -> None:
    assert problems(SHIP_ORDER, value, engine) == expected


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


@pytest.mark.parametrize("engine", ["auto", *ENGINES])
def test_nested_paths(engine: str) -> None:
    assert problems(NESTED, {"address": {"street": "Main"}}, engine) == ['"address.city" is required']
    assert problems(NESTED, {"tags": ["a", 3]}, engine) == ['"tags[1]" must be string, received number']
    assert problems(NESTED, {"address": {"city": "X", "zip": "1"}}, engine) == [
        '"zip" is not a parameter; expected one of: city, street'
    ]


def test_unknown_key_without_declared_properties() -> None:
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert both(schema, {"x": 1, "y": 2}) == ['"x" is not a parameter', '"y" is not a parameter']
    assert both({"type": "object", "additionalProperties": False}, {"x": 1}) == ['"x" is not a parameter']


def test_unknown_keys_pass_unless_additional_properties_is_false() -> None:
    for ap in (True, {}, None, 0):
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
    assert both(schema, {"a": None, "b": None}) == ['"a" is required']


def test_type_failure_stops_checking_that_value() -> None:
    schema = {
        "type": "object",
        "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
    }
    assert both(schema, {"o": [1]}) == ['"o" must be object, received array']


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
        ("set", {1}, True, ""),
        ("set", [1], False, "array"),
    ],
)
def test_type_table(t: str, value: Any, ok: bool, received: str) -> None:
    schema = {"type": "object", "properties": {"v": {"type": t}}}
    expected = [] if ok else [f'"v" must be {t}, received {received}']
    assert problems(schema, {"v": value}) == expected
    assert problems(schema, {"v": value}, "library") == expected


def test_null_type_in_items() -> None:
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {"type": "null"}}}}
    assert both(schema, {"v": [None, 0]}) == ['"v[1]" must be null, received number']


def test_type_list_and_non_string_type_are_not_checked() -> None:
    schema = {"type": "object", "properties": {"v": {"type": ["string", "null"]}}}
    assert both(schema, {"v": 1}) == []  # type errors of the library are dropped too


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
    assert problems(schema, {"v": value}, "library") == expected


def test_enum_null_item_and_message_text_forms() -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"type": "array", "items": {"enum": [None, 1.0, "x y", False]}}},
    }
    assert both(schema, {"v": [None, 1, "x y", False, 2.5]}) == ['"v[4]" must be one of: null, 1, x y, false']


def test_enum_after_type_and_items() -> None:
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "enum": ["a", "b"]}, "n": {"type": "integer", "enum": [1, 2]}},
    }
    assert both(schema, {"s": 1, "n": 3}) == [
        '"s" must be string, received number',
        '"n" must be one of: 1, 2',
    ]


# ---------------------------------------------------------------------------------------------
# Full pass: one test per wording (both engines where the native one applies)


def prop(sub: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": sub}}


@pytest.mark.parametrize(
    ("sub", "value", "expected"),
    [
        ({"type": "integer", "minimum": 1}, 0, '"v" must be at least 1'),
        ({"type": "number", "maximum": 2.5}, 3, '"v" must be at most 2.5'),
        ({"type": "number", "exclusiveMinimum": 0}, 0, '"v" must be greater than 0'),
        ({"type": "number", "exclusiveMaximum": 1e21}, 1e22, '"v" must be less than 1e+21'),
        ({"type": "string", "minLength": 2}, "a", '"v" must be at least 2 characters long'),
        ({"type": "string", "maxLength": 1}, "ab", '"v" must be at most 1 characters long'),
        ({"type": "string", "pattern": "^[0-9]+$"}, "a1", '"v" must match the pattern ^[0-9]+$'),
        ({"const": "abc"}, "abd", '"v" must be abc'),
        ({"const": {"a": [1, True]}}, {"a": [1, 1]}, '"v" must be {"a":[1,true]}'),
        ({"const": 1.0}, True, '"v" must be 1'),
        ({"type": "array", "minItems": 2}, [1], '"v" must have at least 2 items'),
        ({"type": "array", "maxItems": 1}, [1, 2], '"v" must have at most 1 items'),
        ({"type": "object", "minProperties": 2}, {"a": 1}, '"v" must have at least 2 properties'),
        ({"type": "object", "maxProperties": 1}, {"a": 1, "b": 2}, '"v" must have at most 1 properties'),
    ],
)
def test_native_wordings(sub: dict[str, Any], value: Any, expected: str) -> None:
    assert compile_schema(prop(sub)).engine == "native"
    assert both(prop(sub), {"v": value}) == [expected]


@pytest.mark.parametrize(
    ("sub", "value", "expected"),
    [
        ({"type": "number", "multipleOf": 0.5}, 0.75, ['"v" must be a multiple of 0.5']),
        ({"type": "array", "uniqueItems": True}, [1, 1.0], ['"v" must not contain duplicate items']),
        ({"type": "array", "uniqueItems": True}, [1, True], []),
        (
            {"oneOf": [{"type": "integer"}, {"minimum": 0}]},
            5,
            ['"v" must match exactly one of the allowed shapes'],
        ),
        (
            {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
            "x",
            ['"v" must match exactly one of the allowed shapes'],
        ),
        (
            {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
            1,
            ['"v" must match at least one of the allowed shapes'],
        ),
        ({"not": {"type": "string"}}, "s", ['"v" must not match the excluded shape']),
        ({"type": "array", "contains": {"const": 1}}, [2], ['"v" must contain at least one matching item']),
        (
            {"type": "array", "contains": {"const": 1}, "minContains": 2},
            [1],
            ['"v" must contain at least 2 matching items'],
        ),
        (
            {"type": "array", "contains": {"const": 1}, "minContains": 2},
            [0],
            ['"v" must contain at least 2 matching items'],
        ),
        (
            {"type": "array", "contains": {"const": 1}, "maxContains": 1},
            [1, 1],
            ['"v" must contain at most 1 matching items'],
        ),
        ({"allOf": [{"minimum": 3}, {"maximum": 1}]}, 2, ['"v" must be at least 3', '"v" must be at most 1']),
        (
            {"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"maximum": 5}},
            15,
            ['"v" must be a multiple of 10'],
        ),
        (
            {"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"maximum": 5}},
            7,
            ['"v" must be at most 5'],
        ),
        (
            {"type": "array", "prefixItems": [{"type": "string", "maxLength": 1}, {"minimum": 0}]},
            ["ab", -1, "free"],
            ['"v[0]" must be at most 1 characters long', '"v[1]" must be at least 0'],
        ),
        (
            {
                "type": "object",
                "patternProperties": {"^n_": {"minimum": 0}},
                "additionalProperties": {"maxLength": 1},
            },
            {"n_a": -1, "s": "long"},
            ['"v.n_a" must be at least 0', '"v.s" must be at most 1 characters long'],
        ),
        (
            {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
            {"ok": 1, "Bad": 2},
            ['"v.Bad" is not an allowed property name'],
        ),
        (
            {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False},
            {"a": 1, "b": 2},
            ['"v" has properties that are not allowed'],
        ),
        (
            {"type": "array", "prefixItems": [{}], "unevaluatedItems": False},
            [1, 2],
            ['"v" has items that are not allowed'],
        ),
        (
            {"type": "object", "dependentSchemas": {"a": {"properties": {"b": {"minimum": 1}}}}},
            {"a": 1, "b": 0},
            ['"v.b" must be at least 1'],
        ),
        ({"type": "string", "format": "email", "allOf": [{}]}, "not an email", []),
    ],
)
def test_library_wordings(sub: dict[str, Any], value: Any, expected: list[str]) -> None:
    compiled = compile_schema(prop(sub))
    assert compiled.engine == "library"
    assert compiled.problems({"v": value}) == expected


def test_ref_reports_the_target_problems_at_the_member_path() -> None:
    schema = {
        "type": "object",
        "$defs": {"money": {"type": "number", "minimum": 0}, "nope": False},
        "properties": {"amount": {"$ref": "#/$defs/money"}, "x": {"$ref": "#/$defs/nope"}},
    }
    assert problems(schema, {"amount": -1, "x": 1}) == ['"amount" must be at least 0', '"x" is not allowed']
    # The Silo pass does not follow $ref, and the library's type error is dropped.
    assert problems(schema, {"amount": "1"}) == []


def test_dependent_required_root_and_nested() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "o": {"type": "object", "dependentRequired": {"x": ["y", "z"]}},
        },
        "dependentRequired": {"a": ["b", "c"]},
    }
    assert both(schema, {"a": "1", "c": None, "o": {"x": 1, "z": 2}}) == [
        '"b" is required when "a" is present',
        '"c" is required when "a" is present',
        '"o.y" is required when "o.x" is present',
    ]
    assert both(schema, {"a": None, "o": {"x": None}}) == []


def test_false_subschemas() -> None:
    # Reached through an applicator: "is not allowed" at the member's path.
    schema = {
        "type": "object",
        "patternProperties": {"^secret": False},
        "allOf": [{"properties": {"z": False}}],
    }
    assert problems(schema, {"secret1": 1, "z": 2}) == ['"secret1" is not allowed']
    # Under `properties` or `items` the keyword is dropped (the spec, literally).
    assert both({"type": "object", "properties": {"a": False}}, {"a": 1}) == []
    assert both({"type": "object", "properties": {"l": {"type": "array", "items": False}}}, {"l": [1]}) == []
    assert problems({"type": "object", "if": True, "then": False}, {}) == ['"input" is not allowed']
    schema = {"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{}, False]}}}
    assert problems(schema, {"t": [1, 2]}) == ['"t[1]" is not allowed']


def test_root_path_is_input() -> None:
    schema = {"type": "object", "minProperties": 2, "maxProperties": 0}
    assert both(schema, {"a": 1}) == [
        '"input" must have at least 2 properties',
        '"input" must have at most 0 properties',
    ]
    assert both({"type": "object", "const": {"a": 1}}, {"a": 2}) == ['"input" must be {"a":1}']


def test_root_array_paths() -> None:
    schema = {"type": "array", "items": {"minimum": 0}, "minItems": 3}
    assert both(schema, [1, -1]) == ['"input" must have at least 3 items', '"input[1]" must be at least 0']


def test_format_default_description_are_annotations() -> None:
    schema = prop({"type": "string", "format": "date", "default": 5, "description": "d", "title": "t"})
    assert both(schema, {"v": "not a date"}) == []


# ---------------------------------------------------------------------------------------------
# The None-stripping rule


def test_none_members_are_removed_before_the_full_pass() -> None:
    schema = {
        "type": "object",
        "properties": {
            "o": {"type": "object", "minProperties": 1, "const": {"a": 1}},
            "l": {"type": "array", "items": {"maxProperties": 1}, "minItems": 3},
            "n": {"type": "array", "items": {"const": None}},
        },
        "minProperties": 3,
    }
    # {"o": {"a": None}} is {} for the full pass: minProperties fails, const fails.
    assert both(schema, {"o": {"a": None}, "l": [{"x": 1, "y": None}, None, {"p": None}], "n": [None]}) == [
        '"o" must be {"a":1}',  # const comes before minProperties in the keyword order
        '"o" must have at least 1 properties',
    ]
    # Root members with None do not count either; array elements that are None stay.
    assert both(schema, {"o": {"a": 1}, "l": None, "n": None}) == ['"input" must have at least 3 properties']
    assert both(schema, {"o": {"a": 1, "b": None}, "l": [None, None], "n": []}) == [
        '"l" must have at least 3 items'
    ]


def test_const_compares_the_stripped_value() -> None:
    schema = {"type": "object", "properties": {"o": {"const": {"a": None}}}}
    assert both(schema, {"o": {"a": None}}) == ['"o" must be {"a":null}']
    assert both({"type": "object", "properties": {"o": {"const": {}}}}, {"o": {"a": None}}) == []


# ---------------------------------------------------------------------------------------------
# The dropping rules


def test_silo_kinds_are_not_reported_twice() -> None:
    assert both(DEMO, {"ownerId": 1, "tier": "x", "zzz": True}) == [
        '"zzz" is not a parameter; expected one of: ownerId, tier, activeOnly, amount, limit, offset',
        '"ownerId" must be string, received number',
        '"tier" must be one of: enterprise, mid_market, smb',
    ]
    assert both(DEMO, {}) == ['"ownerId" is required']


def test_errors_under_a_failed_type_or_enum_are_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 5},
            "s": {"type": "string", "enum": ["a", "bb"], "minLength": 2},
            "o": {"type": "object", "minProperties": 3, "properties": {"x": {"minimum": 1}}},
            "l": {"type": "array", "items": {"type": "integer", "maximum": 1}},
        },
    }
    assert both(schema, {"n": 1.5, "s": "c", "o": [{"x": 0}], "l": [2, "2", 3]}) == [
        '"n" must be integer, received number',
        '"s" must be one of: a, bb',
        '"o" must be object, received array',
        '"l[1]" must be integer, received string',
        '"l[0]" must be at most 1',
        '"l[2]" must be at most 1',
    ]


def test_nan_fails_number_and_is_dropped_below() -> None:
    schema = prop({"type": "number", "minimum": 0, "maximum": 1})
    assert both(schema, {"v": math.nan}) == ['"v" must be number, received number']
    assert both(schema, {"v": math.inf}) == ['"v" must be number, received number']


def test_dropped_keywords_are_dropped_everywhere() -> None:
    # Literal reading of the spec: a type/required only the full pass could see yields nothing.
    assert both({"type": "string"}, {"a": 1}) == []
    assert (
        both(
            {"type": "object", "properties": {"a": {"properties": {"b": {"type": "string"}}}}},
            {"a": {"b": 1}},
        )
        == []
    )
    assert (
        problems({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}, {"a": 1}) == []
    )
    schema = {"type": "object", "properties": {"l": {"type": "array", "prefixItems": [{}], "items": False}}}
    assert problems(schema, {"l": [1, 2]}) == []


# ---------------------------------------------------------------------------------------------
# Ordering


def test_order_silo_first_then_property_order_then_keyword_order() -> None:
    schema = {
        "type": "object",
        "properties": {
            "b": {"type": "string", "minLength": 3, "pattern": "^x"},
            "a": {"type": "integer", "maximum": 1, "minimum": 5},
            "c": {"type": "boolean"},
        },
        "required": ["z"],
        "maxProperties": 1,
        "additionalProperties": False,
    }
    value = {"a": 3, "q": 1, "c": "no", "b": "yy"}
    assert both(schema, value) == [
        '"z" is required',
        '"q" is not a parameter; expected one of: b, a, c',
        '"c" must be boolean, received string',
        '"input" must have at most 1 properties',
        '"b" must be at least 3 characters long',
        '"b" must match the pattern ^x',
        '"a" must be at least 5',
        '"a" must be at most 1',
    ]


def test_order_undeclared_keys_follow_declared_ones_in_input_order() -> None:
    schema = {
        "type": "object",
        "properties": {"m": {"maximum": 0}},
        "additionalProperties": {"type": "integer", "minimum": 10},
    }
    assert both(schema, {"z": 1, "m": 1, "a": 2}) == [
        '"m" must be at most 0',
        '"z" must be at least 10',
        '"a" must be at least 10',
    ]


def test_order_follows_ref_and_allof_declarations() -> None:
    schema = {
        "type": "object",
        "allOf": [{"properties": {"late": {"minimum": 1}}}],
        "$ref": "#/$defs/base",
        "$defs": {"base": {"properties": {"mid": {"minimum": 1}}}},
        "properties": {"first": {"minimum": 1}},
    }
    assert problems(schema, {"late": 0, "mid": 0, "first": 0}) == [
        '"first" must be at least 1',
        '"mid" must be at least 1',
        '"late" must be at least 1',
    ]


# ---------------------------------------------------------------------------------------------
# Schemas that accept anything, invalid schemas, engines


@pytest.mark.parametrize("schema", [None, True, False, [], "object", 5])
def test_non_dict_schema_accepts_anything(schema: Any) -> None:
    compiled = compile_schema(schema)
    assert compiled.engine == "none"
    assert compiled.problems({"a": 1}) == []
    assert validate_tool_input(schema, {"x": None}) == []


def test_schema_without_type_object_gets_only_the_full_pass() -> None:
    schema = {
        "properties": {"a": {"type": "string", "minLength": 2}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert both(schema, {}) == []
    assert both(schema, {"b": 1}) == []
    assert both(schema, {"a": 5}) == []
    assert both(schema, {"a": "x"}) == ['"a" must be at least 2 characters long']


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}, "required": ["a"]},
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}, "required": ["a"]},
        {"type": "object", "properties": {"a": {"type": "string", "minimum": "x"}}, "required": ["a"]},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", ["x"], 5]},
        {"type": "object", "properties": [1], "required": "a"},
        {"type": "object", "properties": {"a": {"type": "string", "items": [{}]}}, "required": ["a"]},
    ],
)
def test_invalid_schema_keeps_the_silo_pass(schema: dict[str, Any]) -> None:
    compiled = compile_schema(schema)
    assert compiled.engine == "none"
    assert compiled.schema_error
    result = compiled.problems({"a": 5})
    assert isinstance(result, list)
    if isinstance(schema["properties"], dict):
        assert result[-1] == '"a" must be string, received number'
    with pytest.raises(ValueError):
        compile_schema(schema, engine="native")


def test_invalid_required_entries_do_not_crash() -> None:
    schema = {"type": "object", "required": ["a", ["x"], 5, None]}
    assert problems(schema, {"a": 1}) == ['"["x"]" is required', '"5" is required', '"null" is required']


def test_unusable_schema_reports_one_problem() -> None:
    compiled = compile_schema({"type": "object", "properties": {"a": {"$ref": "#/nope"}}})
    assert compiled.engine == "library"
    assert compiled.problems({"a": 1})[0].startswith('"input" could not be validated against the schema: ')
    assert compiled.problems({}) == []


def test_engine_selection() -> None:
    assert compile_schema(DEMO).engine == "native"
    assert compile_schema(SHIP_ORDER).engine == "native"
    assert compile_schema({"type": "object", "x-extension": {"allOf": 1}, "$comment": "c"}).engine == "native"
    assert compile_schema({"type": "object", "allOf": [{}]}).engine == "library"
    assert compile_schema({"type": "object", "properties": {"a": {"then": {}}}}).engine == "library"
    assert compile_schema(DEMO, engine="library").engine == "library"
    with pytest.raises(ValueError):
        compile_schema({"type": "object", "allOf": [{}]}, engine="native")
    with pytest.raises(ValueError):
        CompiledSchema(DEMO, "fast")
    assert {"minimum", "maximum", "const", "pattern"} <= NATIVE_KEYWORDS


def test_self_containing_schema_does_not_crash() -> None:
    node: dict[str, Any] = {"type": "object", "properties": {}, "required": ["name"]}
    node["properties"]["child"] = node
    node["properties"]["name"] = {"type": "string"}
    compiled = compile_schema(node)
    assert compiled.engine == "none"  # the meta-schema check cannot finish on it
    assert compiled.problems({"name": "a", "child": {"child": {"name": 1}}}) == [
        '"child.name" is required',
        '"child.child.name" must be string, received number',
    ]
    assert compiled.problems({"name": "a", "child": {"name": "b"}}) == []


def test_deep_input_never_raises() -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"type": "array", "items": {"type": "array"}}},
        "allOf": [{}],
    }
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    result = compile_schema(schema).problems({"v": deep})
    assert isinstance(result, list)


def test_validate_tool_input_matches_compile() -> None:
    value = {"ownerId": "u", "limit": 0, "tier": "x"}
    assert validate_tool_input(DEMO, value) == compile_schema(DEMO).problems(value)
    assert validate_tool_input(DEMO, value) == [
        '"tier" must be one of: enterprise, mid_market, smb',
        '"limit" must be at least 1',
    ]


def test_valid_demo_input() -> None:
    value = {"ownerId": "USR-1", "tier": "smb", "activeOnly": False, "amount": 0.5, "limit": 500, "offset": 0}
    assert both(DEMO, value) == []
    assert both(DEMO, {**value, "limit": 5.0, "amount": 0}) == []
    assert both(DEMO, {**value, "limit": 501, "amount": -0.01, "offset": -1}) == [
        '"amount" must be at least 0',
        '"limit" must be at most 500',
        '"offset" must be at least 0',
    ]


# ---------------------------------------------------------------------------------------------
# Hypothesis: problems never raises; native and library engines agree

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from([0, 1, -1, 5, 5.0, 0.5, -0.0, 1e21, 1e-7, 2**53, 500, 501]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["", "a", "ab", "abc", "x1", "smb", "enterprise", "USR-1", "é", "\x00"]),
)
KEYS = st.sampled_from(["a", "b", "c", "ownerId", "tier", "limit", "offset", "amount", "zzz"])
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(KEYS, children, max_size=5),
        st.dictionaries(st.text(max_size=3), children, max_size=3),
    ),
    max_leaves=12,
)
demo_inputs = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "ownerId": json_values,
            "tier": st.one_of(st.sampled_from(["smb", "enterprise", "x"]), json_values),
            "activeOnly": json_values,
            "amount": json_values,
            "limit": st.one_of(st.integers(-5, 600), json_values),
            "offset": json_values,
            "zzz": json_values,
        },
    ),
    json_values,
)

DEMO_LIKE = [DEMO, SHIP_ORDER, NESTED, {**DEMO, "allOf": [{"properties": {"limit": {"multipleOf": 5}}}]}]
DEMO_LIKE_COMPILED = [compile_schema(s, engine=e) for s in DEMO_LIKE for e in ("auto", "library")]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=demo_inputs, index=st.integers(0, len(DEMO_LIKE_COMPILED) - 1))
def test_problems_never_raises(value: Any, index: int) -> None:
    result = DEMO_LIKE_COMPILED[index].problems(value)
    assert isinstance(result, list)
    assert all(isinstance(p, str) and p.startswith('"') for p in result)
    assert not any("could not be validated" in p for p in result)


def test_problems_never_raises_on_non_json_values() -> None:
    class Odd:
        pass

    weird = [
        {"ownerId": {1, 2}},
        {"limit": complex(1, 2)},
        {"limit": Odd()},
        {1: "x", (2,): 3},
        {"ownerId": b"x", "tier": bytearray(b"smb")},
        Odd(),
    ]
    for schema in DEMO_LIKE:
        for engine in ("auto", "library"):
            compiled = compile_schema(schema, engine=engine)
            for value in weird:
                assert isinstance(compiled.problems(value), list)


# The grammar of schemas the native engine decides.
NAMES = ["a", "b", "c"]
TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]
PATTERNS = ["^a", "b$", "^[0-9]+$", "", "x|y", "^.{2}$"]
small_values = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 2, 5, 5.0, 0.5, 1.5, -0.0, 10**20]),
    st.sampled_from(["", "a", "ab", "abc", "b", "12"]),
)
const_values = st.recursive(
    small_values,
    lambda ch: st.one_of(st.lists(ch, max_size=2), st.dictionaries(st.sampled_from(NAMES), ch, max_size=2)),
    max_leaves=4,
)
numbers_st = st.sampled_from([0, 1, 2, 3, -1, 0.5, 2.5, 5.0, 1e21])
counts = st.integers(0, 3)


def schema_strategy(depth: int) -> st.SearchStrategy[Any]:
    sub = st.just({}) if depth <= 0 else st.deferred(lambda: schema_strategy(depth - 1))
    sub_or_bool = st.one_of(sub, st.booleans()) if depth > 0 else st.one_of(st.just({}), st.booleans())
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(
                st.sampled_from(TYPES), st.lists(st.sampled_from(TYPES), min_size=1, max_size=2, unique=True)
            ),
            "enum": st.lists(small_values, min_size=1, max_size=3),
            "const": const_values,
            "properties": st.dictionaries(st.sampled_from(NAMES), sub_or_bool, max_size=3),
            "required": st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
            "additionalProperties": sub_or_bool,
            "items": sub_or_bool,
            "minimum": numbers_st,
            "maximum": numbers_st,
            "exclusiveMinimum": numbers_st,
            "exclusiveMaximum": numbers_st,
            "minLength": counts,
            "maxLength": counts,
            "pattern": st.sampled_from(PATTERNS),
            "minItems": counts,
            "maxItems": counts,
            "minProperties": counts,
            "maxProperties": counts,
            "dependentRequired": st.dictionaries(
                st.sampled_from(NAMES), st.lists(st.sampled_from(NAMES), max_size=2, unique=True), max_size=2
            ),
            "format": st.sampled_from(["date", "email"]),
            "description": st.text(max_size=3),
            "default": small_values,
            "title": st.just("t"),
        },
    )


native_schemas = st.one_of(
    schema_strategy(2),
    schema_strategy(2).map(lambda s: {**s, "type": "object"}),
)
instance_values = st.recursive(
    st.one_of(small_values, st.floats(allow_nan=True, allow_infinity=True)),
    lambda ch: st.one_of(
        st.lists(ch, max_size=3),
        st.dictionaries(st.sampled_from([*NAMES, "d"]), ch, max_size=4),
    ),
    max_leaves=10,
)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=native_schemas, value=instance_values)
def test_native_engine_matches_library_engine(schema: dict[str, Any], value: Any) -> None:
    native = compile_schema(schema)
    assert native.engine == "native", native.schema_error
    library = compile_schema(schema, engine="library")
    assert native.problems(value) == library.problems(value)


@settings(max_examples=300, deadline=None)
@given(
    value=st.dictionaries(st.sampled_from([*NAMES, "d"]), instance_values, max_size=4),
    schema=schema_strategy(2).map(lambda s: {**s, "type": "object"}),
)
def test_native_engine_matches_library_engine_on_objects(schema: dict[str, Any], value: Any) -> None:
    assert compile_schema(schema).problems(value) == compile_schema(schema, engine="library").problems(value)


def test_strings_for_text_paths() -> None:
    schema = {
        "type": "object",
        "properties": {k: {"type": "string", "maxLength": 0} for k in string.ascii_lowercase[:3]},
    }
    assert both(schema, {"c": "x", "a": "y"}) == [
        '"a" must be at most 0 characters long',
        '"c" must be at most 0 characters long',
    ]


def test_odd_keys_in_paths() -> None:
    schema = {"type": "object", "additionalProperties": {"maxLength": 0}}
    assert both(schema, {"": "x", "[x": "y", "a.b": "z"}) == [
        '"" must be at most 0 characters long',
        '"[x" must be at most 0 characters long',
        '"a.b" must be at most 0 characters long',
    ]
