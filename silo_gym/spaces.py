"""Gymnasium spaces for Silo environments: JSON tool calls as actions, JSON text as observations.

gym-api.md, "Spaces":

- :class:`ToolCall` is the action space: a ``gymnasium.Space`` of dicts, either a tool call
  ``{"tool": <name>, "input": {...}}`` (``input`` optional, a dict or ``None``) or a final answer
  ``{"answer": <any JSON value>}``. ``sample()`` draws a call whose ``input`` is valid against the
  tool's ``inputSchema``, so a random policy is a useful baseline and a fuzzer.
- :class:`JsonText` is the observation space: any ``str`` up to ``max_length`` characters.

Neither space can be flattened to a fixed numpy array, and neither can live in the shared memory
of ``AsyncVectorEnv``. Gymnasium's ``flatdim``/``flatten``/``unflatten``/``flatten_space`` and
``create_shared_memory``/``read_from_shared_memory``/``write_to_shared_memory`` are registered for
both spaces and raise a clear error instead of returning silently wrong values. Batching works
through Gymnasium's generic handlers for custom spaces: ``batch_space(space, n)`` is a ``Tuple`` of
``n`` copies, and batched observations are tuples of ``str``.

Choices where the spec is silent (our rules):

- ``ToolCall(tools)`` accepts the agent tool list (dicts with ``name``, ``description``,
  ``inputSchema``) or runtime tool objects with ``name``/``description``/``input_schema``
  attributes. It keeps deep copies of names, descriptions and schemas only.
- Tools sharing a name: the later one wins at dispatch (silo-format §3.2), so ``sample()`` draws
  among the distinct names and fills the input from the schema of the last tool with that name.
- ``sample(mask=..., probability=...)`` takes an optional per-entry mask (0/1) or probability
  vector over the tool list, in list order, like ``Discrete``. An all-zero mask is a
  ``ValueError``.
- Sampled inputs: every required property is filled and never ``None`` (Silo reads ``None`` as
  absent); each optional property with probability 1/2; undeclared keys are never added to a
  tool's input, and to nested objects only when they declare no properties and allow extras.
  Each draw is checked with the tool's compiled validator (:mod:`silo_gym.validation`) and
  redrawn up to 8 times; schemas that cannot be satisfied get a best-effort value. Enum draws
  skip object/array members when the enum has scalars (Silo's ``===`` never matches them).
  Strings follow ``format``, ``pattern`` and hints: a ``YYYY-MM-DD`` date for ``format: date``,
  a description naming the format or a ``...Date`` name; ``ACC-007``-style ids when the
  description shows an example like ``ACC-001``.
- Compiled validators are shared by every ``ToolCall`` in the process (keyed by the schema's
  canonical JSON), so batched copies and vector sub-envs compile each schema once.
- Pickling keeps the space's RNG state (as Gymnasium's own spaces do) but no compiled
  validator or cache; those are rebuilt lazily. Equality and hashing never look at the RNG.
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import importlib
import math
import re
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, TypeGuard

import numpy as np
from gymnasium.error import CustomSpaceError
from gymnasium.spaces import Space
from gymnasium.spaces.utils import flatdim, flatten, flatten_space, unflatten
from gymnasium.vector.utils import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

from .jsonfmt import canonical, dumps_compact, is_json_compatible

__all__ = [
    "JsonText",
    "SharedMemoryUnsupportedError",
    "SpaceNotFlattenableError",
    "ToolCall",
]

_MAX_ATTEMPTS = 8
_OPTIONAL_P = 0.5
_MAX_DEPTH = 8


class SpaceNotFlattenableError(ValueError, NotImplementedError):
    """Raised by Gymnasium's flatten functions for :class:`ToolCall` and :class:`JsonText`.

    It is both a ``ValueError`` (what Gymnasium raises for spaces that cannot be flattened) and a
    ``NotImplementedError`` (what it raises for unknown spaces), so either ``except`` clause works.
    """


class SharedMemoryUnsupportedError(CustomSpaceError, ValueError):
    """Raised by Gymnasium's shared-memory functions for :class:`ToolCall` and :class:`JsonText`.

    A ``CustomSpaceError`` so that ``AsyncVectorEnv`` wraps it in its own ``ValueError`` (this
    error is then the ``__cause__``), and a ``ValueError`` for direct callers.
    """


# ---------------------------------------------------------------------------------------------
# ToolCall


class ToolCall(Space[dict[str, Any]]):
    """The action space of a Silo env: tool calls to the bound tools, and final answers.

    Args:
        tools: the agent tool list ``[{"name", "description", "inputSchema"}, ...]`` in bound
            order (duplicates allowed), or runtime tools with ``name``, ``description`` and
            ``input_schema`` attributes.
        seed: seed for the space's own RNG (``self.np_random``), used by :meth:`sample`.

    ``contains(x)`` is true for ``{"tool": <a listed name>}``,
    ``{"tool": <a listed name>, "input": <dict or None>}`` and ``{"answer": <JSON-compatible>}``,
    with no other keys. It does not check ``input`` against the schema: a call with bad arguments
    is a legal action whose result is an error. Strings are not members (only ``step`` accepts
    them, as a convenience).
    """

    def __init__(self, tools: Iterable[Any] = (), seed: int | np.random.Generator | None = None) -> None:
        entries: list[dict[str, Any]] = []
        for i, tool in enumerate(tools):
            if isinstance(tool, Mapping):
                name = tool.get("name")
                description = tool.get("description", "")
                schema = tool.get("inputSchema", tool.get("input_schema"))
            else:
                name = getattr(tool, "name", None)
                description = getattr(tool, "description", "")
                schema = getattr(tool, "input_schema", getattr(tool, "inputSchema", None))
            if not isinstance(name, str):
                raise TypeError(f"ToolCall: tool {i} has no string 'name' (got {type(name).__name__}).")
            entries.append(
                {
                    "name": name,
                    "description": copy.deepcopy(description),
                    "inputSchema": copy.deepcopy(schema),
                }
            )
        self._tools: tuple[dict[str, Any], ...] = tuple(entries)
        self._init_derived()
        super().__init__(shape=None, dtype=None, seed=seed)

    def share(self) -> ToolCall:
        """A new space over the same tool entries (shared, never copied) with its own RNG.

        Envs over one environment use this to avoid holding a copy of every schema each.
        """
        new = ToolCall.__new__(ToolCall)
        new._tools = self._tools
        new._init_derived()
        Space.__init__(new, shape=None, dtype=None, seed=None)
        return new

    def _init_derived(self) -> None:
        self._names: tuple[str, ...] = tuple(t["name"] for t in self._tools)
        self._name_set: frozenset[str] = frozenset(self._names)
        # name -> index of the tool that wins dispatch (the last one with that name).
        dispatch: dict[str, int] = {}
        for i, name in enumerate(self._names):
            dispatch[name] = i
        self._dispatch = dispatch
        # Distinct names in first-appearance order: what sample() chooses among.
        self._distinct: tuple[str, ...] = tuple(dict.fromkeys(self._names))
        self._key_cache: tuple[Any, ...] | None = None
        self._validators: dict[str, Any] = {}

    # -- properties ------------------------------------------------------------------------

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The tool names in bound order, duplicates included."""
        return self._names

    @property
    def tools(self) -> list[dict[str, Any]]:
        """A fresh copy of the tool list: ``[{"name", "description", "inputSchema"}, ...]``."""
        return copy.deepcopy(list(self._tools))

    def input_schema(self, name: str) -> Any:
        """A copy of the ``inputSchema`` of the tool that a call to ``name`` dispatches to."""
        return copy.deepcopy(self._tools[self._dispatch[name]]["inputSchema"])

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``False``: tool calls are JSON dicts, not fixed-size arrays."""
        return False

    # -- membership ------------------------------------------------------------------------

    def contains(self, x: Any) -> bool:
        if not isinstance(x, dict):
            return False
        if "tool" in x:
            if not x.keys() <= {"tool", "input"}:
                return False
            name = x["tool"]
            if not isinstance(name, str) or name not in self._name_set:
                return False
            inp = x.get("input")
            return inp is None or isinstance(inp, dict)
        if "answer" in x:
            return len(x) == 1 and is_json_compatible(x["answer"])
        return False

    # -- sampling --------------------------------------------------------------------------

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> dict[str, Any]:
        """A random tool call ``{"tool": name, "input": {...}}`` with ``input`` valid for the tool.

        The tool is chosen uniformly among the distinct names; the input is drawn from its
        ``inputSchema`` with ``self.np_random``. With no tools, returns ``{"answer": ""}``.

        Args:
            mask: optional sequence of 0/1 over the tool list (list order); only tools whose
                entry is 1 can be chosen.
            probability: optional sequence of probabilities over the tool list (list order);
                entries of a duplicated name add up.
        """
        if mask is not None and probability is not None:
            raise ValueError("ToolCall.sample: use either mask or probability, not both.")
        if not self._tools:
            return {"answer": ""}
        rng = self.np_random
        name = self._choose_tool(rng, mask, probability)
        schema = self._tools[self._dispatch[name]]["inputSchema"]
        problems = self._validator(name)
        value: dict[str, Any] = {}
        for _ in range(_MAX_ATTEMPTS):
            value = _SchemaSampler(rng, schema).root()
            if not problems(value):
                break
        return {"tool": name, "input": value}

    def _choose_tool(self, rng: np.random.Generator, mask: Any, probability: Any) -> str:
        n = len(self._tools)
        if mask is not None:
            m = np.asarray(mask)
            if m.shape != (n,):
                raise ValueError(f"ToolCall.sample: mask must have shape ({n},), got {m.shape}.")
            allowed = list(dict.fromkeys(self._names[i] for i in range(n) if m[i]))
            if not allowed:
                raise ValueError("ToolCall.sample: the mask allows no tool.")
            return allowed[int(rng.integers(len(allowed)))]
        if probability is not None:
            p = np.asarray(probability, dtype=np.float64)
            if p.shape != (n,):
                raise ValueError(f"ToolCall.sample: probability must have shape ({n},), got {p.shape}.")
            if np.any(p < 0) or not np.isclose(p.sum(), 1.0):
                raise ValueError("ToolCall.sample: probability must be non-negative and sum to 1.")
            totals: dict[str, float] = {}
            for i, name in enumerate(self._names):
                totals[name] = totals.get(name, 0.0) + float(p[i])
            names = list(totals)
            weights = np.array([totals[k] for k in names])
            return names[int(rng.choice(len(names), p=weights / weights.sum()))]
        return self._distinct[int(rng.integers(len(self._distinct)))]

    def _validator(self, name: str) -> Any:
        """``problems(value) -> list[str]`` for the tool ``name`` dispatches to (compiled lazily)."""
        fn = self._validators.get(name)
        if fn is None:
            fn = _problems_fn(self._tools[self._dispatch[name]]["inputSchema"])
            self._validators[name] = fn
        return fn

    # -- equality, hashing, pickling --------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        if self._key_cache is None:
            self._key_cache = tuple((t["name"], canonical(t["inputSchema"])) for t in self._tools)
        return self._key_cache

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolCall):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(("ToolCall", self._key()))

    def __getstate__(self) -> dict[str, Any]:
        return {
            "_tools": self._tools,
            "_shape": self._shape,
            "dtype": self.dtype,
            "_np_random": self._np_random,
        }

    def __setstate__(self, state: Iterable[tuple[str, Any]] | Mapping[str, Any]) -> None:
        super().__setstate__(state)
        self._init_derived()

    def __repr__(self) -> str:
        return f"ToolCall(tools={list(self._names)!r})"

    # -- JSON ------------------------------------------------------------------------------

    def to_jsonable(self, sample_n: Iterable[dict[str, Any]]) -> list[Any]:
        return [copy.deepcopy(x) for x in sample_n]

    def from_jsonable(self, sample_n: list[Any]) -> list[dict[str, Any]]:
        return [copy.deepcopy(x) for x in sample_n]


# Compiled validators shared by every ToolCall in the process, keyed by the schema's canonical
# JSON: vector envs, batch_space copies and unpickled spaces compile each schema once.
_VALIDATORS: OrderedDict[bytes, Any] = OrderedDict()
_VALIDATORS_MAX = 512


def _problems_fn(schema: Any) -> Any:
    from . import validation

    key = canonical(schema) if is_json_compatible(schema) else None
    if key is not None and key in _VALIDATORS:
        _VALIDATORS.move_to_end(key)
        return _VALIDATORS[key]
    try:
        fn = validation.compile_schema(schema).problems
    except AttributeError:  # no compiled form: validate from the schema each time
        fn = functools.partial(validation.validate_tool_input, schema)
    if key is not None:
        _VALIDATORS[key] = fn
        if len(_VALIDATORS) > _VALIDATORS_MAX:
            _VALIDATORS.popitem(last=False)
    return fn


# ---------------------------------------------------------------------------------------------
# JsonText


class JsonText(Space[str]):
    """The observation space of a Silo env: any ``str`` of at most ``max_length`` characters.

    ``contains(x)`` is ``isinstance(x, str) and len(x) <= max_length``; it never parses.
    ``sample()`` returns the compact JSON of a small random object shaped like a tool result
    (``""`` when ``max_length < 2``, since no JSON object fits).
    """

    def __init__(self, max_length: int = 1_048_576, seed: int | np.random.Generator | None = None) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)) or max_length < 0:
            raise ValueError(f"JsonText: max_length must be a non-negative integer, got {max_length!r}.")
        self.max_length = int(max_length)
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``False``: observations are text of varying length."""
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> str:
        if mask is not None or probability is not None:
            raise ValueError("JsonText.sample does not support mask or probability.")
        if self.max_length < 2:
            return ""
        rng = self.np_random
        for _ in range(_MAX_ATTEMPTS):
            text = dumps_compact(_random_observation(rng))
            if len(text) <= self.max_length:
                return text
        return "{}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JsonText):
            return NotImplemented
        return self.max_length == other.max_length

    def __hash__(self) -> int:
        return hash(("JsonText", self.max_length))

    def __repr__(self) -> str:
        return f"JsonText(max_length={self.max_length})"

    def to_jsonable(self, sample_n: Iterable[str]) -> list[Any]:
        return list(sample_n)

    def from_jsonable(self, sample_n: list[Any]) -> list[str]:
        return list(sample_n)


