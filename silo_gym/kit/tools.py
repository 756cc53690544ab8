"""Kit tools: read/write tagging, tools from typed functions, and builders for the common shapes.

Every tool made here is a :class:`KitTool`, a :class:`silo_gym.SiloTool` with an ``access`` tag
(``"read"`` or ``"write"``); its input schema is a plain JSON Schema dict, validated by the same
compiled path as a hand-written one.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from ..tools import RunFn, SiloTool
from .collections import Collection
from .paging import page_ids
from .params import (
    DEFAULT_CONTRACT,
    Args,
    Boolean,
    Contract,
    Enum,
    Integer,
    Number,
    Param,
    String,
    params_schema,
    schema,
)

__all__ = [
    "READ",
    "WRITE",
    "Access",
    "Bounds",
    "Doc",
    "Filter",
    "Key",
    "KitTool",
    "access_of",
    "camel_case",
    "catalog_tool",
    "clock_tool",
    "doc_summary",
    "get_tool",
    "kit_tool",
    "list_tool",
    "pick",
    "read_tool",
    "read_tools",
    "search_filter",
    "tool",
    "write_tool",
    "write_tools",
]

Access = Literal["read", "write"]
READ: Access = "read"
WRITE: Access = "write"


@dataclass(frozen=True, eq=False)
class KitTool(SiloTool):
    """A :class:`SiloTool` tagged ``access="read"`` (never changes the world) or ``"write"``."""

    access: Access = WRITE

    def __getstate__(self) -> dict[str, Any]:
        out = super().__getstate__()
        out["access"] = self.access
        return out


def kit_tool(*, name: str, description: str, input_schema: Any, run: RunFn, access: Access) -> KitTool:
    """``define_tool`` with a read/write tag.

    Raises:
        ValueError: ``access`` is not ``"read"`` or ``"write"``.
    """
    if access not in (READ, WRITE):
        raise ValueError(f'access must be "read" or "write", not {access!r}')
    return KitTool(name=name, description=description, input_schema=input_schema, run=run, access=access)


def read_tool(*, name: str, description: str, input_schema: Any, run: RunFn) -> KitTool:
    """``define_tool`` for a tool that never changes the world (tagged ``"read"``)."""
    return KitTool(name=name, description=description, input_schema=input_schema, run=run, access=READ)


def write_tool(*, name: str, description: str, input_schema: Any, run: RunFn) -> KitTool:
    """``define_tool`` for a tool that may change the world (tagged ``"write"``)."""
    return KitTool(name=name, description=description, input_schema=input_schema, run=run, access=WRITE)


def pick(record: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """A new dict of ``record``'s values under ``keys``, in the order of ``keys`` (a summary's
    plain fields).

    Raises:
        KeyError: the record lacks one of the keys.
    """
    return {key: record[key] for key in keys}


def access_of(tool: SiloTool) -> Access | None:
    """The tool's tag, or ``None`` for a tool made without the kit."""
    return getattr(tool, "access", None)


def read_tools(tools: Sequence[SiloTool]) -> list[SiloTool]:
    """The tools tagged ``read``, in order."""
    return [t for t in tools if access_of(t) == READ]


def write_tools(tools: Sequence[SiloTool]) -> list[SiloTool]:
    """The tools tagged ``write``, in order."""
    return [t for t in tools if access_of(t) == WRITE]


# ---------------------------------------------------------------------------------------------
# Tools from typed functions


@dataclass(frozen=True)
class Bounds:
    """``Annotated[int, Bounds(1, 500)]``: the inclusive range of a number parameter."""

    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True)
class Doc:
    """``Annotated[str, Doc("...")]``: the parameter's description (else the docstring's)."""

    text: str


@dataclass(frozen=True)
class Key:
    """``Annotated[str, Key("actorUserId")]``: the input key (else the name in camelCase)."""

    name: str


