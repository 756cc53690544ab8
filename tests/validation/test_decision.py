"""silo_gym.validation: the whole schema is enforced, decided by the library (silo-format §3.3).

The class of fault closed here: an input that a draft 2020-12 validator rejects reached ``run``
whenever the Silo pass had nothing to say about it (a ``required`` inside ``allOf``, a type list,
a ``$ref``'d type, a ``false`` subschema, ...).
"""

from __future__ import annotations

import enum
import math
import pickle
from collections import OrderedDict
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from silo_gym import bind_tools, define_tool
from silo_gym.loader import open_environment_at
from silo_gym.validation import CompiledSchema, compile_schema, validate_tool_input
from silo_gym.validation import compiled as compiled_module

REPO = Path(__file__).resolve().parents[2]


def problems(schema: Any, value: Any) -> list[str]:
    return compile_schema(schema).problems(value)


def recording_tool(schema: Any) -> tuple[Any, list[Any]]:
    calls: list[Any] = []
    tool = define_tool(name="t", description="T.", input_schema=schema, run=lambda state, i: calls.append(i) or "ok")
    [bound] = bind_tools({}, [tool])
    return bound, calls


# (schema, an input the library rejects, an input it accepts). Every rejected input reached
# `run` before the library decided.
BYPASSES = [
    ({"type": "object", "allOf": [{"required": ["b"]}]}, {"a": 1}, {"b": 1}),
    ({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}, {"a": 1}, {"a": 1, "b": 2}),
    ({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"c": 1}, {"b": 1}),
    ({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"a": 1, "b": 2}, {"a": 1}),
    ({"type": "object", "not": {"required": ["x"]}}, {"x": 1}, {"y": 1}),
    ({"type": "object", "dependentSchemas": {"a": {"required": ["b"]}}}, {"a": 1}, {"a": 1, "b": 1}),
    ({"type": "object", "allOf": [{"properties": {"n": {"type": "integer"}}}]}, {"n": "1"}, {"n": 1}),
    ({"type": "object", "allOf": [{"additionalProperties": False}]}, {"x": 1}, {}),
    (
        {"type": "object", "$defs": {"id": {"type": "string", "enum": ["A", "B"]}}, "properties": {"id": {"$ref": "#/$defs/id"}}},
        {"id": "C"},
        {"id": "A"},
    ),
    ({"type": "object", "properties": {"v": {"type": ["string", "null"]}}}, {"v": 1}, {"v": "s"}),
    ({"type": "object", "properties": {"o": {"properties": {"n": {"type": "integer"}}}}}, {"o": {"n": "x"}}, {"o": {"n": 2}}),
    ({"type": "object", "properties": {"o": {"required": ["k"]}}}, {"o": {}}, {"o": {"k": 0}}),
    ({"properties": {"a": {"type": "string"}}, "required": ["a"]}, {}, {"a": "x"}),
    ({"type": "object", "properties": {"a": False}}, {"a": 1}, {}),
    ({"type": "object", "properties": {"l": {"type": "array", "items": False}}}, {"l": [1]}, {"l": []}),
    ({"type": "object", "properties": {"l": {"type": "array", "prefixItems": [{}], "items": False}}}, {"l": [1, 2]}, {"l": [1]}),
    ({"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False}, {"a": 1, "b": 2}, {"a": 1}),
    ({"type": "object", "properties": {"c": {"const": {"k": [1, {"z": True}]}}}}, {"c": {"k": [1, {"z": 1}]}}, {"c": {"k": [1, {"z": True}]}}),
    ({"type": "object", "properties": {"l": {"type": "array", "items": {"enum": [["a"], {"b": 1}]}}}}, {"l": [["b"]]}, {"l": []}),
]


@pytest.mark.parametrize(("schema", "bad", "good"), BYPASSES)
def test_what_the_library_rejects_never_reaches_run(schema: Any, bad: Any, good: Any) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    assert not validator.is_valid(bad) and validator.is_valid(good)  # the cases say what they mean
    bound, calls = recording_tool(schema)
    result = bound.execute(bad)
    assert result["isError"] is True and result["output"]["code"] == "invalid_input"
    assert result["output"]["details"]["problems"]
    assert calls == []
    assert bound.execute(good) == {"output": "ok"}
    assert calls == [good]


def test_the_reported_bypass_reads_well() -> None:
    bound, _ = recording_tool({"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"required": ["b"]}]})
    assert bound.execute({"a": "x"})["output"]["message"] == 'Invalid arguments for "t": "b" is required.'


def test_a_rejection_is_never_silent() -> None:
    # Should the dropping rules ever drop every error of a rejected input, the errors are worded in
    # full rather than letting an empty problem list read as "valid".
    compiled = compile_schema({"type": "object", "allOf": [{"required": ["b"]}]})
    compiled._covered = {("allOf", 0): frozenset({"required"})}  # pretend the Silo pass covers it
    assert compiled.problems({}) == ['"b" is required']


# ---------------------------------------------------------------------------------------------
# The Silo pass still speaks where the library would accept


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        # JavaScript === never matches an object or array
        ({"type": "object", "properties": {"v": {"enum": [[1]]}}}, {"v": [1]}, ['"v" must be one of: [1]']),
        # the Silo pass knows only `properties`; the library lets patternProperties keys through
        (
            {"type": "object", "properties": {}, "patternProperties": {"^x": {}}, "additionalProperties": False},
            {"xa": 1},
            ['"xa" is not a parameter'],
        ),
        # the Silo pass checks every element with `items`; the library skips the prefix
        (
            {"type": "object", "properties": {"l": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}}},
            {"l": ["a", 2]},
            ['"l[0]" must be integer, received string'],
        ),
        # a null member counts as present for the unknown-key check
        ({"type": "object", "properties": {}, "additionalProperties": False}, {"z": None}, ['"z" is not a parameter']),
        # a huge integer is not === a nearby float member
        ({"type": "object", "properties": {"v": {"enum": [9007199254740992.0]}}}, {"v": 2**53 + 1}, ['"v" must be one of: 9007199254740992']),
    ],
)
def test_silo_only_rejections(schema: Any, value: Any, expected: list[str]) -> None:
    assert problems(schema, value) == expected


# ---------------------------------------------------------------------------------------------
# Values that are not JSON


class Color(enum.Enum):
    RED = "red"


class Size(enum.IntEnum):
    S = 1


class Name(enum.StrEnum):
    A = "a"


OPEN = {"type": "object"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"x": {1, 2}}, '"x" must be a JSON value, received set'),
        ({"x": b"b"}, '"x" must be a JSON value, received bytes'),
        ({"x": [1, Color.RED]}, '"x[1]" must be a JSON value, received Color'),
        ({"x": math.nan}, '"x" must be a finite number'),
        ({"x": {"y": [-math.inf]}}, '"x.y[0]" must be a finite number'),
        ({"x": {1: 2}}, '"x" must have string keys, found int 1'),
    ],
)
def test_values_that_are_not_json_are_refused(value: Any, expected: str) -> None:
    assert problems(OPEN, value) == [expected]
    bound, calls = recording_tool(OPEN)
    assert bound.execute(value)["isError"] is True and calls == []