# ---------------------------------------------------------------------------------------------
# Gymnasium integration: flattening and shared memory raise clear errors.


def _flatten_message(space: Space[Any]) -> str:
    if isinstance(space, ToolCall):
        what = 'holds JSON tool calls ({"tool": <name>, "input": {...}} or {"answer": ...} dicts)'
        instead = "Pass actions as dicts (an LLM policy, or space.sample())"
    else:
        what = "holds JSON text of varying length"
        instead = "Keep observations as str and encode them yourself (for example with a tokenizer)"
    return (
        f"{space!r} {what} and cannot be flattened to a numpy array. {instead} instead of using "
        "gymnasium.spaces.utils.flatten / flatdim / flatten_space or FlattenObservation."
    )


def _raise_not_flattenable(space: Space[Any], *args: Any, **kwargs: Any) -> Any:
    raise SpaceNotFlattenableError(_flatten_message(space))


def _raise_no_shared_memory(space: Space[Any], *args: Any, **kwargs: Any) -> Any:
    raise SharedMemoryUnsupportedError(
        f"{space!r} holds text of varying length and cannot be stored in shared memory. "
        'Pass vector_kwargs={"shared_memory": False} to gym.make_vec(..., vectorization_mode="async") '
        "(or shared_memory=False to AsyncVectorEnv); silo_gym's default vector entry point does this."
    )


