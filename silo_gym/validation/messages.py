"""The words of input validation: text forms, paths, and one problem per library error (silo-format §3.3).

The Silo pass words its own four kinds (:mod:`.silo_pass`). This module words what the schema
library (:mod:`.decision`) finds beyond them, drops what the Silo pass already reported, and puts
the rest in the spec's order. A problem reads ``"<p>" <what is wrong>``, with ``<p>`` the Silo
path of the value: ``input`` for the root itself, ``a.b`` for members, ``tags[1]`` for elements,
``input[0]`` for an element of a root array.

Wordings (our rules where the spec lists none):

- the spec's list: ``minimum`` ``"<p>" must be at least <v>`` … ``dependentRequired``
  ``"<p>.<dep>" is required when "<p>.<key>" is present`` (at the root ``"<dep>" is required
  when "<key>" is present``, the Silo convention for root members);
- the Silo kinds where the Silo pass does not look (inside ``allOf``, ``$ref``, ``then``, a list
  of types, a schema whose root ``type`` is not ``"object"``): the Silo wordings
  ``"<q>" is required``, ``"<p>" must be <type>[ or <type>…], received <type name>``,
  ``"<p>" must be one of: <items>``; an undeclared member refused by ``additionalProperties:
  false``: ``"<p>.<key>" is not allowed``;
- a ``false`` subschema: ``"<p>" is not allowed``; ``minContains``/``maxContains``:
  ``"<p>" must contain at least/at most <n> matching items``; ``propertyNames``:
  ``"<p>.<key>" is not an allowed property name``; ``unevaluatedProperties``: ``"<p>" has
  properties that are not allowed: <keys>``; ``unevaluatedItems``: ``"<p>" has items that are
  not allowed``;
- any other failing keyword: ``"<p>" does not satisfy the schema keyword "<keyword>"``.

Order (our rule where the spec leaves room): by path, then keyword. A path sorts by its elements
in turn: a property by its position among the names declared for that object (the schema's own
``properties`` first, then those reached through local ``$ref``, ``allOf``/``anyOf``/``oneOf``,
``if``/``then``/``else`` and ``dependentSchemas``), an undeclared key after every declared one in
the input's key order, an element by its index; a container's own problems come before its
members'. At one path: the Silo kinds, a ``false`` subschema, then the spec's keyword list
(``minimum`` … ``contains``), then the rest; ties keep the library's order. A problem that repeats
one already given is given once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..json_pointer import MISSING, resolve, resolve_ref
from ..jsonfmt import dumps_compact, format_number

__all__ = [
    "Path",
    "fmt_path",
    "internal_problem",
    "join_key",
    "key_text",
    "library_problems",
    "non_json_problem",
    "schema_problem",
    "text_form_value",
    "type_name",
]

Path = tuple[Any, ...]


# ---------------------------------------------------------------------------------------------
# Text forms


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


def key_text(key: Any) -> str:
    """A member name as text (a non-string name, possible in a broken schema, in text form)."""
    return key if isinstance(key, str) else text_form_value(key)


def fmt_path(path: Path) -> str:
    """Silo-style path text: ``input`` for the root, ``a.b``, ``tags[1]``, ``input[0]``."""
    if not path:
        return "input"
    parts: list[str] = []
    for el in path:
        if type(el) is int:
            parts.append(f"[{el}]")
        else:
            name = key_text(el)
            parts.append("." + name if parts else name)
    text = "".join(parts)
    return "input" + text if type(path[0]) is int else text


def join_key(path: Path, name: str) -> str:
    """A member name under an object path, the Silo way: ``name`` at the root, else ``<path>.name``."""
    return name if not path else fmt_path(path) + "." + name


def internal_problem(exc: BaseException) -> str:
    """The single problem when validation itself failed (an input nested too deeply, ...)."""
    if isinstance(exc, RecursionError):
        reason = "it is nested too deeply"
    else:
        text = str(exc).strip().splitlines()
        reason = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
    if len(reason) > 200:
        reason = reason[:197] + "..."
    return f'"input" could not be validated against the schema: {reason}'


def schema_problem(reason: str) -> str:
    """The problem every call gets when the tool's schema cannot be used by the library."""
    return f'"input" cannot be checked: the tool\'s inputSchema is invalid ({reason})'


def non_json_problem(path: Path, what: str) -> str:
    """The problem for a value that is not JSON (silo-format §3.3: validation is over JSON)."""
    return f'"{fmt_path(path)}" {what}'


