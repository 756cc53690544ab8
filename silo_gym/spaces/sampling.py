"""Drawing values from a JSON Schema for ``ToolCall.sample`` (gym-api.md, "Spaces"; best effort).

:func:`sample_input` draws one tool input from a tool's ``inputSchema`` with a numpy Generator.
The caller checks each draw with the tool's validator and draws again when it fails.

Choices where the spec is silent (our rules):

- every required property is filled and never ``None`` (Silo reads ``None`` as absent); each
  optional property with probability 1/2; undeclared keys are never added to a tool's input, and
  to nested objects only when they declare no properties and allow extras;
- local ``$ref`` are followed (:mod:`silo_gym.json_pointer`); ``allOf`` is merged, one branch of
  ``anyOf``/``oneOf`` is picked;
- enum draws skip object/array members when the enum has scalars (Silo's ``===`` never matches
  them);
- strings follow ``format``, ``pattern`` and hints: a ``YYYY-MM-DD`` date for ``format: date``,
  a description naming the format or a ``...Date`` name; ``ACC-007``-style ids when the
  description shows an example like ``ACC-001``.
"""

from __future__ import annotations

import copy
import datetime as _dt
import importlib
import math
import re
import warnings
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, TypeGuard

import numpy as np

from ..json_pointer import MISSING, resolve_ref
from ..jsonfmt import canonical

__all__ = ["WORDS", "sample_input"]

_OPTIONAL_P = 0.5
_MAX_DEPTH = 8


def sample_input(rng: np.random.Generator, schema: Any) -> dict[str, Any]:
    """One tool input drawn from ``schema`` (a dict; ``{}`` for anything else)."""
    return _SchemaSampler(rng, schema).root()


#: Words for drawn strings (also used for sample observations).
WORDS = (
    "alpha", "acme", "review", "follow up", "renewal", "north", "blue", "pending", "call",
    "demo", "quarterly", "notes", "test", "priority", "contract", "hello", "west", "update",
)  # fmt: skip
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGITS = "0123456789"
_FUZZ = ("é", "ß", "日本", "🙂", " ", "'", '"', "\\", "<", "&", "%", "\n")
_ID_EXAMPLE = re.compile(r"\b([A-Z]{2,6})-(\d{2,6})\b")
_DATE_HINT = re.compile(r"YYYY-MM-DD|\bdate\b", re.IGNORECASE)
_DATE_START = _dt.date(2024, 1, 1).toordinal()
_DATE_SPAN = _dt.date(2027, 12, 31).toordinal() - _DATE_START + 1
_SIMPLE_TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")


def _is_num(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _str_or(x: Any, default: Any) -> Any:
    return x if isinstance(x, str) else default


def _js_comparable(x: Any) -> bool:
    """Whether ``x`` can ever be ``===`` to a JSON input: a scalar, and not NaN."""
    return x is None or isinstance(x, (str, bool, int)) or (isinstance(x, float) and x == x)


def _type_ok(value: Any, t: str) -> bool:
    if t == "integer":
        return _is_num(value) and float(value).is_integer()
    if t == "number":
        return _is_num(value)
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
    return True


def _split_words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])", name) if w]