for _cls in (ToolCall, JsonText):
    for _fn in (flatdim, flatten, unflatten, flatten_space):
        _fn.register(_cls)(_raise_not_flattenable)
    for _fn in (create_shared_memory, read_from_shared_memory, write_to_shared_memory):
        _fn.register(_cls)(_raise_no_shared_memory)
del _cls, _fn


# ---------------------------------------------------------------------------------------------
# Drawing values from a JSON Schema (best effort, checked by the caller).

_WORDS = (
    "alpha", "acme", "review", "follow up", "renewal", "north", "blue", "pending", "call",
    "demo", "quarterly", "notes", "test", "priority", "contract", "hello", "west", "update",
)  # fmt: skip
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGITS = "0123456789"
_FUZZ = ("é", "ß", "日本", "🙂", " ", "'", '"', "\\", "<", "&", "%", "\n")
_ID_EXAMPLE = re.compile(r"\b([A-Z]{2,6})-(\d{2,6})\b")
_DATE_HINT = re.compile(r"YYYY-MM-DD|\bdate\b", re.IGNORECASE)
_DATE_START = _dt.date(2024, 1, 1).toordinal()
_DATE_SPAN = _dt.date(2027, 12, 31).toordinal() - _DATE_START + 1
_SIMPLE_TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")


