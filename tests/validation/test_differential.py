"""The schema decision equals jsonschema's (silo-format §3.3, "Beyond the reference").

Over generated draft 2020-12 schemas and instances, an input is accepted exactly when

- a reference Silo pass written here from the spec's text reports nothing, and
- ``jsonschema.Draft202012Validator`` accepts the input with its null members removed;

and the problems begin with that reference Silo pass's problems, word for word.

The schemas cover ``$ref``/``$defs``, ``allOf``/``anyOf``/``oneOf``/``not``,
``if``/``then``/``else``, ``prefixItems``/``items``, schema-valued ``additionalProperties`` and
``unevaluatedProperties``, type lists, nested ``enum``/``const``, ``dependentRequired``,
``dependentSchemas``, ``patternProperties``, ``propertyNames``, ``contains`` and every assertion
keyword. They leave out the two places where the library follows the JSON Schema specification
where ``jsonschema`` follows Python (ECMA-262 patterns against Python's ``re``, and ``multipleOf``
with a fraction that binary floats cannot hold exactly); ``test_decision.py`` pins those.
"""

from __future__ import annotations

import math
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from silo_gym.validation import compile_schema, text_form_value, type_name

NAMES = ["a", "b", "c", "d"]
TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]
# Patterns whose meaning is the same in ECMA-262 and Python's re for the strings drawn below
# (no newline in them, ASCII classes only).
PATTERNS = ["^a", "b$", "^[0-9]+$", "", "x|y", "^.{2}$", "a+b*", "^[A-Z]", "^[^0-9]*$"]
# Divisors that binary floats hold exactly, so float division is exact for the numbers below.
DIVISORS = [1, 2, 3, 0.5, 0.25, 1.5]

SETTINGS = settings(
    max_examples=1500,
    deadline=None,
    database=None,  # tests write nothing into the repository
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

# ---------------------------------------------------------------------------------------------
# Values

strings = st.sampled_from(["", "a", "ab", "b", "abb", "x", "12", "A1", "é", "ab9", "yy", "a\ud800"]) | st.text(
    alphabet="abxAB09é ", max_size=4
)
numbers = st.sampled_from([0, 1, -1, 2, 3, 5, 7, 0.5, 1.5, 2.5, -0.0, 3.0, 0.1, 1e-7, 2**53, 10**20, -(10**20)])
scalars = st.none() | st.booleans() | numbers | strings | st.integers(-10, 10)
json_values = st.recursive(
    scalars,
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.sampled_from([*NAMES, "x", "B"]), ch, max_size=4),
    max_leaves=12,
)
const_values = st.recursive(
    st.none() | st.booleans() | st.sampled_from([0, 1, 2, 1.0, 0.5, "", "a", "b"]),
    lambda ch: st.lists(ch, max_size=2) | st.dictionaries(st.sampled_from(NAMES), ch, max_size=2),
    max_leaves=4,
)

# ---------------------------------------------------------------------------------------------
# Schemas: each node holds a few keywords, so that generated instances pass often enough.

KEYWORDS = [
    "type", "type_list", "enum", "const", "properties", "required", "additionalProperties",
    "patternProperties", "items", "prefixItems", "contains", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
    "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "dependentRequired",
    "dependentSchemas", "allOf", "anyOf", "oneOf", "not", "if", "ref", "unevaluatedProperties",
    "unevaluatedItems", "propertyNames", "format",
]  # fmt: skip
counts = st.integers(0, 3)


