"""Tool input validation: Silo's problem messages plus the full JSON Schema pass (silo-format §3.3).

``compile_schema(schema)`` analyses a tool's ``input_schema`` once and returns a
:class:`CompiledSchema` whose ``problems(value)`` gives the ordered problem strings for one input
(an empty list means the input is valid). It runs two passes:

1. **The Silo pass** (the reference's algorithm, §3.3), only for a dict schema whose ``type`` is
   ``"object"``: A. required names (a ``None`` value counts as missing), B. unknown keys (only when
   ``additionalProperties is False``), C. declared properties in schema order: type, enum
   (JavaScript strict equality), array items, nested objects. It is compiled into closures, so a
   call does no schema lookups.
2. **The full-schema pass** (our rule, "Beyond the reference"), for every dict schema whatever its
   ``type``, on a copy of the input from which every object member whose value is ``None`` has
   been removed, recursively (tuples count as arrays). The decision is JSON Schema draft 2020-12
   as made by ``jsonschema.Draft202012Validator``; errors whose keyword is ``type``, ``enum``,
   ``required``, ``properties``, ``items``, or ``additionalProperties`` with value ``false`` are
   dropped, and so is every error at or below a path whose type or enum failed in the Silo pass.
   The rest are worded as the spec lists them and ordered by path, then keyword (below).

Two engines decide the full pass, with identical results (a hypothesis differential test in
``tests/test_validation.py`` holds them to it):

- **native**: when every schema node reachable through ``properties``, ``items`` and a
  schema-valued ``additionalProperties`` uses only keywords from :data:`NATIVE_KEYWORDS` (or
  keywords the library ignores, such as ``description``, ``default``, ``title``, ``examples``,
  ``format``), the pass is compiled into closures: both passes together cost about 1–3 µs
  for a valid demo input;
- **library**: otherwise the cached ``jsonschema`` validator runs and its errors are translated
  (about 100 µs and up per call).

Compiling costs one draft 2020-12 meta-schema check (5–30 ms, cached by schema text); the
42 demo tools compile in about 0.25 s, lazily, on each tool's first call.

Choices where the spec leaves room (our rules):

- **Order of the full pass.** Problems are sorted by path, then keyword. A path sorts by its
  elements in turn: a property declared in the schema by its position in ``properties`` (the
  schema's own ``properties`` first, then those of local ``$ref`` targets, ``allOf``/``anyOf``/
  ``oneOf`` members and ``if``/``then``/``else``, in that order), an undeclared key after every
  declared one in the input's key order, an array element by its index. A container's own
  problems come before those of its members (``"input"`` first). At one path, problems follow the
  keyword order of the spec's first list (``minimum`` … ``contains``), then ``minContains``,
  ``maxContains``, ``propertyNames``, ``dependentSchemas``, ``unevaluatedItems``,
  ``unevaluatedProperties``; ties keep the library's order.
- **Paths.** ``input`` is the root object itself; members are ``a.b``, elements ``tags[1]``, a
  root element ``input[0]``.
- **dependentRequired** at the root reads ``"<dep>" is required when "<key>" is present`` (the
  Silo convention: root members are named without a prefix); nested, ``"<p>.<dep>" is required
  when "<p>.<key>" is present``.
- **Applicators** (``allOf``, ``$ref``, ``if``/``then``/``else``, ``prefixItems``,
  ``patternProperties``, schema-valued ``additionalProperties``, ``dependentSchemas``) report the
  failing subschema's own problems at the member's path. A ``false`` subschema reached through
  one of them reports ``"<p>" is not allowed``; a ``false`` under ``properties`` or ``items`` is
  dropped with those keywords, as the spec says literally.
- **Keywords the spec does not word:** ``minContains``/``maxContains``: ``"<p>" must contain at
  least/at most <n> matching items``; ``propertyNames``: ``"<p>.<key>" is not an allowed property
  name``; ``unevaluatedProperties``/``unevaluatedItems``: ``"<p>" has properties/items that are
  not allowed``; anything else: ``"<p>" is invalid (<keyword>)``.
- **Dropped keywords are dropped everywhere**, literally: a ``type``/``enum``/``required`` that
  only the full pass could see (a non-object root ``{"type": "string"}`` given a dict, a
  ``required`` inside ``then`` or ``$ref``, a list-valued ``type``) yields no problem, so such
  inputs are accepted.
- **Invalid schemas.** A schema that is not a dict gives no problems at all (both passes skip
  it). A dict schema that fails the draft 2020-12 meta-schema (``schema_error`` holds the reason;
  ``silo-gym env validate`` reports it as ``tool_schema_invalid``) keeps the Silo pass only:
  running a JSON Schema library on an invalid schema has no defined result. ``compile_schema``
  never raises.
- **``problems`` never raises.** If validation itself fails (an unresolvable ``$ref``, an input
  nested deeper than the recursion limit, a non-JSON value the library cannot compare), the
  result is the single problem ``"input" could not be validated against the schema: <reason>``,
  so ``run`` is not called with an input nobody checked.
- **Strict equality** (§14.2) for ``enum`` in the Silo pass: booleans equal only booleans,
  numbers compare numerically (``1 == 1.0``; ``NaN`` equals nothing), strings by value, ``None``
  only ``None``; a dict, list or any non-JSON value equals nothing (JavaScript's ``===`` compares
  objects by identity, and a JSON input never shares identity with the schema).
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from .jsonfmt import dumps_compact, format_number, is_json_compatible

__all__ = [
    "NATIVE_KEYWORDS",
    "CompiledSchema",
    "compile_schema",
    "text_form_value",
    "type_name",
    "validate_tool_input",
]

Problems = list[str]
Path = tuple[Any, ...]

# ---------------------------------------------------------------------------------------------
# Text helpers


def type_name(value: Any) -> str:
    """The type name Silo reports for a value (silo-format §3.3).

    ``null``, ``boolean``, ``number`` (``int``/``float``, not ``bool``), ``string``, ``array``
    (``list``/``tuple``), ``object`` (``dict``); any other value gives its Python type name.
    """
    if value is None:
        return "null"
    if value is True or value is False:
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


def text_form_value(value: Any) -> str:
    """A value as it appears inside a problem message (silo-format §3.3, §7.3, §14.1–14.2).

    Strings as they are (the reference joins the raw values), numbers as JavaScript prints them
    (``1.0`` → ``1``), ``true``/``false``/``null``, dicts and lists as compact JSON, anything else
    as ``str()``.
    """
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, (dict, list, tuple)):
        return dumps_compact(value)
    return str(value)


def _fmt_path(pt: Path) -> str:
    """Silo-style path text: ``input`` for the root, ``a.b``, ``tags[1]``, ``input[0]``."""
    if not pt:
        return "input"
    parts: list[str] = []
    for el in pt:
        if type(el) is int:
            parts.append(f"[{el}]")
        else:
            name = el if isinstance(el, str) else text_form_value(el)
            parts.append("." + name if parts else name)
    text = "".join(parts)
    return "input" + text if type(pt[0]) is int else text


def _join_key(pt: Path, name_text: str) -> str:
    """A member name under an object path, the Silo way: ``name`` at the root, else ``<path>.name``."""
    return name_text if not pt else _fmt_path(pt) + "." + name_text


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else text_form_value(key)


def _internal_problem(exc: BaseException) -> str:
    reason = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    if len(reason) > 200:
        reason = reason[:197] + "..."
    return f'"input" could not be validated against the schema: {reason}'


# ---------------------------------------------------------------------------------------------
# The Silo pass (the reference's algorithm)

# A value checker: fn(value, parent_path, key, problems, failed_paths). The value's own path is
# parent_path + (key,); it is built only when a problem is reported or the check descends.
ValueFn = Callable[[Any, Path, Any, Problems, list[Path]], None]
# An object checker: fn(obj, path, problems, failed_paths).
ObjFn = Callable[[Any, Path, Problems, list[Path]], None]

_MISSING_KEY = object()  # stands for a required name that cannot be a dict key


def _is_integer(v: Any) -> bool:
    t = type(v)
    if t is int:
        return True
    if t is float:
        return bool(v.is_integer())
    if t is bool:
        return False
    if isinstance(v, int):
        return True
    if isinstance(v, float):
        return float(v).is_integer()
    return False


def _is_number(v: Any) -> bool:
    t = type(v)
    if t is int:
        return True
    if t is float:
        return bool(v - v == 0.0)  # finite
    if t is bool:
        return False
    if isinstance(v, int):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    return False


def _is_null(v: Any) -> bool:
    return v is None


def _is_boolean(v: Any) -> bool:
    return v is True or v is False


_ISINSTANCE_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "array": (list, tuple),
    "object": dict,
}
_PRED_TYPES: dict[str, Callable[[Any], bool]] = {
    "integer": _is_integer,
    "number": _is_number,
    "boolean": _is_boolean,
    "null": _is_null,
}


def _type_pred(t: str) -> Callable[[Any], bool]:
    cls = _ISINSTANCE_TYPES.get(t)
    if cls is not None:
        return lambda v: isinstance(v, cls)
    pred = _PRED_TYPES.get(t)
    if pred is not None:
        return pred
    return lambda v: type_name(v) == t


def _strict_enum(items: list[Any]) -> Callable[[Any], bool]:
    """Membership under JavaScript ``===`` (silo-format §14.2)."""
    strs = frozenset(it for it in items if isinstance(it, str))
    nums = frozenset(
        it for it in items if isinstance(it, (int, float)) and not isinstance(it, bool) and it == it
    )
    has_true = any(it is True for it in items)
    has_false = any(it is False for it in items)
    has_null = any(it is None for it in items)
    if len(strs) == len(items):

        def str_only(v: Any) -> bool:
            return isinstance(v, str) and v in strs

        return str_only

    def member(v: Any) -> bool:
        if isinstance(v, str):
            return v in strs
        if v is True:
            return has_true
        if v is False:
            return has_false
        if v is None:
            return has_null
        if isinstance(v, (int, float)):
            return v == v and v in nums
        return False  # dicts, lists and non-JSON values equal nothing

    return member


def _bare_isinstance(sub: Any) -> type | tuple[type, ...] | None:
    """The class tuple when ``sub``'s whole Silo check is one isinstance test, else None."""
    if not isinstance(sub, dict) or isinstance(sub.get("enum"), list):
        return None
    t = sub.get("type")
    if t == "boolean":
        return bool
    if t == "string":
        return str
    if t == "array" and not isinstance(sub.get("items"), dict):
        return (list, tuple)
    return None