def _is_num(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _str_or(x: Any, default: Any) -> Any:
    return x if isinstance(x, str) else default


def _js_comparable(x: Any) -> bool:
    """Whether ``x`` can ever be ``===`` to a JSON input: a scalar, and not NaN."""
    return x is None or isinstance(x, (str, bool, int)) or (isinstance(x, float) and x == x)


def _type_ok(value: Any, t: str) -> bool:
    if t == "integer":
        return _is_num(value) and float(value).is_integer()
    if t == "number":
        return _is_num(value)
    if t == "string":
        return isinstance(value, str)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "array":
        return isinstance(value, (list, tuple))
    if t == "object":
        return isinstance(value, dict)
    if t == "null":
        return value is None
    return True


def _split_words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])", name) if w]


class _SchemaSampler:
    """Draws one value from a JSON Schema with a numpy Generator."""

    def __init__(self, rng: np.random.Generator, root: Any) -> None:
        self.rng = rng
        self.root_schema = root

    # -- random helpers --------------------------------------------------------------------

    def rand(self) -> float:
        return float(self.rng.random())

    def randint(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi] (inclusive), for any Python ints."""
        if hi <= lo:
            return lo
        span = hi - lo
        if span < 2**62:
            return lo + int(self.rng.integers(0, span + 1))
        return lo + int(self.rand() * span)

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[int(self.rng.integers(len(seq)))]

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(alphabet[int(i)] for i in self.rng.integers(0, len(alphabet), size=n)) if n > 0 else ""

    # -- entry points ----------------------------------------------------------------------

    def root(self) -> dict[str, Any]:
        schema = self.root_schema
        if not isinstance(schema, dict):
            return {}
        schema = self.resolve(schema)
        value = self.object(schema, depth=0, name="", top=True)
        return value

    def value(self, schema: Any, *, depth: int, name: str = "", not_null: bool = False) -> Any:
        if depth > 3 * _MAX_DEPTH:  # a recursive schema that requires itself: give up here
            return None
        if schema is True or schema is None or (isinstance(schema, dict) and not schema):
            return self.untyped(depth, name, not_null)
        if not isinstance(schema, dict):
            return None
        schema = self.resolve(schema)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        types = self.types(schema, not_null)
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            items = [e for e in enum if not (not_null and e is None)]
            # Silo's enum check is JavaScript ``===`` (silo-format §14.2): an object, an array or
            # NaN never equals a member, so draw scalars whenever the enum has any.
            items = [e for e in items if _js_comparable(e)] or items
            if types:
                typed = [e for e in items if any(_type_ok(e, t) for t in types)]
                items = typed or items
            if items:
                return copy.deepcopy(self.pick(items))
        examples = schema.get("examples")
        if isinstance(examples, list) and examples and self.rand() < 0.2:
            return copy.deepcopy(self.pick(examples))
        default = schema.get("default")
        if "default" in schema and default is not None and self.rand() < 0.15:
            return copy.deepcopy(default)
        t = self.pick(types) if types else self.infer_type(schema)
        if t == "null":
            return None
        if t == "boolean":
            return self.rand() < 0.5
        if t == "integer":
            return self.number(schema, name, integer=True)
        if t == "number":
            return self.number(schema, name, integer=False)
        if t == "string":
            return self.string(schema, name)
        if t == "array":
            return self.array(schema, depth, name)
        if t == "object":
            return self.object(schema, depth=depth, name=name, top=False)
        return self.untyped(depth, name, not_null)

    # -- schema plumbing -------------------------------------------------------------------

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Follow local ``$ref``s and fold ``allOf``, ``anyOf`` and ``oneOf`` into one schema."""
        for _ in range(32):
            ref = schema.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                target = self.lookup(ref)
                rest = {k: v for k, v in schema.items() if k != "$ref"}
                schema = self.merge(target, rest) if isinstance(target, dict) else rest
                continue
            changed = False
            for key in ("anyOf", "oneOf"):
                branches = schema.get(key)
                if isinstance(branches, list) and branches:
                    rest = {k: v for k, v in schema.items() if k != key}
                    branch = self.pick(branches)
                    schema = self.merge(rest, branch) if isinstance(branch, dict) else rest
                    changed = True
            parts = schema.get("allOf")
            if isinstance(parts, list):
                merged = {k: v for k, v in schema.items() if k != "allOf"}
                for part in parts:
                    if isinstance(part, dict):
                        merged = self.merge(merged, part)
                schema = merged
                changed = True
            if not changed:
                break
        return schema

    def lookup(self, ref: str) -> Any:
        node: Any = self.root_schema
        for part in ref[1:].split("/"):
            if not part:
                continue
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return {}
        return node

    @staticmethod
    def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        out = dict(a)
        for k, v in b.items():
            if k == "properties" and isinstance(out.get(k), dict) and isinstance(v, dict):
                props = dict(out[k])
                for pk, pv in v.items():
                    if isinstance(props.get(pk), dict) and isinstance(pv, dict):
                        props[pk] = {**props[pk], **pv}
                    else:
                        props[pk] = pv
                out[k] = props
            elif k == "required" and isinstance(out.get(k), list) and isinstance(v, list):
                out[k] = list(dict.fromkeys([*out[k], *v]))
            elif (
                k in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
                and _is_num(out.get(k))
                and _is_num(v)
            ):
                out[k] = max(out[k], v)
            elif (
                k in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
                and _is_num(out.get(k))
                and _is_num(v)
            ):
                out[k] = min(out[k], v)
            elif k == "type" and k in out:
                ta = out[k] if isinstance(out[k], list) else [out[k]]
                tb = v if isinstance(v, list) else [v]
                both = [t for t in ta if t in tb]
                if not both and "integer" in ta + tb and "number" in ta + tb:
                    both = ["integer"]  # integer is the intersection of integer and number
                out[k] = both or v
            else:
                out[k] = v
        return out

    def types(self, schema: dict[str, Any], not_null: bool) -> list[str]:
        t = schema.get("type")
        if isinstance(t, str):
            types = [t]
        elif isinstance(t, list):
            types = [x for x in t if isinstance(x, str)]
        else:
            return []
        known = [x for x in types if x in _SIMPLE_TYPES]
        if not_null and len(known) > 1:
            known = [x for x in known if x != "null"] or known
        return known or types

    @staticmethod
    def infer_type(schema: dict[str, Any]) -> str:
        if any(k in schema for k in ("properties", "required", "additionalProperties", "minProperties")):
            return "object"
        if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems", "uniqueItems")):
            return "array"
        if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
            return "string"
        if any(
            k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
        ):
            return "number"
        return "string"

    def untyped(self, depth: int, name: str, not_null: bool) -> Any:
        r = self.rand()
        if r < 0.5:
            return self.string({}, name)
        if r < 0.75:
            return self.randint(0, 100)
        if r < 0.9 or not_null:
            return self.rand() < 0.5
        return None

    # -- numbers ---------------------------------------------------------------------------

    def number(self, schema: dict[str, Any], name: str, *, integer: bool) -> int | float:
        lo, lo_open = self.bound(schema, "minimum", "exclusiveMinimum", lower=True)
        hi, hi_open = self.bound(schema, "maximum", "exclusiveMaximum", lower=False)
        money = bool(re.search(r"amount|price|cost|total|revenue|salary|budget", name, re.IGNORECASE))
        width = 100_000.0 if money else (100.0 if integer else 1000.0)
        # The range to draw from: the declared bounds, else a plausible window.
        if lo is None and hi is None:
            if self.rand() < 0.1:
                a, b = -width, width * 10
            else:
                a, b = 0.0, width
        elif lo is None:
            assert hi is not None
            a, b = hi - width, hi
        elif hi is None:
            a, b = lo, lo + width
        else:
            a, b = lo, hi
        if not b - a <= 1e12:  # huge (or infinite) ranges: a window at the declared side
            if lo is not None:
                b = a + 1e12
            else:
                a = b - 1e12
        multiple = schema.get("multipleOf")
        if _is_num(multiple) and multiple > 0:
            got = self.multiple_in(a, b, lo_open, hi_open, lo, hi, multiple, integer)
            if got is not None:
                return got
        if integer:
            ia = math.ceil(a)
            ib = math.floor(b)
            if lo is not None and lo_open and ia <= lo:
                ia = math.floor(lo) + 1
            if hi is not None and hi_open and ib >= hi:
                ib = math.ceil(hi) - 1
            if ib < ia:
                return ia
            r = self.rand()
            if r < 0.08:
                return ia
            if r < 0.16:
                return ib
            return self.randint(ia, ib)
        r = self.rand()
        if r < 0.06 and not lo_open and lo is not None:
            return lo
        if r < 0.12 and not hi_open and hi is not None:
            return hi
        x = a + self.rand() * (b - a)
        if r < 0.5:
            x2 = float(round(x)) if not money else round(x, 2)
            x = x2 if self.in_range(x2, lo, hi, lo_open, hi_open) else x
        elif r < 0.8:
            x2 = round(x, 2)
            x = x2 if self.in_range(x2, lo, hi, lo_open, hi_open) else x
        if not self.in_range(x, lo, hi, lo_open, hi_open):
            x = (a + b) / 2
        return int(x) if x.is_integer() and abs(x) < 2**53 else x

    @staticmethod
    def bound(
        schema: dict[str, Any], inclusive: str, exclusive: str, *, lower: bool
    ) -> tuple[float | None, bool]:
        """The tightest bound on one side and whether it is exclusive (draft-4 booleans too)."""
        value: float | None = None
        is_open = False
        inc = schema.get(inclusive)
        exc = schema.get(exclusive)
        if _is_num(inc):
            value = inc
            is_open = exc is True
        if _is_num(exc):
            if value is None or (exc >= value if lower else exc <= value):
                value = exc
                is_open = True
        return value, is_open

    @staticmethod
    def in_range(x: float, lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> bool:
        if lo is not None and (x < lo or (lo_open and x == lo)):
            return False
        return not (hi is not None and (x > hi or (hi_open and x == hi)))

    def multiple_in(
        self,
        a: float,
        b: float,
        lo_open: bool,
        hi_open: bool,
        lo: float | None,
        hi: float | None,
        m: float,
        integer: bool,
    ) -> int | float | None:
        kmin = math.ceil(a / m)
        kmax = math.floor(b / m)
        if kmax < kmin:
            return None
        try:
            dm = Decimal(repr(m)) if isinstance(m, float) else Decimal(m)
        except InvalidOperation:
            return None
        for _ in range(6):
            k = self.randint(kmin, kmax)
            v: int | float
            if isinstance(m, int):
                v = k * m
            else:
                v = float(Decimal(k) * dm)
                if v.is_integer() and abs(v) < 2**53:
                    v = int(v)
            if integer and not float(v).is_integer():
                continue
            if not self.in_range(v, lo, hi, lo_open, hi_open):
                continue
            if isinstance(m, float) and isinstance(v, float) and (v / m) != int(v / m):
                continue
            return v
        return None

    # -- strings ---------------------------------------------------------------------------

    def string(self, schema: dict[str, Any], name: str) -> str:
        min_len = schema.get("minLength")
        max_len = schema.get("maxLength")
        lo = int(min_len) if _is_num(min_len) and min_len >= 0 else 0
        hi = int(max_len) if _is_num(max_len) and max_len >= 0 else None
        description = _str_or(schema.get("description"), "")
        fmt = _str_or(schema.get("format"), "")
        pattern = _str_or(schema.get("pattern"), None)

        def fits(s: str) -> bool:
            return len(s) >= lo and (hi is None or len(s) <= hi)

        hinted = self.hinted_string(name, description, fmt)
        if pattern is not None:
            compiled = _compile(pattern)
            if compiled is not None:
                if hinted is not None and fits(hinted) and compiled.search(hinted):
                    return hinted
                for _ in range(4):
                    s = _RegexSampler(self).generate(pattern)
                    if s is not None and compiled.search(s) and fits(s):
                        return s
        if hinted is not None and fits(hinted):
            return hinted
        s = self.plain_string(name)
        if len(s) < lo:
            s += self.chars(_ALNUM, lo - len(s))
        if hi is not None and len(s) > hi:
            s = s[:hi]
        return s

    def hinted_string(self, name: str, description: str, fmt: str) -> str | None:
        """A plausible value from the format, the property name or its description."""
        fmt = fmt.lower()
        lname = name.lower()
        if fmt == "date" or (fmt == "" and (_DATE_HINT.search(description) or lname.endswith("date"))):
            return self.date()
        if fmt == "date-time":
            return f"{self.date()}T{self.randint(0, 23):02d}:{self.randint(0, 59):02d}:{self.randint(0, 59):02d}Z"
        if fmt == "time":
            return f"{self.randint(0, 23):02d}:{self.randint(0, 59):02d}:{self.randint(0, 59):02d}Z"
        if fmt == "email" or (fmt == "" and "email" in lname):
            return f"{self.pick(_WORDS).replace(' ', '.')}{self.randint(1, 99)}@example.com"
        if fmt in ("uri", "url", "iri") or (fmt == "" and lname in ("url", "website", "uri", "link")):
            return f"https://{self.pick(_WORDS).replace(' ', '-')}.example.com/{self.chars(_ALNUM, 4)}"
        if fmt == "uuid":
            h = self.chars("0123456789abcdef", 32)
            return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
        if fmt == "ipv4":
            return ".".join(str(self.randint(0, 255)) for _ in range(4))
        if fmt == "hostname":
            return f"{self.pick(_WORDS).replace(' ', '-')}.example.com"
        if fmt == "" and "phone" in lname:
            return f"+1-555-{self.randint(100, 999):03d}-{self.randint(0, 9999):04d}"
        if fmt == "" and (lname == "id" or name.endswith(("Id", "ID", "_id", "-id"))):
            return self.identifier(name, description)
        return None

    def date(self) -> str:
        return _dt.date.fromordinal(_DATE_START + self.randint(0, _DATE_SPAN - 1)).isoformat()

    def identifier(self, name: str, description: str) -> str:
        m = _ID_EXAMPLE.search(description)
        if m is not None:
            width = len(m.group(2))
            return f"{m.group(1)}-{self.randint(1, min(10**width - 1, 20)):0{width}d}"
        if self.rand() < 0.5:
            return self.chars(_ALNUM, self.randint(3, 8))
        words = _split_words(name[:-2]) if len(name) > 2 else []
        prefix = words[-1][:3].upper() if words else self.chars(_UPPER, 3)
        return f"{prefix}-{self.randint(1, 20):03d}"

    def plain_string(self, name: str) -> str:
        r = self.rand()
        if r < 0.6:
            return " ".join(self.pick(_WORDS) for _ in range(self.randint(1, 3)))
        if r < 0.9:
            return self.chars(_ALNUM, self.randint(1, 10))
        if r < 0.95:
            return ""
        return "".join(self.pick(_FUZZ) for _ in range(self.randint(1, 4)))

    # -- arrays and objects ----------------------------------------------------------------

    def array(self, schema: dict[str, Any], depth: int, name: str) -> list[Any]:
        items = schema.get("items")
        prefix = schema.get("prefixItems")
        if isinstance(items, list):  # draft-4 tuple form
            prefix, items = items, schema.get("additionalItems", True)
        prefix = prefix if isinstance(prefix, list) else []
        min_items = schema.get("minItems")
        max_items = schema.get("maxItems")
        lo = int(min_items) if _is_num(min_items) and min_items >= 0 else 0
        if _is_num(max_items) and max_items >= 0:
            hi = int(max_items)
        else:
            hi = lo + (0 if depth >= _MAX_DEPTH else 3)
        if items is False:
            hi = min(hi, len(prefix))
        hi = max(hi, lo) if items is not False else hi
        n = self.randint(lo, min(hi, lo + 4)) if depth < _MAX_DEPTH else lo
        unique = schema.get("uniqueItems") is True
        out: list[Any] = []
        seen: set[bytes] = set()
        item_name = name[:-1] if name.endswith("s") else name
        for i in range(n):
            sub = prefix[i] if i < len(prefix) else items
            v: Any = None
            for _ in range(6 if unique else 1):
                v = self.value(sub, depth=depth + 1, name=item_name)
                if not unique or canonical(v) not in seen:
                    break
            if unique:
                key = canonical(v)
                if key in seen:
                    continue
                seen.add(key)
            out.append(v)
        contains = schema.get("contains")
        if isinstance(contains, dict) and contains:
            v = self.value(contains, depth=depth + 1, name=item_name)
            if out:
                out[self.randint(0, len(out) - 1)] = v
            elif hi >= 1:
                out.append(v)
        return out

    def object(self, schema: dict[str, Any], *, depth: int, name: str, top: bool) -> dict[str, Any]:
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        required_raw = schema.get("required")
        required = [r for r in required_raw if isinstance(r, str)] if isinstance(required_raw, list) else []
        req_set = set(required)
        additional = schema.get("additionalProperties", True)
        dependent = schema.get("dependentRequired")
        dependent = dependent if isinstance(dependent, dict) else {}
        min_props = schema.get("minProperties")
        max_props = schema.get("maxProperties")
        lo = int(min_props) if _is_num(min_props) and min_props > 0 else 0
        hi = int(max_props) if _is_num(max_props) and max_props >= 0 else None

        # An insertion-ordered dict as the set of chosen names: the output never depends on
        # string hashing, so samples are reproducible across processes.
        chosen: dict[str, None] = dict.fromkeys(required)
        optional = [k for k in props if k not in req_set]
        p = _OPTIONAL_P if depth < _MAX_DEPTH else 0.0
        for k in optional:
            if hi is not None and len(chosen) >= hi:
                break
            if self.rand() < p:
                chosen[k] = None
        for k in optional:  # minProperties: add optional ones in schema order
            if len(chosen) >= lo:
                break
            chosen[k] = None
        demanded: set[str] = set()
        for k in list(chosen):  # dependentRequired
            deps = dependent.get(k)
            if isinstance(deps, list):
                for d in deps:
                    if isinstance(d, str):
                        chosen[d] = None
                        demanded.add(d)

        out: dict[str, Any] = {}
        for k, sub in props.items():
            if k in chosen:
                out[k] = self.value(sub, depth=depth + 1, name=k, not_null=k in req_set or k in demanded)
        extra_schema: Any = additional if isinstance(additional, dict) else True
        for k in chosen:
            if k not in out:  # required (or dependent) but not declared
                out[k] = self.value(extra_schema, depth=depth + 1, name=k, not_null=True)
        # Free-form nested objects get a few keys of their own; a tool's input never does.
        if not top and additional is not False and not props and "patternProperties" not in schema:
            want = max(lo - len(out), 0)
            if depth < _MAX_DEPTH and self.rand() < 0.4:
                want = max(want, self.randint(1, 2))
            if hi is not None:
                want = min(want, hi - len(out))
            for _ in range(max(want, 0)):
                key = self.pick(_WORDS).replace(" ", "_")
                if key not in out:
                    out[key] = self.value(extra_schema, depth=depth + 1, name=key, not_null=True)
        return out


_pattern_cache: dict[str, re.Pattern[str] | None] = {}


def _compile(pattern: str) -> re.Pattern[str] | None:
    if pattern not in _pattern_cache:
        try:
            with warnings.catch_warnings():  # e.g. FutureWarning for POSIX classes like [[:alpha:]]
                warnings.simplefilter("ignore")
                _pattern_cache[pattern] = re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            _pattern_cache[pattern] = None
    return _pattern_cache[pattern]


class _RegexSampler:
    """Generates a string matching a (Python-syntax) regular expression, best effort."""

    _parser: Any = None
    _c: Any = None

    def __init__(self, sampler: _SchemaSampler) -> None:
        self.s = sampler
        self.groups: dict[int, str] = {}
        if _RegexSampler._parser is None:
            _RegexSampler._parser = importlib.import_module("re._parser")
            _RegexSampler._c = importlib.import_module("re._constants")

    def generate(self, pattern: str) -> str | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parsed = self._parser.parse(pattern)
            return self.seq(parsed)
        except Exception:
            return None

    def seq(self, items: Any) -> str:
        return "".join(self.node(op, av) for op, av in items)

    def node(self, op: Any, av: Any) -> str:
        c = self._c
        if op is c.LITERAL:
            return chr(av)
        if op is c.NOT_LITERAL:
            return self.s.pick([ch for ch in _ALNUM if ord(ch) != av])
        if op is c.ANY:
            return self.s.pick(_ALNUM)
        if op is c.IN:
            return self.char_in(av)
        if op is c.BRANCH:
            return self.seq(self.s.pick(av[1]))
        if op is c.SUBPATTERN:
            text = self.seq(av[-1])
            if av[0] is not None:
                self.groups[av[0]] = text
            return text
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)):
            lo, hi, sub = av
            hi = lo + 3 if hi is c.MAXREPEAT else min(hi, lo + 6)
            return "".join(self.seq(sub) for _ in range(self.s.randint(lo, hi)))
        if op is getattr(c, "ATOMIC_GROUP", None):
            return self.seq(av)
        if op is c.GROUPREF:
            return self.groups.get(av, "")
        if op is c.GROUPREF_EXISTS:
            return self.seq(av[1])
        if op is c.CATEGORY:
            return self.category(av)
        return ""  # AT (anchors), ASSERT, ASSERT_NOT

    def category(self, cat: Any) -> str:
        c = self._c
        if cat is c.CATEGORY_DIGIT:
            return self.s.pick(_DIGITS)
        if cat is c.CATEGORY_SPACE:
            return " "
        if cat is c.CATEGORY_WORD:
            return self.s.pick(_ALNUM + "_")
        if cat is c.CATEGORY_NOT_DIGIT:
            return self.s.pick("abcdefghijklmnopqrstuvwxyz")
        if cat is c.CATEGORY_NOT_WORD:
            return self.s.pick("-. ")
        return self.s.pick(_ALNUM)

    def char_in(self, items: Any) -> str:
        c = self._c
        if items and items[0][0] is c.NEGATE:
            ranges = items[1:]
            alphabet = _ALNUM + _UPPER + "-_. "
            allowed = [ch for ch in alphabet if not self.matches(ch, ranges)]
            return self.s.pick(allowed) if allowed else "~"
        op, av = self.s.pick(items)
        if op is c.LITERAL:
            return chr(av)
        if op is c.RANGE:
            return chr(self.s.randint(av[0], av[1]))
        if op is c.CATEGORY:
            return self.category(av)
        return self.s.pick(_ALNUM)

    def matches(self, ch: str, items: Any) -> bool:
        c = self._c
        code = ord(ch)
        for op, av in items:
            if op is c.LITERAL and code == av:
                return True
            if op is c.RANGE and av[0] <= code <= av[1]:
                return True
            if op is c.CATEGORY:
                probe = {
                    c.CATEGORY_DIGIT: ch.isdigit(),
                    c.CATEGORY_NOT_DIGIT: not ch.isdigit(),
                    c.CATEGORY_SPACE: ch.isspace(),
                    c.CATEGORY_NOT_SPACE: not ch.isspace(),
                    c.CATEGORY_WORD: ch.isalnum() or ch == "_",
                    c.CATEGORY_NOT_WORD: not (ch.isalnum() or ch == "_"),
                }.get(av, False)
                if probe:
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# Random observations for JsonText.sample