def test_python_forms_of_json_values_are_accepted() -> None:
    schema = {
        "type": "object",
        "properties": {"t": {"type": "array", "items": {"type": "integer"}}, "n": {"enum": ["a", 1]}, "o": {"type": "object"}},
    }
    assert problems(schema, {"t": (1, 2), "n": Name.A, "o": OrderedDict(a=1)}) == []
    assert problems(schema, {"n": Size.S, "t": [True]}) == ['"t[0]" must be integer, received boolean']
    assert problems(OPEN, {"x": "é日本🙂", "é": 2**80, "y": 1e308}) == []


def test_lone_surrogates_are_text_of_their_own_length() -> None:
    # JSON text may escape a lone surrogate; silo_gym passes it on (and writes it back) as it came.
    schema = {"type": "object", "properties": {"t": {"type": "string", "maxLength": 1}, "p": {"pattern": "^a"}}}
    assert problems(schema, {"t": "\ud800", "\udfff": 1}) == []
    assert problems(schema, {"t": "\ud800\udc00"}) == ['"t" must be at most 1 characters long']
    assert problems(schema, {"p": "a\ud800"}) == []
    assert problems(schema, {"p": "\ud800"}) == ['"p" must match the pattern ^a']
    bound, calls = recording_tool(schema)
    assert bound.execute({"t": "\ud800"}) == {"output": "ok"} and calls == [{"t": "\ud800"}]


def test_a_non_json_value_below_a_failed_type_is_not_reported_twice() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "array"}}}
    assert problems(schema, {"x": {1, 2}}) == ['"x" must be array, received set']


# ---------------------------------------------------------------------------------------------
# Schemas