# ---------------------------------------------------------------------------------------------
# Library errors → problems

_SPEC_ORDER = (
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
# The Silo kinds and false subschemas first, then the spec's list, then anything else.
_FIRST = ("type", "enum", "required", "additionalProperties:false", "false")
_KEYWORD_RANK = {k: i for i, k in enumerate((*_FIRST, *_SPEC_ORDER))}
_OTHER_RANK = len(_KEYWORD_RANK)

_VALUE_WORDING = {
    "minimum": ("limit", "must be at least {}"),
    "maximum": ("limit", "must be at most {}"),
    "exclusiveMinimum": ("limit", "must be greater than {}"),
    "exclusiveMaximum": ("limit", "must be less than {}"),
    "multipleOf": ("multiple_of", "must be a multiple of {}"),
    "minLength": ("limit", "must be at least {} characters long"),
    "maxLength": ("limit", "must be at most {} characters long"),
    "pattern": ("pattern", "must match the pattern {}"),
    "const": ("expected_value", "must be {}"),
    "minItems": ("limit", "must have at least {} items"),
    "maxItems": ("limit", "must have at most {} items"),
    "minProperties": ("limit", "must have at least {} properties"),
    "maxProperties": ("limit", "must have at most {} properties"),
}
_FIXED_WORDING = {
    "uniqueItems": "must not contain duplicate items",
    "oneOf": "must match exactly one of the allowed shapes",
    "anyOf": "must match at least one of the allowed shapes",
    "not": "must not match the excluded shape",
    "contains": "must contain at least one matching item",
    "unevaluatedItems": "has items that are not allowed",
}
# The library's error kinds (class names) → the keyword that failed, where the evaluation path's
# last element is not already that keyword.
_KIND_KEYWORD = {
    "Minimum": "minimum",
    "Maximum": "maximum",
    "ExclusiveMinimum": "exclusiveMinimum",
    "ExclusiveMaximum": "exclusiveMaximum",
    "MultipleOf": "multipleOf",
    "MinLength": "minLength",
    "MaxLength": "maxLength",
    "Pattern": "pattern",
    "Constant": "const",
    "MinItems": "minItems",
    "MaxItems": "maxItems",
    "UniqueItems": "uniqueItems",
    "MinProperties": "minProperties",
    "MaxProperties": "maxProperties",
    "OneOfNotValid": "oneOf",
    "OneOfMultipleValid": "oneOf",
    "AnyOf": "anyOf",
    "Not": "not",
    "Type": "type",
    "Enum": "enum",
    "PropertyNames": "propertyNames",
    "UnevaluatedItems": "unevaluatedItems",
    "UnevaluatedProperties": "unevaluatedProperties",
    "FalseSchema": "false",
}


def _generic(path: Path, keyword: str) -> str:
    return f'"{fmt_path(path)}" does not satisfy the schema keyword "{keyword}"'


def _kind_value(kind: Any, name: str) -> Any:
    try:
        return kind.as_dict()[name]
    except Exception:
        return MISSING


def _keyword_of(error: Any, kind_name: str) -> str:
    """The keyword that failed; ``"false"`` for a false subschema."""
    evaluation = list(error.evaluation_path)
    last = evaluation[-1] if evaluation else None
    if kind_name in ("Required", "Contains") and isinstance(last, str):
        return last  # required / dependentRequired; contains / minContains / maxContains
    if kind_name == "AdditionalProperties" or (kind_name == "FalseSchema" and last == "additionalProperties"):
        return "additionalProperties:false"
    known = _KIND_KEYWORD.get(kind_name)
    if known is not None:
        return known
    return last if isinstance(last, str) else kind_name


class _Context:
    """What wording one rejected input needs: the schema, the (null-stripped) instance."""

    __slots__ = ("schema", "instance")

    def __init__(self, schema: Any, instance: Any) -> None:
        self.schema = schema
        self.instance = instance

    def keyword_parent(self, error: Any) -> Any:
        """The schema object holding the failing keyword (found through ``schema_path``)."""
        return resolve(self.schema, list(error.schema_path)[:-1])

    def undeclared_keys(self, error: Any, path: Path) -> list[str] | None:
        """Every key of the object at ``path`` when its schema declares no property at all."""
        parent = self.keyword_parent(error)
        obj = resolve(self.instance, path)
        if not isinstance(parent, dict) or "properties" in parent or "patternProperties" in parent:
            return None
        return list(obj) if isinstance(obj, dict) else None

    def dependent_pairs(self, error: Any, path: Path) -> list[tuple[str, str]] | None:
        """``(key, dep)`` for every present key whose dependency is missing, in schema order."""
        parent = self.keyword_parent(error)
        rules = parent.get("dependentRequired") if isinstance(parent, dict) else None
        obj = resolve(self.instance, path)
        if not isinstance(rules, dict) or not isinstance(obj, dict):
            return None
        return [
            (key, dep)
            for key, deps in rules.items()
            if key in obj and isinstance(deps, list)
            for dep in deps
            if isinstance(dep, str) and dep not in obj
        ]


def _word(error: Any, kind_name: str, keyword: str, path: Path, ctx: _Context) -> list[str]:
    """The problems one library error stands for (usually one)."""
    p = fmt_path(path)
    kind = error.kind
    if keyword == "required":
        return [f'"{join_key(path, key_text(_kind_value(kind, "property")))}" is required']
    if keyword == "dependentRequired":
        pairs = ctx.dependent_pairs(error, path)
        if not pairs:
            return [f'"{join_key(path, key_text(_kind_value(kind, "property")))}" is required']
        return [f'"{join_key(path, dep)}" is required when "{join_key(path, key)}" is present' for key, dep in pairs]
    if keyword == "type":
        parent = ctx.keyword_parent(error)
        types = parent.get("type") if isinstance(parent, dict) else None  # in the schema's order
        types = [types] if isinstance(types, str) else types
        if not isinstance(types, list):
            types = _kind_value(kind, "types")
        wanted = " or ".join(types) if isinstance(types, list) and types else "another type"
        return [f'"{p}" must be {wanted}, received {type_name(error.instance)}']
    if keyword == "enum":
        options = _kind_value(kind, "options")
        if not isinstance(options, list):
            return [_generic(path, "enum")]
        return [f'"{p}" must be one of: ' + ", ".join(text_form_value(o) for o in options)]
    if keyword == "additionalProperties:false":
        unexpected = _kind_value(kind, "unexpected")
        if unexpected is MISSING:  # the library's shape for an object that declares no properties
            unexpected = ctx.undeclared_keys(error, path)
        if not isinstance(unexpected, list) or not unexpected:
            return [_generic(path, "additionalProperties")]
        return [f'"{join_key(path, key_text(k))}" is not allowed' for k in unexpected]
    if keyword == "false":
        return [f'"{p}" is not allowed']
    wording = _VALUE_WORDING.get(keyword)
    if wording is not None:
        value = _kind_value(kind, wording[0])
        if value is MISSING:
            return [_generic(path, keyword)]
        return [f'"{p}" {wording[1].format(text_form_value(value))}']
    fixed = _FIXED_WORDING.get(keyword)
    if fixed is not None:
        return [f'"{p}" {fixed}']
    if keyword in ("minContains", "maxContains"):
        parent = ctx.keyword_parent(error)
        n = parent.get(keyword) if isinstance(parent, dict) else None
        if n is None:
            return [_generic(path, keyword)]
        bound = "at least" if keyword == "minContains" else "at most"
        return [f'"{p}" must contain {bound} {text_form_value(n)} matching items']
    if keyword == "propertyNames":
        inner = _kind_value(kind, "error")
        name = getattr(inner, "instance", MISSING)
        if not isinstance(name, str):
            return [_generic(path, keyword)]
        return [f'"{join_key(path, name)}" is not an allowed property name']
    if keyword == "unevaluatedProperties":
        unexpected = _kind_value(kind, "unexpected")
        if not isinstance(unexpected, list) or not unexpected:
            return [_generic(path, keyword)]
        return [f'"{p}" has properties that are not allowed: ' + ", ".join(key_text(k) for k in unexpected)]
    return [_generic(path, keyword)]


def library_problems(
    errors: Iterable[Any],
    *,
    schema: Any,
    instance: Any,
    covered: dict[Path, frozenset[str]],
    failed: Sequence[Path],
) -> list[str]:
    """Word the library's errors for one input, in order, without what the Silo pass reported.

    Args:
        errors: the library's errors (``jsonschema_rs.ValidationError``) for ``instance``.
        schema: the tool's input schema.
        instance: the input the library checked (null members removed).
        covered: schema location → the keywords the Silo pass checks there (see
            :func:`.silo_pass.silo_coverage`); an error of such a keyword at such a location is
            one the Silo pass already reported (silo-format §3.3, "dropped").
        failed: paths whose type or enum failed in the Silo pass; errors at or below them are
            dropped.

    Returns:
        The problems, possibly empty when every error was dropped.
    """
    ctx = _Context(schema, instance)
    entries: list[tuple[tuple[tuple[int, int], ...], int, int, str]] = []
    rank_cache: dict[Path, tuple[tuple[int, int], ...]] = {}
    seen_dependent: set[tuple[Path, tuple[Any, ...]]] = set()
    seq = 0
    for error in errors:
        kind_name = type(error.kind).__name__
        keyword = _keyword_of(error, kind_name)
        path: Path = tuple(error.instance_path)
        if failed and any(path[: len(f)] == f for f in failed):
            continue
        if keyword in ("type", "enum", "required", "additionalProperties:false"):
            location = tuple(error.evaluation_path)[:-1]
            if keyword.split(":")[0] in covered.get(location, ()):
                continue
        if keyword == "dependentRequired":  # one error per missing name; word the location once
            group = (path, tuple(error.evaluation_path))
            if group in seen_dependent:
                continue
            seen_dependent.add(group)
        ranks = rank_cache.get(path)
        if ranks is None:
            ranks = rank_cache[path] = _path_ranks(schema, path, instance)
        keyword_rank = _KEYWORD_RANK.get(keyword, _OTHER_RANK)
        for message in _word(error, kind_name, keyword, path, ctx):
            entries.append((ranks, keyword_rank, seq, message))
            seq += 1
    entries.sort(key=lambda e: (e[0], e[1], e[2]))
    return [e[3] for e in entries]


# ---------------------------------------------------------------------------------------------
# Order: where a path's elements stand in the schema


def _applying(schema: Any, schemas: list[Any]) -> list[dict[str, Any]]:
    """The schemas that apply at one place: each, then what it reaches through local ``$ref``,
    ``allOf``/``anyOf``/``oneOf``, ``if``/``then``/``else`` and ``dependentSchemas``."""
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    stack = list(reversed(schemas))
    while stack and len(out) < 1000:
        s = stack.pop()
        if not isinstance(s, dict) or id(s) in seen:
            continue
        seen.add(id(s))
        out.append(s)
        more: list[Any] = []
        if "$ref" in s:
            target = resolve_ref(schema, s["$ref"])
            if target is not MISSING:
                more.append(target)
        for k in ("allOf", "anyOf", "oneOf"):
            if isinstance(s.get(k), list):
                more.extend(s[k])
        more.extend(s.get(k) for k in ("if", "then", "else"))
        if isinstance(s.get("dependentSchemas"), dict):
            more.extend(s["dependentSchemas"].values())
        stack.extend(reversed(more))
    return out


def _path_ranks(schema: Any, path: Path, instance: Any) -> tuple[tuple[int, int], ...]:
    schemas: list[Any] = [schema]
    ranks: list[tuple[int, int]] = []
    node = instance
    for el in path:
        applying = _applying(schema, schemas)
        nxt: list[Any] = []
        if isinstance(node, dict):
            order: dict[Any, int] = {}
            for s in applying:
                props = s.get("properties")
                if isinstance(props, dict):
                    for name in props:
                        order.setdefault(name, len(order))
            if el in order:
                ranks.append((0, order[el]))
            else:
                ranks.append((1, next((i for i, k in enumerate(node) if k == el), len(node))))
            for s in applying:
                props = s.get("properties")
                declared = isinstance(props, dict) and el in props
                if declared:
                    nxt.append(props[el])  # type: ignore[index]
                matched = False
                patterns = s.get("patternProperties")
                if isinstance(patterns, dict) and isinstance(el, str):
                    for pattern, sub in patterns.items():
                        try:
                            if re.search(pattern, el):
                                nxt.append(sub)
                                matched = True
                        except (re.error, TypeError):
                            pass
                if not declared and not matched and isinstance(s.get("additionalProperties"), dict):
                    nxt.append(s["additionalProperties"])
            node = node.get(el)
        elif isinstance(node, (list, tuple)) and type(el) is int:
            ranks.append((0, el))
            for s in applying:
                prefix = s.get("prefixItems")
                if isinstance(prefix, list) and el < len(prefix):
                    nxt.append(prefix[el])
                elif isinstance(s.get("items"), dict):
                    nxt.append(s["items"])
            node = node[el] if el < len(node) else None
        else:
            ranks.append((2, 0))
            node = None
        schemas = nxt
    return tuple(ranks)
