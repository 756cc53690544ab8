"""What the run viewer shows, built from run directories (silo-format §6) and their replays.

Everything here is plain data for the templates: the index rows, the per-task reward summary,
and per run its timeline, checks and state diff. The state diff on disk names changed records by
id only (silo-format §8); the before and after of each record come from replaying the run
(:class:`silo_gym.replay.Replayer`), which also proves the replayed world is the recorded one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..diff import key_by_id
from ..errors import SiloError
from ..jsonfmt import canonical, dumps_compact, dumps_pretty, format_number
from ..replay import Replayer
from ..rounding import to_fixed
from ..runs.rundir import RunRecord, read_run

__all__ = ["CallItem", "CollectionChange", "RecordChange", "RunView", "TaskSummary", "load_run", "summarize"]

_SAFE_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,120}")
_SHORT = 160  # characters of a value shown unfolded
_NONE: Any = object()


def _pretty(value: Any) -> str:
    return dumps_pretty(value).rstrip("\n")


def _short(value: Any) -> str:
    """A one-line preview: a string as it is, anything else as compact JSON."""
    text = value if isinstance(value, str) else dumps_compact(value)
    return text if len(text) <= _SHORT else text[:_SHORT] + "…"


def _value(value: Any) -> str:
    """A state value in a diff, as compact JSON (so ``"null"`` and ``null`` differ)."""
    text = dumps_compact(value)
    return text if len(text) <= _SHORT else text[:_SHORT] + "…"


_INDEX_TEXT = 120  # characters of a title or an id an index row shows


def _cut(text: str, limit: int = _INDEX_TEXT) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def slug_for(run_dir: Path) -> str:
    """The page name of a run: its directory name when safe for a file name, else a hash."""
    name = run_dir.name
    if _SAFE_SLUG.fullmatch(name):
        return name
    return "run-" + hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]


@dataclass
class CallItem:
    """One timeline entry: a tool call with its result, a model turn, the answer or the end."""

    kind: str  # "call" | "model" | "answer" | "end"
    title: str
    offset_ms: int | None = None
    is_error: bool = False
    blocks: list[tuple[str, str]] = field(default_factory=list)  # (label, pretty text), folded
    facts: list[str] = field(default_factory=list)  # short unfolded facts


@dataclass
class RecordChange:
    """One added, removed or changed record of a collection, with its before and after."""

    id: str
    kind: str  # "added" | "removed" | "changed"
    before: str | None = None  # pretty JSON, None when unknown or absent
    after: str | None = None
    fields: list[tuple[str, str, str]] = field(default_factory=list)  # (field, before, after)
    summary: str | None = None  # one short line: "11 → 12", or the added/removed record


@dataclass
class CollectionChange:
    key: str
    records: list[RecordChange]


@dataclass
class RunView:
    """One run as the viewer shows it."""

    slug: str
    run_dir: str
    run_id: str
    environment: str = ""
    task_id: str = ""
    title: str = ""
    instruction: str = ""
    config: list[tuple[str, str]] = field(default_factory=list)
    started_at: str = ""
    duration_ms: int | None = None
    result: dict[str, Any] | None = None
    termination: str = ""
    error: str | None = None
    tool_calls: int = 0
    tool_errors: int = 0
    answer: str | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    timeline: list[CallItem] = field(default_factory=list)
    scalars: list[tuple[str, str, str]] = field(default_factory=list)  # (field, from, to)
    collections: list[CollectionChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problem: str | None = None  # the run could not be read at all
    verifier_id: str = ""
    verifier_name: str = ""
    index_href: str = "../index.html"  # the index page that lists this run

    @property
    def index_title(self) -> str:
        """The title as the index shows it: at most :data:`_INDEX_TEXT` characters."""
        return _cut(self.title)

    @property
    def index_problem(self) -> str:
        """Why the run is unreadable, as the index shows it (the first characters)."""
        return _cut(self.problem or "", 4 * _INDEX_TEXT)

    @property
    def index_run_id(self) -> str:
        return _cut(self.run_id)

    @property
    def passed(self) -> bool | None:
        return self.result.get("passed") if self.result is not None else None

    @property
    def reward(self) -> float | None:
        value = self.result.get("reward") if self.result is not None else None
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def reward_text(self) -> str:
        return to_fixed(self.reward, 2) if self.reward is not None else "—"

    @property
    def duration_text(self) -> str:
        if self.duration_ms is None:
            return "—"
        return f"{self.duration_ms} ms" if self.duration_ms < 10_000 else f"{to_fixed(self.duration_ms / 1000, 1)} s"


def _when(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _timeline(record: RunRecord) -> list[CallItem]:
    start = _when(record.run_start.get("at"))
    results = {e.get("callId"): e for e in record.events if e.get("type") == "tool_result"}
    items: list[CallItem] = []

    def offset(event: dict[str, Any]) -> int | None:
        at = _when(event.get("at"))
        return round((at - start).total_seconds() * 1000) if at is not None and start is not None else None

    for event in record.events:
        kind = event.get("type")
        if kind == "tool_call":
            res = results.get(event.get("callId"))
            tool = event.get("tool")
            item = CallItem("call", f"#{event.get('callId')} {tool if isinstance(tool, str) else _short(tool)}",
                            offset(event))
            item.facts.append(f"input: {_short(event.get('input'))}")  # shown as the output is
            item.blocks.append(("input", _pretty(event.get("input"))))
            if res is None:
                item.facts.append("no result recorded")
            else:
                item.is_error = bool(res.get("isError"))
                item.facts.append(f"{res.get('durationMs')} ms")
                item.facts.append(f"output: {_short(res.get('output'))}")
                item.blocks.append(("output", _pretty(res.get("output"))))
            items.append(item)
        elif kind == "model_step":
            who = " · ".join(str(x) for x in (event.get("api"), event.get("model")) if x)
            item = CallItem("model", f"model turn ({who})" if who else "model turn", offset(event))
            latency = event.get("latencyMs")
            if isinstance(latency, (int, float)) and not isinstance(latency, bool):
                item.facts.append(f"{format_number(round(latency, 1))} ms")  # 200.9 ms, not 200.94734999997854
            if event.get("usage") is not None:
                item.facts.append(f"usage: {_short(event.get('usage'))}")
            item.facts.append(f"reply: {_short(event.get('reply'))}")
            item.blocks.append(("messages", _pretty(event.get("messages"))))
            item.blocks.append(("reply", _pretty(event.get("reply"))))
            items.append(item)
        elif kind == "agent_output":
            text = event.get("output")
            item = CallItem("answer", "answer", offset(event))
            item.facts.append(_short(text if isinstance(text, str) else dumps_compact(text)))
            item.blocks.append(("answer", text if isinstance(text, str) else _pretty(text)))
            items.append(item)
        elif kind == "run_end":
            item = CallItem("end", f"end: {event.get('terminationReason')}", offset(event))
            if event.get("error") is not None:
                item.is_error = True
                item.facts.append(f"error: {_short(event.get('error'))}")
            item.facts.append(f"{event.get('toolCalls')} calls, {event.get('toolErrors')} errors, "
                              f"{event.get('durationMs')} ms")
            if isinstance(event.get("traceback"), str):
                item.blocks.append(("traceback", event["traceback"]))
            items.append(item)
    return items


def _field_changes(before: Any, after: Any) -> list[tuple[str, str, str]]:
    if not isinstance(before, dict) or not isinstance(after, dict):
        return []
    keys = list(after) + [k for k in before if k not in after]
    absent = "(absent)"
    return [(str(k), _value(before[k]) if k in before else absent, _value(after[k]) if k in after else absent)
            for k in keys if k not in before or k not in after or canonical(before[k]) != canonical(after[k])]


def _as_map(value: Any) -> dict[Any, Any]:
    if isinstance(value, list):
        return key_by_id(value)
    return value if isinstance(value, dict) else {}


def _collections(diff: dict[str, Any], initial: Any, final: Any) -> list[CollectionChange]:
    known = isinstance(initial, dict) and isinstance(final, dict)
    out: list[CollectionChange] = []
    collections = diff.get("collections")
    for key, entry in (collections.items() if isinstance(collections, dict) else ()):
        if not isinstance(entry, dict):
            continue
        before_map = _as_map(initial.get(key)) if known else {}
        after_map = _as_map(final.get(key)) if known else {}
        records: list[RecordChange] = []
        for kind in ("changed", "added", "removed"):
            for rid in entry.get(kind) or []:
                change = RecordChange(str(rid), kind)
                if known:
                    old, new = before_map.get(rid, _NONE), after_map.get(rid, _NONE)
                    if kind != "added" and old is not _NONE:
                        change.before = _pretty(old)
                    if kind != "removed" and new is not _NONE:
                        change.after = _pretty(new)
                    if kind == "changed":
                        change.fields = _field_changes(old, new)
                        if not change.fields and old is not _NONE and new is not _NONE:
                            change.summary = f"{_value(old)} → {_value(new)}"
                    elif kind == "added" and new is not _NONE:
                        change.summary = _value(new)
                    elif kind == "removed" and old is not _NONE:
                        change.summary = _value(old)
                records.append(change)
        out.append(CollectionChange(str(key), records))
    return out


def _scalars(diff: dict[str, Any]) -> list[tuple[str, str, str]]:
    rows = []
    for entry in diff.get("scalars") or []:
        if isinstance(entry, dict):
            rows.append((str(entry.get("field")), _value(entry["from"]) if "from" in entry else "(absent)",
                         _value(entry.get("to"))))
    return rows


def _config_rows(config: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(k), v if isinstance(v, str) else dumps_compact(v)) for k, v in config.items()]


def load_run(run_dir: Path, replayer: Replayer | None) -> RunView:
    """Everything the viewer shows of one run; a run that cannot be read or breaks its format
    (:func:`silo_gym.rundir.read_run` says why) becomes a view with ``problem`` set, so one bad
    run never stops the report. ``replayer`` (None: no replay) supplies the before and after of
    records."""
    view = RunView(slug_for(run_dir), str(run_dir), run_dir.name)
    try:
        record = read_run(run_dir)
    except SiloError as exc:
        view.problem = exc.message
        return view
    except (OSError, ValueError, RecursionError) as exc:  # read_run names these; a row, whatever slips by
        view.problem = f"{run_dir}: cannot be read ({type(exc).__name__}: {exc})"
        return view
    try:
        _fill(view, record, replayer)
    except Exception as exc:  # a hand-edited or foreign file: one bad run never stops the report
        return RunView(view.slug, view.run_dir, run_dir.name,
                       problem=f"{run_dir}: unexpected content ({type(exc).__name__}: {exc})")
    return view


def _fill(view: RunView, record: RunRecord, replayer: Replayer | None) -> None:
    run = record.run or {}
    task = record.task
    view.run_id = record.run_id
    view.environment = record.environment
    view.task_id = record.task_id
    view.title = str(task.get("title") or "")
    view.verifier_id = str(run.get("verifierId") or task.get("verifierId") or "")
    name = run.get("verifierName")
    view.verifier_name = name if isinstance(name, str) else ""
    view.instruction = str(task.get("instruction") or "")
    view.config = _config_rows(record.config)
    view.started_at = str(run.get("startedAt") or record.run_start.get("at") or "")
    run_end = record.first("run_end") or {}
    duration = run.get("durationMs", run_end.get("durationMs"))
    view.duration_ms = duration if isinstance(duration, int) and not isinstance(duration, bool) else None
    view.result = record.result
    view.termination = str(run.get("terminationReason") or run_end.get("terminationReason") or "not ended")
    error = run_end.get("error")
    view.error = error if isinstance(error, str) else None
    view.tool_calls = int(run_end.get("toolCalls") or len(record.calls()))
    view.tool_errors = int(run_end.get("toolErrors") or 0)
    answer = record.first("agent_output")
    view.answer = answer.get("output") if answer is not None and isinstance(answer.get("output"), str) else None
    if view.result is not None:
        view.checks = [c for c in view.result.get("checks") or [] if isinstance(c, dict)]
    else:
        graded = record.first("verifier_result")
        view.checks = [c for c in (graded or {}).get("checks") or [] if isinstance(c, dict)]
        view.notes.append("No result.json: grading failed or the run did not end, so there is no reward.")
    if record.torn is not None:
        view.notes.append(record.torn)
    view.timeline = _timeline(record)
    diff = record.state_diff
    if diff is None:
        view.notes.append("No state-diff.json: the run ended ungraded (a tool call was still running)."
                          if record.run is not None and record.first("run_end") is not None
                          else "No state-diff.json: the run did not end.")
        return
    view.scalars = _scalars(diff)
    initial = final = None
    if diff.get("collections") and replayer is not None:
        initial, final = _replayed_worlds(record, replayer, view)
    elif diff.get("collections"):
        view.notes.append("Before/after of changed records are not shown (replay is off).")
    view.collections = _collections(diff, initial, final)


def _replayed_worlds(record: RunRecord, replayer: Replayer, view: RunView) -> tuple[Any, Any]:
    """The replayed initial and final worlds, or (None, None) with a note saying why not."""
    try:
        report = replayer.replay(record.run_dir, keep_worlds=True)
    except Exception as exc:  # any failure to replay only costs the before/after
        message = exc.message if isinstance(exc, SiloError) else f"{type(exc).__name__}: {exc}"
        view.notes.append(f"Before/after of changed records are not shown: the run could not be replayed ({message})")
        return None, None
    world = report.world_divergence
    if report.problem is not None or world is not None:
        why = report.problem if report.problem is not None else f"the replay diverges at {world}"
        view.notes.append(f"Before/after of changed records are not shown: {why}")
        return None, None
    return report.initial_state, report.final_state


@dataclass
class TaskSummary:
    """The reward summary of one task over the runs shown (the index chart)."""

    environment: str
    task_id: str
    title: str
    runs: int
    graded: int
    passed: int
    mean: float | None
    low: float | None
    high: float | None

    @property
    def label(self) -> str:
        return f"{self.environment} / {self.task_id}"


def summarize(views: list[RunView]) -> list[TaskSummary]:
    """Per (environment, task): run count, graded runs, passes, mean/min/max reward; by task."""
    groups: dict[tuple[str, str], list[RunView]] = {}
    for view in views:
        if view.problem is None:
            groups.setdefault((view.environment, view.task_id), []).append(view)
    out = []
    for (environment, task_id), members in sorted(groups.items()):
        rewards = [v.reward for v in members if v.reward is not None]
        out.append(TaskSummary(
            environment, task_id, members[0].title, len(members), len(rewards),
            sum(1 for v in members if v.passed is True),
            sum(rewards) / len(rewards) if rewards else None,
            min(rewards) if rewards else None, max(rewards) if rewards else None))
    return out