@pytest.mark.parametrize("schema", [None, True, False, [], "object", 5])
def test_non_dict_schema_accepts_anything(schema: Any) -> None:
    compiled = compile_schema(schema)
    assert compiled.validator is None and compiled.schema_error is None
    assert compiled.problems({"a": 1}) == []
    assert validate_tool_input(schema, {"x": None}) == []


def test_schema_without_type_object_gets_only_the_library() -> None:
    schema = {"properties": {"a": {"type": "string", "minLength": 2}}, "required": ["a"], "additionalProperties": False}
    assert problems(schema, {}) == ['"a" is required']
    assert problems(schema, {"a": "xy", "b": 1}) == ['"b" is not allowed']
    assert problems(schema, {"a": 5}) == ['"a" must be string, received number']
    assert problems(schema, {"a": "x"}) == ['"a" must be at least 2 characters long']
    assert problems(schema, {"a": "xy"}) == []


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}, "required": ["a"]}, "-1 is less than"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}, "required": ["a"]}, "regex"),
        ({"type": "object", "properties": {"a": {"type": "string", "minimum": "x"}}, "required": ["a"]}, '"x" is not of type'),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", ["x"], 5]}, "is not of type"),
        ({"type": "object", "properties": {"a": {"type": "string", "$ref": "#/nope"}}, "required": ["a"]}, "/nope"),
        ({"type": "object", "properties": {"a": {"type": "string", "$ref": "https://example.com/s.json"}}, "required": ["a"]}, "example.com"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "x\\Z"}}, "required": ["a"]}, "regex"),
        ({"type": "object", "properties": {"a": {"type": "set"}}, "required": ["a"]}, "set"),
    ],
)
def test_a_schema_the_library_cannot_use_refuses_every_input(schema: dict[str, Any], reason: str) -> None:
    compiled = compile_schema(schema)
    assert compiled.validator is None
    assert compiled.schema_error is not None and reason in compiled.schema_error
    schema_problem = f"\"input\" cannot be checked: the tool's inputSchema is invalid ({compiled.schema_error})"
    # The Silo pass's problems come first, then the schema's.
    assert compiled.problems({})[0] == '"a" is required'
    assert compiled.problems({})[-1] == schema_problem
    assert compiled.problems({"a": "x"})[-1] == schema_problem
    bound, calls = recording_tool(schema)
    assert bound.execute({"a": "x"})["output"]["details"]["problems"][-1] == schema_problem
    assert calls == []


def test_self_containing_schema_does_not_crash() -> None:
    node: dict[str, Any] = {"type": "object", "properties": {}, "required": ["name"]}
    node["properties"]["child"] = node
    node["properties"]["name"] = {"type": "string"}
    compiled = compile_schema(node)
    assert compiled.schema_error
    result = compiled.problems({"name": "a", "child": {"child": {"name": 1}}})
    assert result[:2] == ['"child.name" is required', '"child.child.name" must be string, received number']
    assert result[2].startswith('"input" cannot be checked')


def test_deep_input_never_raises() -> None:
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {"type": "array"}}}, "allOf": [{}]}
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert compile_schema(schema).problems({"v": deep}) == [
        '"input" could not be validated against the schema: it is nested too deeply'
    ]


def test_validate_tool_input_matches_compile_and_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1}, "tier": {"enum": ["a"]}}}
    value = {"limit": 0, "tier": "x"}
    assert validate_tool_input(schema, value) == ['"tier" must be one of: a', '"limit" must be at least 1']
    compiles: list[Any] = []
    real = compiled_module.compile_decision
    monkeypatch.setattr(compiled_module, "compile_decision", lambda s: compiles.append(s) or real(s))
    fresh = {**schema, "title": "fresh"}
    for _ in range(3):
        assert validate_tool_input(fresh, value) == compile_schema(fresh).problems(value)
    assert len(compiles) == 1 + 3  # the cache once, and each direct compile_schema


# ---------------------------------------------------------------------------------------------
# Compiled once per tool


def read_n(state: Any, tool_input: dict[str, Any]) -> Any:
    return tool_input["n"]


