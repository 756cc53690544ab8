"""The Silo pass: the reference's checks with its exact wordings and order (silo-format §3.3).

For a dict schema whose ``type`` is ``"object"``: A. required names (a ``None`` value counts as
missing), B. unknown keys (only when ``additionalProperties is False``), C. declared properties
in schema order: type, enum (JavaScript strict equality, §14.2), array items, nested objects. The
pass is compiled once per schema into closures, so a call does no schema lookups.

:func:`silo_coverage` says which keywords the pass checks at which schema location, so that the
schema library's errors the pass already reported are not reported twice (:mod:`.messages`).

Strict equality (§14.2) for ``enum``: booleans equal only booleans, numbers compare numerically
(``1 == 1.0``; ``NaN`` equals nothing), strings by value, ``None`` only ``None``; a dict, list or
any non-JSON value equals nothing (JavaScript's ``===`` compares objects by identity, and a JSON
input never shares identity with the schema).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .messages import Path, fmt_path, join_key, key_text, text_form_value, type_name

__all__ = ["ObjFn", "compile_silo_pass", "silo_coverage", "silo_implied"]

Problems = list[str]

# A value checker: fn(value, parent_path, key, problems, failed_paths). The value's own path is
# parent_path + (key,); it is built only when a problem is reported or the check descends.
ValueFn = Callable[[Any, Path, Any, Problems, list[Path]], None]
# An object checker: fn(obj, path, problems, failed_paths). ``failed_paths`` receives the path of
# every value whose type or enum failed.
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
                req.append((key, key_text(name)))
        req_t = tuple(req)
        closed = schema.get("additionalProperties") is False
        declared = frozenset(props)
        if props:
            unknown_tail = " is not a parameter; expected one of: " + ", ".join(key_text(n) for n in props)
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
                    out.append(f'"{join_key(pt, text)}" is required')
            if closed and not obj.keys() <= declared:
                for k in obj:
                    if k not in declared:
                        out.append(f'"{key_text(k)}"{unknown_tail}')
            for name, cls, fn, tail in checks:
                v = obj.get(name)
                if v is None:
                    continue
                if cls is None:
                    fn(v, pt, name, out, failed)
                elif not isinstance(v, cls):
                    vpt = pt + (name,)
                    out.append(f'"{fmt_path(vpt)}"{tail}{type_name(v)}')
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
                out.append(f'"{fmt_path(pt)}"{type_tail}{type_name(v)}')
                failed.append(pt)

            return check_numeric

        if t == "string" and isinstance(enum, list) and all(isinstance(it, str) for it in enum):
            allowed = frozenset(enum)

            def check_string_enum(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                if not isinstance(v, str):
                    pt = ppt + (key,)
                    out.append(f'"{fmt_path(pt)}"{type_tail}{type_name(v)}')
                    failed.append(pt)
                elif v not in allowed:
                    pt = ppt + (key,)
                    out.append(f'"{fmt_path(pt)}"{enum_tail}')
                    failed.append(pt)

            return check_string_enum

        if cls is not None and enum_ok is None and items_fn is None and obj_fn is None:

            def check_isinstance(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                if not isinstance(v, cls):
                    pt = ppt + (key,)
                    out.append(f'"{fmt_path(pt)}"{type_tail}{type_name(v)}')
                    failed.append(pt)

            return check_isinstance

        if pred is not None and items_fn is None and obj_fn is None:
            if enum_ok is None:

                def check_type(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                    if not pred(v):
                        pt = ppt + (key,)
                        out.append(f'"{fmt_path(pt)}"{type_tail}{type_name(v)}')
                        failed.append(pt)

                return check_type

            def check_type_enum(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
                if not pred(v):
                    pt = ppt + (key,)
                    out.append(f'"{fmt_path(pt)}"{type_tail}{type_name(v)}')
                    failed.append(pt)
                elif not enum_ok(v):
                    pt = ppt + (key,)
                    out.append(f'"{fmt_path(pt)}"{enum_tail}')
                    failed.append(pt)

            return check_type_enum

        def check_value(v: Any, ppt: Path, key: Any, out: Problems, failed: list[Path]) -> None:
            if pred is not None and not pred(v):
                pt = ppt + (key,)
                out.append(f'"{fmt_path(pt)}"{type_tail}{type_name(v)}')
                failed.append(pt)
                return
            if enum_ok is not None and not enum_ok(v):
                pt = ppt + (key,)
                out.append(f'"{fmt_path(pt)}"{enum_tail}')
                failed.append(pt)
                return
            if items_fn is not None:
                pt = ppt + (key,)
                for i, x in enumerate(v):
                    items_fn(x, pt, i, out, failed)
            if obj_fn is not None:
                obj_fn(v, ppt + (key,), out, failed)

        return check_value



def compile_silo_pass(schema: Any) -> ObjFn | None:
    """The Silo pass of ``schema`` as ``fn(obj, path, problems, failed_paths)``, or ``None`` when it
    checks nothing (the schema is not a dict, its ``type`` is not ``"object"``, or it declares
    nothing the pass looks at). ``fn`` appends problems in the spec's order.

    Raises:
        RecursionError: for a schema nested too deeply to compile.
    """
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    return _SiloCompiler().obj(schema)


def _covered_nodes(schema: Any) -> list[tuple[Path, dict[str, Any], bool]]:
    """Every schema node the Silo pass looks at: ``(location, node, checked as an object)``.

    The pass reaches a node only through ``properties`` and, under ``type: "array"``, ``items``;
    it never follows ``$ref`` or the applicators. The location is the keys from the root, e.g.
    ``("properties", "address", "items")``.
    """
    nodes: list[tuple[Path, dict[str, Any], bool]] = []
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return nodes
    # JSON schemas have no cycles; the depth bound stops a Python-built one that contains itself.
    stack: list[tuple[Path, dict[str, Any], bool]] = [((), schema, True)]
    while stack:
        loc, node, as_object = stack.pop()
        if len(loc) > 2000:
            continue
        nodes.append((loc, node, as_object))
        t = node.get("type")
        items = node.get("items")
        if not as_object and t == "array" and isinstance(items, dict):
            stack.append(((*loc, "items"), items, False))
        if as_object or t == "object":
            props = node.get("properties")
            if isinstance(props, dict):
                for name, sub in props.items():
                    if isinstance(sub, dict):
                        stack.append(((*loc, "properties", name), sub, False))
    return nodes


def silo_coverage(schema: Any) -> dict[Path, frozenset[str]]:
    """Where the Silo pass looks: schema location → the keywords it checks there (``type``,
    ``enum``, ``required``, ``additionalProperties`` when ``false``). A library error of one of
    these keywords at one of these locations is one the pass has already reported."""
    covered: dict[Path, frozenset[str]] = {}
    for loc, node, as_object in _covered_nodes(schema):
        keywords: set[str] = set(covered.get(loc, ()))
        if not as_object:
            if isinstance(node.get("type"), str):
                keywords.add("type")
            if isinstance(node.get("enum"), list):
                keywords.add("enum")
        if as_object or node.get("type") == "object":
            if isinstance(node.get("required"), list):
                keywords.add("required")
            if node.get("additionalProperties") is False:
                keywords.add("additionalProperties")
        if keywords:
            covered[loc] = frozenset(keywords)
    return covered


_SAFE_INT = 2**53


def _enum_member_is_plain(item: Any) -> bool:
    """A member on which ``===`` and JSON Schema equality agree for every JSON input."""
    if item is None or isinstance(item, (str, bool)):
        return True
    if isinstance(item, (int, float)):
        return -_SAFE_INT < item < _SAFE_INT  # exact as a float, so no rounding can make a match
    return False  # an object or array: never ``===`` to an input, but equal under JSON Schema


def silo_implied(schema: Any) -> bool:
    """True when, for a JSON input without null members, the library rejecting nothing means the
    Silo pass reports nothing, so a valid input needs no Silo pass.

    Everywhere the pass looks, its checks are then the library's own: ``required`` (no null
    member, so "missing" means absent), ``type`` (same meaning for JSON values), ``enum`` of plain
    members, ``additionalProperties: false`` without ``patternProperties`` beside it (which would
    let the library accept keys the pass refuses), ``items`` without ``prefixItems`` beside it
    (which would make the library skip the first elements).
    """
    for _, node, as_object in _covered_nodes(schema):
        if not as_object:
            enum = node.get("enum")
            if isinstance(enum, list) and not all(_enum_member_is_plain(item) for item in enum):
                return False
            if node.get("type") == "array" and isinstance(node.get("items"), dict) and "prefixItems" in node:
                return False
        if (as_object or node.get("type") == "object") and node.get("additionalProperties") is False:
            if "patternProperties" in node:
                return False
    return True
