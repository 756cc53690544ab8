"""A tool's input validator: the Silo pass, then the schema decision, worded (silo-format §3.3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..jsonfmt import is_json_compatible
from .decision import NotJson, compile_decision, json_instance
from .messages import (
    Path,
    internal_problem,
    library_problems,
    non_json_problem,
    schema_problem,
)
from .silo_pass import compile_silo_pass, silo_coverage, silo_implied

__all__ = ["CompiledSchema", "compile_schema", "validate_tool_input"]


class CompiledSchema:
    """A tool's input schema, compiled once; ``problems(value)`` validates one input.

    ``problems(value) -> list[str]`` gives the ordered problems (empty: valid) and never raises:

    1. the Silo pass, when ``schema`` is a dict whose ``type`` is ``"object"`` (exact wordings);
    2. the schema decision, for every dict ``schema``: the library validator (draft 2020-12) on
       ``value`` with null members removed. When it accepts, the problems are the Silo pass's:
       none, without running the pass, when the pass's checks are all the library's own and the
       input has no null member (:func:`.silo_pass.silo_implied`), so a valid input usually costs
       one library call. When it rejects, its errors are worded (:mod:`.messages`) after the Silo
       pass's problems, without those the Silo pass reported; a rejection always gives at least
       one problem.

    A schema that is not a dict accepts anything. A dict schema the library cannot use (invalid
    under the draft 2020-12 meta-schema, a ``$ref`` that resolves nowhere, a pattern that is not
    ECMA-262) gets, after the Silo pass's problems, the problem
    ``"input" cannot be checked: the tool's inputSchema is invalid (<reason>)`` on every call, so
    ``run`` never sees an input nobody checked; ``silo-gym env validate`` reports such a schema
    as ``tool_schema_invalid``. A value that is not JSON (a set, ``NaN``, a non-string key) gets a
    problem naming its path. When validation itself fails (an input nested too deeply) the one
    problem is ``"input" could not be validated against the schema: <reason>``.

    Attributes:
        schema: the schema as given (not copied).
        schema_error: why the library cannot use a dict ``schema``, else ``None``.
        validator: the compiled ``jsonschema_rs`` validator, or ``None``.
    """

    __slots__ = ("schema", "schema_error", "validator", "problems", "_silo", "_covered")

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.schema_error: str | None = None
        self.validator: Any = None
        self._silo: Any = None
        self._covered: dict[Path, frozenset[str]] = {}
        self.problems: Callable[[Any], list[str]] = _no_problems
        if not isinstance(schema, dict):
            return
        try:
            self._silo = compile_silo_pass(schema)
            self._covered = silo_coverage(schema)
            implied = silo_implied(schema)
        except RecursionError:
            self.schema_error = "it is nested too deeply"
            self.problems = self._unusable
            return
        self.validator, self.schema_error = compile_decision(schema)
        if self.validator is None:
            self.problems = self._unusable
        else:
            self.problems = self._checker(implied)

    def _checker(self, implied: bool) -> Callable[[Any], list[str]]:
        """``problems`` as one closure over what it needs (the step hot path, silo-format §5.2).

        When the Silo pass's checks are all the library's own (``implied``), an input without null
        members that the library accepts is valid at once: one library call. Otherwise, and for
        every input the library rejects, the Silo pass runs first.
        """
        silo = self._silo
        is_valid = self.validator.is_valid
        explain = self._explain

        def with_silo(value: Any, instance: Any, accepted: bool | None) -> list[str]:
            out: list[str] = []
            failed: list[Path] = []
            if silo is not None:
                silo(value, (), out, failed)
            if accepted is None:
                accepted = is_valid(instance)
            return out if accepted else explain(instance, out, failed)

        def problems(value: Any) -> list[str]:
            try:
                if implied and type(value) is dict:
                    # Most tool inputs: a flat object of ASCII strings, integers and booleans is
                    # its own instance (no null, nothing to copy), so it needs one library call.
                    for key, member in value.items():
                        kind = type(member)
                        if kind is str:
                            if not member.isascii():
                                break
                        elif kind is not int and kind is not bool:
                            break
                        if type(key) is not str or not key.isascii():
                            break
                    else:
                        return [] if is_valid(value) else with_silo(value, value, False)
                instance = json_instance(value)
                if implied and instance is value:
                    return [] if is_valid(instance) else with_silo(value, instance, False)
                return with_silo(value, instance, None)
            except NotJson as exc:
                out: list[str] = []
                failed: list[Path] = []
                if silo is not None:  # the value is not JSON: the Silo pass still speaks first
                    silo(value, (), out, failed)
                if not any(exc.path[: len(f)] == f for f in failed):
                    out.append(non_json_problem(exc.path, exc.what))
                return out
            except Exception as exc:  # RecursionError for an input nested too deeply, ...
                return [internal_problem(exc)]

        return problems

    def _explain(self, instance: Any, out: list[str], failed: list[Path]) -> list[str]:
        """The problems of an input the library rejected (the slow path, on rejection only)."""
        errors = list(self.validator.iter_errors(instance))
        extra = library_problems(errors, schema=self.schema, instance=instance, covered=self._covered, failed=failed)
        for problem in extra:
            if problem not in out:
                out.append(problem)
        if not out:  # never reject in silence: word the errors without dropping any
            out.extend(library_problems(errors, schema=self.schema, instance=instance, covered={}, failed=()))
        return out or [internal_problem(ValueError("the library rejected the input without an error"))]

    def _unusable(self, value: Any) -> list[str]:
        out: list[str] = []
        if self._silo is not None:
            try:
                self._silo(value, (), out, [])
            except Exception:  # the schema is broken; its own problem below says so
                out = []
        out.append(schema_problem(self.schema_error or "unknown reason"))
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        # The library's validator does not pickle; compile again on the other side.
        return (compile_schema, (self.schema,))

    def __repr__(self) -> str:
        state = "invalid schema" if self.schema_error else ("accepts anything" if self.validator is None else "compiled")
        return f"CompiledSchema({state})"


def _no_problems(value: Any) -> list[str]:
    return []


def compile_schema(schema: Any) -> CompiledSchema:
    """Compile ``schema`` once (silo-format §3.3); see :class:`CompiledSchema`. Never raises."""
    return CompiledSchema(schema)


_CACHE: dict[str, CompiledSchema] = {}
_CACHE_MAX = 256


def validate_tool_input(schema: Any, value: Any) -> list[str]:
    """The problems of ``value`` under ``schema`` (silo-format §3.3):
    ``compile_schema(schema).problems(value)``.

    Compiled schemas are cached by the schema's text (JSON-compatible schemas only), so calling
    this repeatedly with one schema compiles it once. Tools use their own cached validator
    (``SiloTool.validator``).
    """
    key = _schema_key(schema)
    if key is None:
        return compile_schema(schema).problems(value)
    compiled = _CACHE.get(key)
    if compiled is None:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        compiled = _CACHE[key] = compile_schema(schema)
    return compiled.problems(value)


def _schema_key(schema: Any) -> str | None:
    """A cache key faithful to a JSON-compatible schema (``repr`` keeps key order and 1 vs 1.0)."""
    try:
        return repr(schema) if is_json_compatible(schema) else None
    except Exception:
        return None
