"""Tools: ``define_tool``, binding to a state, input validation, output cloning (silo-format §3)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import TOOL_CRASHED, ToolError
from .jsonfmt import native_float_exact
from .validation import CompiledSchema, compile_schema

__all__ = [
    "SiloTool",
    "Tool",
    "bind_tools",
    "clone_output",
    "crash_payload",
    "define_tool",
    "error_payload",
    "tool_list",
]

#: Integral floats below this magnitude are exact ints (JavaScript's Number.MAX_SAFE_INTEGER + 1).
_MAX_SAFE = 2**53

RunFn = Callable[[Any, dict[str, Any]], Any]

#: A tool's unexpected exception (anything but ``ToolError``) is logged here at DEBUG with its
#: traceback; ``silo-gym run --verbose`` prints these records.
_logger = logging.getLogger("silo_gym.tools")


@dataclass(frozen=True, eq=False)
class SiloTool:
    """A tool as authored (silo-format §3.1): immutable ``name``, ``description``, ``input_schema``,
    ``run(state, input)``. Its compiled input validator is built once, on first use, and cached
    here, so re-binding at every ``reset`` compiles nothing."""

    name: str
    description: str
    input_schema: Any
    run: RunFn
    _compiled: list[CompiledSchema] = field(default_factory=list, init=False, repr=False)

    @property
    def validator(self) -> CompiledSchema:
        """The compiled validator of ``input_schema`` (built on first access, then cached)."""
        if not self._compiled:
            self._compiled.append(compile_schema(self.input_schema))
        return self._compiled[0]

    def __getstate__(self) -> dict[str, Any]:
        # The compiled validator is rebuilt lazily after unpickling.
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema, "run": self.run}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_compiled", [])


def define_tool(*, name: str, description: str, input_schema: Any, run: RunFn) -> SiloTool:
    """Package a tool (silo-format §3.1). Nothing is checked here; validation does that (§9).

    Args:
        name: the tool name agents call.
        description: what the tool does, written for the agent.
        input_schema: a JSON Schema object (draft 2020-12); also what agents see as ``inputSchema``.
        run: ``run(state, input) -> JSON-compatible value``; raise :class:`ToolError` for failures.
    """
    return SiloTool(name=name, description=description, input_schema=input_schema, run=run)


def clone_output(value: Any) -> Any:
    """Deep-copy a tool's return value into fresh JSON containers (silo-format §3.5).

    Dicts keep key order; tuples become lists; an integral float below 2**53 in magnitude becomes
    an ``int`` (the same JSON number with the same text: ``242.0`` is written ``242``, as
    JavaScript writes it); other scalars are kept.

    Raises:
        TypeError: ``Object of type <TypeName> is not JSON serializable`` for any other value,
            including a dict with a non-string key.
    """
    return _clone(value, [])


def _clone(value: Any, floats: list[bool]) -> Any:
    """:func:`clone_output` that also appends to ``floats`` when it meets a float orjson would not
    write canonically (:func:`~silo_gym.jsonfmt.native_float_exact`), so the caller knows whether
    the fast serialiser (orjson as it is, no JavaScript float formatting) gives the canonical text."""
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return value
    if t is float:
        if -_MAX_SAFE < value < _MAX_SAFE and value == (whole := int(value)):
            return whole
        if not floats and not native_float_exact(value):
            floats.append(True)
        return value
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                if not isinstance(k, str):
                    raise TypeError(f"Object of type {type(k).__name__} is not JSON serializable")
                k = str.__str__(k)
            out[k] = _clone(v, floats)
        return out
    if t is list or t is tuple:
        return [_clone(v, floats) for v in value]
    # Subclasses of the JSON types are copied as their base type.
    # (the base type's own conversion, as the canonical writer does: a str Enum is its value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return _clone(float.__float__(value), floats)
    if isinstance(value, dict):
        return _clone(dict(value), floats)
    if isinstance(value, (list, tuple)):
        return [_clone(v, floats) for v in value]
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _copy_containers(value: Any) -> Any:
    """``value`` with every ``dict`` and ``list`` in it copied (key order kept); any other value is
    kept as it is (immutable in plain JSON). What a tool receives as its input: the caller's own
    object, recorded in the trace and in data rows as sent, is never the one the tool may change.

    Raises:
        RecursionError: containers nested deeper than Python's recursion limit (never a plain input).
    """
    kind = type(value)
    if kind is dict:
        for member in value.values():
            if type(member) in _CONTAINERS:
                break
        else:  # flat, the usual tool input: a shallow copy is a whole copy
            return value.copy()
        return {k: (v if type(v) not in _CONTAINERS else _copy_containers(v)) for k, v in value.items()}
    if kind is list:
        return [v if type(v) not in _CONTAINERS else _copy_containers(v) for v in value]
    return value


_CONTAINERS = (dict, list)


def error_payload(exc: Exception) -> dict[str, Any]:
    """The error payload for an exception raised by ``run`` (silo-format §3.4, amended).

    A ``ToolError`` gives its ``code``, ``message`` and (cloned) ``details``. Anything else is a
    crash of the tool, not a state of the world: code ``tool_crashed`` and the message
    ``<ExceptionType>: <str(exc)>`` (the type alone when the text is empty), so ``KeyError('stok')``
    reads ``KeyError: 'stok'``. A ``ToolError`` whose ``details`` cannot be cloned (§3.5) is the
    crash of that cloning.
    """
    if isinstance(exc, ToolError):
        payload: dict[str, Any] = {"code": exc.code, "message": exc.message}
        if exc.details is not None:
            try:
                payload["details"] = clone_output(exc.details)
            except Exception as clone_exc:  # our rule: an uncloneable details is a crash
                return crash_payload(clone_exc)
        return payload
    return crash_payload(exc)


def crash_payload(exc: BaseException) -> dict[str, Any]:
    """``{"code": "tool_crashed", "message": "<ExceptionType>: <text>"}`` for a tool that raised
    ``exc`` (not a ``ToolError``) or returned what cannot be cloned. Never raises."""
    try:
        text = str(exc)
    except Exception:  # execute never raises, even for an exception that cannot print itself
        text = ""
    name = type(exc).__name__
    return {"code": TOOL_CRASHED, "message": f"{name}: {text}" if text else name}


class Tool:
    """A tool bound to one episode's state (silo-format §3.2).

    ``execute(input)`` validates the input, runs the tool on its own copy of the input (so a tool
    that writes into it never changes what the caller sent, or what the trace recorded), clones
    its output and returns a tool result dict ``{"output": ...}`` or ``{"output": <error payload>, "isError": True}``. It never
    raises an ``Exception`` (``KeyboardInterrupt`` and ``SystemExit`` propagate). An exception
    other than ``ToolError`` is also logged, with its traceback, at DEBUG on the
    ``silo_gym.tools`` logger (the ``tool_crashed`` payload holds only its type and message).
    """

    __slots__ = ("name", "source", "state", "_problems", "_run")

    def __init__(self, source: SiloTool, state: Any) -> None:
        self.source = source
        self.state = state
        self.name = source.name
        self._problems = source.validator.problems
        self._run = source.run

    @property
    def description(self) -> str:
        """The source tool's description (what agents read)."""
        return self.source.description

    @property
    def input_schema(self) -> Any:
        """The source tool's ``inputSchema`` (a JSON Schema object; never change it)."""
        return self.source.input_schema

    def execute(self, input: Any = None) -> dict[str, Any]:
        """Validate, run, clone (silo-format §3.2): ``{"output": ...}`` or an error result."""
        return self.execute_tracked(input)[0]

    def execute_tracked(self, input: Any = None) -> tuple[dict[str, Any], bool]:
        """:meth:`execute`, plus whether the result may hold a float that orjson does not write as
        the canonical writer does (then that writer must format numbers; otherwise orjson's bytes
        of the result are the canonical bytes)."""
        args = {} if input is None else input
        problems = self._problems(args)
        if problems:
            return {
                "output": {
                    "code": "invalid_input",
                    "message": f'Invalid arguments for "{self.name}": {"; ".join(problems)}.',
                    "details": {"problems": problems},
                },
                "isError": True,
            }, False
        floats: list[bool] = []
        try:
            # The tool gets its own copy: what the caller sent (and the trace recorded) stays as sent.
            given = args if input is None else _copy_containers(args)  # a new {} needs no copy
            return {"output": _clone(self._run(self.state, given), floats)}, bool(floats)
        except Exception as exc:  # §3.4: every failure of run becomes an error result
            if not isinstance(exc, ToolError) and _logger.isEnabledFor(logging.DEBUG):
                # The agent sees the type and message (§3.4, amended); an author wants the rest.
                _logger.debug('Tool "%s" raised (the agent gets tool_crashed)', self.name, exc_info=exc)
            return {"output": error_payload(exc), "isError": True}, True

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"


def bind_tools(state: Any, tools: Sequence[SiloTool]) -> list[Tool]:
    """Bind each ``SiloTool`` to ``state``, in order (silo-format §3.2).

    An environment's exported ``bind_tools(state)`` normally returns ``bind_tools(state, tools)``.
    """
    return [Tool(t, state) for t in tools]


def tool_list(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """The tool list agents receive: ``{"name", "description", "inputSchema"}`` per bound tool."""
    return [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools]
