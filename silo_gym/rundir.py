"""Reading a recorded run directory (silo-format §6): ``run.json``, the trace, the two episode files.

One reader for every tool that looks back at runs (``replay``, ``regrade``, ``view``). It never
raises on what a crash can leave behind: a torn last trace line (the run stopped while writing
it, silo-format §6.6; read by :func:`silo_gym.trace.read_trace`) is kept as
:attr:`RunRecord.torn`, and missing files are ``None``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SiloError
from .jsonfmt import loads_strict
from .trace import TraceCorrupt, read_trace

__all__ = ["RecordedCall", "RunRecord", "read_run", "run_error"]

TRACE_FILE = "trace.jsonl"
RESULT_FILE = "result.json"
STATE_DIFF_FILE = "state-diff.json"
RUN_FILE = "run.json"


def run_error(run_dir: Path, message: str) -> SiloError:
    """A ``run_invalid`` error naming the run directory."""
    return SiloError("run_invalid", f"{run_dir}: {message}", {"runDir": str(run_dir)})


@dataclass(frozen=True)
class RecordedCall:
    """One executed call as the trace holds it: the ``tool_call`` and its ``tool_result``
    (``None`` when the trace ends before the result)."""

    call_id: int
    tool: Any
    input: Any
    result: dict[str, Any] | None


@dataclass
class RunRecord:
    """What a run directory holds. ``events`` are the whole trace lines, in order."""

    run_dir: Path
    run: dict[str, Any] | None
    events: list[dict[str, Any]]
    torn: str | None = None  # the torn last trace line, described (silo_gym.trace)
    result_bytes: bytes | None = None
    state_diff_bytes: bytes | None = None
    _by_type: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for event in self.events:
            self._by_type.setdefault(str(event.get("type")), event)

    def first(self, type_: str) -> dict[str, Any] | None:
        """The first event of ``type_`` (``run_start``, ``run_end``, ...), or None."""
        return self._by_type.get(type_)

    @property
    def run_start(self) -> dict[str, Any]:
        start = self.first("run_start")
        assert start is not None  # read_run refuses a trace without it
        return start

    @property
    def config(self) -> dict[str, Any]:
        """``config`` of ``run.json``, else of ``run_start`` (silo-format §6.4–6.5)."""
        config = (self.run or {}).get("config")
        if not isinstance(config, dict):
            config = self.run_start.get("config")
        return config if isinstance(config, dict) else {}

    @property
    def run_id(self) -> str:
        rid = (self.run or {}).get("runId") or self.run_start.get("runId")
        return str(rid) if rid is not None else self.run_dir.name

    @property
    def environment(self) -> str:
        return str((self.run or {}).get("environment") or self.run_start.get("environment"))

    @property
    def task(self) -> dict[str, Any]:
        task = self.run_start.get("task")
        return task if isinstance(task, dict) else {}

    @property
    def task_id(self) -> str:
        return str((self.run or {}).get("taskId") or self.task.get("id"))

    @property
    def result(self) -> dict[str, Any] | None:
        """``result.json`` parsed (None when absent: grading failed, or the run did not end)."""
        return _parse_object(self.result_bytes)

    @property
    def state_diff(self) -> dict[str, Any] | None:
        return _parse_object(self.state_diff_bytes)

    def calls(self) -> list[RecordedCall]:
        """Every executed call in ``callId`` order, each with its result when recorded."""
        calls: list[RecordedCall] = []
        results: dict[Any, dict[str, Any]] = {}
        for event in self.events:
            kind = event.get("type")
            if kind == "tool_call":
                calls.append(RecordedCall(int(event["callId"]), event.get("tool"), event.get("input"), None))
            elif kind == "tool_result":
                results[event.get("callId")] = event
        return [RecordedCall(c.call_id, c.tool, c.input, results.get(c.call_id)) for c in calls]


def _parse_object(data: bytes | None) -> dict[str, Any] | None:
    """A JSON object from a file's bytes; None when absent or unreadable (a torn write)."""
    if data is None:
        return None
    try:
        value = loads_strict(data)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _read_optional(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def read_run(run_dir: str | os.PathLike[str]) -> RunRecord:
    """Read a run directory; the trace through :func:`silo_gym.trace.read_trace`, so a torn last
    line is kept as :attr:`RunRecord.torn` instead of failing.

    Raises:
        SiloError: ``run_invalid`` when ``run_dir`` is not a directory, has no ``trace.jsonl``, a
            line before the last one is not a JSON object, ``run.json`` does not parse, or the trace
            does not start with ``run_start`` (the message names the file and line).
    """
    path = Path(run_dir)
    if not path.is_dir():
        raise run_error(path, "not a run directory (it does not exist or is not a directory).")
    try:
        trace = read_trace(path / TRACE_FILE)
    except FileNotFoundError:
        raise run_error(path, f"no {TRACE_FILE}; a run directory holds trace.jsonl, result.json, "
                              "state-diff.json and run.json (silo-format §6.1).") from None
    except TraceCorrupt as exc:
        raise run_error(path, f"{TRACE_FILE}: {exc}") from None
    events = trace.events
    torn = f"{TRACE_FILE}: {trace.torn}" if trace.torn is not None else None
    if not events or events[0].get("type") != "run_start":
        raise run_error(path, f"{TRACE_FILE} does not start with a run_start event.")
    run_bytes = _read_optional(path / RUN_FILE)
    run: dict[str, Any] | None = None
    if run_bytes is not None:
        try:
            parsed = loads_strict(run_bytes)
        except ValueError as exc:
            raise run_error(path, f"{RUN_FILE} is not valid JSON ({exc}).") from None
        run = parsed if isinstance(parsed, dict) else None
    return RunRecord(
        run_dir=path,
        run=run,
        events=events,
        torn=torn,
        result_bytes=_read_optional(path / RESULT_FILE),
        state_diff_bytes=_read_optional(path / STATE_DIFF_FILE),
    )