_CODES = ("invalid_input", "not_found", "invalid_state", "not_allowed", "tool_not_found")


def _random_scalar(rng: np.random.Generator) -> Any:
    r = float(rng.random())
    if r < 0.4:
        return str(_WORDS[int(rng.integers(len(_WORDS)))])
    if r < 0.6:
        return int(rng.integers(0, 1000))
    if r < 0.75:
        return round(float(rng.random()) * 1000, 2)
    if r < 0.9:
        return bool(rng.random() < 0.5)
    return None


def _random_observation(rng: np.random.Generator) -> dict[str, Any]:
    r = float(rng.random())
    if r < 0.15:
        code = _CODES[int(rng.integers(len(_CODES)))]
        return {
            "output": {"code": code, "message": f"Sample {code.replace('_', ' ')} error."},
            "isError": True,
        }
    if r < 0.25:
        return {"terminationReason": "completed", "error": None}
    output: dict[str, Any] = {}
    for _ in range(int(rng.integers(1, 5))):
        key = _WORDS[int(rng.integers(len(_WORDS)))].replace(" ", "_")
        if float(rng.random()) < 0.2:
            output[key] = [_random_scalar(rng) for _ in range(int(rng.integers(0, 4)))]
        else:
            output[key] = _random_scalar(rng)
    return {"output": output}