def test_a_tool_compiles_its_validator_once_and_rebinding_compiles_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    compiles: list[Any] = []
    real = compiled_module.compile_decision
    monkeypatch.setattr(compiled_module, "compile_decision", lambda s: compiles.append(s) or real(s))
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}}
    tool = define_tool(name="t", description="T.", input_schema=schema, run=read_n)
    assert compiles == []  # nothing at definition
    for state in range(5):  # a reset binds the tools again on a fresh world
        [bound] = bind_tools({"n": state}, [tool])
        assert bound.execute({"n": 4})["isError"] is True
        assert bound.execute({"n": 2}) == {"output": 2}
    assert len(compiles) == 1
    copy = pickle.loads(pickle.dumps(tool))  # the compiled validator is rebuilt after unpickling
    assert len(compiles) == 1
    [bound] = bind_tools({}, [copy])
    assert bound.execute({"n": 4})["isError"] is True
    assert len(compiles) == 2


def test_compiled_schema_pickles() -> None:
    compiled = compile_schema({"type": "object", "allOf": [{"required": ["b"]}]})
    copy = pickle.loads(pickle.dumps(compiled))
    assert isinstance(copy, CompiledSchema)
    assert copy.problems({}) == compiled.problems({}) == ['"b" is required']


def _bound_tools() -> list[tuple[str, Any]]:
    """Every tool of the demo and the test environments."""
    found = []
    for root in (REPO / "environments", REPO / "tests" / "envs"):
        for env_dir in sorted(p for p in root.iterdir() if (p / "__init__.py").exists()):
            env = open_environment_at(env_dir.name, env_dir)
            for tool in env.module.bind_tools(env.module.create_state()):
                found.append((f"{env_dir.name}/{tool.name}", tool))
    return found


def test_every_shipped_tool_schema_compiles() -> None:
    tools = _bound_tools()
    assert len(tools) > 40
    for label, tool in tools:
        assert tool.source.validator.schema_error is None, label
        assert tool.source.validator.validator is not None, label


# ---------------------------------------------------------------------------------------------
# Where the library follows the JSON Schema specification and jsonschema follows Python


def test_patterns_are_ecma_262() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[A-Z]{3}-\\d{3}$"}}}
    assert problems(schema, {"id": "ACC-001"}) == []
    # Python's $ also matches before a final newline, and its \d matches any Unicode digit.
    assert jsonschema.Draft202012Validator(schema).is_valid({"id": "ACC-001\n"})
    assert problems(schema, {"id": "ACC-001\n"}) == ['"id" must match the pattern ^[A-Z]{3}-\\d{3}$']
    assert jsonschema.Draft202012Validator(schema).is_valid({"id": "ACC-١٢٣"})
    assert problems(schema, {"id": "ACC-١٢٣"}) == ['"id" must match the pattern ^[A-Z]{3}-\\d{3}$']


def test_multiple_of_a_decimal_fraction() -> None:
    schema = {"type": "object", "properties": {"amount": {"type": "number", "multipleOf": 0.01}}}
    assert not jsonschema.Draft202012Validator(schema).is_valid({"amount": 19.99})  # 19.99 / 0.01 = 1998.999…
    assert problems(schema, {"amount": 19.99}) == []
    assert problems(schema, {"amount": 19.991}) == ['"amount" must be a multiple of 0.01']


# ---------------------------------------------------------------------------------------------
# problems never raises

DEMO_LIKE = [
    {
        "type": "object",
        "properties": {
            "ownerId": {"type": "string"},
            "tier": {"type": "string", "enum": ["enterprise", "smb"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 500},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}},
        },
        "required": ["ownerId"],
        "additionalProperties": False,
    },
    {"type": "object", "allOf": [{"properties": {"limit": {"multipleOf": 5}}}], "unevaluatedProperties": {"type": "string"}},
    {"type": "object", "properties": {"o": {"$ref": "#/$defs/o"}}, "$defs": {"o": {"type": "object", "required": ["k"]}}},
]
DEMO_LIKE_COMPILED = [compile_schema(s) for s in DEMO_LIKE]
odd_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["\ud800", b"x", {1, 2}, complex(1, 2), Color.RED, Size.S, Name.A, (1, "a")]),
)
odd_values = st.recursive(
    odd_scalars,
    lambda ch: st.lists(ch, max_size=3)
    | st.dictionaries(st.sampled_from(["ownerId", "tier", "limit", "tags", "o", "k", 1, "\udc00"]), ch, max_size=4),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=odd_values, index=st.integers(0, len(DEMO_LIKE_COMPILED) - 1))
def test_problems_never_raises(value: Any, index: int) -> None:
    result = DEMO_LIKE_COMPILED[index].problems(value)
    assert isinstance(result, list)
    assert all(isinstance(p, str) and p.startswith('"') for p in result)
    assert not any("could not be validated" in p for p in result)
