"""The one canonical JSON writer: pretty and compact forms with JavaScript number formatting.

Every JSON text silo_gym writes or returns goes through this module (silo-format §7): the four
run artifacts, CLI ``--json`` output, observations, and the canonical serializer used to compare
states (§8). orjson does the work; floats are pre-formatted the way JavaScript prints them, and a
pure-Python writer handles what orjson refuses (lone surrogates, integers beyond 64 bits,
non-string keys, deep nesting), so serialization never fails: a value that is not
JSON-compatible is written as ``null`` (silo-format §7.3, our rule).

Both writers give the same bytes for the same value. "JSON-compatible" means built only from
``dict`` (with ``str`` keys), ``list``/``tuple``, ``str``, ``int``, ``float``, ``bool`` and
``None`` (subclasses count as their base type), with containers nested at most
:data:`MAX_DEPTH` deep (our rule). Anything else (a set, a date, a UUID, an enum that is not an
``int``/``str`` subclass, a dataclass, a numpy scalar) is written as ``null``, and so is a dict
with any non-string key and a container nested deeper than :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

import orjson

__all__ = [
    "MAX_DEPTH",
    "canonical",
    "dumps_compact",
    "dumps_compact_float_free",
    "dumps_compact_bytes",
    "dumps_pretty",
    "dumps_pretty_bytes",
    "format_number",
    "is_json_compatible",
    "js_number",
    "loads_strict",
    "native_float_exact",
    "PREPARE_FAILED",
    "prepare_canonical",
    "prepared_bytes",
    "raw_compact",
    "text_form",
]

_Fragment = orjson.Fragment
_OPT_PRETTY = orjson.OPT_INDENT_2
_MAX_SAFE = 2**53
# orjson refuses containers nested deeper than 254; past this depth the pure-Python writer is used.
_ORJSON_MAX_DEPTH = 250
# Containers nested deeper than this are not JSON-compatible (our rule): the writers put ``null`` in
# their place and :func:`is_json_compatible` says False. Both walk iteratively, never recursing.
MAX_DEPTH = 1000
# Python refuses str() of ints above 4300 digits (sys.int_info.str_digits_check_threshold).
_INT_CHUNK_DIGITS = 1000
_INT_CHUNK = 10**_INT_CHUNK_DIGITS


def js_number(x: float) -> str:
    """Format a float as JavaScript's ``String(x)`` does (silo-format §7.3).

    ``NaN`` and infinities give ``"null"``; ``-0.0`` gives ``"0"``; ``507500.0`` gives ``"507500"``;
    ``1e21`` gives ``"1e+21"``; ``2.5e-6`` gives ``"0.0000025"``.
    """
    if x != x or x in (math.inf, -math.inf):
        return "null"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    if x < _MAX_SAFE and x == int(x):
        return str(int(x))
    r = repr(x)
    if "e" not in r:
        # Python's plain range (1e-4 <= x < 1e16) lies inside JavaScript's (1e-6 <= x < 1e21),
        # and both print the same shortest digits there.
        return r[:-2] if r.endswith(".0") else r
    mantissa, _, exp_text = r.partition("e")
    exp = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    if frac_part == "0":
        frac_part = ""
    digits = int_part + frac_part
    # Position of the decimal point relative to the start of `digits`.
    point = len(int_part) + exp
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    n = point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{'+' if e >= 0 else '-'}{abs(e)}"


def _int_text(n: int) -> str:
    """Decimal text of any ``int``, exactly, with no digit limit (Python's ``str`` has one)."""
    n = int.__int__(n)
    if -_INT_CHUNK < n < _INT_CHUNK:
        return str(n)
    if n < 0:
        return "-" + _int_text(-n)
    chunks: list[str] = []
    while n >= _INT_CHUNK:
        n, low = divmod(n, _INT_CHUNK)
        chunks.append(str(low).zfill(_INT_CHUNK_DIGITS))
    chunks.append(str(n))
    return "".join(reversed(chunks))


def format_number(x: Any) -> str:
    """Text form of a number for messages: ints exactly, floats as JavaScript prints them (§14.1)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return _int_text(x)
    if isinstance(x, float):
        return js_number(x)
    return str(x)


# Memo of float -> what orjson should write (int, None or a Fragment): states repeat their floats
# (the diff serializes both sides), and formatting one costs far more than a dict lookup.
# 0.0 and -0.0 share an entry, which is right: both are written as 0.
_FRAGMENTS: dict[float, Any] = {}
_FRAGMENTS_MAX = 8192


def _float_fragment(x: float) -> Any:
    try:
        return _FRAGMENTS[x]
    except KeyError:
        pass
    if x != x or x in (math.inf, -math.inf):
        return None
    if -_MAX_SAFE < x < _MAX_SAFE and x == int(x):
        out: Any = int(x)
    else:
        out = _Fragment(js_number(x))
    if len(_FRAGMENTS) >= _FRAGMENTS_MAX:
        _FRAGMENTS.clear()
    _FRAGMENTS[x] = out
    return out


# Memo of float -> whether orjson's own text for it is the canonical text (the shortest digits,
# as JavaScript prints them): true for most money amounts (``1091.2``), false for integral floats
# (orjson writes ``9680.0``, JavaScript ``9680``), ``-0.0`` and exponent forms that differ.
_NATIVE_EXACT: dict[float, bool] = {}


def native_float_exact(x: float) -> bool:
    """Whether ``orjson.dumps(x)`` already gives the canonical text of the float ``x``.

    A value whose floats all pass may be written by orjson directly (the step's fast path): the
    bytes equal :func:`dumps_compact`'s. Memoised; one dict lookup for a float seen before.
    """
    try:
        return _NATIVE_EXACT[x]
    except KeyError:
        pass
    fragment = _float_fragment(x)
    exact = orjson.dumps(x) == orjson.dumps(fragment)
    if len(_NATIVE_EXACT) >= _FRAGMENTS_MAX:
        _NATIVE_EXACT.clear()
    # 0.0 and -0.0 share a key; neither is exact (orjson writes "0.0" and "-0.0", we write 0).
    _NATIVE_EXACT[x] = exact
    return exact


_PLAIN = frozenset({str, int, bool, type(None)})


class _TooDeep(Exception):
    """Raised by :func:`_prepare` near orjson's nesting limit, so the pure-Python writer takes over."""


def _prepare(v: Any, depth: int = 0) -> Any:
    """Copy ``v`` with floats replaced by JavaScript-formatted fragments, or return it as is.

    Anything that is not JSON-compatible becomes ``None``, so orjson never writes its native
    forms of dates, UUIDs, enums or dataclasses (silo-format §7.3: such values are ``null``).
    Subclasses of ``str``/``int``/``float``/``dict``/``list`` are reduced to their base type.
    Containers are copied only when something inside them changes.
    """
    t = type(v)
    if t is dict:
        if depth >= _ORJSON_MAX_DEPTH:
            raise _TooDeep
        out = None
        for k, item in v.items():
            ti = type(item)
            if ti in _PLAIN:
                continue
            new = _float_fragment(item) if ti is float else _prepare(item, depth + 1)
            if new is not item:
                if out is None:
                    out = dict(v)
                out[k] = new
        return v if out is None else out
    if t is list or t is tuple:
        if depth >= _ORJSON_MAX_DEPTH:
            raise _TooDeep
        out_list = None
        for i, item in enumerate(v):
            ti = type(item)
            if ti in _PLAIN:
                continue
            new = _float_fragment(item) if ti is float else _prepare(item, depth + 1)
            if new is not item:
                if out_list is None:
                    out_list = list(v)
                out_list[i] = new
        if out_list is None and t is tuple:
            return list(v)
        return v if out_list is None else out_list
    if t in _PLAIN:
        return v
    if t is float:
        return _float_fragment(v)
    if isinstance(v, str):
        return str.__str__(v)
    if isinstance(v, int):  # bool has no subclasses, so this is a true int subclass (IntEnum, ...)
        return int.__int__(v)
    if isinstance(v, float):
        return _float_fragment(float(v))
    if isinstance(v, dict):
        return _prepare(dict(v), depth)
    if isinstance(v, (list, tuple)):
        return _prepare(list(v), depth)
    return None


def _default(_: Any) -> None:
    return None


_FALLBACK = (TypeError, ValueError, RecursionError, OverflowError, _TooDeep)


def raw_compact(value: Any) -> bytes | None:
    """Plain orjson bytes, floats as orjson writes them: a cheap hint, not the canonical form.

    ``None`` when orjson cannot write ``value`` (too deep, a huge int, a non-string key, ...).
    """
    try:
        return orjson.dumps(value, default=_default)
    except _FALLBACK:
        return None


#: What :func:`prepare_canonical` returns for a value it cannot prepare (nested too deep).
PREPARE_FAILED: Final = object()


def prepare_canonical(value: Any) -> Any:
    """``value`` with floats pre-formatted for the canonical writer (one walk), or
    :data:`PREPARE_FAILED` when it is nested too deep for the fast path.

    Write the result, or parts of it, with :func:`prepared_bytes`: the bytes equal
    :func:`canonical` of the same part (the state diff walks each collection once this way).
    """
    try:
        return _prepare(value)
    except (_TooDeep, RecursionError):
        return PREPARE_FAILED


def prepared_bytes(prepared: Any) -> bytes | None:
    """Compact canonical bytes of a part of :func:`prepare_canonical`'s result, or ``None`` when
    orjson cannot write it (the caller then falls back to :func:`canonical`)."""
    try:
        return orjson.dumps(prepared, default=_default)
    except _FALLBACK:
        return None


def dumps_compact_bytes(value: Any) -> bytes:
    """Compact JSON (no whitespace) of ``value`` as UTF-8 bytes (silo-format §7.2)."""
    try:
        return orjson.dumps(_prepare(value), default=_default)
    except _FALLBACK:
        return _py_dumps(value, False).encode("utf-8", "surrogatepass")


def dumps_compact_float_free(value: Any) -> str:
    """:func:`dumps_compact` for a value known to hold no float: no number formatting needed, so
    orjson writes it directly (the step hot path). Falls back to :func:`dumps_compact`."""
    try:
        return orjson.dumps(value).decode("utf-8")
    except (TypeError, RecursionError, OverflowError):
        return dumps_compact(value)


def dumps_compact(value: Any) -> str:
    """Compact JSON (no whitespace) of ``value`` as ``str`` (silo-format §7.2)."""
    try:
        return orjson.dumps(_prepare(value), default=_default).decode("utf-8")
    except _FALLBACK:
        return _py_dumps(value, False)


def canonical(value: Any) -> bytes:
    """The comparison serializer: compact JSON bytes, key order kept (silo-format §8, §14.4)."""
    return dumps_compact_bytes(value)


def dumps_pretty(value: Any) -> str:
    """Pretty JSON: 2-space indent, ``": "``, one trailing newline (silo-format §7.1)."""
    try:
        return orjson.dumps(_prepare(value), default=_default, option=_OPT_PRETTY).decode("utf-8") + "\n"
    except _FALLBACK:
        return _py_dumps(value, True) + "\n"


def dumps_pretty_bytes(value: Any) -> bytes:
    """:func:`dumps_pretty` as UTF-8 bytes (lone surrogates are written as escapes)."""
    try:
        return orjson.dumps(_prepare(value), default=_default, option=_OPT_PRETTY) + b"\n"
    except _FALLBACK:
        return (_py_dumps(value, True) + "\n").encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------------------------
# Pure-Python writer: the reference for the rules, used when orjson refuses a value. It walks
# the value with an explicit stack, so any nesting depth is safe.

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _py_string(s: str) -> str:
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _scalar_text(value: Any) -> str | None:
    """JSON text of a scalar, ``"null"`` for an incompatible leaf, ``None`` for a container."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _int_text(value)
    if isinstance(value, float):
        return js_number(float(value))
    if isinstance(value, str):
        return _py_string(value)
    if isinstance(value, (dict, list, tuple)):
        return None
    return "null"


def _py_dumps(value: Any, pretty: bool) -> str:
    out: list[str] = []
    # Each frame: [iterator over children, is_dict, depth of the container, no child written yet].
    stack: list[list[Any]] = []

    def open_value(v: Any, depth: int) -> None:
        text = _scalar_text(v)
        if text is not None:
            out.append(text)
            return
        if depth > MAX_DEPTH:
            out.append("null")
            return
        if isinstance(v, dict):
            items = list(v.items())
            if any(not isinstance(k, str) for k, _ in items):
                out.append("null")
            elif not items:
                out.append("{}")
            else:
                out.append("{")
                stack.append([iter(items), True, depth, True])
            return
        seq = list(v)
        if not seq:
            out.append("[]")
        else:
            out.append("[")
            stack.append([iter(seq), False, depth, True])

    open_value(value, 0)
    while stack:
        frame = stack[-1]
        it, is_dict, depth, first = frame
        try:
            child = next(it)
        except StopIteration:
            stack.pop()
            if pretty:
                out.append("\n" + "  " * depth)
            out.append("}" if is_dict else "]")
            continue
        if not first:
            out.append(",")
        frame[3] = False
        if pretty:
            out.append("\n" + "  " * (depth + 1))
        if is_dict:
            key, child = child
            out.append(_py_string(key))
            out.append(": " if pretty else ":")
        open_value(child, depth + 1)
    return "".join(out)


# ---------------------------------------------------------------------------------------------


def is_json_compatible(value: Any) -> bool:
    """True when ``value`` is built only from dict (str keys), list, str, int, float, bool, None.

    Checked deeply and iteratively (silo-format §5.4). Tuples count as lists; containers nested
    deeper than :data:`MAX_DEPTH` are not compatible (our rule).
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if v is None or isinstance(v, (str, bool, int, float)):
            continue
        if isinstance(v, dict):
            if depth > MAX_DEPTH:
                return False
            for k, item in v.items():
                if not isinstance(k, str):
                    return False
                stack.append((item, depth + 1))
        elif isinstance(v, (list, tuple)):
            if depth > MAX_DEPTH:
                return False
            stack.extend((item, depth + 1) for item in v)
        else:
            return False
    return True


def text_form(value: Any) -> str:
    """The text form of an agent's output (silo-format §5.4).

    A ``str`` stays as it is; ``None`` gives ``""``; any other JSON-compatible value gives its
    compact JSON; a value that is not JSON-compatible gives ``""``.
    """
    if isinstance(value, str):
        return value
    if value is None or not is_json_compatible(value):
        return ""
    return dumps_compact(value)


class _ConstantRefused(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is not valid JSON")
        self.name = name


def _reject_constant(name: str) -> Any:
    raise _ConstantRefused(name)


# A JSON string (skipped whole, so nothing inside it counts) or one token of interest.
_STRING_OR_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|([\[{])|([\]}])', re.DOTALL)


def _constant_position(text: str) -> int:
    """Index of the first ``NaN``/``Infinity``/``-Infinity`` outside a string: the one the parser
    refused, since everything before it parsed."""
    for match in _STRING_OR_CONSTANT.finditer(text):
        if match.group(1):
            return match.start(1)
    return 0


def _deepest_position(text: str) -> int:
    """Index of the first bracket at the deepest nesting outside strings."""
    depth = deepest = position = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        if match.group(1):
            depth += 1
            if depth > deepest:
                deepest, position = depth, match.start(1)
        elif match.group(2):
            depth -= 1
    return position


def _long_int(text: str) -> int:
    """``int(text)`` for a JSON integer of any length, converted in pieces below the limit."""
    if len(text) <= 4000:
        return int(text)
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    half = len(digits) // 2
    value = _long_int(digits[:half]) * 10 ** (len(digits) - half) + _long_int(digits[half:])
    return -value if negative else value


def loads_strict(text: str | bytes) -> Any:
    """Parse strict RFC 8259 JSON: no ``NaN``/``Infinity``, no trailing data; a duplicate key keeps
    its last value.

    Raises:
        json.JSONDecodeError: (a ``ValueError``) on any invalid input, with the place of the problem
            (``lineno``, ``colno``, 1-based, columns counted in characters) and the reason
            (``msg``): also for bytes that are not UTF-8, for ``NaN`` and the infinities, and for
            input nested too deeply for the parser.
    """
    import json

    if isinstance(text, (bytes, bytearray)):
        raw = bytes(text)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            before = raw[: exc.start].decode("utf-8", "replace")
            doc = before + raw[exc.start :].decode("utf-8", "replace")
            raise json.JSONDecodeError(f"Invalid UTF-8 byte 0x{raw[exc.start]:02x}", doc, len(before)) from None
    try:
        try:
            return json.loads(text, parse_constant=_reject_constant)
        except ValueError as exc:
            if isinstance(exc, (json.JSONDecodeError, _ConstantRefused)):
                raise
            # An integer beyond Python's default 4300 digits for int(str) (sys.get_int_max_str_digits):
            # JSON has no such limit and silo_gym's writers write any int, so read it back.
            return json.loads(text, parse_constant=_reject_constant, parse_int=_long_int)
    except _ConstantRefused as exc:
        raise json.JSONDecodeError(str(exc), text, _constant_position(text)) from None
    except RecursionError:
        raise json.JSONDecodeError("JSON nested too deeply", text, _deepest_position(text)) from None