class _Forward:
    """Stands in for a checker still being compiled (a schema that contains itself)."""

    __slots__ = ("fn",)

    def __init__(self) -> None:
        self.fn: Any = None

    def __call__(self, *args: Any) -> None:
        if self.fn is not None:
            self.fn(*args)


class _SiloCompiler:
    def __init__(self) -> None:
        self.values: dict[int, Any] = {}
        self.objects: dict[int, Any] = {}
        self.keep: list[Any] = []  # keeps memo keys alive

    def obj(self, schema: dict[str, Any]) -> ObjFn | None:
        key = id(schema)
        if key in self.objects:
            return self.objects[key]  # type: ignore[no-any-return]
        fwd = _Forward()
        self.objects[key] = fwd
        self.keep.append(schema)
        fn = self._obj(schema)
        fwd.fn = fn
        self.objects[key] = fn
        return fn

    def value(self, sub: Any) -> ValueFn | None:
        if not isinstance(sub, dict):
            return None
        key = id(sub)
        if key in self.values:
            return self.values[key]  # type: ignore[no-any-return]
        fwd = _Forward()
        self.values[key] = fwd
        self.keep.append(sub)
        fn = self._value(sub)
        fwd.fn = fn
        self.values[key] = fn
        return fn

    def _obj(self, schema: dict[str, Any]) -> ObjFn | None:
        props = schema.get("properties")
        if not isinstance(props, dict):
            props = {}
        required = schema.get("required")
        req: list[tuple[Any, str]] = []
        if isinstance(required, list):
            for name in required:
                try:
                    hash(name)
                    key = name
                except TypeError:
                    key = _MISSING_KEY
                req.append((key, _key_text(name)))
        req_t = tuple(req)
        closed = schema.get("additionalProperties") is False
        declared = frozenset(props)
        if props:
            unknown_tail = " is not a parameter; expected one of: " + ", ".join(_key_text(n) for n in props)
        else:
            unknown_tail = " is not a parameter"
        checks_list: list[tuple[str, Any, Any, str]] = []
        for name, sub in props.items():
            fn = self.value(sub)
            if fn is None:
                continue
            # A bare type check by isinstance (string, boolean, array, object with nothing
            # below) runs inline, without a call.
            bare = _bare_isinstance(sub)
            tail = f" must be {sub.get('type')}, received " if bare is not None else ""
            checks_list.append((name, bare, fn, tail))
        checks = tuple(checks_list)
        if not req_t and not closed and not checks:
            return None

        def check_object(obj: Any, pt: Path, out: Problems, failed: list[Path]) -> None:
            if not isinstance(obj, dict):
                return
            for key, text in req_t:
                if obj.get(key) is None:
                    out.append(f'"{_join_key(pt, text)}" is required')
            if closed and not obj.keys() <= declared:
                for k in obj:
                    if k not in declared:
                        out.append(f'"{_key_text(k)}"{unknown_tail}')
            for name, cls, fn, tail in checks:
                v = obj.get(name)
                if v is None:
                    continue
                if cls is None:
                    fn(v, pt, name, out, failed)
                elif not isinstance(v, cls):
                    vpt = pt + (name,)
                    out.append(f'"{_fmt_path(vpt)}"{tail}{type_name(v)}')
                    failed.append(vpt)

        return check_object

    def _value(self, sub: dict[str, Any]) -> ValueFn | None:
        t = sub.get("type")
        if not isinstance(t, str):
            t = None
        enum = sub.get("enum")
        enum_ok = _strict_enum(enum) if isinstance(enum, list) else None
        enum_tail = (
            " must be one of: " + ", ".join(text_form_value(it) for it in enum)
            if isinstance(enum, list)
            else ""
        )
        items = sub.get("items")
        items_fn = self.value(items) if t == "array" and isinstance(items, dict) else None
        obj_fn = self.obj(sub) if t == "object" else None
        if t is None and enum_ok is None and items_fn is None and obj_fn is None:
            return None
        type_tail = f" must be {t}, received "
        pred = _type_pred(t) if t is not None else None
        cls = _ISINSTANCE_TYPES.get(t) if t is not None else None

        if t in ("integer", "number") and enum_ok is None:
            whole = t == "integer"

            def check_numeric(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                tv = type(v)
                if tv is int:
                    return
                if tv is float:
                    if v.is_integer() if whole else v - v == 0.0:
                        return
                elif _is_integer(v) if whole else _is_number(v):
                    return
                pt = ppt + (key,)
                out.append(f'"{_fmt_path(pt)}"{type_tail}{type_name(v)}')
                failed.append(pt)

            return check_numeric

        if t == "string" and isinstance(enum, list) and all(isinstance(it, str) for it in enum):
            allowed = frozenset(enum)

            def check_string_enum(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                if not isinstance(v, str):
                    pt = ppt + (key,)
                    out.append(f'"{_fmt_path(pt)}"{type_tail}{type_name(v)}')
                    failed.append(pt)
                elif v not in allowed:
                    pt = ppt + (key,)
                    out.append(f'"{_fmt_path(pt)}"{enum_tail}')
                    failed.append(pt)

            return check_string_enum

        if cls is not None and enum_ok is None and items_fn is None and obj_fn is None:

            def check_isinstance(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                if not isinstance(v, cls):
                    pt = ppt + (key,)
                    out.append(f'"{_fmt_path(pt)}"{type_tail}{type_name(v)}')
                    failed.append(pt)

            return check_isinstance

        if pred is not None and items_fn is None and obj_fn is None:
            if enum_ok is None:

                def check_type(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                    if not pred(v):
                        pt = ppt + (key,)
                        out.append(f'"{_fmt_path(pt)}"{type_tail}{type_name(v)}')
                        failed.append(pt)

                return check_type

            def check_type_enum(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                if not pred(v):
                    pt = ppt + (key,)
                    out.append(f'"{_fmt_path(pt)}"{type_tail}{type_name(v)}')
                    failed.append(pt)
                elif not enum_ok(v):
                    pt = ppt + (key,)
                    out.append(f'"{_fmt_path(pt)}"{enum_tail}')
                    failed.append(pt)

            return check_type_enum

        def check_value(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
            if pred is not None and not pred(v):
                pt = ppt + (key,)
                out.append(f'"{_fmt_path(pt)}"{type_tail}{type_name(v)}')
                failed.append(pt)
                return
            if enum_ok is not None and not enum_ok(v):
                pt = ppt + (key,)
                out.append(f'"{_fmt_path(pt)}"{enum_tail}')
                failed.append(pt)
                return
            if items_fn is not None:
                pt = ppt + (key,)
                for i, x in enumerate(v):
                    items_fn(x, pt, i, out, failed)
            if obj_fn is not None:
                obj_fn(v, ppt + (key,), out, failed)

        return check_value


# ---------------------------------------------------------------------------------------------
# The full-schema pass: wording and order shared by both engines

#: Keywords whose library errors are dropped (the Silo pass reports those kinds).
_DROPPED = frozenset({"type", "enum", "required", "properties", "items"})

_KEYWORD_ORDER = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "const",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "$ref",
    "$defs",
    "definitions",
    "patternProperties",
    "additionalProperties",
    "dependentRequired",
    "if",
    "then",
    "else",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "dependentSchemas",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_KEYWORD_RANK = {k: i for i, k in enumerate(_KEYWORD_ORDER)}
_OTHER_RANK = len(_KEYWORD_ORDER)

_VALUE_WORDING = {
    "minimum": "must be at least {}",
    "maximum": "must be at most {}",
    "exclusiveMinimum": "must be greater than {}",
    "exclusiveMaximum": "must be less than {}",
    "multipleOf": "must be a multiple of {}",
    "minLength": "must be at least {} characters long",
    "maxLength": "must be at most {} characters long",
    "pattern": "must match the pattern {}",
    "const": "must be {}",
    "minItems": "must have at least {} items",
    "maxItems": "must have at most {} items",
    "minProperties": "must have at least {} properties",
    "maxProperties": "must have at most {} properties",
    "minContains": "must contain at least {} matching items",
    "maxContains": "must contain at most {} matching items",
}
_FIXED_WORDING = {
    "uniqueItems": "must not contain duplicate items",
    "oneOf": "must match exactly one of the allowed shapes",
    "anyOf": "must match at least one of the allowed shapes",
    "not": "must not match the excluded shape",
    "contains": "must contain at least one matching item",
    "unevaluatedProperties": "has properties that are not allowed",
    "unevaluatedItems": "has items that are not allowed",
}
_FALSE_TAIL = "is not allowed"


def _tail(keyword: str, value: Any) -> str:
    """The message after ``"<p>" `` for a keyword and its schema value."""
    template = _VALUE_WORDING.get(keyword)
    if template is not None:
        return template.format(text_form_value(value))
    fixed = _FIXED_WORDING.get(keyword)
    if fixed is not None:
        return fixed
    return f"is invalid ({keyword})"


def _dependent_message(pt: Path, key: Any, dep: Any) -> str:
    return f'"{_join_key(pt, _key_text(dep))}" is required when "{_join_key(pt, _key_text(key))}" is present'


def _strip(value: Any) -> Any:
    """Copy with every object member whose value is ``None`` removed, recursively; tuples → lists."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_strip(v) for v in value]
    return value


def _under(path: Path, failed: list[Path]) -> bool:
    return any(path[: len(f)] == f for f in failed)


# jsonschema's equality (``jsonschema._utils.equal``), used by ``const``; restated here so the
# native engine decides exactly as the library does.
def _lib_equal(one: Any, two: Any) -> bool:
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_lib_equal(i, j) for i, j in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(k in two and _lib_equal(v, two[k]) for k, v in one.items())
    return bool(_unbool(one) == _unbool(two))


_TRUE, _FALSE = object(), object()


def _unbool(v: Any) -> Any:
    if v is True:
        return _TRUE
    if v is False:
        return _FALSE
    return v


def _lib_is_number(v: Any) -> bool:
    """jsonschema's ``number`` type check (any ``numbers.Number`` but ``bool``)."""
    t = type(v)
    if t is int or t is float:
        return True
    return not isinstance(v, bool) and isinstance(v, numbers.Number)


# ---------------------------------------------------------------------------------------------
# The native engine

#: Keywords the native engine decides itself. ``type``, ``enum`` and ``required`` are here
#: because their library errors are dropped anyway; ``format`` is an annotation.
NATIVE_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "required",
        "properties",
        "additionalProperties",
        "items",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "const",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "format",
    }
)
# Keywords that make a schema non-native although the library has no validator function of
# that name (they change how other keywords behave).
_NON_NATIVE_EXTRA = frozenset(
    {"then", "else", "minContains", "maxContains", "$ref", "$dynamicRef", "$recursiveRef", "dependencies"}
)

NodeFn = Callable[[Any, Path, Any, Problems, "frozenset[Path] | None"], None]


def _native_eligible(schema: Any, library_keywords: frozenset[str], active: set[int] | None = None) -> bool:
    """True when every node reachable through properties/items/additionalProperties is native."""
    if not isinstance(schema, dict):
        return isinstance(schema, bool)
    active = set() if active is None else active
    if id(schema) in active:
        return False  # a schema that contains itself
    for k in schema:
        if not isinstance(k, str):
            return False
        if k in NATIVE_KEYWORDS:
            continue
        if k in library_keywords or k in _NON_NATIVE_EXTRA:
            return False
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        return False
    active.add(id(schema))
    try:
        if not all(_native_eligible(s, library_keywords, active) for s in props.values()):
            return False
        for k in ("items", "additionalProperties"):
            if k in schema and not _native_eligible(schema[k], library_keywords, active):
                return False
    finally:
        active.discard(id(schema))
    return True


_NUM_OPS = (
    ("minimum", operator.lt),
    ("maximum", operator.gt),
    ("exclusiveMinimum", operator.le),
    ("exclusiveMaximum", operator.ge),
)


_NO_BOUND = object()


def _numeric_leaf(num_checks: tuple[tuple[Any, Any, str], ...]) -> NodeFn:
    """A node with only minimum/maximum/exclusiveMinimum/exclusiveMaximum (the common case)."""
    bounds = dict((op, (bound, tail)) for op, bound, tail in num_checks)
    mn, mn_tail = bounds.get(operator.lt, (_NO_BOUND, ""))
    mx, mx_tail = bounds.get(operator.gt, (_NO_BOUND, ""))
    xmn, xmn_tail = bounds.get(operator.le, (_NO_BOUND, ""))
    xmx, xmx_tail = bounds.get(operator.ge, (_NO_BOUND, ""))
    has_mn, has_mx, has_xmn, has_xmx = (b is not _NO_BOUND for b in (mn, mx, xmn, xmx))

    def leaf(v: Any, ppt: Path, key: Any, out: Problems, fs: frozenset[Path] | None) -> None:
        tv = type(v)
        if tv is not int and tv is not float and not _lib_is_number(v):
            return
        bad: list[str] | None = None
        if has_mn and v < mn:
            bad = [mn_tail]
        if has_mx and v > mx:
            bad = [mx_tail] if bad is None else [*bad, mx_tail]
        if has_xmn and v <= xmn:
            bad = [xmn_tail] if bad is None else [*bad, xmn_tail]
        if has_xmx and v >= xmx:
            bad = [xmx_tail] if bad is None else [*bad, xmx_tail]
        if bad is not None:
            pt = ppt + (key,)
            if fs and pt in fs:
                return
            text = _fmt_path(pt)
            out.extend(f'"{text}" {tail}' for tail in bad)

    return leaf


def _compile_native(schema: Any, is_root: bool = False) -> NodeFn | None:
    """Compile one schema node into fn(value, parent_path, key, problems, failed_set) or None.

    The value's path is ``parent_path + (key,)`` (``()`` for the root). Own problems come in
    keyword order, then the members: declared properties in schema order, undeclared keys
    (``additionalProperties`` schema) in input order, array elements by index.
    """
    if not isinstance(schema, dict):
        return None  # true: nothing; false: its errors carry a dropped keyword
    num_checks = tuple((op, schema[k], _tail(k, schema[k])) for k, op in _NUM_OPS if k in schema)
    str_checks: list[tuple[str, Any, str]] = []
    if "minLength" in schema:
        str_checks.append(("min", schema["minLength"], _tail("minLength", schema["minLength"])))
    if "maxLength" in schema:
        str_checks.append(("max", schema["maxLength"], _tail("maxLength", schema["maxLength"])))
    if "pattern" in schema:
        str_checks.append(("re", re.compile(schema["pattern"]).search, _tail("pattern", schema["pattern"])))
    has_const = "const" in schema
    const = schema.get("const")
    const_tail = _tail("const", const) if has_const else ""
    arr_checks = tuple(
        (op, schema[k], _tail(k, schema[k]))
        for k, op in (("minItems", operator.lt), ("maxItems", operator.gt))
        if k in schema
    )
    obj_checks = tuple(
        (op, schema[k], _tail(k, schema[k]))
        for k, op in (("minProperties", operator.lt), ("maxProperties", operator.gt))
        if k in schema
    )
    dep_req = tuple((k, tuple(v)) for k, v in schema.get("dependentRequired", {}).items())
    props = schema.get("properties", {})
    declared = frozenset(props)
    children = tuple((name, fn) for name, sub in props.items() if (fn := _compile_native(sub)) is not None)
    ap = schema.get("additionalProperties")
    ap_fn = _compile_native(ap) if isinstance(ap, dict) else None
    items = schema.get("items")
    items_fn = _compile_native(items) if isinstance(items, dict) else None
    str_t = tuple(str_checks)
    has_own = bool(num_checks or str_t or has_const or arr_checks or obj_checks or dep_req)
    has_obj = bool(obj_checks or dep_req or children or ap_fn is not None)
    if not has_own and not has_obj and items_fn is None:
        return None
    if num_checks and not is_root and not (str_t or has_const or arr_checks or has_obj or items_fn):
        return _numeric_leaf(num_checks)

    def node(v: Any, ppt: Path, key: Any, out: Problems, fs: frozenset[Path] | None) -> None:
        pt: Path | None = None
        if fs:
            pt = () if is_root else ppt + (key,)
            if pt in fs:
                return
        if has_own:
            if num_checks and _lib_is_number(v):
                for op, bound, tail in num_checks:
                    if op(v, bound):
                        if pt is None:
                            pt = () if is_root else ppt + (key,)
                        out.append(f'"{_fmt_path(pt)}" {tail}')
            elif str_t and isinstance(v, str):
                for kind, arg, tail in str_t:
                    if kind == "min":
                        bad = len(v) < arg
                    elif kind == "max":
                        bad = len(v) > arg
                    else:
                        bad = not arg(v)
                    if bad:
                        if pt is None:
                            pt = () if is_root else ppt + (key,)
                        out.append(f'"{_fmt_path(pt)}" {tail}')
            if has_const and not _lib_equal(_strip(v) if isinstance(v, (dict, list, tuple)) else v, const):
                if pt is None:
                    pt = () if is_root else ppt + (key,)
                out.append(f'"{_fmt_path(pt)}" {const_tail}')
            if arr_checks and isinstance(v, (list, tuple)):
                for op, bound, tail in arr_checks:
                    if op(len(v), bound):
                        if pt is None:
                            pt = () if is_root else ppt + (key,)
                        out.append(f'"{_fmt_path(pt)}" {tail}')
        if has_obj and isinstance(v, dict):
            if obj_checks:
                count = len(v) - sum(1 for x in v.values() if x is None)
                for op, bound, tail in obj_checks:
                    if op(count, bound):
                        if pt is None:
                            pt = () if is_root else ppt + (key,)
                        out.append(f'"{_fmt_path(pt)}" {tail}')
            if dep_req:
                for prop, deps in dep_req:
                    if v.get(prop) is None:
                        continue
                    for dep in deps:
                        if v.get(dep) is None:
                            if pt is None:
                                pt = () if is_root else ppt + (key,)
                            out.append(_dependent_message(pt, prop, dep))
            if children or ap_fn is not None:
                if pt is None:
                    pt = () if is_root else ppt + (key,)
                for name, fn in children:
                    x = v.get(name)
                    if x is not None:
                        fn(x, pt, name, out, fs)
                if ap_fn is not None:
                    for k, x in v.items():
                        if x is not None and k not in declared:
                            ap_fn(x, pt, k, out, fs)
        if items_fn is not None and isinstance(v, (list, tuple)):
            if pt is None:
                pt = () if is_root else ppt + (key,)
            for i, x in enumerate(v):
                items_fn(x, pt, i, out, fs)

    return node


# ---------------------------------------------------------------------------------------------
# The library engine

_LIB: Any = None


def _library() -> Any:
    """jsonschema's draft 2020-12 validator, extended so two keywords carry what we word.

    ``dependentRequired`` and ``propertyNames`` decide exactly as the library's own functions
    (same loops, the library's ``descend``); their errors also carry the key and dependency.
    """
    global _LIB
    if _LIB is None:
        from jsonschema import Draft202012Validator, validators
        from jsonschema.exceptions import ValidationError

        def dependent_required(validator: Any, dependent: Any, instance: Any, schema: Any) -> Any:
            if not validator.is_type(instance, "object"):
                return
            for prop, dependency in dependent.items():
                if prop not in instance:
                    continue
                for each in dependency:
                    if each not in instance:
                        err = ValidationError(f"{each!r} is a dependency of {prop!r}")
                        err.silo_pair = (prop, each)  # type: ignore[attr-defined]
                        yield err

        def property_names(validator: Any, names_schema: Any, instance: Any, schema: Any) -> Any:
            if not validator.is_type(instance, "object"):
                return
            for prop in instance:
                for _ in validator.descend(instance=prop, schema=names_schema):
                    yield ValidationError(f"{prop!r} is not an allowed property name", path=(prop,))
                    break

        cls = validators.extend(
            Draft202012Validator,
            {"dependentRequired": dependent_required, "propertyNames": property_names},
        )
        _LIB = (Draft202012Validator, cls, frozenset(Draft202012Validator.VALIDATORS))
    return _LIB


_META_VALIDATOR: Any = None
_CACHE_MAX = 256


_META_CACHE: dict[str, str | None] = {}


def _schema_error(schema: dict[str, Any]) -> str | None:
    """The first draft 2020-12 meta-schema error's message (what ``check_schema`` raises), or
    None when the schema is valid. Results are cached by the schema's text (JSON-compatible
    schemas only): the meta-schema check is most of a compile's cost."""
    global _META_VALIDATOR
    key = _schema_key(schema)
    if key is not None and key in _META_CACHE:
        return _META_CACHE[key]
    base, _, _ = _library()
    if _META_VALIDATOR is None:
        _META_VALIDATOR = base(base.META_SCHEMA, format_checker=base.FORMAT_CHECKER)
    result: str | None = None
    try:
        for error in _META_VALIDATOR.iter_errors(schema):
            result = str(error.message)
            break
    except Exception as exc:  # a schema that contains itself, or holds values nobody can check
        result = f"{type(exc).__name__}: {exc}"
    if key is not None:
        if len(_META_CACHE) >= _CACHE_MAX:
            _META_CACHE.clear()
        _META_CACHE[key] = result
    return result


def _schema_key(schema: Any) -> str | None:
    """A cache key faithful to a JSON-compatible schema (``repr`` keeps key order and 1 vs 1.0)."""
    try:
        return repr(schema) if is_json_compatible(schema) else None
    except Exception:
        return None


# Where a false subschema is replaced by a marked {"not": {}} so that its error carries the
# member's path (jsonschema reports a false subschema at its parent's path).
_FALSE_PARENTS_MAP = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
_FALSE_PARENTS_LIST = ("prefixItems", "allOf")
_FALSE_PARENTS_ONE = ("then", "else")
_SUB_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
_SUB_LISTS = ("prefixItems", "allOf", "anyOf", "oneOf")
_SUB_ONE = (
    "items",
    "additionalProperties",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)


def _mark_false(schema: Any, marks: dict[int, str], depth: int = 0) -> Any:
    """Copy ``schema`` with the false subschemas of applicators replaced by marked ``{"not": {}}``."""
    if not isinstance(schema, dict) or depth > 200:
        return schema
    out = dict(schema)

    def sub(value: Any, parent: str | None) -> Any:
        if value is False and parent is not None:
            sentinel: dict[str, Any] = {"not": {}}
            marks[id(sentinel)] = parent
            return sentinel
        return _mark_false(value, marks, depth + 1)

    for k in _SUB_MAPS:
        if isinstance(schema.get(k), dict):
            out[k] = {n: sub(s, k if k in _FALSE_PARENTS_MAP else None) for n, s in schema[k].items()}
    for k in _SUB_LISTS:
        if isinstance(schema.get(k), list):
            out[k] = [sub(s, k if k in _FALSE_PARENTS_LIST else None) for s in schema[k]]
    for k in _SUB_ONE:
        if k in schema:
            out[k] = sub(schema[k], k if k in _FALSE_PARENTS_ONE else None)
    return out


def _resolve_local(root: Any, ref: Any) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    pointer = unquote(ref[1:])
    if not pointer:
        return root
    if not pointer.startswith("/"):
        return None
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


class _LibraryPass:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.marks: dict[int, str] = {}
        self.root = _mark_false(schema, self.marks)
        _, cls, _ = _library()
        self.validator = cls(self.root)

    def _expand(self, schemas: list[Any]) -> list[dict[str, Any]]:
        """The schemas applying at one place: each, then its local $ref target and applicators."""
        out: list[dict[str, Any]] = []
        seen: set[int] = set()

        def visit(s: Any, depth: int) -> None:
            if not isinstance(s, dict) or id(s) in seen or depth > 50:
                return
            seen.add(id(s))
            out.append(s)
            if "$ref" in s:
                visit(_resolve_local(self.root, s["$ref"]), depth + 1)
            for k in ("allOf", "anyOf", "oneOf"):
                if isinstance(s.get(k), list):
                    for member in s[k]:
                        visit(member, depth + 1)
            for k in ("if", "then", "else"):
                visit(s.get(k), depth + 1)

        for s in schemas:
            visit(s, 0)
        return out

    def _ranks(self, path: Path, inst: Any) -> tuple[tuple[int, int], ...]:
        schemas: list[Any] = [self.root]
        ranks: list[tuple[int, int]] = []
        for el in path:
            expanded = self._expand(schemas)
            nxt: list[Any] = []
            if isinstance(inst, dict):
                order: dict[Any, int] = {}
                for s in expanded:
                    props = s.get("properties")
                    if isinstance(props, dict):
                        for name in props:
                            order.setdefault(name, len(order))
                if el in order:
                    ranks.append((0, order[el]))
                else:
                    ranks.append((1, next((i for i, k in enumerate(inst) if k == el), len(inst))))
                for s in expanded:
                    props = s.get("properties")
                    in_props = isinstance(props, dict) and el in props
                    if in_props:
                        nxt.append(props[el])  # type: ignore[index]
                    matched = False
                    pattern_props = s.get("patternProperties")
                    if isinstance(pattern_props, dict) and isinstance(el, str):
                        for pattern, sub in pattern_props.items():
                            try:
                                if re.search(pattern, el):
                                    nxt.append(sub)
                                    matched = True
                            except (re.error, TypeError):
                                pass
                    if not in_props and not matched and isinstance(s.get("additionalProperties"), dict):
                        nxt.append(s["additionalProperties"])
                inst = inst.get(el)
            elif isinstance(inst, list) and type(el) is int:
                ranks.append((0, el))
                for s in expanded:
                    prefix = s.get("prefixItems")
                    if isinstance(prefix, list) and el < len(prefix):
                        nxt.append(prefix[el])
                    elif isinstance(s.get("items"), dict):
                        nxt.append(s["items"])
                inst = inst[el] if el < len(inst) else None
            else:
                ranks.append((2, 0))
                inst = None
            schemas = nxt
        return tuple(ranks)

    def __call__(self, value: Any, out: Problems, failed: list[Path]) -> None:
        inst = _strip(value)
        entries: list[tuple[Any, int, int, str]] = []
        rank_cache: dict[Path, Any] = {}
        for seq, err in enumerate(self.validator.iter_errors(inst)):
            keyword = err.validator
            path: Path = tuple(err.path)
            if keyword == "not" and id(err.schema) in self.marks:
                keyword = self.marks[id(err.schema)]
                if keyword in _DROPPED:
                    continue
                tail = _FALSE_TAIL
            elif keyword in _DROPPED or (keyword == "additionalProperties" and err.validator_value is False):
                continue
            elif err.schema is False or keyword is None:
                tail = _FALSE_TAIL  # a false subschema the marking did not reach (e.g. a $ref target)
                keyword = keyword or "not"
            elif keyword == "dependentRequired":
                tail = ""
            elif (
                keyword == "contains"
                and isinstance(err.schema, dict)
                and err.schema.get("minContains", 1) != 1
            ):
                tail = _tail("minContains", err.schema["minContains"])
            elif keyword == "propertyNames":
                tail = "is not an allowed property name"
            else:
                tail = _tail(keyword, err.validator_value)
            if failed and _under(path, failed):
                continue
            if keyword == "dependentRequired":
                prop, dep = getattr(err, "silo_pair", ("?", "?"))
                message = _dependent_message(path, prop, dep)
            else:
                message = f'"{_fmt_path(path)}" {tail}'
            ranks = rank_cache.get(path)
            if ranks is None:
                ranks = rank_cache[path] = self._ranks(path, inst)
            entries.append((ranks, _KEYWORD_RANK.get(keyword, _OTHER_RANK), seq, message))
        entries.sort(key=lambda e: (e[0], e[1], e[2]))
        out.extend(e[3] for e in entries)


# ---------------------------------------------------------------------------------------------
# Public API


class CompiledSchema:
    """A tool's input schema, analysed once; ``problems(value)`` validates one input.

    Attributes:
        schema: the schema as given (not copied).
        problems: ``problems(value) -> list[str]``, the ordered problems (empty: valid). Never
            raises.
        engine: how the full-schema pass runs: ``"native"``, ``"library"``, or ``"none"`` (the
            schema is not a dict, or is not a valid draft 2020-12 schema).
        schema_error: the meta-schema error's message when the schema is a dict but not a valid
            draft 2020-12 schema, else ``None``.
    """

    __slots__ = ("schema", "problems", "engine", "schema_error")

    def __init__(self, schema: Any, engine: str = "auto") -> None:
        if engine not in ("auto", "native", "library"):
            raise ValueError(f"engine must be 'auto', 'native' or 'library', not {engine!r}")
        self.schema = schema
        self.schema_error: str | None = None
        self.engine = "none"
        self.problems: Callable[[Any], list[str]] = _no_problems
        if not isinstance(schema, dict):
            return
        silo: ObjFn | None = None
        try:
            if schema.get("type") == "object":
                silo = _SiloCompiler().obj(schema)
        except Exception:  # a schema too deep to compile: keep the uncompiled reference walk
            silo = _interpreted_silo(schema)
        full_native: NodeFn | None = None
        full_library: _LibraryPass | None = None
        self.schema_error = _schema_error(schema)
        if self.schema_error is not None:
            if engine == "native":
                raise ValueError(f"invalid schema: {self.schema_error}")
        else:
            _, _, library_keywords = _library()
            try:
                eligible = _native_eligible(schema, library_keywords)
            except Exception:
                eligible = False
            if engine == "native" and not eligible:
                raise ValueError("this schema uses keywords the native engine does not decide")
            try:
                if eligible and engine != "library":
                    full_native = _compile_native(schema, is_root=True)
                    self.engine = "native"
                else:
                    full_library = _LibraryPass(schema)
                    self.engine = "library"
            except Exception as exc:  # unusable although meta-valid: keep the Silo pass only
                self.schema_error = f"{type(exc).__name__}: {exc}"
                self.engine = "none"
        self.problems = _make_problems(silo, full_native, full_library)


def _no_problems(value: Any) -> list[str]:
    return []


def _make_problems(
    silo: ObjFn | None, native: NodeFn | None, library: _LibraryPass | None
) -> Callable[[Any], list[str]]:
    if native is not None:
        if silo is None:

            def native_only(value: Any) -> list[str]:
                out: list[str] = []
                try:
                    native(value, (), None, out, None)
                except Exception as exc:
                    return [_internal_problem(exc)]
                return out

            return native_only

        def silo_native(value: Any) -> list[str]:
            out: list[str] = []
            failed: list[Path] = []
            try:
                silo(value, (), out, failed)
                native(value, (), None, out, frozenset(failed) if failed else None)
            except Exception as exc:
                return [_internal_problem(exc)]
            return out

        return silo_native

    if library is not None:

        def with_library(value: Any) -> list[str]:
            out: list[str] = []
            failed: list[Path] = []
            try:
                if silo is not None:
                    silo(value, (), out, failed)
                library(value, out, failed)
            except Exception as exc:
                return [_internal_problem(exc)]
            return out

        return with_library

    if silo is not None:

        def silo_only(value: Any) -> list[str]:
            out: list[str] = []
            try:
                silo(value, (), out, [])
            except Exception as exc:
                return [_internal_problem(exc)]
            return out

        return silo_only

    return _no_problems


def _interpreted_silo(schema: dict[str, Any]) -> ObjFn:
    """The Silo pass walked from the schema at each call (for schemas too deep to compile)."""

    def check_object(obj: Any, sch: Any, pt: Path, out: Problems, failed: list[Path]) -> None:
        if not isinstance(obj, dict):
            return
        props = sch.get("properties")
        if not isinstance(props, dict):
            props = {}
        required = sch.get("required")
        if isinstance(required, list):
            for name in required:
                try:
                    missing = obj.get(name) is None
                except TypeError:
                    missing = True
                if missing:
                    out.append(f'"{_join_key(pt, _key_text(name))}" is required')
        if sch.get("additionalProperties") is False:
            for k in obj:
                if k not in props:
                    tail = (
                        " is not a parameter; expected one of: " + ", ".join(_key_text(n) for n in props)
                        if props
                        else " is not a parameter"
                    )
                    out.append(f'"{_key_text(k)}"{tail}')
        for name, sub in props.items():
            v = obj.get(name)
            if v is not None:
                check_value(v, sub, pt + (name,), out, failed)

    def check_value(v: Any, sub: Any, pt: Path, out: Problems, failed: list[Path]) -> None:
        if not isinstance(sub, dict):
            return
        t = sub.get("type")
        if isinstance(t, str) and not _type_pred(t)(v):
            out.append(f'"{_fmt_path(pt)}" must be {t}, received {type_name(v)}')
            failed.append(pt)
            return
        enum = sub.get("enum")
        if isinstance(enum, list) and not _strict_enum(enum)(v):
            out.append(f'"{_fmt_path(pt)}" must be one of: ' + ", ".join(text_form_value(i) for i in enum))
            failed.append(pt)
            return
        if t == "array" and isinstance(sub.get("items"), dict):
            for i, x in enumerate(v):
                check_value(x, sub["items"], pt + (i,), out, failed)
        if t == "object":
            check_object(v, sub, pt, out, failed)

    def root(obj: Any, pt: Path, out: Problems, failed: list[Path]) -> None:
        check_object(obj, schema, pt, out, failed)

    return root


def compile_schema(schema: Any, *, engine: str = "auto") -> CompiledSchema:
    """Analyse ``schema`` once (silo-format §3.3); see :class:`CompiledSchema`. Never raises for
    ``engine="auto"``.

    ``engine`` is for tests and benchmarks: ``"library"`` forces the jsonschema engine for the
    full pass; ``"native"`` requires the native one (``ValueError`` when the schema needs the
    library).
    """
    return CompiledSchema(schema, engine)


_CACHE: dict[str, CompiledSchema] = {}


def validate_tool_input(schema: Any, value: Any) -> list[str]:
    """The problems of ``value`` under ``schema`` (silo-format §3.3): ``compile_schema(schema).problems(value)``.

    Compiled schemas are cached by the schema's text (JSON-compatible schemas only), so calling
    this repeatedly with one schema compiles it once. Tools use their own cached validator.
    """
    key = _schema_key(schema)
    if key is not None:
        compiled = _CACHE.get(key)
        if compiled is None:
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.clear()
            compiled = _CACHE[key] = compile_schema(schema)
        return compiled.problems(value)
    return compile_schema(schema).problems(value)
