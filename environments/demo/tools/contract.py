"""The tool contract: schema builders (demo-crm.md §6.1), paging (§6.2) and input readers (§6.3).

Readers run inside ``run``, after schema validation, and raise ``ToolError("invalid_input", ...)``
with the documented messages. They treat a missing key and ``None`` alike.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any

from silo_gym import ToolError, format_number

__all__ = [
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "actor_prop",
    "boolean_prop",
    "date_prop",
    "enum_prop",
    "integer_prop",
    "number_prop",
    "paginate",
    "paginate_ids",
    "paging_props",
    "read_boolean",
    "read_date",
    "read_enum",
    "read_number",
    "read_optional_date",
    "read_optional_enum",
    "read_optional_number",
    "read_optional_string",
    "read_string",
    "schema",
    "string_prop",
]

Args = dict[str, Any]

LIMIT_DEFAULT = 50
LIMIT_MAX = 500

# ---------------------------------------------------------------------------------------------
# Schema builders. Property key order: type, enum, description, minimum, maximum, default.


def _prop(
    type_: str,
    description: str,
    *,
    enum: Sequence[str] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    default: Any = None,
) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": type_}
    if enum is not None:
        prop["enum"] = list(enum)
    prop["description"] = description
    if minimum is not None:
        prop["minimum"] = minimum
    if maximum is not None:
        prop["maximum"] = maximum
    if default is not None:
        prop["default"] = default
    return prop


def string_prop(description: str) -> dict[str, Any]:
    """A string property."""
    return _prop("string", description)


def date_prop(description: str) -> dict[str, Any]:
    """A date property: a string whose description names the ``YYYY-MM-DD`` format."""
    if "YYYY-MM-DD" not in description:
        description = f"{description} Format: YYYY-MM-DD."
    return _prop("string", description)


def enum_prop(values: Sequence[str], description: str) -> dict[str, Any]:
    """A string property restricted to ``values``."""
    return _prop("string", description, enum=values)


def number_prop(description: str, minimum: float | None = None) -> dict[str, Any]:
    """A number property, with an optional ``minimum``."""
    return _prop("number", description, minimum=minimum)


def integer_prop(
    description: str, minimum: int | None = None, maximum: int | None = None, default: int | None = None
) -> dict[str, Any]:
    """An integer property, with optional ``minimum``, ``maximum`` and ``default``."""
    return _prop("integer", description, minimum=minimum, maximum=maximum, default=default)


def boolean_prop(description: str, default: bool | None = None) -> dict[str, Any]:
    """A boolean property, with an optional ``default`` (an annotation; readers apply it)."""
    return _prop("boolean", description, default=default)


def actor_prop() -> dict[str, Any]:
    """``actorUserId``: the last property of every mutating tool."""
    return string_prop(
        "Id of the user performing this change (for example USR-002). The user must exist and be "
        "active; the change is recorded in the audit log under this id."
    )


def paging_props() -> dict[str, dict[str, Any]]:
    """``limit`` and ``offset``, which end every list and search tool."""
    return {
        "limit": integer_prop(
            "Maximum number of results to return on this page.",
            minimum=1,
            maximum=LIMIT_MAX,
            default=LIMIT_DEFAULT,
        ),
        "offset": integer_prop(
            "Number of results (sorted by id) to skip before this page starts.", minimum=0, default=0
        ),
    }


def schema(properties: dict[str, dict[str, Any]], required: Iterable[str] = ()) -> dict[str, Any]:
    """``{"type": "object", "properties", "required", "additionalProperties": false}``.

    ``required`` is listed in property order, whatever order it is given in.
    """
    wanted = set(required)
    unknown = wanted - set(properties)
    if unknown:
        raise ValueError(f"required names that are not properties: {sorted(unknown)}")
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name in wanted],
        "additionalProperties": False,
    }


# ---------------------------------------------------------------------------------------------
# Readers


def _invalid(message: str, details: Any = None) -> ToolError:
    return ToolError("invalid_input", message, details)


def read_string(args: Args, field: str) -> str:
    """A string that is non-empty after trimming; returns the trimmed value."""
    value = args.get(field)
    if isinstance(value, str):
        trimmed = value.strip()
        if trimmed:
            return trimmed
    raise _invalid(f'"{field}" must be a non-empty string.')


def read_optional_string(args: Args, field: str) -> str | None:
    """Missing or null gives ``None``; otherwise as :func:`read_string` (so ``""`` fails)."""
    if args.get(field) is None:
        return None
    return read_string(args, field)


def read_number(
    args: Args,
    field: str,
    integer: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float:
    """A finite number (not a bool); whole when ``integer`` (returned as ``int``); within range."""
    value = args.get(field)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _invalid(f'"{field}" must be a number.')
    if integer:
        if not float(value).is_integer():
            raise _invalid(f'"{field}" must be a whole number.')
        value = int(value)
    if minimum is not None and value < minimum:
        raise _invalid(f'"{field}" must be at least {format_number(minimum)}.')
    if maximum is not None and value > maximum:
        raise _invalid(f'"{field}" must be at most {format_number(maximum)}.')
    return value


def read_optional_number(
    args: Args,
    field: str,
    integer: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
    default: float | None = None,
) -> float | None:
    """Missing or null gives ``default``; otherwise as :func:`read_number`."""
    if args.get(field) is None:
        return default
    return read_number(args, field, integer=integer, minimum=minimum, maximum=maximum)


def read_boolean(args: Args, field: str, fallback: bool) -> bool:
    """Missing or null gives ``fallback``; otherwise the value must be a bool."""
    value = args.get(field)
    if value is None:
        return fallback
    if not isinstance(value, bool):
        raise _invalid(f'"{field}" must be true or false.')
    return value


def read_enum(args: Args, field: str, values: Sequence[str]) -> str:
    """One of ``values`` (strict: only a string can match)."""
    value = args.get(field)
    if not isinstance(value, str) or value not in values:
        raise _invalid(f'"{field}" must be one of: {", ".join(values)}.', {"received": value})
    return value


def read_optional_enum(args: Args, field: str, values: Sequence[str]) -> str | None:
    """Missing or null gives ``None``; otherwise as :func:`read_enum`."""
    if args.get(field) is None:
        return None
    return read_enum(args, field, values)


_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def read_date(args: Args, field: str) -> str:
    """A ``YYYY-MM-DD`` string naming a real calendar date (``2026-02-30`` fails)."""
    value = args.get(field)
    if isinstance(value, str) and _DATE_RE.fullmatch(value):
        try:
            date.fromisoformat(value)
        except ValueError:
            pass
        else:
            return value
    raise _invalid(f'"{field}" must be a date in YYYY-MM-DD format.', {"received": value})


def read_optional_date(args: Args, field: str, default: str | None = None) -> str | None:
    """Missing or null gives ``default``; otherwise as :func:`read_date`."""
    if args.get(field) is None:
        return default
    return read_date(args, field)


# ---------------------------------------------------------------------------------------------
# Paging


def _read_paging(args: Args) -> tuple[int, int]:
    """``(limit, offset)``, read in that order."""
    limit = read_optional_number(
        args, "limit", integer=True, minimum=1, maximum=LIMIT_MAX, default=LIMIT_DEFAULT
    )
    offset = read_optional_number(args, "offset", integer=True, minimum=0, default=0)
    return limit, offset  # type: ignore[return-value]


def paginate(items: Iterable[dict[str, Any]], args: Args) -> dict[str, Any]:
    """Sort by ``id``, cut one page with ``limit``/``offset``, and wrap it with the totals."""
    limit, offset = _read_paging(args)
    ordered = sorted(items, key=lambda item: item["id"])
    page = ordered[offset : offset + limit]
    return {"total": len(ordered), "count": len(page), "offset": offset, "results": page}


def paginate_ids(
    ids: Sequence[str], records: dict[str, Any], args: Args, project: Callable[[Any], dict[str, Any]]
) -> dict[str, Any]:
    """:func:`paginate` over the records ``ids`` names, given already in id order: the same result,
    but only the page's records are projected (``project(record)``), so a page costs its size."""
    limit, offset = _read_paging(args)
    page = ids[offset : offset + limit]
    return {"total": len(ids), "count": len(page), "offset": offset, "results": [project(records[i]) for i in page]}
