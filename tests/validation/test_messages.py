"""silo_gym.validation.messages: the problems worded from the library's errors, and their order
(silo-format §3.3, "Beyond the reference")."""

from __future__ import annotations

import math
import string
from typing import Any

import pytest

from silo_gym.validation import compile_schema
from silo_gym.validation.messages import fmt_path, join_key


def problems(schema: Any, value: Any) -> list[str]:
    return compile_schema(schema).problems(value)


def prop(sub: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": sub}}


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


@pytest.mark.parametrize(
    ("path", "text"),
    [((), "input"), (("a",), "a"), (("a", "b"), "a.b"), (("tags", 1), "tags[1]"), ((0,), "input[0]"), ((0, "x"), "input[0].x")],
)
def test_paths(path: tuple[Any, ...], text: str) -> None:
    assert fmt_path(path) == text
    assert join_key((), "k") == "k" and join_key(("a",), "k") == "a.k"


# ---------------------------------------------------------------------------------------------
# One test per wording


@pytest.mark.parametrize(
    ("sub", "value", "expected"),
    [
        # the spec's list
        ({"type": "integer", "minimum": 1}, 0, ['"v" must be at least 1']),
        ({"type": "number", "maximum": 2.5}, 3, ['"v" must be at most 2.5']),
        ({"type": "number", "exclusiveMinimum": 0}, 0, ['"v" must be greater than 0']),
        ({"type": "number", "exclusiveMaximum": 1e21}, 1e22, ['"v" must be less than 1e+21']),
        ({"type": "number", "multipleOf": 0.5}, 0.75, ['"v" must be a multiple of 0.5']),
        ({"type": "string", "minLength": 2}, "a", ['"v" must be at least 2 characters long']),
        ({"type": "string", "maxLength": 1}, "ab", ['"v" must be at most 1 characters long']),
        ({"type": "string", "pattern": "^[0-9]+$"}, "a1", ['"v" must match the pattern ^[0-9]+$']),
        ({"const": "abc"}, "abd", ['"v" must be abc']),
        ({"const": {"a": [1, True]}}, {"a": [1, 1]}, ['"v" must be {"a":[1,true]}']),
        ({"const": 1.0}, True, ['"v" must be 1']),
        ({"type": "array", "minItems": 2}, [1], ['"v" must have at least 2 items']),
        ({"type": "array", "maxItems": 1}, [1, 2], ['"v" must have at most 1 items']),
        ({"type": "array", "uniqueItems": True}, [1, 1.0], ['"v" must not contain duplicate items']),
        ({"type": "array", "uniqueItems": True}, [1, True], []),
        ({"type": "object", "minProperties": 2}, {"a": 1}, ['"v" must have at least 2 properties']),
        ({"type": "object", "maxProperties": 1}, {"a": 1, "b": 2}, ['"v" must have at most 1 properties']),
        ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 5, ['"v" must match exactly one of the allowed shapes']),
        ({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, "x", ['"v" must match exactly one of the allowed shapes']),
        ({"anyOf": [{"type": "string"}, {"type": "boolean"}]}, 1, ['"v" must match at least one of the allowed shapes']),
        ({"not": {"type": "string"}}, "s", ['"v" must not match the excluded shape']),
        ({"type": "array", "contains": {"const": 1}}, [2], ['"v" must contain at least one matching item']),
        # applicators: the failing subschema's own problems at the member's path
        ({"allOf": [{"minimum": 3}, {"maximum": 1}]}, 2, ['"v" must be at least 3', '"v" must be at most 1']),
        ({"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"maximum": 5}}, 15, ['"v" must be a multiple of 10']),
        ({"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"maximum": 5}}, 7, ['"v" must be at most 5']),
        (
            {"type": "array", "prefixItems": [{"type": "string", "maxLength": 1}, {"minimum": 0}]},
            ["ab", -1, "free"],
            ['"v[0]" must be at most 1 characters long', '"v[1]" must be at least 0'],
        ),
        (
            {"type": "object", "patternProperties": {"^n_": {"minimum": 0}}, "additionalProperties": {"maxLength": 1}},
            {"n_a": -1, "s": "long"},
            ['"v.n_a" must be at least 0', '"v.s" must be at most 1 characters long'],
        ),
        (
            {"type": "object", "dependentSchemas": {"a": {"properties": {"b": {"minimum": 1}}}}},
            {"a": 1, "b": 0},
            ['"v.b" must be at least 1'],
        ),
        # our wordings for the keywords the spec does not word
        ({"type": "array", "contains": {"const": 1}, "minContains": 2}, [1], ['"v" must contain at least 2 matching items']),
        ({"type": "array", "contains": {"const": 1}, "minContains": 2}, [0], ['"v" must contain at least 2 matching items']),
        ({"type": "array", "contains": {"const": 1}, "maxContains": 1}, [1, 1], ['"v" must contain at most 1 matching items']),
        ({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}, {"ok": 1, "Bad": 2}, ['"v.Bad" is not an allowed property name']),
        (
            {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False},
            {"a": 1, "b": 2, "c": 3},
            ['"v" has properties that are not allowed: b, c'],
        ),
        ({"type": "array", "prefixItems": [{}], "unevaluatedItems": False}, [1, 2], ['"v" has items that are not allowed']),
        # the Silo kinds where the Silo pass does not look
        ({"type": ["string", "null"]}, 1, ['"v" must be string or null, received number']),
        ({"allOf": [{"type": "string"}]}, 1, ['"v" must be string, received number']),
        ({"anyOf": [{"enum": ["a"]}], "allOf": [{"enum": ["a", "b"]}]}, "c", [
            '"v" must be one of: a, b', '"v" must match at least one of the allowed shapes'
        ]),
        ({"type": "object", "allOf": [{"required": ["x"]}]}, {}, ['"v.x" is required']),
        ({"allOf": [{"additionalProperties": False}]}, {"x": 1, "y": 2}, ['"v.x" is not allowed', '"v.y" is not allowed']),
        ({"allOf": [{"properties": {"a": {}}, "additionalProperties": False}]}, {"a": 1, "y": 2}, ['"v.y" is not allowed']),
        ({"not": {}}, 1, ['"v" must not match the excluded shape']),
        # annotations
        ({"type": "string", "format": "email", "allOf": [{}]}, "not an email", []),
        ({"type": "string", "format": "date", "default": 5, "description": "d", "title": "t"}, "not a date", []),
        ({"contentEncoding": "base64"}, "%%%", []),
    ],
)
def test_wordings(sub: Any, value: Any, expected: list[str]) -> None:
    assert problems(prop(sub), {"v": value}) == expected


def test_ref_reports_the_target_problems_at_the_member_path() -> None:
    schema = {
        "type": "object",
        "$defs": {"money": {"type": "number", "minimum": 0}, "nope": False},
        "properties": {"amount": {"$ref": "#/$defs/money"}, "x": {"$ref": "#/$defs/nope"}},
    }
    assert problems(schema, {"amount": -1, "x": 1}) == ['"amount" must be at least 0', '"x" is not allowed']
    # The Silo pass does not follow $ref; the library's type error is worded the Silo way.
    assert problems(schema, {"amount": "1"}) == ['"amount" must be number, received string']


def test_dependent_required_root_and_nested() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "o": {"type": "object", "dependentRequired": {"x": ["y", "z"]}},
        },
        "dependentRequired": {"a": ["b", "c"], "q": ["b"]},
    }
    assert problems(schema, {"a": "1", "c": None, "o": {"x": 1, "z": 2}}) == [
        '"b" is required when "a" is present',
        '"c" is required when "a" is present',
        '"o.y" is required when "o.x" is present',
    ]
    assert problems(schema, {"a": "1", "q": 1, "b": None, "c": 0}) == [
        '"b" is required when "a" is present',
        '"b" is required when "q" is present',
    ]
    assert problems(schema, {"a": None, "o": {"x": None}}) == []


def test_false_subschemas_are_not_allowed_wherever_they_are() -> None:
    schema = {"type": "object", "patternProperties": {"^secret": False}, "allOf": [{"properties": {"z": False}}]}
    assert problems(schema, {"secret1": 1, "z": 2}) == ['"z" is not allowed', '"secret1" is not allowed']
    assert problems({"type": "object", "properties": {"a": False}}, {"a": 1}) == ['"a" is not allowed']
    schema = {"type": "object", "properties": {"l": {"type": "array", "items": False}}}
    assert problems(schema, {"l": [1]}) == ['"l[0]" is not allowed']
    assert problems({"type": "object", "if": True, "then": False}, {}) == ['"input" is not allowed']
    schema = {"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{}, False]}}}
    assert problems(schema, {"t": [1, 2]}) == ['"t[1]" is not allowed']
    assert problems(schema, {"t": [1]}) == []


def test_root_path_is_input() -> None:
    schema = {"type": "object", "minProperties": 2, "maxProperties": 0}
    assert problems(schema, {"a": 1}) == [
        '"input" must have at least 2 properties',
        '"input" must have at most 0 properties',
    ]
    assert problems({"type": "object", "const": {"a": 1}}, {"a": 2}) == ['"input" must be {"a":1}']
    assert problems({"type": "string"}, {"a": 1}) == ['"input" must be string, received object']


def test_root_array_paths() -> None:
    schema = {"type": "array", "items": {"minimum": 0}, "minItems": 3}
    assert problems(schema, [1, -1]) == ['"input" must have at least 3 items', '"input[1]" must be at least 0']


# ---------------------------------------------------------------------------------------------
# The None-stripping rule


def test_none_members_are_removed_before_the_library_checks() -> None:
    schema = {
        "type": "object",
        "properties": {
            "o": {"type": "object", "minProperties": 1, "const": {"a": 1}},
            "l": {"type": "array", "items": {"maxProperties": 1}, "minItems": 3},
            "n": {"type": "array", "items": {"const": None}},
        },
        "minProperties": 3,
    }
    # {"o": {"a": None}} is {} for the library: minProperties fails, const fails.
    assert problems(schema, {"o": {"a": None}, "l": [{"x": 1, "y": None}, None, {"p": None}], "n": [None]}) == [
        '"o" must be {"a":1}',  # const comes before minProperties in the keyword order
        '"o" must have at least 1 properties',
    ]
    # Root members with None do not count either; array elements that are None stay.
    assert problems(schema, {"o": {"a": 1}, "l": None, "n": None}) == ['"input" must have at least 3 properties']
    assert problems(schema, {"o": {"a": 1, "b": None}, "l": [None, None], "n": []}) == ['"l" must have at least 3 items']


def test_const_compares_the_stripped_value() -> None:
    schema = {"type": "object", "properties": {"o": {"const": {"a": None}}}}
    assert problems(schema, {"o": {"a": None}}) == ['"o" must be {"a":null}']
    assert problems({"type": "object", "properties": {"o": {"const": {}}}}, {"o": {"a": None}}) == []


def test_the_input_is_not_changed() -> None:
    value = {"o": {"a": None, "b": [None, {"c": None}]}, "x": None}
    snapshot = repr(value)
    assert problems({"type": "object", "properties": {"o": {"maxProperties": 0}}}, value) == [
        '"o" must have at most 0 properties'
    ]
    assert repr(value) == snapshot


# ---------------------------------------------------------------------------------------------
# What the Silo pass reported is not reported twice


def test_silo_kinds_are_not_reported_twice() -> None:
    assert problems(DEMO, {"ownerId": 1, "tier": "x", "zzz": True}) == [
        '"zzz" is not a parameter; expected one of: ownerId, tier, activeOnly, amount, limit, offset',
        '"ownerId" must be string, received number',
        '"tier" must be one of: enterprise, mid_market, smb',
    ]
    assert problems(DEMO, {}) == ['"ownerId" is required']
    # The same requirement stated twice (root and allOf) reads once.
    schema = {"type": "object", "required": ["a"], "allOf": [{"required": ["a"]}]}
    assert problems(schema, {}) == ['"a" is required']


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
    assert problems(schema, {"n": 1.5, "s": "c", "o": [{"x": 0}], "l": [2, "2", 3]}) == [
        '"n" must be integer, received number',
        '"s" must be one of: a, bb',
        '"o" must be object, received array',
        '"l[1]" must be integer, received string',
        '"l[0]" must be at most 1',
        '"l[2]" must be at most 1',
    ]


def test_nan_fails_number_and_is_dropped_below() -> None:
    schema = prop({"type": "number", "minimum": 0, "maximum": 1})
    assert problems(schema, {"v": math.nan}) == ['"v" must be number, received number']
    assert problems(schema, {"v": math.inf}) == ['"v" must be number, received number']


# ---------------------------------------------------------------------------------------------
# Order


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
    assert problems(schema, value) == [
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
    assert problems(schema, {"z": 1, "m": 1, "a": 2}) == [
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


def test_order_uncovered_silo_kinds_lead_at_their_path() -> None:
    schema = {"type": "object", "allOf": [{"minProperties": 3}, {"required": ["k"]}]}
    assert problems(schema, {"a": 1}) == ['"k" is required', '"input" must have at least 3 properties']


def test_strings_for_text_paths() -> None:
    schema = {
        "type": "object",
        "properties": {k: {"type": "string", "maxLength": 0} for k in string.ascii_lowercase[:3]},
    }
    assert problems(schema, {"c": "x", "a": "y"}) == [
        '"a" must be at most 0 characters long',
        '"c" must be at most 0 characters long',
    ]


def test_odd_keys_in_paths() -> None:
    schema = {"type": "object", "additionalProperties": {"maxLength": 0}}
    # (jsonschema-rs drops an empty key from the error's path, so "" is not among them.)
    assert problems(schema, {"[x": "y", "a.b": "z", "~/": "w"}) == [
        '"[x" must be at most 0 characters long',
        '"a.b" must be at most 0 characters long',
        '"~/" must be at most 0 characters long',
    ]
