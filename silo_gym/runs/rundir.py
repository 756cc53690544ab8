"""Reading a recorded run directory (silo-format §6): ``run.json``, the trace, the two episode files.

One reader for every tool that looks back at runs (``replay``, ``regrade``, ``view``). What a
crash can leave behind is not an error: a torn last trace line (the run stopped while writing it,
silo-format §6.6; read by :func:`silo_gym.trace.read_trace`) is kept as :attr:`RunRecord.torn`,
and missing files are ``None``. Everything else is checked before anything is used, and a run
that fails a check is a ``run_invalid`` :class:`~silo_gym.errors.SiloError` naming the file (and
the trace line), the field, what is accepted and what was found:

- a file that cannot be read (a directory in its place, no permission) or is not JSON;
- a file or a trace event that does not match its format (the models of :mod:`silo_gym.models`:
  ``RunFile``, ``RunResultFile``, ``StateDiff``, ``TRACE_EVENTS``);
- a trace out of order (silo-format §6.5): ``run_start`` first and only there; calls numbered
  1, 2, 3, ...; a ``tool_result`` only for a call waiting for it; one ``agent_output``, one
  ``run_end``, and after it at most one ``verifier_result``;
- ``run.json`` and the trace telling different stories (run id, environment, task, verifier,
  config, ending, call count), or ``result.json``'s answer not the traced one. A reader would
  otherwise have to trust one of them (a run whose ``run.json`` names another task would be
  graded with that task's verifier), so such a run is refused, naming both values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SiloError
from ..formats import invalid_json
from ..jsonfmt import canonical, dumps_compact, loads_strict, text_form
from ..models import TRACE_EVENTS, RunFile, RunResultFile, SiloFile, StateDiff
from .files import RUN_FILES, read_run_file
from .trace import TraceCorrupt, read_trace

__all__ = ["RUN_ARTIFACTS", "RUN_FILES", "RecordedCall", "RunRecord", "read_run", "run_error"]

TRACE_FILE = "trace.jsonl"
RESULT_FILE = "result.json"
STATE_DIFF_FILE = "state-diff.json"
RUN_FILE = "run.json"
#: The files a run directory holds: :data:`silo_gym.runs.files.RUN_FILES` under its older name.
RUN_ARTIFACTS = RUN_FILES

_SHOWN = 120  # characters of a value shown in a message
_ACCEPTED_TYPES = ", ".join(f"'{kind}'" for kind in TRACE_EVENTS)


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
    """What a run directory holds, checked (see the module docstring). ``events`` are the whole
    trace lines, in order; ``result`` and ``state_diff`` are the parsed episode files (``None``
    when absent: grading failed, or the run did not end), ``*_bytes`` their bytes."""

    run_dir: Path
    run: dict[str, Any] | None
    events: list[dict[str, Any]]
    torn: str | None = None  # the torn last trace line, described (silo_gym.trace)
    result_bytes: bytes | None = None
    state_diff_bytes: bytes | None = None
    result: dict[str, Any] | None = None
    state_diff: dict[str, Any] | None = None
    _by_type: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for event in self.events:
            self._by_type.setdefault(str(event.get("type")), event)

    def first(self, type_: str) -> dict[str, Any] | None:
        """The event of ``type_`` (``run_start``, ``run_end``, ...; the first for ``tool_call``,
        ``tool_result`` and ``model_step``), or None."""
        return self._by_type.get(type_)

    @property
    def run_start(self) -> dict[str, Any]:
        start = self.first("run_start")
        assert start is not None  # read_run refuses a trace without it
        return start

    @property
    def config(self) -> dict[str, Any]:
        """``config`` of the run (``run_start``'s, which ``run.json`` repeats; silo-format §6.4–6.5)."""
        config: dict[str, Any] = self.run_start["config"]
        return config

    @property
    def run_id(self) -> str:
        return str(self.run_start["runId"])

    @property
    def environment(self) -> str:
        return str(self.run_start["environment"])

    @property
    def task(self) -> dict[str, Any]:
        task: dict[str, Any] = self.run_start["task"]
        return task

    @property
    def task_id(self) -> str:
        return str(self.task["id"])

    def calls(self) -> list[RecordedCall]:
        """Every executed call in ``callId`` order, each with its result when recorded."""
        calls: list[RecordedCall] = []
        results: dict[int, dict[str, Any]] = {}
        for event in self.events:
            kind = event.get("type")
            if kind == "tool_call":
                calls.append(RecordedCall(event["callId"], event.get("tool"), event.get("input"), None))
            elif kind == "tool_result":
                results[event["callId"]] = event
        return [RecordedCall(c.call_id, c.tool, c.input, results.get(c.call_id)) for c in calls]


def _shown(value: Any) -> str:
    text = dumps_compact(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + f"… ({len(text)} characters)"


def _unreadable(run_dir: Path, name: str, exc: OSError) -> SiloError:
    return run_error(run_dir, f"{name} cannot be read ({exc.strerror or exc}).")


def _read_file(run_dir: Path, name: str, model: type[SiloFile]) -> tuple[bytes | None, Any]:
    """A file's bytes and its parsed value, checked against ``model``; ``(None, None)`` when the
    file is absent."""
    try:
        data = read_run_file(run_dir / name)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        raise _unreadable(run_dir, name, exc) from None
    try:
        value = loads_strict(data)
    except ValueError as exc:
        raise run_error(run_dir, invalid_json(name, exc).message) from None
    problem = model.first_problem(value)
    if problem is not None:
        raise run_error(run_dir, f"{name} is not a valid {model.FILE}: {problem[0]}: {problem[1]}.")
    return data, value


def _check_trace(run_dir: Path, events: list[dict[str, Any]]) -> None:
    """Each event against its type's format, and the order of silo-format §6.5."""

    def bad(number: int, kind: str, name: str, problem: str) -> SiloError:
        return run_error(run_dir, f"{TRACE_FILE} line {number} ({kind}): {name}: {problem}.")

    calls = 0
    waiting: set[int] = set()  # calls traced without their result yet
    once: dict[str, int] = {}  # the line of the agent_output, run_end, verifier_result
    for number, event in enumerate(events, 1):
        kind = event.get("type")
        model = TRACE_EVENTS.get(kind) if isinstance(kind, str) else None
        if model is None:
            problem = (f"Input should be {_ACCEPTED_TYPES} (got {_shown(kind)})" if "type" in event
                       else "Field required")
            raise run_error(run_dir, f"{TRACE_FILE} line {number}: type: {problem}.")
        assert isinstance(kind, str)
        found = model.first_problem(event)
        if found is not None:
            raise bad(number, kind, *found)
        if kind == "run_start" and number != 1:
            raise bad(number, kind, "type", "a run_start may be only line 1 of the trace")
        if "run_end" in once and kind != "verifier_result":
            raise bad(number, kind, "type", f"only a verifier_result may follow the run_end of line {once['run_end']}")
        if kind in ("agent_output", "run_end", "verifier_result"):
            if kind in once:
                raise bad(number, kind, "type", f"a trace holds one {kind}, and line {once[kind]} has it")
            if kind == "verifier_result" and "run_end" not in once:
                raise bad(number, kind, "type", "a verifier_result follows the run_end, and none came before it")
            once[kind] = number
        elif kind == "tool_call":
            calls += 1
            if event["callId"] != calls:
                raise bad(number, kind, "callId", "the calls are numbered 1, 2, 3, ... in trace order, so this one "
                                                  f"must be {calls} (got {event['callId']})")
            waiting.add(calls)
        elif kind == "tool_result":
            if event["callId"] not in waiting:
                raise bad(number, kind, "callId",
                          f"no tool_call with callId {event['callId']} is waiting for its result")
            waiting.discard(event["callId"])


_ABSENT: Any = object()


def _difference(mine: Any, theirs: Any, path: str) -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: ``(path, mine, theirs)`` (``_ABSENT`` for a
    missing key; key order does not count), or None."""
    if mine is _ABSENT or theirs is _ABSENT:
        return (path, mine, theirs) if mine is not theirs else None
    if canonical(mine) == canonical(theirs):
        return None
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in [*mine, *(k for k in theirs if k not in mine)]:
            found = _difference(mine.get(key, _ABSENT), theirs.get(key, _ABSENT), f"{path}.{key}")
            if found is not None:
                return found
        return None  # the same keys and values in another order
    return path, mine, theirs


def _either(value: Any) -> str:
    return "no such key" if value is _ABSENT else _shown(value)


def _line(record: RunRecord, event: dict[str, Any] | None) -> int:
    return next(number for number, e in enumerate(record.events, 1) if e is event)


def _check_agreement(record: RunRecord) -> None:
    """``run.json`` against the trace, ``result.json``'s answer against ``agent_output``."""
    start, run, end = record.run_start, record.run, record.first("run_end")
    if run is not None:
        task = start["task"]
        pairs: list[tuple[str, Any, Any, str, str]] = [
            ("runId", run["runId"], start["runId"], "runId", "run_start"),
            ("environment", run["environment"], start["environment"], "environment", "run_start"),
            ("taskId", run["taskId"], task["id"], "task.id", "run_start"),
            ("verifierId", run["verifierId"], task["verifierId"], "task.verifierId", "run_start"),
            ("task", run["task"], task, "task", "run_start"),
            ("config", run["config"], start["config"], "config", "run_start"),
        ]
        if end is not None:
            pairs += [("terminationReason", run["terminationReason"], end["terminationReason"], "terminationReason",
                       "run_end"),
                      ("toolCallCount", run["toolCallCount"], end["toolCalls"], "toolCalls", "run_end")]
        for name, mine, theirs, their_name, kind in pairs:
            found = _difference(mine, theirs, name)
            if found is None:
                continue
            where, a, b = found
            their_where = their_name + where[len(name):]
            line = _line(record, start if kind == "run_start" else end)
            raise run_error(record.run_dir, (
                f"{RUN_FILE} and {TRACE_FILE} disagree on {where}: {RUN_FILE} has {_either(a)}, {TRACE_FILE} "
                f"line {line} ({kind}) has {_either(b)}" + (f" as {their_where}" if their_where != where else "")
                + "; one of them was edited or comes from another run, so the run is not replayed, regraded "
                  "or shown."))
    answer = record.first("agent_output")
    if record.result is not None and answer is not None:
        recorded = record.result["agentOutput"]
        if text_form(recorded) != answer["output"]:
            line = _line(record, answer)
            raise run_error(record.run_dir, (
                f"{RESULT_FILE} and {TRACE_FILE} disagree on the answer: {RESULT_FILE} has agentOutput "
                f"{_shown(recorded)}, but the agent_output of {TRACE_FILE} line {line} is {_shown(answer['output'])} "
                "(the text form of agentOutput, silo-format §5.4); one of them was edited."))


def read_run(run_dir: str | os.PathLike[str]) -> RunRecord:
    """Read and check a run directory (see the module docstring); the trace through
    :func:`silo_gym.trace.read_trace`, so a torn last line is kept as :attr:`RunRecord.torn`
    instead of failing.

    Raises:
        SiloError: ``run_invalid`` when ``run_dir`` is not a directory, has no ``trace.jsonl``,
            or any check fails; the message names the file, the trace line and the field.
    """
    path = Path(run_dir)
    if not os.path.isdir(path):
        raise run_error(path, "not a run directory (it does not exist or is not a directory).")
    try:
        trace = read_trace(path / TRACE_FILE)
    except FileNotFoundError:
        raise run_error(path, f"no {TRACE_FILE}; a run directory holds trace.jsonl, result.json, "
                              "state-diff.json and run.json (silo-format §6.1).") from None
    except TraceCorrupt as exc:
        raise run_error(path, f"{TRACE_FILE}: line {exc.line} is not a JSON object; the trace is damaged "
                              f"({exc.reason}).") from None
    except OSError as exc:
        raise _unreadable(path, TRACE_FILE, exc) from None
    events = trace.events
    torn = f"{TRACE_FILE}: {trace.torn}" if trace.torn is not None else None
    if not events or events[0].get("type") != "run_start":
        raise run_error(path, f"{TRACE_FILE} does not start with a run_start event.")
    _check_trace(path, events)
    _, run = _read_file(path, RUN_FILE, RunFile)
    result_bytes, result = _read_file(path, RESULT_FILE, RunResultFile)
    state_diff_bytes, state_diff = _read_file(path, STATE_DIFF_FILE, StateDiff)
    record = RunRecord(
        run_dir=path,
        run=run,
        events=events,
        torn=torn,
        result_bytes=result_bytes,
        state_diff_bytes=state_diff_bytes,
        result=result,
        state_diff=state_diff,
    )
    _check_agreement(record)
    return record