def camel_case(name: str) -> str:
    """``account_id`` -> ``accountId`` (a name without ``_`` is kept)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_ARG_LINE = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?:\s*(.*)$")


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The summary (every line before ``Args:``, joined by spaces) and each argument's text."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    current: str | None = None
    in_args = False
    indent = 0
    for line in lines:
        if not in_args:
            if _ARGS_HEADER.match(line):
                in_args = True
                continue
            summary.append(line.strip())
            continue
        if not line.strip():
            current = None
            continue
        match = _ARG_LINE.match(line)
        if match and (current is None or len(match.group(1)) <= indent):
            indent = len(match.group(1))
            current = match.group(2)
            args[current] = match.group(3).strip()
        elif current is not None and line.startswith(" " * (indent + 1)):
            args[current] = f"{args[current]} {line.strip()}".strip()
        else:
            break  # another section (Returns:, Raises:) ends the arguments
    return " ".join(part for part in summary if part), args


def doc_summary(fn: Callable[..., Any]) -> str:
    """A tool's description from its function's docstring: the text before ``Args:``, its lines
    joined by single spaces (``""`` without a docstring)."""
    return _parse_docstring(fn.__doc__)[0]


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    """``(T, True)`` for ``T | None``, else ``(annotation, False)``."""
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1 and len(members) < len(get_args(annotation)):
            return members[0], True
    return annotation, False


def _param_from(name: str, annotation: Any, default: Any, description: str) -> tuple[str, Param]:
    """The input key and the spec one function parameter declares.

    Raises:
        TypeError: an annotation the kit cannot turn into a schema.
    """
    key = camel_case(name)
    bounds = Bounds()
    explicit: Param | None = None
    if get_origin(annotation) is Annotated:
        base, *meta = get_args(annotation)
        for item in meta:
            if isinstance(item, Bounds):
                bounds = item
            elif isinstance(item, Doc):
                description = item.text
            elif isinstance(item, Key):
                key = item.name
            elif isinstance(item, Param):
                explicit = item
        annotation = base
    annotation, optional = _unwrap_optional(annotation)
    has_default = default is not inspect.Parameter.empty
    required = not has_default and not optional
    value_default = default if has_default else None
    if explicit is not None:
        explicit.required = required
        return key, explicit
    if get_origin(annotation) is Literal:
        values = get_args(annotation)
        if not all(isinstance(v, str) for v in values):
            raise TypeError(f"parameter {name!r}: Literal values must be strings")
        return key, Enum(
            values, description, required=required, default=value_default, schema_default=value_default
        )
    if annotation is bool:
        return key, Boolean(description, required=required, default=value_default)
    if annotation is int:
        return key, Integer(
            description,
            required=required,
            default=value_default,
            minimum=bounds.minimum,
            maximum=bounds.maximum,
        )
    if annotation is float:
        return key, Number(
            description,
            required=required,
            default=value_default,
            minimum=bounds.minimum,
            maximum=bounds.maximum,
            schema_default=value_default,
        )
    if annotation is str:
        return key, String(description, required=required, default=value_default)
    raise TypeError(
        f"parameter {name!r}: the kit reads str, int, float, bool, Literal[...] or an Annotated Param, "
        f"not {annotation!r}"
    )


def tool(
    access: Access,
    *,
    name: str | None = None,
    description: str | None = None,
    contract: Contract = DEFAULT_CONTRACT,
) -> Callable[[Callable[..., Any]], KitTool]:
    """Decorator: a :class:`KitTool` from ``fn(state, <typed parameters>)``.

    The input schema comes from the signature: ``str``, ``int``, ``float``, ``bool``,
    ``Literal["a", "b"]`` (an enum), ``T | None`` (optional), a default (optional, and written
    into integer, number, enum and boolean properties), ``Annotated[int, Bounds(1, 500)]``,
    ``Annotated[str, Doc(...)]``, ``Annotated[str, Key("actorUserId")]`` or an ``Annotated``
    :class:`~silo_gym.kit.params.Param` (``Date``). Keys are the names in camelCase. The tool's
    description is the docstring's text before ``Args:``; each parameter's is its ``Args:`` line.
    At run time every parameter is read in signature order by the contract's readers (so a bad
    value gets the world's ``invalid_input`` message) and passed by its Python name.

    Raises:
        TypeError: an unsupported annotation, or a function without a leading state parameter.
    """

    def wrap(fn: Callable[..., Any]) -> KitTool:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)
        summary, arg_docs = _parse_docstring(fn.__doc__)
        parameters = list(signature.parameters.values())
        if not parameters:
            raise TypeError(f"{fn.__name__}: a tool function takes the state first")
        specs: dict[str, Param] = {}
        names: dict[str, str] = {}
        for parameter in parameters[1:]:
            annotation = hints.get(parameter.name, str)
            key, spec = _param_from(
                parameter.name, annotation, parameter.default, arg_docs.get(parameter.name, "")
            )
            specs[key] = spec
            names[key] = parameter.name

        def run(state: Any, args: Args) -> Any:
            values = {names[key]: spec.read(args, key, contract) for key, spec in specs.items()}
            return fn(state, **values)

        return kit_tool(
            name=name or fn.__name__,
            description=description if description is not None else summary,
            input_schema=params_schema(specs, contract),
            run=run,
            access=access,
        )

    return wrap


# ---------------------------------------------------------------------------------------------
# Builders for the common shapes


@dataclass(frozen=True)
class Filter:
    """One filter of a list tool: a parameter and how a record matches its value.

    ``link``: the records whose link field equals the value (served from the link index, so a
    filtered page costs the bucket, not the world). ``field`` with ``match="equals"`` or
    ``"contains"`` (case-insensitive text), or ``test(state, record, value)``, for anything else.
    A filter whose value reads as ``None`` (or ``False`` for a boolean) is not applied.
    """

    param: Param
    link: str | None = None
    field: str | None = None
    match: Literal["equals", "contains"] = "equals"
    test: Callable[[Any, dict[str, Any], Any], bool] | None = None

    def keeps(self, state: Any, record: dict[str, Any], value: Any) -> bool:
        if self.test is not None:
            return self.test(state, record, value)
        got = record[self.field or self.link or ""]
        if self.match == "contains":
            return got is not None and str(value).lower() in str(got).lower()
        return bool(got == value)


def search_filter(description: str, texts: Callable[[Any, dict[str, Any]], Iterable[str | None]]) -> Filter:
    """The required ``query`` filter of a search tool: a record matches when the query, compared
    case-insensitively, is part of one of ``texts(state, record)`` (a ``None`` text never matches)."""

    def test(state: Any, record: dict[str, Any], value: Any) -> bool:
        query = str(value).lower()
        return any(text is not None and query in text.lower() for text in texts(state, record))

    return Filter(String(description, required=True), test=test)


@dataclass
class _ListPlan:
    collection: Collection
    filters: Mapping[str, Filter]
    summary: Callable[[Any, dict[str, Any]], Any]
    contract: Contract
    extra: list[str] = field(default_factory=list)

    def run(self, state: Any, args: Args) -> Any:
        values = {key: f.param.read(args, key, self.contract) for key, f in self.filters.items()}
        active = [
            (key, f)
            for key, f in self.filters.items()
            if values[key] is not None and values[key] is not False
        ]
        links: dict[str, Hashable] = {}
        rest = []
        for key, f in active:
            if f.link is not None and f.test is None and isinstance(values[key], Hashable) and f.link not in links:
                links[f.link] = values[key]
            else:
                rest.append((key, f))
        ids = self.collection.ids_where(state, links)  # from the smallest link bucket
        records = self.collection.records(state)
        if rest:
            ids = [i for i in ids if all(f.keeps(state, records[i], values[key]) for key, f in rest)]
        return page_ids(ids, records, args, lambda r: self.summary(state, r), self.contract)


def list_tool(
    *,
    name: str,
    description: str,
    collection: Collection,
    summary: Callable[[Any, dict[str, Any]], Any],
    filters: Mapping[str, Filter] | None = None,
    contract: Contract = DEFAULT_CONTRACT,
) -> KitTool:
    """A read tool listing ``collection`` in id order, one page at a time: the filters' parameters
    then ``limit``/``offset``; each result is ``summary(state, record)``, computed for the page's
    records only."""
    filters = dict(filters or {})
    plan = _ListPlan(collection, filters, summary, contract)
    props = {key: f.param.prop(contract) for key, f in filters.items()}
    props.update(contract.paging_props())
    input_schema = schema(props, [key for key, f in filters.items() if f.param.required])
    return kit_tool(name=name, description=description, input_schema=input_schema, run=plan.run, access=READ)


def get_tool(
    *,
    name: str,
    description: str,
    collection: Collection,
    id_key: str,
    id_description: str,
    show: Callable[[Any, dict[str, Any]], Any],
    contract: Contract = DEFAULT_CONTRACT,
) -> KitTool:
    """A read tool returning ``show(state, record)`` for the record whose id is ``input[id_key]``
    (``not_found`` with the collection's message otherwise)."""

    def run(state: Any, args: Args) -> Any:
        return show(state, collection.require(state, contract.read_string(args, id_key)))

    input_schema = params_schema({id_key: String(id_description, required=True)}, contract)
    return kit_tool(name=name, description=description, input_schema=input_schema, run=run, access=READ)


@dataclass(frozen=True)
class _Catalog:
    collection: Collection
    summary: Callable[[Any, dict[str, Any]], Any]
    order: Callable[[dict[str, Any]], Any]

    def __call__(self, state: Any, args: Args) -> Any:
        records = sorted(self.collection.records(state).values(), key=self.order)
        return {"results": [self.summary(state, r) for r in records]}


def catalog_tool(
    *,
    name: str,
    description: str,
    collection: Collection,
    summary: Callable[[Any, dict[str, Any]], Any],
    order: Callable[[dict[str, Any]], Any] = lambda record: record["order"],
) -> KitTool:
    """A read tool without inputs listing a small fixed collection (pipeline stages, workflow
    states) as ``{"results": [summary(state, record)...]}``, sorted by ``order(record)`` (stable:
    ties keep the collection's order; by default the records' ``order`` field)."""
    run = _Catalog(collection, summary, order)
    return kit_tool(name=name, description=description, input_schema=schema({}), run=run, access=READ)


@dataclass(frozen=True)
class _Clock:
    clock: str
    key: str

    def __call__(self, state: Any, args: Args) -> Any:
        return {self.key: state[self.clock]}


def clock_tool(description: str, *, name: str = "get_current_date", clock: str = "now", key: str = "today") -> KitTool:
    """A read tool without inputs returning ``{key: state[clock]}``: the world's simulated date."""
    return kit_tool(name=name, description=description, input_schema=schema({}), run=_Clock(clock, key), access=READ)
