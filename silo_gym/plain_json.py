"""Plain JSON data: exactly the values a JSON parser yields, so their JSON text reads back as them.

A tool call's input must be plain JSON (gym-api.md "One episode", rule 8, amended; see
docs/spec-amendments.md): the trace writes the input as JSON (silo-format §6.5, §7.3) and a replay
re-executes what it reads back, so a tool must never receive a value the trace would write as
something else (``NaN`` and the infinities as ``null``, a tuple as a list, a numpy integer or a
date as ``null``, an ``IntEnum`` as its number).

Plain means built only from ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, finite
``float``, ``bool`` and ``None`` (an ``int`` of at most :data:`MAX_INT_DIGITS` digits), by exact type (a subclass may behave differently in a tool than
the base value a replay reads back), with at most :data:`MAX_NESTING` containers nested inside the
outermost one. The one exception to "reads back as itself" is silo-format's own: an integral float
is written as an integer (§7.3, §14.1).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["MAX_INT_DIGITS", "MAX_NESTING", "NotPlain", "answer_not_recordable", "bounded", "describe_path",
           "first_not_plain", "object_not_plain"]

#: Containers allowed inside the outermost one (our rule). Far beyond any tool's input, and well
#: inside what the schema library (about 250 levels), Python's recursion limit and the trace's
#: writer and reader all handle, so a plain input behaves the same live and in a replay.
MAX_NESTING = 100

#: Digits an integer may have: Python's JSON reader refuses longer ones by default
#: (``sys.get_int_max_str_digits``), so a trace holding one could not be read back.
MAX_INT_DIGITS = 4300
_BIG = 10**MAX_INT_DIGITS

_BASES = (dict, list, str, int, float)

Path = tuple[str | int, ...]


class NotPlain(NamedTuple):
    """Where a value stops being plain JSON (``path`` from the root: keys and list indices) and
    what was found there (``what``: ``NaN``, ``numpy.int64``, ``an object key of type int``...)."""

    path: Path
    what: str


_TOO_DEEP = NotPlain((), f"containers nested deeper than {MAX_NESTING} levels")


def first_not_plain(value: Any) -> NotPlain | None:
    """The first place, depth first in the value's own order, where ``value`` is not plain JSON;
    ``None`` when it is plain. Never raises.

    One pass over the value, by exact type checks (the step hot path: a flat object of strings
    and numbers costs a few checks per member). The recursion stops at :data:`MAX_NESTING`, so
    any input is safe; the path of a problem is built only when there is one.
    """
    kind = type(value)
    if kind is dict:
        return object_not_plain(value)
    if kind is list:
        return _array(value, 0)
    return _leaf(value)


def object_not_plain(value: dict[Any, Any], depth: int = 0) -> NotPlain | None:
    """:func:`first_not_plain` of a ``dict`` (exactly; the step's hot path calls this directly),
    ``depth`` containers below the root."""
    for key, member in value.items():
        if type(key) is not str:
            return NotPlain((), f"an object key of type {_type_text(type(key))}")
        kind = type(member)
        if kind is str or kind is bool or member is None or (kind is int and -_BIG < member < _BIG):
            continue
        if kind is dict:
            problem = _TOO_DEEP if depth >= MAX_NESTING else object_not_plain(member, depth + 1)
        elif kind is list:
            problem = _TOO_DEEP if depth >= MAX_NESTING else _array(member, depth + 1)
        elif kind is float and member - member == 0.0:  # finite
            continue
        else:
            return NotPlain((key,), _what(member))
        if problem is not None:
            return problem if problem is _TOO_DEEP else NotPlain((key, *problem.path), problem.what)
    return None


def _array(value: list[Any], depth: int) -> NotPlain | None:
    for member in value:  # no enumerate: the index is looked up only for a problem
        kind = type(member)
        if kind is str or kind is bool or member is None or (kind is int and -_BIG < member < _BIG):
            continue
        if kind is dict:
            problem = _TOO_DEEP if depth >= MAX_NESTING else object_not_plain(member, depth + 1)
        elif kind is list:
            problem = _TOO_DEEP if depth >= MAX_NESTING else _array(member, depth + 1)
        elif kind is float and member - member == 0.0:
            continue
        else:
            problem = NotPlain((), _what(member))
        if problem is not None:
            if problem is _TOO_DEEP:
                return problem
            # The first member that is this object: members before it were all plain.
            index = next(i for i, m in enumerate(value) if m is member)
            return NotPlain((index, *problem.path), problem.what)
    return None


def _leaf(value: Any) -> NotPlain | None:
    kind = type(value)
    if (kind is str or kind is bool or value is None or (kind is int and -_BIG < value < _BIG)
            or (kind is float and value - value == 0.0)):
        return None
    return NotPlain((), _what(value))


def _what(value: Any) -> str:
    if type(value) is int:  # a plain int reaches here only when it has too many digits
        digits = int(value.bit_length() * 0.30103) + 1
        return f"an integer of about {digits} digits (JSON readers take at most {MAX_INT_DIGITS})"
    if type(value) is float:  # a plain float reaches here only when it is not finite
        if value != value:
            return "NaN"
        return ("Infinity" if value > 0 else "-Infinity") + " (a number beyond the 64-bit float range)"
    text = _type_text(type(value))
    base = next((b for b in _BASES if isinstance(value, b)), None)
    return text if base is None else f"{text} (a subclass of {base.__name__})"


def _type_text(kind: type) -> str:
    module = getattr(kind, "__module__", None)
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module in (None, "builtins") else f"{module}.{name}"


def describe_path(path: Path, root: str = "input") -> str:
    """``path`` as text under ``root``: ``input``, ``input.limit``, ``input.tags[1].name``
    (member names longer than 40 characters are shortened with ``…``)."""
    parts = [root]
    for step in path:
        if type(step) is int:
            parts.append(f"[{step}]")
        else:
            name = str(step)
            parts.append("." + (name if len(name) <= 40 else name[:40] + "…"))
    return "".join(parts)


def answer_not_recordable(value: Any) -> NotPlain | None:
    """The first place, depth first, where an answer holds what its record cannot carry: ``NaN``
    or an infinity (a ``float`` or a subclass; JSON writes them as ``null``), or containers nested
    deeper than :data:`MAX_NESTING` (readers of the run stop near 1,000 levels); ``None`` when the
    answer is recordable. Never raises.

    Looser than :func:`first_not_plain`, as silo-format §5.4 takes any value as an answer: a
    tuple is a list, a subclass its base value, and a value JSON has no form for (a date, a set)
    makes the text form ``""``; each of those is recorded as what the verifier then reads back.
    """
    stack: list[tuple[Path, Any, int]] = [((), value, 0)]
    while stack:
        path, item, depth = stack.pop()
        if isinstance(item, float):
            if item - item != 0.0:  # NaN or an infinity
                return NotPlain(path, _what(float(item)))
        elif isinstance(item, (dict, list, tuple)):
            if depth > MAX_NESTING:
                return NotPlain((), f"containers nested deeper than {MAX_NESTING} levels")
            members = list(item.items()) if isinstance(item, dict) else list(enumerate(item))
            stack.extend(((*path, key), member, depth + 1) for key, member in reversed(members))
    return None


def bounded(value: Any, depth: int) -> Any:
    """``value`` with every container nested more than ``depth`` levels below it replaced by
    ``None``, in a copy of each container kept (a tuple becomes a list, as JSON writes it); other
    members are kept as they are. What the trace records of an action refused as received: every
    place a refusal can name is kept (:func:`first_not_plain` stops at :data:`MAX_NESTING`), and
    every reader of the trace can read it. Iterative: never raises for depth."""
    if not isinstance(value, (dict, list, tuple)):
        return value

    def shell(item: Any) -> Any:
        return dict(item) if isinstance(item, dict) else list(item)

    root = shell(value)
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        container, level = stack.pop()
        for key in list(container) if isinstance(container, dict) else range(len(container)):
            member = container[key]
            if isinstance(member, (dict, list, tuple)):
                if level >= depth:
                    container[key] = None
                else:
                    container[key] = copied = shell(member)
                    stack.append((copied, level + 1))
    return root