class _SchemaSampler:
    """Draws one value from a JSON Schema with a numpy Generator."""

    def __init__(self, rng: np.random.Generator, root: Any) -> None:
        self.rng = rng
        self.root_schema = root

    # -- random helpers --------------------------------------------------------------------

    def rand(self) -> float:
        return float(self.rng.random())

    def randint(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi] (inclusive), for any Python ints."""
        if hi <= lo:
            return lo
        span = hi - lo
        if span < 2**62:
            return lo + int(self.rng.integers(0, span + 1))
        return lo + int(self.rand() * span)

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[int(self.rng.integers(len(seq)))]

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(alphabet[int(i)] for i in self.rng.integers(0, len(alphabet), size=n)) if n > 0 else ""

    # -- entry points ----------------------------------------------------------------------

    def root(self) -> dict[str, Any]:
        schema = self.root_schema
        if not isinstance(schema, dict):
            return {}
        schema = self.resolve(schema)
        value = self.object(schema, depth=0, name="", top=True)
        return value

    def value(self, schema: Any, *, depth: int, name: str = "", not_null: bool = False) -> Any:
        if depth > 3 * _MAX_DEPTH:  # a recursive schema that requires itself: give up here
            return None
        if schema is True or schema is None or (isinstance(schema, dict) and not schema):
            return self.untyped(depth, name, not_null)
        if not isinstance(schema, dict):
            return None
        schema = self.resolve(schema)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        types = self.types(schema, not_null)
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            items = [e for e in enum if not (not_null and e is None)]
            # Silo's enum check is JavaScript ``===`` (silo-format §14.2): an object, an array or
            # NaN never equals a member, so draw scalars whenever the enum has any.
            items = [e for e in items if _js_comparable(e)] or items
            if types:
                typed = [e for e in items if any(_type_ok(e, t) for t in types)]
                items = typed or items
            if items:
                return copy.deepcopy(self.pick(items))
        examples = schema.get("examples")
        if isinstance(examples, list) and examples and self.rand() < 0.2:
            return copy.deepcopy(self.pick(examples))
        default = schema.get("default")
        if "default" in schema and default is not None and self.rand() < 0.15:
            return copy.deepcopy(default)
        t = self.pick(types) if types else self.infer_type(schema)
        if t == "null":
            return None
        if t == "boolean":
            return self.rand() < 0.5
        if t == "integer":
            return self.number(schema, name, integer=True)
        if t == "number":
            return self.number(schema, name, integer=False)
        if t == "string":
            return self.string(schema, name)
        if t == "array":
            return self.array(schema, depth, name)
        if t == "object":
            return self.object(schema, depth=depth, name=name, top=False)
        return self.untyped(depth, name, not_null)

    # -- schema plumbing -------------------------------------------------------------------

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Follow local ``$ref``s and fold ``allOf``, ``anyOf`` and ``oneOf`` into one schema."""
        for _ in range(32):
            ref = schema.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                target = self.lookup(ref)
                rest = {k: v for k, v in schema.items() if k != "$ref"}
                schema = self.merge(target, rest) if isinstance(target, dict) else rest
                continue
            changed = False
            for key in ("anyOf", "oneOf"):
                branches = schema.get(key)
                if isinstance(branches, list) and branches:
                    rest = {k: v for k, v in schema.items() if k != key}
                    branch = self.pick(branches)
                    schema = self.merge(rest, branch) if isinstance(branch, dict) else rest
                    changed = True
            parts = schema.get("allOf")
            if isinstance(parts, list):
                merged = {k: v for k, v in schema.items() if k != "allOf"}
                for part in parts:
                    if isinstance(part, dict):
                        merged = self.merge(merged, part)
                schema = merged
                changed = True
            if not changed:
                break
        return schema

    def lookup(self, ref: str) -> Any:
        target = resolve_ref(self.root_schema, ref)
        return {} if target is MISSING else target

    @staticmethod
    def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        out = dict(a)
        for k, v in b.items():
            if k == "properties" and isinstance(out.get(k), dict) and isinstance(v, dict):
                props = dict(out[k])
                for pk, pv in v.items():
                    if isinstance(props.get(pk), dict) and isinstance(pv, dict):
                        props[pk] = {**props[pk], **pv}
                    else:
                        props[pk] = pv
                out[k] = props
            elif k == "required" and isinstance(out.get(k), list) and isinstance(v, list):
                out[k] = list(dict.fromkeys([*out[k], *v]))
            elif (
                k in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
                and _is_num(out.get(k))
                and _is_num(v)
            ):
                out[k] = max(out[k], v)
            elif (
                k in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
                and _is_num(out.get(k))
                and _is_num(v)
            ):
                out[k] = min(out[k], v)
            elif k == "type" and k in out:
                ta = out[k] if isinstance(out[k], list) else [out[k]]
                tb = v if isinstance(v, list) else [v]
                both = [t for t in ta if t in tb]
                if not both and "integer" in ta + tb and "number" in ta + tb:
                    both = ["integer"]  # integer is the intersection of integer and number
                out[k] = both or v
            else:
                out[k] = v
        return out

    def types(self, schema: dict[str, Any], not_null: bool) -> list[str]:
        t = schema.get("type")
        if isinstance(t, str):
            types = [t]
        elif isinstance(t, list):
            types = [x for x in t if isinstance(x, str)]
        else:
            return []
        known = [x for x in types if x in _SIMPLE_TYPES]
        if not_null and len(known) > 1:
            known = [x for x in known if x != "null"] or known
        return known or types

    @staticmethod
    def infer_type(schema: dict[str, Any]) -> str:
        if any(k in schema for k in ("properties", "required", "additionalProperties", "minProperties")):
            return "object"
        if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems", "uniqueItems")):
            return "array"
        if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
            return "string"
        if any(
            k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
        ):
            return "number"
        return "string"

    def untyped(self, depth: int, name: str, not_null: bool) -> Any:
        r = self.rand()
        if r < 0.5:
            return self.string({}, name)
        if r < 0.75:
            return self.randint(0, 100)
        if r < 0.9 or not_null:
            return self.rand() < 0.5
        return None

    # -- numbers ---------------------------------------------------------------------------

    def number(self, schema: dict[str, Any], name: str, *, integer: bool) -> int | float:
        lo, lo_open = self.bound(schema, "minimum", "exclusiveMinimum", lower=True)
        hi, hi_open = self.bound(schema, "maximum", "exclusiveMaximum", lower=False)
        money = bool(re.search(r"amount|price|cost|total|revenue|salary|budget", name, re.IGNORECASE))
        width = 100_000.0 if money else (100.0 if integer else 1000.0)
        # The range to draw from: the declared bounds, else a plausible window.
        if lo is None and hi is None:
            if self.rand() < 0.1:
                a, b = -width, width * 10
            else:
                a, b = 0.0, width
        elif lo is None:
            assert hi is not None
            a, b = hi - width, hi
        elif hi is None:
            a, b = lo, lo + width
        else:
            a, b = lo, hi
        if not b - a <= 1e12:  # huge (or infinite) ranges: a window at the declared side
            if lo is not None:
                b = a + 1e12
            else:
                a = b - 1e12
        multiple = schema.get("multipleOf")
        if _is_num(multiple) and multiple > 0:
            got = self.multiple_in(a, b, lo_open, hi_open, lo, hi, multiple, integer)
            if got is not None:
                return got
        if integer:
            ia = math.ceil(a)
            ib = math.floor(b)
            if lo is not None and lo_open and ia <= lo:
                ia = math.floor(lo) + 1
            if hi is not None and hi_open and ib >= hi:
                ib = math.ceil(hi) - 1
            if ib < ia:
                return ia
            r = self.rand()
            if r < 0.08:
                return ia
            if r < 0.16:
                return ib
            return self.randint(ia, ib)
        r = self.rand()
        if r < 0.06 and not lo_open and lo is not None:
            return lo
        if r < 0.12 and not hi_open and hi is not None:
            return hi
        x = a + self.rand() * (b - a)
        if r < 0.5:
            x2 = float(round(x)) if not money else round(x, 2)
            x = x2 if self.in_range(x2, lo, hi, lo_open, hi_open) else x
        elif r < 0.8:
            x2 = round(x, 2)
            x = x2 if self.in_range(x2, lo, hi, lo_open, hi_open) else x
        if not self.in_range(x, lo, hi, lo_open, hi_open):
            x = (a + b) / 2
        return int(x) if x.is_integer() and abs(x) < 2**53 else x

    @staticmethod
    def bound(
        schema: dict[str, Any], inclusive: str, exclusive: str, *, lower: bool
    ) -> tuple[float | None, bool]:
        """The tightest bound on one side and whether it is exclusive (draft-4 booleans too)."""
        value: float | None = None
        is_open = False
        inc = schema.get(inclusive)
        exc = schema.get(exclusive)
        if _is_num(inc):
            value = inc
            is_open = exc is True
        if _is_num(exc):
            if value is None or (exc >= value if lower else exc <= value):
                value = exc
                is_open = True
        return value, is_open

    @staticmethod
    def in_range(x: float, lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> bool:
        if lo is not None and (x < lo or (lo_open and x == lo)):
            return False
        return not (hi is not None and (x > hi or (hi_open and x == hi)))

    def multiple_in(
        self,
        a: float,
        b: float,
        lo_open: bool,
        hi_open: bool,
        lo: float | None,
        hi: float | None,
        m: float,
        integer: bool,
    ) -> int | float | None:
        kmin = math.ceil(a / m)
        kmax = math.floor(b / m)
        if kmax < kmin:
            return None
        try:
            dm = Decimal(repr(m)) if isinstance(m, float) else Decimal(m)
        except InvalidOperation:
            return None
        for _ in range(6):
            k = self.randint(kmin, kmax)
            v: int | float
            if isinstance(m, int):
                v = k * m
            else:
                v = float(Decimal(k) * dm)
                if v.is_integer() and abs(v) < 2**53:
                    v = int(v)
            if integer and not float(v).is_integer():
                continue
            if not self.in_range(v, lo, hi, lo_open, hi_open):
                continue
            if isinstance(m, float) and isinstance(v, float) and (v / m) != int(v / m):
                continue
            return v
        return None

    # -- strings ---------------------------------------------------------------------------

    def string(self, schema: dict[str, Any], name: str) -> str:
        min_len = schema.get("minLength")
        max_len = schema.get("maxLength")
        lo = int(min_len) if _is_num(min_len) and min_len >= 0 else 0
        hi = int(max_len) if _is_num(max_len) and max_len >= 0 else None
        description = _str_or(schema.get("description"), "")
        fmt = _str_or(schema.get("format"), "")
        pattern = _str_or(schema.get("pattern"), None)

        def fits(s: str) -> bool:
            return len(s) >= lo and (hi is None or len(s) <= hi)

        hinted = self.hinted_string(name, description, fmt)
        if pattern is not None:
            compiled = _compile(pattern)
            if compiled is not None:
                if hinted is not None and fits(hinted) and compiled.search(hinted):
                    return hinted
                for _ in range(4):
                    s = _RegexSampler(self).generate(pattern)
                    if s is not None and compiled.search(s) and fits(s):
                        return s
        if hinted is not None and fits(hinted):
            return hinted
        s = self.plain_string(name)
        if len(s) < lo:
            s += self.chars(_ALNUM, lo - len(s))
        if hi is not None and len(s) > hi:
            s = s[:hi]
        return s

    def hinted_string(self, name: str, description: str, fmt: str) -> str | None:
        """A plausible value from the format, the property name or its description."""
        fmt = fmt.lower()
        lname = name.lower()
        if fmt == "date" or (fmt == "" and (_DATE_HINT.search(description) or lname.endswith("date"))):
            return self.date()
        if fmt == "date-time":
            return f"{self.date()}T{self.randint(0, 23):02d}:{self.randint(0, 59):02d}:{self.randint(0, 59):02d}Z"
        if fmt == "time":
            return f"{self.randint(0, 23):02d}:{self.randint(0, 59):02d}:{self.randint(0, 59):02d}Z"
        if fmt == "email" or (fmt == "" and "email" in lname):
            return f"{self.pick(WORDS).replace(' ', '.')}{self.randint(1, 99)}@example.com"
        if fmt in ("uri", "url", "iri") or (fmt == "" and lname in ("url", "website", "uri", "link")):
            return f"https://{self.pick(WORDS).replace(' ', '-')}.example.com/{self.chars(_ALNUM, 4)}"
        if fmt == "uuid":
            h = self.chars("0123456789abcdef", 32)
            return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
        if fmt == "ipv4":
            return ".".join(str(self.randint(0, 255)) for _ in range(4))
        if fmt == "hostname":
            return f"{self.pick(WORDS).replace(' ', '-')}.example.com"
        if fmt == "" and "phone" in lname:
            return f"+1-555-{self.randint(100, 999):03d}-{self.randint(0, 9999):04d}"
        if fmt == "" and (lname == "id" or name.endswith(("Id", "ID", "_id", "-id"))):
            return self.identifier(name, description)
        return None

    def date(self) -> str:
        return _dt.date.fromordinal(_DATE_START + self.randint(0, _DATE_SPAN - 1)).isoformat()

    def identifier(self, name: str, description: str) -> str:
        m = _ID_EXAMPLE.search(description)
        if m is not None:
            width = len(m.group(2))
            return f"{m.group(1)}-{self.randint(1, min(10**width - 1, 20)):0{width}d}"
        if self.rand() < 0.5:
            return self.chars(_ALNUM, self.randint(3, 8))
        words = _split_words(name[:-2]) if len(name) > 2 else []
        prefix = words[-1][:3].upper() if words else self.chars(_UPPER, 3)
        return f"{prefix}-{self.randint(1, 20):03d}"

    def plain_string(self, name: str) -> str:
        r = self.rand()
        if r < 0.6:
            return " ".join(self.pick(WORDS) for _ in range(self.randint(1, 3)))
        if r < 0.9:
            return self.chars(_ALNUM, self.randint(1, 10))
        if r < 0.95:
            return ""
        return "".join(self.pick(_FUZZ) for _ in range(self.randint(1, 4)))

    # -- arrays and objects ----------------------------------------------------------------

    def array(self, schema: dict[str, Any], depth: int, name: str) -> list[Any]:
        items = schema.get("items")
        prefix = schema.get("prefixItems")
        if isinstance(items, list):  # draft-4 tuple form
            prefix, items = items, schema.get("additionalItems", True)
        prefix = prefix if isinstance(prefix, list) else []
        min_items = schema.get("minItems")
        max_items = schema.get("maxItems")
        lo = int(min_items) if _is_num(min_items) and min_items >= 0 else 0
        if _is_num(max_items) and max_items >= 0:
            hi = int(max_items)
        else:
            hi = lo + (0 if depth >= _MAX_DEPTH else 3)
        if items is False:
            hi = min(hi, len(prefix))
        hi = max(hi, lo) if items is not False else hi
        n = self.randint(lo, min(hi, lo + 4)) if depth < _MAX_DEPTH else lo
        unique = schema.get("uniqueItems") is True
        out: list[Any] = []
        seen: set[bytes] = set()
        item_name = name[:-1] if name.endswith("s") else name
        for i in range(n):
            sub = prefix[i] if i < len(prefix) else items
            v: Any = None
            for _ in range(6 if unique else 1):
                v = self.value(sub, depth=depth + 1, name=item_name)
                if not unique or canonical(v) not in seen:
                    break
            if unique:
                key = canonical(v)
                if key in seen:
                    continue
                seen.add(key)
            out.append(v)
        contains = schema.get("contains")
        if isinstance(contains, dict) and contains:
            v = self.value(contains, depth=depth + 1, name=item_name)
            if out:
                out[self.randint(0, len(out) - 1)] = v
            elif hi >= 1:
                out.append(v)
        return out

    def object(self, schema: dict[str, Any], *, depth: int, name: str, top: bool) -> dict[str, Any]:
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        required_raw = schema.get("required")
        required = [r for r in required_raw if isinstance(r, str)] if isinstance(required_raw, list) else []
        req_set = set(required)
        additional = schema.get("additionalProperties", True)
        dependent = schema.get("dependentRequired")
        dependent = dependent if isinstance(dependent, dict) else {}
        min_props = schema.get("minProperties")
        max_props = schema.get("maxProperties")
        lo = int(min_props) if _is_num(min_props) and min_props > 0 else 0
        hi = int(max_props) if _is_num(max_props) and max_props >= 0 else None

        # An insertion-ordered dict as the set of chosen names: the output never depends on
        # string hashing, so samples are reproducible across processes.
        chosen: dict[str, None] = dict.fromkeys(required)
        optional = [k for k in props if k not in req_set]
        p = _OPTIONAL_P if depth < _MAX_DEPTH else 0.0
        for k in optional:
            if hi is not None and len(chosen) >= hi:
                break
            if self.rand() < p:
                chosen[k] = None
        for k in optional:  # minProperties: add optional ones in schema order
            if len(chosen) >= lo:
                break
            chosen[k] = None
        demanded: set[str] = set()
        for k in list(chosen):  # dependentRequired
            deps = dependent.get(k)
            if isinstance(deps, list):
                for d in deps:
                    if isinstance(d, str):
                        chosen[d] = None
                        demanded.add(d)

        out: dict[str, Any] = {}
        for k, sub in props.items():
            if k in chosen:
                out[k] = self.value(sub, depth=depth + 1, name=k, not_null=k in req_set or k in demanded)
        extra_schema: Any = additional if isinstance(additional, dict) else True
        for k in chosen:
            if k not in out:  # required (or dependent) but not declared
                out[k] = self.value(extra_schema, depth=depth + 1, name=k, not_null=True)
        # Free-form nested objects get a few keys of their own; a tool's input never does.
        if not top and additional is not False and not props and "patternProperties" not in schema:
            want = max(lo - len(out), 0)
            if depth < _MAX_DEPTH and self.rand() < 0.4:
                want = max(want, self.randint(1, 2))
            if hi is not None:
                want = min(want, hi - len(out))
            for _ in range(max(want, 0)):
                key = self.pick(WORDS).replace(" ", "_")
                if key not in out:
                    out[key] = self.value(extra_schema, depth=depth + 1, name=key, not_null=True)
        return out


_pattern_cache: dict[str, re.Pattern[str] | None] = {}


def _compile(pattern: str) -> re.Pattern[str] | None:
    if pattern not in _pattern_cache:
        try:
            with warnings.catch_warnings():  # e.g. FutureWarning for POSIX classes like [[:alpha:]]
                warnings.simplefilter("ignore")
                _pattern_cache[pattern] = re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            _pattern_cache[pattern] = None
    return _pattern_cache[pattern]


class _RegexSampler:
    """Generates a string matching a (Python-syntax) regular expression, best effort."""

    _parser: Any = None
    _c: Any = None

    def __init__(self, sampler: _SchemaSampler) -> None:
        self.s = sampler
        self.groups: dict[int, str] = {}
        if _RegexSampler._parser is None:
            _RegexSampler._parser = importlib.import_module("re._parser")
            _RegexSampler._c = importlib.import_module("re._constants")

    def generate(self, pattern: str) -> str | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parsed = self._parser.parse(pattern)
            return self.seq(parsed)
        except Exception:
            return None

    def seq(self, items: Any) -> str:
        return "".join(self.node(op, av) for op, av in items)

    def node(self, op: Any, av: Any) -> str:
        c = self._c
        if op is c.LITERAL:
            return chr(av)
        if op is c.NOT_LITERAL:
            return self.s.pick([ch for ch in _ALNUM if ord(ch) != av])
        if op is c.ANY:
            return self.s.pick(_ALNUM)
        if op is c.IN:
            return self.char_in(av)
        if op is c.BRANCH:
            return self.seq(self.s.pick(av[1]))
        if op is c.SUBPATTERN:
            text = self.seq(av[-1])
            if av[0] is not None:
                self.groups[av[0]] = text
            return text
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)):
            lo, hi, sub = av
            hi = lo + 3 if hi is c.MAXREPEAT else min(hi, lo + 6)
            return "".join(self.seq(sub) for _ in range(self.s.randint(lo, hi)))
        if op is getattr(c, "ATOMIC_GROUP", None):
            return self.seq(av)
        if op is c.GROUPREF:
            return self.groups.get(av, "")
        if op is c.GROUPREF_EXISTS:
            return self.seq(av[1])
        if op is c.CATEGORY:
            return self.category(av)
        return ""  # AT (anchors), ASSERT, ASSERT_NOT

    def category(self, cat: Any) -> str:
        c = self._c
        if cat is c.CATEGORY_DIGIT:
            return self.s.pick(_DIGITS)
        if cat is c.CATEGORY_SPACE:
            return " "
        if cat is c.CATEGORY_WORD:
            return self.s.pick(_ALNUM + "_")
        if cat is c.CATEGORY_NOT_DIGIT:
            return self.s.pick("abcdefghijklmnopqrstuvwxyz")
        if cat is c.CATEGORY_NOT_WORD:
            return self.s.pick("-. ")
        return self.s.pick(_ALNUM)

    def char_in(self, items: Any) -> str:
        c = self._c
        if items and items[0][0] is c.NEGATE:
            ranges = items[1:]
            alphabet = _ALNUM + _UPPER + "-_. "
            allowed = [ch for ch in alphabet if not self.matches(ch, ranges)]
            return self.s.pick(allowed) if allowed else "~"
        op, av = self.s.pick(items)
        if op is c.LITERAL:
            return chr(av)
        if op is c.RANGE:
            return chr(self.s.randint(av[0], av[1]))
        if op is c.CATEGORY:
            return self.category(av)
        return self.s.pick(_ALNUM)

    def matches(self, ch: str, items: Any) -> bool:
        c = self._c
        code = ord(ch)
        for op, av in items:
            if op is c.LITERAL and code == av:
                return True
            if op is c.RANGE and av[0] <= code <= av[1]:
                return True
            if op is c.CATEGORY:
                probe = {
                    c.CATEGORY_DIGIT: ch.isdigit(),
                    c.CATEGORY_NOT_DIGIT: not ch.isdigit(),
                    c.CATEGORY_SPACE: ch.isspace(),
                    c.CATEGORY_NOT_SPACE: not ch.isspace(),
                    c.CATEGORY_WORD: ch.isalnum() or ch == "_",
                    c.CATEGORY_NOT_WORD: not (ch.isalnum() or ch == "_"),
                }.get(av, False)
                if probe:
                    return True
        return False


