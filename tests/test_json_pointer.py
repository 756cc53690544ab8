"""silo_gym.json_pointer: the one resolver shared by validation and the spaces (RFC 6901)."""

from __future__ import annotations

from typing import Any

import pytest

from silo_gym.json_pointer import MISSING, resolve, resolve_pointer, resolve_ref
from silo_gym.spaces import ToolCall
from silo_gym.validation import compile_schema

DOC = {"a": [{"b": 1}, {"c/d": 2, "e~f": 3}], "": {"x": 4}, "0": "zero", "$defs": {"m n": {"minimum": 0}}}


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("", DOC),
        ("/a/0/b", 1),
        ("/a/1/c~1d", 2),
        ("/a/1/e~0f", 3),
        ("//x", 4),
        ("/0", "zero"),
        ("/a/01", MISSING),  # no leading zeros
        ("/a/2", MISSING),
        ("/a/-1", MISSING),
        ("/nope", MISSING),
        ("/a/0/b/c", MISSING),
        ("a", MISSING),
    ],
)
def test_resolve_pointer(pointer: str, expected: Any) -> None:
    assert resolve_pointer(DOC, pointer) is expected or resolve_pointer(DOC, pointer) == expected


def test_resolve_takes_keys_and_indices() -> None:
    assert resolve(DOC, ["a", 1, "c/d"]) == 2
    assert resolve(DOC, ["a", "1", "e~f"]) == 3
    assert resolve({"1": "one"}, [1]) == "one"
    assert resolve([1, 2], [True]) is MISSING
    assert not MISSING and repr(MISSING) == "MISSING"
    assert resolve({"a": None}, ["a"]) is None  # null is a value, not MISSING


@pytest.mark.parametrize(
    ("ref", "expected"),
    [("#", DOC), ("#/$defs/m%20n", {"minimum": 0}), ("#/a/1/c~1d", 2), ("other.json#/a", MISSING), ("#anchor", MISSING), (5, MISSING)],
)
def test_resolve_ref(ref: Any, expected: Any) -> None:
    got = resolve_ref(DOC, ref)
    assert got is expected or got == expected


def test_validation_and_sampling_follow_the_same_references() -> None:
    schema = {
        "type": "object",
        "$defs": {"a/b": {"type": "integer", "minimum": 10, "maximum": 12}, "c d": {"enum": ["x", "y"]}},
        "properties": {"n": {"$ref": "#/$defs/a~1b"}, "s": {"$ref": "#/$defs/c%20d"}},
        "required": ["n", "s"],
        "additionalProperties": False,
    }
    compiled = compile_schema(schema)
    assert compiled.problems({"n": 9, "s": "z"}) == ['"n" must be at least 10', '"s" must be one of: x, y']
    space = ToolCall([{"name": "t", "description": "", "inputSchema": schema}], seed=3)
    for _ in range(30):
        call = space.sample()
        assert 10 <= call["input"]["n"] <= 12 and call["input"]["s"] in ("x", "y")
        assert compiled.problems(call["input"]) == []
