"""Reading ``trace.jsonl`` (silo-format §6.5), tolerating a torn last line (§6.6).

The recorder writes each event as one whole line and completes or undoes partial writes, so
every line but the last is whole; a process killed during a write can still leave the last
line torn (no newline, or cut JSON). Every reader the package ships goes through
:func:`read_trace`, which reports such a line instead of failing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import SiloGymError
from ..jsonfmt import loads_strict
from .files import read_run_file

__all__ = ["Trace", "TraceCorrupt", "read_trace"]


class TraceCorrupt(ValueError, SiloGymError):
    """A line other than the last is not a JSON object: the file was damaged by something other
    than an interrupted write (silo_gym never leaves such a line).

    Attributes:
        line: the line's number (1-based).
        reason: why it is not a JSON object (the parser's message, or what it is instead).
    """

    def __init__(self, message: str, line: int = 0, reason: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.reason = reason


@dataclass
class Trace:
    """The events of one ``trace.jsonl``.

    Attributes:
        events: the whole lines, parsed, in file order.
        torn: ``None``, or a sentence describing the torn last line (it is not in ``events``).
        torn_bytes: the raw bytes of the torn last line (``b""`` when there is none).
    """

    events: list[dict[str, Any]] = field(default_factory=list)
    torn: str | None = None
    torn_bytes: bytes = b""


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a ``trace.jsonl``; a torn last line is reported in ``Trace.torn``, never raised.

    Raises:
        OSError: the file cannot be read, is not a regular file, or is larger than
            :data:`silo_gym.files.MAX_RUN_FILE_BYTES` (:func:`silo_gym.files.read_run_file`).
        TraceCorrupt: a line before the last is not a JSON object (names the line number).
    """
    data = read_run_file(path)
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline, as every whole trace does
    trace = Trace()
    for number, raw in enumerate(lines, 1):
        event, reason = _parse(raw)
        if event is None:
            if number == len(lines) and not tail:
                trace.torn, trace.torn_bytes = _torn(number, raw, "is not a whole JSON object"), raw
                return trace
            raise TraceCorrupt(f"{os.fspath(path)}: line {number} is not a JSON object; the trace is damaged.",
                               number, reason)
        trace.events.append(event)
    if tail:
        number = len(lines) + 1
        trace.torn, trace.torn_bytes = _torn(number, tail, "has no line end (the write was interrupted)"), tail
    return trace


def _parse(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    """The line's object, or None and why not."""
    try:
        value = loads_strict(raw)
    except (ValueError, RecursionError, UnicodeDecodeError) as exc:
        return None, str(getattr(exc, "msg", None) or exc)
    if isinstance(value, dict):
        return value, ""
    return None, f"it holds {_JSON_KINDS.get(type(value), 'another value')}"


_JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean",
               type(None): "null"}


def _torn(number: int, raw: bytes, why: str) -> str:
    return f"the last line (line {number}, {len(raw)} bytes) {why}; it was left out"
