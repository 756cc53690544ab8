"""Tool input validation: Silo's problem messages plus the full JSON Schema pass (silo-format §3.3).

PLACEHOLDER: only the Silo pass; the full-schema pass is being written.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["CompiledSchema", "compile_schema", "type_name", "validate_tool_input"]


def type_name(value: Any) -> str:
    """The type name Silo reports for a value (silo-format §3.3)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class CompiledSchema:
    """A schema compiled once; ``problems(value)`` returns the list of problem strings."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.problems: Callable[[Any], list[str]] = self._problems

    def _problems(self, value: Any) -> list[str]:
        return validate_tool_input(self.schema, value)


def compile_schema(schema: Any) -> CompiledSchema:
    return CompiledSchema(schema)


def _matches(value: Any, t: str) -> bool:
    if t == "integer":
        return (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
            and float(value).is_integer()
        )
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
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
    return type_name(value) == t


def validate_tool_input(schema: Any, value: Any) -> list[str]:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return []
    problems: list[str] = []
    _check_object(value, schema, "", problems)
    return problems


def _check_object(obj: Any, schema: dict[str, Any], path: str, problems: list[str]) -> None:
    if not isinstance(obj, dict):
        return
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    for name in required:
        if obj.get(name) is None:
            problems.append(f'"{name if not path else path + "." + str(name)}" is required')
    if schema.get("additionalProperties") is False:
        for key in obj:
            if key not in props:
                if props:
                    problems.append(f'"{key}" is not a parameter; expected one of: {", ".join(props)}')
                else:
                    problems.append(f'"{key}" is not a parameter')
    for name, sub in props.items():
        if obj.get(name) is None:
            continue
        _check_value(obj[name], sub, name if not path else f"{path}.{name}", problems)


def _check_value(value: Any, sub: Any, path: str, problems: list[str]) -> None:
    if not isinstance(sub, dict):
        return
    t = sub.get("type")
    if isinstance(t, str) and not _matches(value, t):
        problems.append(f'"{path}" must be {t}, received {type_name(value)}')
        return
    if isinstance(sub.get("enum"), list):
        pass
    if t == "array" and isinstance(sub.get("items"), dict):
        for i, item in enumerate(value):
            _check_value(item, sub["items"], f"{path}[{i}]", problems)
    if t == "object":
        _check_object(value, sub, path, problems)
