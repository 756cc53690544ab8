"""Tool inputs: a :class:`Contract` (the wording and reading rules of one world) and parameter
specs declared once, each giving its JSON Schema property and its reader.

Readers run inside a tool's ``run``, after schema validation, and raise
``ToolError("invalid_input", message, details)``. They treat a missing key and ``None`` alike.
Two worlds can differ in wording and in a few reading rules (whether an enum or a date is first
read as a trimmed non-empty string, whether booleans carry ``"default": false`` in the schema);
a :class:`Contract` states those choices once, so each world's exact messages stay reproducible.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..errors import ToolError
from ..jsonfmt import format_number

__all__ = [
    "Args",
    "Boolean",
    "Contract",
    "Date",
    "Enum",
    "Integer",
    "Number",
    "Param",
    "String",
    "Wording",
    "invalid_input",
    "prop",
    "schema",
]

Args = Mapping[str, Any]
Prop = dict[str, Any]

_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class Wording:
    """The ``invalid_input`` messages of a world's readers. Each is a ``str.format`` template
    with ``{field}``; ``at_least``/``at_most`` also get ``{bound}`` (formatted as JavaScript
    prints numbers) and ``enum`` gets ``{values}`` (joined by ``", "``)."""

    string: str = '"{field}" must be a non-empty string.'
    number: str = '"{field}" must be a number.'
    whole: str = '"{field}" must be a whole number.'
    at_least: str = '"{field}" must be at least {bound}.'
    at_most: str = '"{field}" must be at most {bound}.'
    boolean: str = '"{field}" must be true or false.'
    enum: str = '"{field}" must be one of: {values}.'
    date: str = '"{field}" must be a date in YYYY-MM-DD format.'


def invalid_input(message: str, details: Any = None) -> ToolError:
    """``ToolError("invalid_input", message, details)``."""
    return ToolError("invalid_input", message, details)


def prop(
    type_: str,
    description: str,
    *,
    enum: Sequence[Any] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    default: Any = None,
) -> Prop:
    """One JSON Schema property; keys in the order ``type, enum, description, minimum, maximum,
    default`` (a ``None`` argument is left out)."""
    out: Prop = {"type": type_}
    if enum is not None:
        out["enum"] = list(enum)
    out["description"] = description
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    if default is not None:
        out["default"] = default
    return out


def schema(properties: Mapping[str, Prop], required: Iterable[str] = ()) -> dict[str, Any]:
    """``{"type": "object", "properties", "required", "additionalProperties": false}``.

    ``required`` is listed in property order, whatever order it is given in.

    Raises:
        ValueError: a required name is not a property.
    """
    wanted = set(required)
    unknown = wanted - set(properties)
    if unknown:
        raise ValueError(f"required names that are not properties: {sorted(unknown)}")
    return {
        "type": "object",
        "properties": dict(properties),
        "required": [name for name in properties if name in wanted],
        "additionalProperties": False,
    }


class Contract:
    """The input rules of one world: wording, reading rules and paging.

    Args:
        wording: the ``invalid_input`` messages.
        enum_reads_string: an enum is first read as a trimmed non-empty string (so a number
            gets the string message, and ``" low "`` matches ``low``); otherwise only an exact
            string can match and anything else gets the enum message with ``{"received"}``.
        date_reads_string: the same choice for dates.
        boolean_default: the ``default`` written into every boolean property (``None``: none)
            and the value a missing boolean reads as when the reader is given no fallback.
        limit_default, limit_max: paging's ``limit`` default and maximum.
        limit_description, offset_description: paging's property descriptions.
    """

    def __init__(
        self,
        *,
        wording: Wording = Wording(),
        enum_reads_string: bool = False,
        date_reads_string: bool = False,
        boolean_default: bool | None = None,
        limit_default: int = 50,
        limit_max: int = 500,
        limit_description: str = "Maximum number of results to return on this page.",
        offset_description: str = "Number of results (sorted by id) to skip before this page starts.",
    ) -> None:
        self.wording = wording
        self.enum_reads_string = enum_reads_string
        self.date_reads_string = date_reads_string
        self.boolean_default = boolean_default
        self.limit_default = limit_default
        self.limit_max = limit_max
        self.limit_description = limit_description
        self.offset_description = offset_description

    def exported(self, name: str) -> Any:
        """The bound reader or property builder ``name`` (``read_*``, ``*_prop``, ``*_props``): a
        world's contract module sets ``__getattr__ = C.exported`` to offer them as its own names.

        Raises:
            AttributeError: ``name`` is not such a method.
        """
        if name.startswith("read_") or name.endswith("_prop") or name.endswith("_props"):
            return getattr(self, name)
        raise AttributeError(f"the contract has no reader or property builder {name!r}")

    # -- properties -----------------------------------------------------------------------

    def string_prop(self, description: str) -> Prop:
        """A string property."""
        return prop("string", description)

    def date_prop(self, description: str) -> Prop:
        """A date: a string whose description names the ``YYYY-MM-DD`` format (appended when the
        description does not)."""
        if "YYYY-MM-DD" not in description:
            description = f"{description} Format: YYYY-MM-DD."
        return prop("string", description)

    def enum_prop(self, values: Sequence[str], description: str, default: str | None = None) -> Prop:
        """A string restricted to ``values``."""
        return prop("string", description, enum=values, default=default)

    def number_prop(
        self, description: str, minimum: float | None = None, maximum: float | None = None
    ) -> Prop:
        """A number, with an optional range."""
        return prop("number", description, minimum=minimum, maximum=maximum)

    def integer_prop(
        self,
        description: str,
        minimum: int | None = None,
        maximum: int | None = None,
        default: int | None = None,
    ) -> Prop:
        """An integer, with an optional range and default."""
        return prop("integer", description, minimum=minimum, maximum=maximum, default=default)

    def boolean_prop(self, description: str, default: bool | None = None) -> Prop:
        """A boolean; ``default`` (else the contract's ``boolean_default``) is an annotation that
        the reader's fallback applies."""
        return prop("boolean", description, default=self.boolean_default if default is None else default)

    def paging_props(self) -> dict[str, Prop]:
        """``limit`` and ``offset``, which end every list and search tool."""
        return {
            "limit": self.integer_prop(
                self.limit_description, minimum=1, maximum=self.limit_max, default=self.limit_default
            ),
            "offset": self.integer_prop(self.offset_description, minimum=0, default=0),
        }

    # -- readers --------------------------------------------------------------------------

    def read_string(self, args: Args, field: str) -> str:
        """A string that is non-empty after trimming; returns the trimmed value."""
        value = args.get(field)
        if isinstance(value, str):
            trimmed = value.strip()
            if trimmed:
                return trimmed
        raise invalid_input(self.wording.string.format(field=field))

    def read_optional_string(self, args: Args, field: str) -> str | None:
        """Missing or null gives ``None``; otherwise as :meth:`read_string` (so ``""`` fails)."""
        if args.get(field) is None:
            return None
        return self.read_string(args, field)

    def read_number(
        self,
        args: Args,
        field: str,
        integer: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> Any:
        """A finite number (not a bool); whole when ``integer`` (returned as ``int``); within
        range; checked in that order."""
        value = args.get(field)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise invalid_input(self.wording.number.format(field=field))
        if integer:
            if not float(value).is_integer():
                raise invalid_input(self.wording.whole.format(field=field))
            value = int(value)
        if minimum is not None and value < minimum:
            raise invalid_input(self.wording.at_least.format(field=field, bound=format_number(minimum)))
        if maximum is not None and value > maximum:
            raise invalid_input(self.wording.at_most.format(field=field, bound=format_number(maximum)))
        return value

    def read_optional_number(
        self,
        args: Args,
        field: str,
        integer: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        default: Any = None,
    ) -> Any:
        """Missing or null gives ``default``; otherwise as :meth:`read_number`."""
        if args.get(field) is None:
            return default
        return self.read_number(args, field, integer=integer, minimum=minimum, maximum=maximum)

    def read_boolean(self, args: Args, field: str, fallback: bool | None = None) -> bool:
        """Missing or null gives ``fallback`` (``None``: the contract's ``boolean_default``, else
        ``False``); otherwise the value must be a bool."""
        value = args.get(field)
        if value is None:
            if fallback is None:
                return bool(self.boolean_default)
            return fallback
        if not isinstance(value, bool):
            raise invalid_input(self.wording.boolean.format(field=field))
        return value

    def read_enum(self, args: Args, field: str, values: Sequence[str]) -> str:
        """One of ``values`` (see ``enum_reads_string`` for what is read first)."""
        value: Any = self.read_string(args, field) if self.enum_reads_string else args.get(field)
        if not isinstance(value, str) or value not in values:
            raise invalid_input(
                self.wording.enum.format(field=field, values=", ".join(values)), {"received": value}
            )
        return value

    def read_optional_enum(self, args: Args, field: str, values: Sequence[str]) -> str | None:
        """Missing or null gives ``None``; otherwise as :meth:`read_enum`."""
        if args.get(field) is None:
            return None
        return self.read_enum(args, field, values)

    def read_date(self, args: Args, field: str) -> str:
        """A ``YYYY-MM-DD`` string naming a real calendar date (``2026-02-30`` fails)."""
        value: Any = self.read_string(args, field) if self.date_reads_string else args.get(field)
        if isinstance(value, str) and _DATE_RE.fullmatch(value):
            try:
                date.fromisoformat(value)
            except ValueError:
                pass
            else:
                return value
        raise invalid_input(self.wording.date.format(field=field), {"received": value})

    def read_optional_date(self, args: Args, field: str, default: str | None = None) -> str | None:
        """Missing or null gives ``default``; otherwise as :meth:`read_date`."""
        if args.get(field) is None:
            return default
        return self.read_date(args, field)

    def read_paging(self, args: Args) -> tuple[int, int]:
        """``(limit, offset)``, read in that order, with the contract's default and maximum."""
        limit = self.read_optional_number(
            args, "limit", integer=True, minimum=1, maximum=self.limit_max, default=self.limit_default
        )
        offset = self.read_optional_number(args, "offset", integer=True, minimum=0, default=0)
        return limit, offset


#: The contract a world gets when it names none (the demo world's wording and rules).
DEFAULT_CONTRACT = Contract()


# ---------------------------------------------------------------------------------------------
# Parameter specs: one declaration gives the property and the reader.


class Param:
    """A tool parameter declared once: :meth:`prop` is its JSON Schema property, :meth:`read`
    its reader (under a :class:`Contract`). ``required`` puts its name in the schema's
    ``required`` list and makes the reader refuse a missing value."""

    type_name = "string"

    def __init__(self, description: str, *, required: bool = False, default: Any = None) -> None:
        self.description = description
        self.required = required
        self.default = default

    def prop(self, contract: Contract = DEFAULT_CONTRACT) -> Prop:
        return contract.string_prop(self.description)

    def read(self, args: Args, field: str, contract: Contract = DEFAULT_CONTRACT) -> Any:
        raise NotImplementedError


class String(Param):
    """A trimmed non-empty string; optional ones read a missing value as ``default``."""

    def read(self, args: Args, field: str, contract: Contract = DEFAULT_CONTRACT) -> Any:
        if not self.required and args.get(field) is None:
            return self.default
        return contract.read_string(args, field)


class Date(Param):
    """A ``YYYY-MM-DD`` calendar date."""

    def prop(self, contract: Contract = DEFAULT_CONTRACT) -> Prop:
        return contract.date_prop(self.description)

    def read(self, args: Args, field: str, contract: Contract = DEFAULT_CONTRACT) -> Any:
        if not self.required and args.get(field) is None:
            return self.default
        return contract.read_date(args, field)


class Enum(Param):
    """One of ``values``; ``schema_default`` is written into the property."""

    def __init__(
        self,
        values: Sequence[str],
        description: str,
        *,
        required: bool = False,
        default: Any = None,
        schema_default: str | None = None,
    ) -> None:
        super().__init__(description, required=required, default=default)
        self.values = tuple(values)
        self.schema_default = schema_default

    def prop(self, contract: Contract = DEFAULT_CONTRACT) -> Prop:
        return contract.enum_prop(self.values, self.description, default=self.schema_default)

    def read(self, args: Args, field: str, contract: Contract = DEFAULT_CONTRACT) -> Any:
        if not self.required and args.get(field) is None:
            return self.default
        return contract.read_enum(args, field, self.values)


class Number(Param):
    """A finite number within ``[minimum, maximum]``; whole (an ``int``) when ``integer``."""

    def __init__(
        self,
        description: str,
        *,
        required: bool = False,
        default: Any = None,
        minimum: float | None = None,
        maximum: float | None = None,
        integer: bool = False,
        schema_default: Any = None,
    ) -> None:
        super().__init__(description, required=required, default=default)
        self.minimum = minimum
        self.maximum = maximum
        self.integer = integer
        self.schema_default = schema_default

    def prop(self, contract: Contract = DEFAULT_CONTRACT) -> Prop:
        return prop(
            "integer" if self.integer else "number",
            self.description,
            minimum=self.minimum,
            maximum=self.maximum,
            default=self.schema_default,
        )

    def read(self, args: Args, field: str, contract: Contract = DEFAULT_CONTRACT) -> Any:
        if not self.required and args.get(field) is None:
            return self.default
        return contract.read_number(
            args, field, integer=self.integer, minimum=self.minimum, maximum=self.maximum
        )


class Integer(Number):
    """A whole number (``Number(..., integer=True)``); its ``default`` is also written into the
    property."""

    def __init__(
        self,
        description: str,
        *,
        required: bool = False,
        default: Any = None,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> None:
        super().__init__(
            description,
            required=required,
            default=default,
            minimum=minimum,
            maximum=maximum,
            integer=True,
            schema_default=default,
        )


class Boolean(Param):
    """``true``/``false``; a missing value reads as ``default`` (else the contract's)."""

    def prop(self, contract: Contract = DEFAULT_CONTRACT) -> Prop:
        return contract.boolean_prop(self.description, default=self.default)

    def read(self, args: Args, field: str, contract: Contract = DEFAULT_CONTRACT) -> Any:
        return contract.read_boolean(args, field, self.default)


def params_schema(params: Mapping[str, Param], contract: Contract = DEFAULT_CONTRACT) -> dict[str, Any]:
    """The input schema of a tool whose parameters are ``params`` (in that order)."""
    return schema(
        {name: spec.prop(contract) for name, spec in params.items()},
        [name for name, spec in params.items() if spec.required],
    )


def read_params(
    params: Mapping[str, Param], args: Args, contract: Contract = DEFAULT_CONTRACT
) -> dict[str, Any]:
    """Every parameter read in declaration order (the first bad one raises)."""
    return {name: spec.read(args, name, contract) for name, spec in params.items()}
