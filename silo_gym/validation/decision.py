"""The schema decision: JSON Schema draft 2020-12 as decided by ``jsonschema-rs`` (silo-format §3.3).

A tool's schema is compiled once into a ``jsonschema_rs.Draft202012Validator`` (about 10 µs);
checking a valid input costs one call into it (well under a microsecond for a demo schema). The
library, not silo_gym, decides every keyword; silo_gym only prepares the instance and words the
errors (:mod:`.messages`).

Why ``jsonschema-rs``: it is maintained, complete for draft 2020-12, compiled, and its decisions
equal ``jsonschema``'s (the reference Python implementation) over the differential test in
``tests/test_validation.py``, except where it follows the JSON Schema specification more closely
(both checked by tests):

- ``pattern`` is an ECMA-262 regular expression, as the specification says, not a Python one:
  ``\\d`` and ``\\w`` are ASCII, ``$`` matches only at the very end (Python's ``$`` also matches
  before a final newline). A pattern only Python understands (``\\Z``, ``(?P<name>…)``) makes
  the schema invalid.
- ``multipleOf`` with a fractional divisor tolerates binary rounding: ``19.99`` is a multiple of
  ``0.01`` (``jsonschema`` divides floats and says no).

The instance the library sees (our rules):

- every object member whose value is ``None`` is removed, recursively (Silo treats null as
  absent); the input is not copied when it holds no such member;
- a value that is not JSON is refused before the library runs, with a problem naming its path: a
  non-finite float (``NaN``, ``Infinity``), a dict key that is not a string, or any other type (a
  set, bytes, a custom object). Tuples are arrays, and subclasses of ``dict``/``list``/``str``/
  ``int``/``float`` count as their base;
- a lone surrogate in a string or key (JSON text may escape one, ``"\\ud800"``, and silo_gym
  writes it back as it came, silo-format §7) is shown to the library as U+FFFD, one code point
  for one, so lengths are unchanged (the library holds text as UTF-8, which has no surrogates).

Remote references are never fetched (the validator is built offline): a ``$ref`` that does not
resolve inside the schema makes the schema invalid.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..errors import SiloGymError
from .messages import Path

__all__ = ["NotJson", "compile_decision", "json_instance"]

_LIB: Any = None


def _library() -> Any:
    global _LIB
    if _LIB is None:  # imported on first use: ``import silo_gym`` stays fast
        import jsonschema_rs

        _LIB = jsonschema_rs
    return _LIB


def compile_decision(schema: dict[str, Any]) -> tuple[Any, str | None]:
    """``(validator, None)``, or ``(None, reason)`` when the library cannot use ``schema``.

    The validator is a ``jsonschema_rs.Draft202012Validator``: draft 2020-12 whatever
    ``$schema`` says, ``format`` an annotation, no network. It refuses a schema that fails the
    draft 2020-12 meta-schema, holds a ``$ref`` that resolves nowhere, a ``pattern`` that is not
    an ECMA-262 regular expression, or contains itself. ``reason`` is the library's message (its
    first line).
    """
    lib = _library()
    try:
        return lib.Draft202012Validator(schema, offline=True, validate_formats=False), None
    except Exception as exc:  # ValidationError, ValueError (unsupported values, recursion), ...
        lines = str(exc).strip().splitlines()
        reason = lines[0].strip() if lines else type(exc).__name__
        return None, reason or type(exc).__name__


class NotJson(SiloGymError):
    """A value the library cannot check; ``path`` says where and ``what`` says why."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(what)
        self.path = path
        self.what = what


_DROP = object()


def json_instance(value: Any) -> Any:
    """``value`` with every object member whose value is ``None`` removed, recursively, and each
    lone surrogate shown as U+FFFD.

    Returns ``value`` itself when there is nothing to change (no copy).

    Raises:
        NotJson: for the first value that is not JSON, depth first.
        RecursionError: for an input nested too deeply.
    """
    return _strip(value, ())


def _strip(v: Any, path: Path) -> Any:
    t = type(v)
    if t is int or t is bool or v is None:
        return v
    if t is str:
        return v if v.isascii() else _utf8_safe(v)
    if t is float:
        if v - v == 0.0:
            return v
        raise NotJson(path, "must be a finite number")
    if isinstance(v, dict):
        new: dict[Any, Any] | None = None
        for i, (k, x) in enumerate(v.items()):
            if type(k) is not str and not isinstance(k, str):
                raise NotJson(path, f"must have string keys, found {type(k).__name__} {k!r}"[:200])
            y = _DROP if x is None else _strip(x, (*path, k))
            k2 = k if k.isascii() else _utf8_safe(k)
            if (y is not x or k2 is not k) and new is None:
                new = dict(item for _, item in zip(range(i), v.items(), strict=False))
            if new is not None and y is not _DROP:
                new[k2] = y
        return v if new is None else new
    if isinstance(v, (list, tuple)):
        out: list[Any] | None = None
        for i, x in enumerate(v):
            y = _strip(x, (*path, i))
            if y is not x and out is None:
                out = list(v[:i])
            if out is not None:
                out.append(y)
        return v if out is None else out
    if isinstance(v, str):
        return v if v.isascii() else _utf8_safe(v)
    if isinstance(v, (bool, int)):
        return v
    if isinstance(v, float):
        if math.isfinite(v):
            return v
        raise NotJson(path, "must be a finite number")
    raise NotJson(path, f"must be a JSON value, received {type(v).__name__}")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8_safe(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (the same object when it has none)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
