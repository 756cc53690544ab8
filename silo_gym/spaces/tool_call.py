"""The action space: ``ToolCall``, tool calls to the bound tools and final answers (gym-api.md, "Spaces").

Choices where the spec is silent (our rules):

- ``ToolCall(tools)`` accepts the agent tool list (dicts with ``name``, ``description``,
  ``inputSchema``) or runtime tool objects with ``name``/``description``/``input_schema``
  attributes. It keeps deep copies of names, descriptions and schemas only.
- Tools sharing a name: the later one wins at dispatch (silo-format §3.2), so ``sample()`` draws
  among the distinct names and fills the input from the schema of the last tool with that name.
- ``sample(mask=..., probability=...)`` takes an optional per-entry mask (0/1) or probability
  vector over the tool list, in list order, like ``Discrete``. An all-zero mask is a
  ``ValueError``.
- Each draw (:mod:`.sampling`) is checked with the tool's compiled validator
  (:mod:`silo_gym.validation`) and redrawn up to 8 times; schemas that cannot be satisfied get a
  best-effort value.
- Compiled validators are shared by every ``ToolCall`` in the process (keyed by the schema's
  canonical JSON), so batched copies and vector sub-envs compile each schema once.
- Pickling keeps the space's RNG state (as Gymnasium's own spaces do) but no compiled
  validator or cache; those are rebuilt lazily. Equality and hashing never look at the RNG.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from gymnasium.spaces import Space

from ..jsonfmt import canonical, is_json_compatible
from ..plain_json import first_not_plain
from ..validation import compile_schema
from .sampling import sample_input

__all__ = ["ToolCall"]

_MAX_ATTEMPTS = 8


class ToolCall(Space[dict[str, Any]]):
    """The action space of a Silo env: tool calls to the bound tools, and final answers.

    Args:
        tools: the agent tool list ``[{"name", "description", "inputSchema"}, ...]`` in bound
            order (duplicates allowed), or runtime tools with ``name``, ``description`` and
            ``input_schema`` attributes.
        seed: seed for the space's own RNG (``self.np_random``), used by :meth:`sample`.

    ``contains(x)`` is true for ``{"tool": <a listed name>}``,
    ``{"tool": <a listed name>, "input": <plain JSON dict or None>}`` and
    ``{"answer": <JSON-compatible>}``, with no other keys; ``step`` answers an input that is not
    plain JSON (:mod:`silo_gym.plain_json`: ``NaN``, a numpy scalar, a tuple...) with
    ``invalid_action``. It does not check ``input`` against the schema: a call with bad arguments
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
            return inp is None or (isinstance(inp, dict) and first_not_plain(inp) is None)
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
            value = sample_input(rng, schema)
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
    key = canonical(schema) if is_json_compatible(schema) else None
    if key is not None and key in _VALIDATORS:
        _VALIDATORS.move_to_end(key)
        return _VALIDATORS[key]
    fn = compile_schema(schema).problems
    if key is not None:
        _VALIDATORS[key] = fn
        if len(_VALIDATORS) > _VALIDATORS_MAX:
            _VALIDATORS.popitem(last=False)
    return fn
