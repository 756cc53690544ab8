"""The one canonical JSON writer: pretty and compact forms with JavaScript number formatting.

Every JSON text silo_gym writes or returns goes through this module (silo-format §7): the four
run artifacts, CLI ``--json`` output, observations, and the canonical serializer used to compare
states (§8). orjson does the work; floats are pre-formatted the way JavaScript prints them, and a
pure-Python writer handles what orjson refuses (lone surrogates, integers beyond 64 bits,
non-string keys, deep nesting), so serialization never fails: a value that is not
JSON-compatible is written as ``null`` (silo-format §7.3, our rule).
"""

from __future__ import annotations

import math
from typing import Any

import orjson

__all__ = [
    "canonical",
    "dumps_compact",
    "dumps_pretty",
    "format_number",
    "is_json_compatible",
    "js_number",
    "loads_strict",
    "text_form",
]

_Fragment = orjson.Fragment
_OPT_PRETTY = orjson.OPT_INDENT_2
_MAX_SAFE = 2**53


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


def format_number(x: Any) -> str:
    """Text form of a number for messages: ints exactly, floats as JavaScript prints them (§14.1)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return js_number(x)
    return str(x)


def _float_fragment(x: float) -> Any:
    if x != x or x in (math.inf, -math.inf):
        return None
    if -_MAX_SAFE < x < _MAX_SAFE and x == int(x):
        return int(x)
    return _Fragment(js_number(x))


def _prepare(v: Any) -> Any:
    """Copy ``v`` with floats replaced by JavaScript-formatted fragments, or return it as is."""
    t = type(v)
    if t is dict:
        out = None
        for k, item in v.items():
            new = _prepare(item)
            if new is not item:
                if out is None:
                    out = dict(v)
                out[k] = new
        return v if out is None else out
    if t is list or t is tuple:
        out_list = None
        for i, item in enumerate(v):
            new = _prepare(item)
            if new is not item:
                if out_list is None:
                    out_list = list(v)
                out_list[i] = new
        return v if out_list is None else out_list
    if t is float:
        return _float_fragment(v)
    if t is str or t is int or t is bool or v is None:
        return v
    if isinstance(v, float):
        return _float_fragment(float(v))
    if isinstance(v, dict):
        return _prepare(dict(v))
    if isinstance(v, (list, tuple)):
        return _prepare(list(v))
    return v


def _default(_: Any) -> None:
    return None


def dumps_compact_bytes(value: Any) -> bytes:
    """Compact JSON (no whitespace) of ``value`` as UTF-8 bytes (silo-format §7.2)."""
    try:
        return orjson.dumps(_prepare(value), default=_default)
    except (TypeError, RecursionError, OverflowError):
        return _py_dumps(value, None).encode("utf-8", "surrogatepass")


def dumps_compact(value: Any) -> str:
    """Compact JSON (no whitespace) of ``value`` as ``str`` (silo-format §7.2)."""
    try:
        return orjson.dumps(_prepare(value), default=_default).decode("utf-8")
    except (TypeError, RecursionError, OverflowError):
        return _py_dumps(value, None)


def canonical(value: Any) -> bytes:
    """The comparison serializer: compact JSON bytes, key order kept (silo-format §8, §14.4)."""
    return dumps_compact_bytes(value)


def dumps_pretty(value: Any) -> str:
    """Pretty JSON: 2-space indent, ``": "``, one trailing newline (silo-format §7.1)."""
    try:
        return orjson.dumps(_prepare(value), default=_default, option=_OPT_PRETTY).decode("utf-8") + "\n"
    except (TypeError, RecursionError, OverflowError):
        return _py_dumps(value, 0) + "\n"


def dumps_pretty_bytes(value: Any) -> bytes:
    """:func:`dumps_pretty` as UTF-8 bytes (lone surrogates are written as escapes)."""
    try:
        return orjson.dumps(_prepare(value), default=_default, option=_OPT_PRETTY) + b"\n"
    except (TypeError, RecursionError, OverflowError):
        return (_py_dumps(value, 0) + "\n").encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------------------------
# Pure-Python writer: the reference for the rules, used when orjson refuses a value.

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


def _py_dumps(value: Any, indent: int | None, _depth: int = 0) -> str:
    if _depth > 2000:
        return "null"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return js_number(float(value))
    if isinstance(value, str):
        return _py_string(value)
    if isinstance(value, dict):
        items = [(k, v) for k, v in value.items()]
        if not items:
            return "{}"
        if any(not isinstance(k, str) for k, _ in items):
            return "null"
        if indent is None:
            return "{" + ",".join(_py_string(k) + ":" + _py_dumps(v, None, _depth + 1) for k, v in items) + "}"
        pad = "  " * (indent + 1)
        inner = (",\n").join(
            pad + _py_string(k) + ": " + _py_dumps(v, indent + 1, _depth + 1) for k, v in items
        )
        return "{\n" + inner + "\n" + "  " * indent + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if indent is None:
            return "[" + ",".join(_py_dumps(v, None, _depth + 1) for v in value) + "]"
        pad = "  " * (indent + 1)
        inner = ",\n".join(pad + _py_dumps(v, indent + 1, _depth + 1) for v in value)
        return "[\n" + inner + "\n" + "  " * indent + "]"
    return "null"


# ---------------------------------------------------------------------------------------------


def is_json_compatible(value: Any, _depth: int = 0) -> bool:
    """True when ``value`` is built only from dict (str keys), list, str, int, float, bool, None.

    Checked deeply (silo-format §5.4). Tuples count as lists.
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return True
    if _depth > 1000:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_json_compatible(v, _depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(is_json_compatible(v, _depth + 1) for v in value)
    return False


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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str | bytes) -> Any:
    """Parse strict RFC 8259 JSON: no ``NaN``/``Infinity``, no trailing data; a duplicate key keeps
    its last value. Raises ``ValueError`` (``json.JSONDecodeError`` is one) on invalid input."""
    import json

    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    return json.loads(text, parse_constant=_reject_constant)