@st.composite
def schema_node(draw: Any, depth: int, refs: tuple[str, ...]) -> Any:
    """One schema: a boolean now and then, else a dict with up to three keywords."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.booleans())
    sub = st.just({}) if depth <= 0 else schema_node(depth - 1, refs)
    node: dict[str, Any] = {}
    for kw in draw(st.lists(st.sampled_from(KEYWORDS), max_size=3, unique=True)):
        if kw == "type":
            node["type"] = draw(st.sampled_from(TYPES))
        elif kw == "type_list":
            node["type"] = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True))
        elif kw == "enum":
            node["enum"] = draw(st.lists(const_values, min_size=1, max_size=3))
        elif kw == "const":
            node["const"] = draw(const_values)
        elif kw == "properties":
            node["properties"] = draw(st.dictionaries(st.sampled_from(NAMES), sub, max_size=3))
        elif kw == "required":
            node["required"] = draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True))
        elif kw in ("additionalProperties", "items", "contains", "not", "unevaluatedProperties", "unevaluatedItems"):
            node[kw] = draw(st.booleans() | sub)
        elif kw == "patternProperties":
            node[kw] = draw(st.dictionaries(st.sampled_from(["^a", "b", "^[cd]$"]), sub, max_size=2))
        elif kw == "prefixItems":
            node[kw] = draw(st.lists(sub, min_size=1, max_size=2))
        elif kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            node[kw] = draw(st.sampled_from([0, 1, 2, -1, 0.5, 2.5, 10**20]))
        elif kw == "multipleOf":
            node[kw] = draw(st.sampled_from(DIVISORS))
        elif kw in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
            node[kw] = draw(counts)
        elif kw == "pattern":
            node[kw] = draw(st.sampled_from(PATTERNS))
        elif kw == "uniqueItems":
            node[kw] = draw(st.booleans())
        elif kw == "dependentRequired":
            node[kw] = draw(
                st.dictionaries(st.sampled_from(NAMES), st.lists(st.sampled_from(NAMES), max_size=2, unique=True), max_size=2)
            )
        elif kw == "dependentSchemas":
            node[kw] = draw(st.dictionaries(st.sampled_from(NAMES), sub, max_size=2))
        elif kw in ("allOf", "anyOf", "oneOf"):
            node[kw] = draw(st.lists(sub, min_size=1, max_size=3))
        elif kw == "if":
            node["if"] = draw(sub)
            for branch in draw(st.lists(st.sampled_from(["then", "else"]), max_size=2, unique=True)):
                node[branch] = draw(sub)
        elif kw == "ref" and refs:
            node["$ref"] = draw(st.sampled_from(refs))
        elif kw == "propertyNames":
            node[kw] = {"pattern": draw(st.sampled_from(["^[a-c]$", "^a", "b"]))}
        elif kw == "format":
            node[kw] = draw(st.sampled_from(["date", "email", "uri"]))
    return node


@st.composite
def root_schemas(draw: Any) -> dict[str, Any]:
    """A tool schema: ``$defs`` (each may refer to earlier ones only, so no reference loops) and a
    root that is often an object with properties, so the Silo pass has work to do too."""
    defs: dict[str, Any] = {}
    for i in range(draw(st.integers(0, 2))):
        defs[f"d{i}"] = draw(schema_node(1, tuple(f"#/$defs/{k}" for k in defs)))
    refs = tuple(f"#/$defs/{k}" for k in defs)
    root = draw(schema_node(2, refs))
    if not isinstance(root, dict) or draw(st.booleans()):
        root = {
            **(root if isinstance(root, dict) else {}),
            "type": "object",
            "properties": draw(st.dictionaries(st.sampled_from(NAMES), schema_node(2, refs), max_size=3)),
        }
        if draw(st.booleans()):
            root["required"] = draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True))
        if draw(st.integers(0, 3)) == 0:
            root["additionalProperties"] = False
    if defs:
        root["$defs"] = defs
    return root


instances = st.dictionaries(st.sampled_from([*NAMES, "x"]), json_values, max_size=4) | json_values

# ---------------------------------------------------------------------------------------------
# The oracle


def strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def _matches(value: Any, t: str) -> bool:
    is_num = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return {
        "integer": is_num and float(value).is_integer(),
        "number": is_num,
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "null": value is None,
    }.get(t, type_name(value) == t)


def _strict_equal(a: Any, b: Any) -> bool:
    """JavaScript ``===`` (silo-format §14.2): containers are never equal to a JSON input."""
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return bool(a == b)  # numbers: 1 === 1.0, NaN equals nothing


def reference_silo_pass(schema: Any, value: Any) -> list[str]:
    """The Silo pass as silo-format §3.3 writes it, interpreted step by step."""
    out: list[str] = []
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return out

    def q(path: str, name: str) -> str:
        return name if path == "" else f"{path}.{name}"

    def check_object(obj: Any, sch: dict[str, Any], path: str) -> None:
        if not isinstance(obj, dict):
            return
        props = sch.get("properties") if isinstance(sch.get("properties"), dict) else {}
        for name in sch.get("required", []):
            if obj.get(name) is None:
                out.append(f'"{q(path, name)}" is required')
        if sch.get("additionalProperties") is False:
            for key in obj:
                if key not in props:
                    tail = f"; expected one of: {', '.join(props)}" if props else ""
                    out.append(f'"{key}" is not a parameter{tail}')
        for name, sub in props.items():
            if obj.get(name) is not None:
                check_value(obj[name], sub, q(path, name))

    def check_value(v: Any, sub: Any, path: str) -> None:
        if not isinstance(sub, dict):
            return
        t = sub.get("type")
        if isinstance(t, str) and not _matches(v, t):
            out.append(f'"{path}" must be {t}, received {type_name(v)}')
            return
        enum = sub.get("enum")
        if isinstance(enum, list) and not any(_strict_equal(v, item) for item in enum):
            out.append(f'"{path}" must be one of: ' + ", ".join(text_form_value(i) for i in enum))
            return
        if t == "array" and isinstance(sub.get("items"), dict):
            for i, x in enumerate(v):
                check_value(x, sub["items"], f"{path}[{i}]")
        if t == "object":
            check_object(v, sub, path)

    check_object(value, schema, "")
    return out


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
@SETTINGS
@given(schema=root_schemas(), value=instances)
def test_decision_equals_jsonschema(schema: dict[str, Any], value: Any) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    compiled = compile_schema(schema)
    assert compiled.schema_error is None, compiled.schema_error
    silo = reference_silo_pass(schema, value)
    library_ok = jsonschema.Draft202012Validator(schema).is_valid(strip_nulls(value))
    problems = compiled.problems(value)
    event("accepted" if not problems else ("rejected by the library only" if not silo else "rejected by the Silo pass"))
    assert (problems == []) == (not silo and library_ok), problems
    assert problems[: len(silo)] == silo
    assert all(isinstance(p, str) and p.startswith('"') for p in problems)
