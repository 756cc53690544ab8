"""silo_gym.spaces: ToolCall and JsonText (gym-api.md, "Spaces" and "Vectorization")."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import pickle
import re
import subprocess
import sys
from typing import Any

import gymnasium as gym
import jsonschema
import numpy as np
import pytest
from gymnasium.error import CustomSpaceError
from gymnasium.spaces import Tuple
from gymnasium.spaces.utils import flatdim, flatten, flatten_space, unflatten
from gymnasium.vector.utils import (
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from silo_gym.jsonfmt import canonical, dumps_compact, loads_strict
from silo_gym.spaces import JsonText, SharedMemoryUnsupportedError, SpaceNotFlattenableError, ToolCall
from silo_gym.tools import define_tool
from silo_gym.validation import validate_tool_input

# ---------------------------------------------------------------------------------------------
# Schemas


def _obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "required": required or []}
    schema.update(extra)
    schema.setdefault("additionalProperties", False)
    return schema


DEMO_LIKE = _obj(
    {
        "name": {"type": "string", "description": "Opportunity name."},
        "accountId": {"type": "string", "description": "The account, for example ACC-001."},
        "amount": {"type": "number", "description": "Amount in USD.", "minimum": 0},
        "expectedCloseDate": {"type": "string", "description": "Expected close date (YYYY-MM-DD)."},
        "stage": {"type": "string", "enum": ["prospecting", "qualification", "closed_won"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
        "offset": {"type": "integer", "minimum": 0, "default": 0},
        "express": {"type": "boolean", "default": False},
        "actorUserId": {"type": "string", "description": "The acting user."},
    },
    ["name", "accountId", "actorUserId"],
)

NESTED = _obj(
    {
        "address": _obj(
            {
                "city": {"type": "string", "minLength": 1},
                "zip": {"type": "string", "pattern": r"^\d{5}$"},
                "country": {"type": "string", "enum": ["US", "DE", "JP"]},
            },
            ["city", "zip"],
        ),
        "contacts": {
            "type": "array",
            "minItems": 1,
            "maxItems": 3,
            "items": _obj(
                {
                    "email": {"type": "string", "format": "email"},
                    "role": {"type": "string", "enum": ["owner", "viewer"]},
                    "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}},
                },
                ["email"],
            ),
        },
        "meta": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}, "maxItems": 2}},
    },
    ["address"],
)

RANGES = _obj(
    {
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "small": {"type": "integer", "exclusiveMinimum": 5, "exclusiveMaximum": 9},
        "step": {"type": "integer", "minimum": 10, "maximum": 100, "multipleOf": 5},
        "quarter": {"type": "number", "minimum": 0, "maximum": 10, "multipleOf": 0.25},
        "negative": {"type": "number", "minimum": -3.5, "maximum": -1.25},
        "fixed": {"type": "integer", "minimum": 7, "maximum": 7},
        "big": {"type": "integer", "minimum": 10**15},
        "upper": {"type": "number", "maximum": -1000},
        "float_excl": {"type": "number", "exclusiveMinimum": 2.5},
    },
    ["ratio", "small", "step", "quarter", "negative", "fixed"],
)

STRINGS = _obj(
    {
        "code": {"type": "string", "minLength": 3, "maxLength": 5},
        "long": {"type": "string", "minLength": 20},
        "empty": {"type": "string", "maxLength": 0},
        "kind": {"const": "fixed-kind"},
        "day": {"type": "string", "format": "date"},
        "uuid": {"type": "string", "format": "uuid"},
        "mixed": {"enum": [1, "two", None, True, {"k": [1]}]},
        "nullable": {"type": ["string", "null"], "maxLength": 3},
        "either": {"type": ["integer", "boolean"]},
        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}(-[a-z]+)?$"},
        "anything": {},
    },
    ["code", "kind", "nullable", "either", "sku"],
)

ARRAYS = _obj(
    {
        "picks": {"type": "array", "items": {"type": "integer", "enum": [1, 2, 3]}, "uniqueItems": True,
                  "minItems": 2, "maxItems": 3},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False,
                 "minItems": 2},
        "free": {"type": "array", "minItems": 2, "maxItems": 2},
        "has_big": {"type": "array", "items": {"type": "integer"}, "contains": {"type": "integer", "minimum": 1000}},
        "bools": {"type": "array", "items": {"type": "boolean"}, "maxItems": 0},
    },
    ["picks", "pair", "free"],
)  # fmt: skip

COMBINATORS = {
    "type": "object",
    "$defs": {
        "money": _obj({"amount": {"type": "number", "minimum": 0}, "currency": {"const": "USD"}}, ["amount", "currency"]),
    },
    "properties": {
        "price": {"$ref": "#/$defs/money"},
        "either": {"oneOf": [{"type": "string", "minLength": 2}, {"type": "integer", "minimum": 0}]},
        "any": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
        "both": {"allOf": [{"type": "integer", "minimum": 3}, {"maximum": 6}]},
        "card": {"type": "string"},
        "billing": {"type": "string"},
        "opts": {"type": "object", "minProperties": 2, "maxProperties": 3,
                 "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"},
                                "d": {"type": "integer"}}},
    },
    "required": ["price", "either"],
    "dependentRequired": {"card": ["billing"]},
    "additionalProperties": False,
}  # fmt: skip

NO_PROPS = {"type": "object", "properties": {}, "additionalProperties": False}
BARE_OBJECT = {"type": "object"}
NOT_A_DICT_SCHEMA = None

SCHEMAS: dict[str, Any] = {
    "demo_like": DEMO_LIKE,
    "nested": NESTED,
    "ranges": RANGES,
    "strings": STRINGS,
    "arrays": ARRAYS,
    "combinators": COMBINATORS,
    "no_props": NO_PROPS,
    "bare_object": BARE_OBJECT,
    "not_a_dict": NOT_A_DICT_SCHEMA,
}


def _tools(schemas: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": n, "description": f"The {n} tool.", "inputSchema": s} for n, s in schemas.items()]


TOOLS = _tools(SCHEMAS)

# ---------------------------------------------------------------------------------------------
# Full validity: the Silo pass plus the whole JSON Schema (formats included).


def _strip_none(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _strip_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip_none(x) for x in v]
    return v


_FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


def problems(schema: Any, value: Any) -> list[str]:
    """Every reason ``value`` is not a valid input for ``schema`` (empty when it is)."""
    out = list(validate_tool_input(schema, value))
    if not isinstance(value, dict):
        out.append(f"input is {type(value).__name__}, not a dict")
    if isinstance(schema, dict):
        validator = jsonschema.Draft202012Validator(schema, format_checker=_FORMATS)
        out += [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(_strip_none(value))]
    return out


# ---------------------------------------------------------------------------------------------
# ToolCall.contains


ACCEPT = [
    {"tool": "demo_like"},
    {"tool": "demo_like", "input": {}},
    {"tool": "demo_like", "input": None},
    {"tool": "no_props", "input": {"bad": "args are still a legal action"}},
    {"tool": "nested", "input": {"address": 5}},
    {"answer": None},
    {"answer": ""},
    {"answer": "done"},
    {"answer": 3.5},
    {"answer": {"a": [1, 2, {"b": None}], "c": True}},
    {"answer": [1, "x", None]},
]

REJECT = [
    '{"tool": "demo_like", "input": {}}',  # strings are not members
    '{"answer": 1}',
    None,
    42,
    [{"tool": "demo_like"}],
    {},
    {"tool": "unknown_tool"},
    {"tool": "unknown_tool", "input": {}},
    {"tool": 5},
    {"tool": ["demo_like"]},
    {"tool": None},
    {"tool": "demo_like", "input": []},
    {"tool": "demo_like", "input": "{}"},
    {"tool": "demo_like", "input": 3},
    {"tool": "demo_like", "input": {}, "extra": 1},
    {"tool": "demo_like", "answer": "x"},
    {"answer": "x", "input": {}},
    {"answer": "x", "extra": 1},
    {"answer": {1, 2}},
    {"answer": {"ok": [1, {2, 3}]}},
    {"answer": {1: "non-string key"}},
    {"answer": b"bytes"},
    {"input": {}},
]


@pytest.mark.parametrize("x", ACCEPT, ids=[repr(x)[:40] for x in ACCEPT])
def test_contains_accepts(x: Any) -> None:
    space = ToolCall(TOOLS)
    assert space.contains(x) is True
    assert x in space


@pytest.mark.parametrize("x", REJECT, ids=[repr(x)[:40] for x in REJECT])
def test_contains_rejects(x: Any) -> None:
    space = ToolCall(TOOLS)
    assert space.contains(x) is False
    assert x not in space


def test_contains_without_tools_accepts_only_answers() -> None:
    space = ToolCall([])
    assert {"answer": ""} in space
    assert {"answer": None} in space
    assert {"tool": "demo_like"} not in space
    assert space.sample() == {"answer": ""}
    assert space.sample() in space


# ---------------------------------------------------------------------------------------------
# ToolCall.sample


def test_samples_are_valid_over_many_seeds() -> None:
    seen_tools: set[str] = set()
    for seed in range(600):
        space = ToolCall(TOOLS, seed=seed)
        for _ in range(3):
            action = space.sample()
            assert set(action) == {"tool", "input"}
            assert action in space
            name = action["tool"]
            seen_tools.add(name)
            found = problems(SCHEMAS[name], action["input"])
            assert found == [], (seed, name, action["input"], found)
            # The input is JSON: it survives a compact round trip unchanged.
            assert loads_strict(dumps_compact(action["input"])) == action["input"]
    assert seen_tools == set(SCHEMAS)


def _inputs_of(name: str, n: int = 400) -> list[dict[str, Any]]:
    space = ToolCall([{"name": name, "description": "", "inputSchema": SCHEMAS[name]}], seed=123)
    return [space.sample()["input"] for _ in range(n)]


def test_samples_cover_required_optional_and_enums() -> None:
    inputs = _inputs_of("demo_like")
    for inp in inputs:
        assert {"name", "accountId", "actorUserId"} <= inp.keys()
        assert all(inp[k] is not None for k in ("name", "accountId", "actorUserId"))
        assert inp.keys() <= DEMO_LIKE["properties"].keys()
    for optional in ("amount", "expectedCloseDate", "stage", "limit", "offset", "express"):
        share = sum(optional in inp for inp in inputs) / len(inputs)
        assert 0.3 < share < 0.7, (optional, share)
    assert {inp["stage"] for inp in inputs if "stage" in inp} == {
        "prospecting",
        "qualification",
        "closed_won",
    }
    limits = [inp["limit"] for inp in inputs if "limit" in inp]
    assert min(limits) == 1 and max(limits) == 500
    assert all(isinstance(x, int) and not isinstance(x, bool) for x in limits)
    assert {inp["express"] for inp in inputs if "express" in inp} == {True, False}


def test_samples_respect_ranges_exactly() -> None:
    inputs = _inputs_of("ranges")
    for inp in inputs:
        assert 0 < inp["ratio"] < 1
        assert inp["small"] in (6, 7, 8)
        assert inp["step"] % 5 == 0 and 10 <= inp["step"] <= 100
        assert (inp["quarter"] * 4) == int(inp["quarter"] * 4) and 0 <= inp["quarter"] <= 10
        assert -3.5 <= inp["negative"] <= -1.25
        assert inp["fixed"] == 7
        if "big" in inp:
            assert inp["big"] >= 10**15 and isinstance(inp["big"], int)
        if "upper" in inp:
            assert inp["upper"] <= -1000
        if "float_excl" in inp:
            assert inp["float_excl"] > 2.5
    assert {inp["small"] for inp in inputs} == {6, 7, 8}


def test_samples_respect_string_rules() -> None:
    inputs = _inputs_of("strings")
    for inp in inputs:
        assert 3 <= len(inp["code"]) <= 5
        assert inp["kind"] == "fixed-kind"
        assert inp["nullable"] is not None and len(inp["nullable"]) <= 3  # required: never null
        assert type(inp["either"]) in (int, bool)
        assert re.fullmatch(r"[A-Z]{3}-[0-9]{4}(-[a-z]+)?", inp["sku"])
        if "long" in inp:
            assert len(inp["long"]) >= 20
        if "empty" in inp:
            assert inp["empty"] == ""
        if "day" in inp:
            dt.date.fromisoformat(inp["day"])
    mixed = {canonical(inp["mixed"]) for inp in inputs if "mixed" in inp}
    # Every scalar member is drawn, None included. The object member never is: Silo's enum check
    # is JavaScript ``===`` (silo-format §14.2), under which no input equals an object.
    assert mixed == {b"1", b'"two"', b"null", b"true"}


def test_samples_respect_array_rules() -> None:
    for inp in _inputs_of("arrays"):
        assert len(inp["picks"]) == len(set(inp["picks"])) and 2 <= len(inp["picks"]) <= 3
        assert set(inp["picks"]) <= {1, 2, 3}
        assert len(inp["pair"]) == 2 and isinstance(inp["pair"][0], str) and isinstance(inp["pair"][1], int)
        assert len(inp["free"]) == 2
        if "has_big" in inp:
            assert any(x >= 1000 for x in inp["has_big"])
        if "bools" in inp:
            assert inp["bools"] == []


def test_samples_follow_nested_objects_and_never_add_keys() -> None:
    inputs = _inputs_of("nested")
    for inp in inputs:
        address = inp["address"]
        assert {"city", "zip"} <= address.keys() <= {"city", "zip", "country"}
        assert re.fullmatch(r"\d{5}", address["zip"])
        for contact in inp.get("contacts", []):
            assert "@" in contact["email"]
            assert contact.keys() <= {"email", "role", "tags"}
        for v in inp.get("meta", {}).values():
            assert isinstance(v, int) and v >= 0
    assert any(inp.get("meta") for inp in inputs)  # free-form nested objects get some keys
    assert all(_inputs_of("no_props", 50)[i] == {} for i in range(50))
    assert all(x == {} for x in _inputs_of("bare_object", 50))  # a tool's input gets no invented keys
    assert all(x == {} for x in _inputs_of("not_a_dict", 20))


def test_samples_look_plausible() -> None:
    inputs = _inputs_of("demo_like")
    dates = [inp["expectedCloseDate"] for inp in inputs if "expectedCloseDate" in inp]
    assert dates and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for d in dates)
    for d in dates:
        dt.date.fromisoformat(d)  # real calendar dates
    account_ids = [inp["accountId"] for inp in inputs]
    assert all(re.fullmatch(r"ACC-\d{3}", a) for a in account_ids)  # follows the example in the description
    assert all(isinstance(inp["name"], str) for inp in inputs)
    # Some plain words, so a random policy sometimes hits a real name or note.
    assert any(" " in inp["name"] or inp["name"].isalpha() for inp in inputs)


def test_combinators_refs_and_dependencies() -> None:
    inputs = _inputs_of("combinators")
    for inp in inputs:
        assert inp["price"]["currency"] == "USD" and inp["price"]["amount"] >= 0
        if "card" in inp:
            assert "billing" in inp
        if "both" in inp:
            assert 3 <= inp["both"] <= 6
        if "opts" in inp:
            assert 2 <= len(inp["opts"]) <= 3
    assert {type(inp["either"]) for inp in inputs} == {str, int}


def test_duplicate_names_sample_from_the_tool_that_wins_dispatch() -> None:
    first = _obj({"x": {"type": "string"}}, ["x"])
    later = _obj({"y": {"type": "integer", "minimum": 0}}, ["y"])
    tools = [
        {"name": "dup", "description": "", "inputSchema": first},
        {"name": "other", "description": "", "inputSchema": NO_PROPS},
        {"name": "dup", "description": "", "inputSchema": later},
    ]
    space = ToolCall(tools, seed=5)
    assert space.tool_names == ("dup", "other", "dup")
    names = []
    for _ in range(300):
        action = space.sample()
        names.append(action["tool"])
        if action["tool"] == "dup":
            assert problems(later, action["input"]) == []
    share = names.count("dup") / len(names)
    assert 0.35 < share < 0.65  # uniform over distinct names, not over list entries


def test_sample_mask_and_probability() -> None:
    tools = _tools({"a": NO_PROPS, "b": NO_PROPS, "c": NO_PROPS})
    space = ToolCall(tools, seed=0)
    assert {space.sample(mask=np.array([0, 1, 0], dtype=np.int8))["tool"] for _ in range(30)} == {"b"}
    assert {space.sample(mask=[1, 0, 1])["tool"] for _ in range(60)} == {"a", "c"}
    assert {space.sample(probability=np.array([0.0, 0.0, 1.0]))["tool"] for _ in range(30)} == {"c"}
    with pytest.raises(ValueError, match="allows no tool"):
        space.sample(mask=[0, 0, 0])
    with pytest.raises(ValueError, match="shape"):
        space.sample(mask=[1, 0])
    with pytest.raises(ValueError, match="not both"):
        space.sample(mask=[1, 1, 1], probability=[0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="sum to 1"):
        space.sample(probability=[0.5, 0.5, 0.5])


def test_sample_is_reproducible() -> None:
    def run(seed: int) -> list[bytes]:
        space = ToolCall(TOOLS, seed=seed)
        return [canonical(space.sample()) for _ in range(50)]

    assert run(7) == run(7)
    assert run(7) != run(8)
    space = ToolCall(TOOLS)
    space.seed(7)
    assert [canonical(space.sample()) for _ in range(50)] == run(7)


_SUBPROCESS = """
import json, sys
from silo_gym.jsonfmt import canonical
from silo_gym.spaces import ToolCall
space = ToolCall(json.loads(sys.argv[1]), seed=11)
sys.stdout.write(b"".join(canonical(space.sample()) for _ in range(200)).decode())
"""


def test_sample_is_reproducible_across_processes() -> None:
    """Samples never depend on string hashing (PYTHONHASHSEED), so workers agree."""
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        cmd = [sys.executable, "-c", _SUBPROCESS, json.dumps(TOOLS)]
        outs.append(subprocess.run(cmd, env=env, capture_output=True, check=True).stdout)
    here = ToolCall(TOOLS, seed=11)
    assert outs[0].decode() == b"".join(canonical(here.sample()) for _ in range(200)).decode()
    assert outs[0] == outs[1]
    assert len(outs[0]) > 1000


# Randomly generated (satisfiable) schemas: the sampler must produce valid inputs for all of them.

_leaf = st.one_of(
    st.builds(lambda: {"type": "boolean"}),
    st.builds(lambda: {"type": "null"}),
    st.tuples(st.integers(-1000, 1000), st.integers(0, 50), st.booleans(), st.booleans()).map(
        lambda t: {
            "type": "integer",
            **({"minimum": t[0]} if t[2] else {"exclusiveMinimum": t[0]}),
            **({"maximum": t[0] + t[1] + 2} if t[3] else {}),
        }
    ),
    st.tuples(st.floats(-1e6, 1e6), st.floats(0.001, 1e4), st.booleans()).map(
        lambda t: {
            "type": "number",
            **({"exclusiveMinimum": t[0], "exclusiveMaximum": t[0] + t[1]} if t[2] else {"minimum": t[0]}),
        }
    ),
    st.tuples(st.integers(0, 12), st.integers(0, 12)).map(
        lambda t: {"type": "string", "minLength": t[0], "maxLength": t[0] + t[1]}
    ),
    st.lists(st.one_of(st.integers(), st.text(max_size=5), st.booleans()), min_size=1, max_size=5).map(
        lambda items: {"enum": items}
    ),
    st.sampled_from(
        [
            {"type": "string", "format": "date"},
            {"type": "string", "pattern": "^[a-f0-9]{8}$"},
            {"type": ["number", "string", "null"]},
            {"type": "integer", "multipleOf": 3, "minimum": -20, "maximum": 20},
            {},
        ]
    ),
)


def _requirable(props: dict[str, Any]) -> list[str]:
    """Every other property, skipping null-only ones (Silo reads a null as absent)."""
    return [k for k in list(props)[::2] if props[k] != {"type": "null"}]


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    props = st.dictionaries(st.from_regex(r"[a-zA-Z][a-zA-Z0-9_]{0,8}", fullmatch=True), children, max_size=5)
    objects = props.map(lambda p: _obj(p, _requirable(p)))
    arrays = st.tuples(children, st.integers(0, 3), st.integers(0, 3)).map(
        lambda t: {"type": "array", "items": t[0], "minItems": t[1], "maxItems": t[1] + t[2]}
    )
    return st.one_of(objects, arrays)


_schemas = st.recursive(_leaf, _extend, max_leaves=12)
_tool_schemas = st.dictionaries(
    st.from_regex(r"[a-z][a-zA-Z]{0,10}", fullmatch=True), _schemas, min_size=0, max_size=6
).map(lambda props: _obj(props, _requirable(props)))


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_tool_schemas, seed=st.integers(0, 2**32 - 1))
def test_samples_are_valid_for_generated_schemas(schema: dict[str, Any], seed: int) -> None:
    space = ToolCall([{"name": "t", "description": "", "inputSchema": schema}], seed=seed)
    for _ in range(5):
        action = space.sample()
        assert action in space
        assert problems(schema, action["input"]) == [], (schema, action)


# ---------------------------------------------------------------------------------------------
# ToolCall: equality, hashing, pickling, repr, JSON


def test_equality_by_value_ignores_rng_and_descriptions() -> None:
    a = ToolCall(TOOLS, seed=1)
    b = ToolCall(copy.deepcopy(TOOLS), seed=2)
    a.sample()
    assert a == b and hash(a) == hash(b)
    renamed = [{**t, "description": "other words"} for t in TOOLS]
    assert ToolCall(renamed) == a
    assert ToolCall(TOOLS[::-1]) != a
    assert ToolCall(TOOLS[:-1]) != a
    changed = copy.deepcopy(TOOLS)
    changed[0]["inputSchema"]["properties"]["limit"]["maximum"] = 501
    assert ToolCall(changed) != a
    assert ToolCall([]) == ToolCall([])
    assert a != JsonText()
    assert a != "ToolCall"
    assert len({a, b, ToolCall(TOOLS[:1])}) == 2


def test_space_keeps_its_own_copy_of_the_tools() -> None:
    tools = copy.deepcopy(TOOLS)
    space = ToolCall(tools)
    before = hash(space)
    tools[0]["inputSchema"]["properties"].clear()
    tools[0]["name"] = "renamed"
    assert space == ToolCall(TOOLS) and hash(space) == before
    assert space.tools == [{"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}
                           for t in TOOLS]  # fmt: skip
    space.tools[0]["name"] = "mutated copy"
    assert space.tool_names[0] == "demo_like"


def test_pickle_round_trip() -> None:
    space = ToolCall(TOOLS, seed=3)
    space.sample()  # builds the validators and the comparison key
    clone = pickle.loads(pickle.dumps(space))
    assert type(clone) is ToolCall
    assert clone == space and hash(clone) == hash(space)
    assert clone.tool_names == space.tool_names
    # The RNG state travels with the space (as in Gymnasium's own spaces); validators are rebuilt.
    assert [clone.sample() for _ in range(20)] == [space.sample() for _ in range(20)]
    assert clone.dtype is None and clone.shape is None
    state = clone.__getstate__()
    assert set(state) == {"_tools", "_shape", "dtype", "_np_random"}


def test_pickles_when_built_from_runtime_tools_with_callables() -> None:
    tool = define_tool(
        name="echo",
        description="Echo.",
        input_schema=_obj({"text": {"type": "string"}}, ["text"]),
        run=lambda state, inp: inp,
    )
    space = ToolCall([tool], seed=0)
    clone = pickle.loads(pickle.dumps(space))  # the lambda is not kept
    assert clone == ToolCall([{"name": "echo", "description": "Echo.", "inputSchema": tool.input_schema}])
    assert clone.sample()["tool"] == "echo"


def test_repr_names_and_jsonable() -> None:
    space = ToolCall(_tools({"a": NO_PROPS, "b": NO_PROPS}))
    assert repr(space) == "ToolCall(tools=['a', 'b'])"
    assert space.tool_names == ("a", "b")
    assert space.dtype is None and space.shape is None and space.is_np_flattenable is False
    samples = [{"tool": "a", "input": {"x": [1]}}, {"answer": {"k": "v"}}]
    out = space.to_jsonable(samples)
    assert out == samples and out[0] is not samples[0] and out[0]["input"] is not samples[0]["input"]
    assert json.loads(json.dumps(out)) == samples
    back = space.from_jsonable(out)
    assert back == samples and all(x in space for x in back)


def test_rejects_tools_without_a_string_name() -> None:
    with pytest.raises(TypeError, match="name"):
        ToolCall([{"description": "", "inputSchema": NO_PROPS}])


# ---------------------------------------------------------------------------------------------
# JsonText


def test_json_text_contains() -> None:
    space = JsonText(max_length=10)
    assert "" in space
    assert "a" * 10 in space
    assert "日本語" * 3 in space  # counted in characters, not bytes
    assert "not json at all" not in space  # too long
    assert "not json" in space  # never parses
    assert "a" * 11 not in space
    for x in (None, 5, b"{}", ["{}"], {"output": 1}):
        assert x not in space
    assert "x" * 1_048_576 in JsonText()
    assert "x" * 1_048_577 not in JsonText()


def test_json_text_sample() -> None:
    space = JsonText(seed=0)
    samples = [space.sample() for _ in range(300)]
    for text in samples:
        assert text in space
        value = loads_strict(text)
        assert isinstance(value, dict)
        assert dumps_compact(value) == text  # compact form, one canonical writer
    assert len(set(samples)) > 100
    small = JsonText(max_length=12, seed=1)
    for _ in range(200):
        text = small.sample()
        assert len(text) <= 12 and isinstance(loads_strict(text), dict)
    assert JsonText(max_length=1).sample() == ""
    assert [JsonText(seed=4).sample() for _ in range(3)] == [JsonText(seed=4).sample() for _ in range(3)]
    s1, s2 = JsonText(seed=4), JsonText(seed=5)
    assert [s1.sample() for _ in range(10)] != [s2.sample() for _ in range(10)]
    with pytest.raises(ValueError, match="mask"):
        space.sample(mask=np.ones(3, dtype=np.int8))


def test_json_text_equality_pickle_and_repr() -> None:
    a, b = JsonText(seed=1), JsonText(1_048_576, seed=99)
    a.sample()
    assert a == b and hash(a) == hash(b)
    assert JsonText(10) != JsonText(11)
    assert a != ToolCall([])
    clone = pickle.loads(pickle.dumps(a))
    assert clone == a and clone.max_length == 1_048_576 and hash(clone) == hash(a)
    assert repr(JsonText(100)) == "JsonText(max_length=100)"
    assert a.dtype is None and a.shape is None and a.is_np_flattenable is False
    assert a.to_jsonable(["{}", "x"]) == ["{}", "x"] and a.from_jsonable(["{}"]) == ["{}"]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10", None])
def test_json_text_rejects_bad_max_length(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_length"):
        JsonText(max_length=bad)


# ---------------------------------------------------------------------------------------------
# Flattening and shared memory raise clear errors

SPACES = [ToolCall(TOOLS), JsonText()]


@pytest.mark.parametrize("space", SPACES, ids=["ToolCall", "JsonText"])
def test_flatten_functions_raise_clear_errors(space: Any) -> None:
    expected = "cannot be flattened to a numpy array"
    calls = [
        lambda: flatdim(space),
        lambda: flatten(space, space.sample()),
        lambda: unflatten(space, np.zeros(4)),
        lambda: flatten_space(space),
    ]
    for call in calls:
        with pytest.raises(SpaceNotFlattenableError, match=expected) as info:
            call()
        assert isinstance(info.value, ValueError) and isinstance(info.value, NotImplementedError)
        assert type(space).__name__ in str(info.value)
        assert "instead" in str(info.value)
    if isinstance(space, ToolCall):
        with pytest.raises(ValueError, match="JSON tool calls"):
            flatdim(space)
    else:
        with pytest.raises(ValueError, match="JSON text"):
            flatdim(space)


@pytest.mark.parametrize("space", SPACES, ids=["ToolCall", "JsonText"])
def test_shared_memory_raises_with_the_fix(space: Any) -> None:
    calls = [
        lambda: create_shared_memory(space, n=2),
        lambda: read_from_shared_memory(space, None, n=2),
        lambda: write_to_shared_memory(space, 0, space.sample(), None),
    ]
    for call in calls:
        with pytest.raises(SharedMemoryUnsupportedError) as info:
            call()
        assert 'vector_kwargs={"shared_memory": False}' in str(info.value)
        assert isinstance(info.value, CustomSpaceError) and isinstance(info.value, ValueError)


class _TextEnv(gym.Env[str, dict[str, Any]]):
    """A minimal env with the two spaces: echoes each action as JSON text."""

    metadata = {"render_modes": []}

    def __init__(self) -> None:
        self.observation_space = JsonText(max_length=4096)
        self.action_space = ToolCall(_tools({"ping": NO_PROPS, "demo_like": DEMO_LIKE}))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        return "Do the task.", {}

    def step(self, action: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        assert action in self.action_space
        done = "answer" in action
        return dumps_compact({"output": action}), float(done), done, False, {}


def test_flatten_observation_wrapper_fails_clearly() -> None:
    with pytest.raises(ValueError, match="cannot be flattened to a numpy array"):
        gym.wrappers.FlattenObservation(_TextEnv())


def test_async_vector_env_with_shared_memory_says_what_to_do() -> None:
    with pytest.raises(ValueError, match="shared_memory=False") as info:
        gym.vector.AsyncVectorEnv([_TextEnv, _TextEnv], shared_memory=True)
    assert isinstance(info.value.__cause__, SharedMemoryUnsupportedError)
    assert 'vector_kwargs={"shared_memory": False}' in str(info.value.__cause__)


# ---------------------------------------------------------------------------------------------
# Batching


def test_batch_space_json_text() -> None:
    single = JsonText(seed=0)
    batched = batch_space(single, 3)
    assert isinstance(batched, Tuple) and len(batched) == 3
    assert all(sub == single for sub in batched.spaces)
    obs = batched.sample()
    assert isinstance(obs, tuple) and len(obs) == 3 and all(isinstance(o, str) for o in obs)
    assert obs in batched
    assert ("{}", "{}", "x" * 10) in batched
    assert ("{}", "{}", 3) not in batched
    assert ("{}", "{}") not in batched
    out = create_empty_array(single, n=3)
    assert out is None
    assert concatenate(single, ["a", "b", "c"], out) == ("a", "b", "c")
    assert list(iterate(batched, ("a", "b", "c"))) == ["a", "b", "c"]


def test_batch_space_tool_call() -> None:
    single = ToolCall(TOOLS, seed=0)
    batched = batch_space(single, 3)
    assert isinstance(batched, Tuple) and len(batched) == 3
    assert all(sub == single and sub is not single for sub in batched.spaces)
    actions = batched.sample()
    assert isinstance(actions, tuple) and len(actions) == 3
    assert all(isinstance(a, dict) and a in single for a in actions)
    assert actions in batched
    assert ({"answer": 1}, {"tool": "no_props"}, {"answer": None}) in batched
    assert ({"answer": 1}, {"tool": "nope"}, {"answer": None}) not in batched
    for a in actions:
        assert problems(SCHEMAS[a["tool"]], a["input"]) == []
    batched.seed(9)
    first = batched.sample()
    batched.seed(9)
    assert batched.sample() == first
    assert concatenate(single, list(actions), create_empty_array(single, n=3)) == actions
    assert list(iterate(batched, list(actions))) == list(actions)


def test_sync_vector_env_gives_tuples_of_str() -> None:
    envs = gym.vector.SyncVectorEnv([_TextEnv, _TextEnv, _TextEnv])
    try:
        obs, _ = envs.reset(seed=0)
        assert obs == ("Do the task.",) * 3
        assert envs.single_observation_space == JsonText(4096)
        actions = [{"tool": "ping", "input": {}}, {"answer": "x"}, {"tool": "ping"}]
        obs, rewards, terminated, truncated, _ = envs.step(actions)
        assert isinstance(obs, tuple) and all(isinstance(o, str) for o in obs)
        assert obs[1] == '{"output":{"answer":"x"}}'
        assert obs in envs.observation_space
        assert list(terminated) == [False, True, False]
        sampled = envs.action_space.sample()
        assert len(sampled) == 3 and all(a in envs.single_action_space for a in sampled)
    finally:
        envs.close()


def test_async_vector_env_without_shared_memory() -> None:
    envs = gym.vector.AsyncVectorEnv([_TextEnv, _TextEnv], shared_memory=False, context="fork")
    try:
        obs, _ = envs.reset(seed=0)
        assert obs == ("Do the task.", "Do the task.")
        obs, *_ = envs.step([{"tool": "ping"}, {"answer": [1, 2]}])
        assert obs == ('{"output":{"tool":"ping"}}', '{"output":{"answer":[1,2]}}')
    finally:
        envs.close()
