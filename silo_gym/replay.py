"""Replay and regrade a recorded run (issue 15): a run proves itself.

``replay_run`` re-executes the trace's tool calls and the answer on a fresh world of the same
environment, task and variant, and compares what it gets with what was recorded: each call's
output, then ``result.json`` and ``state-diff.json`` byte for byte (silo-format §1.2 invariant 7:
the same behaviour on the same environment gives the same bytes). ``regrade_run`` grades the
replayed final world with today's verifier and writes the new ``result.json`` beside a summary of
the checks that changed.

Runs of every driver replay: the Gymnasium ``step`` path (whose trace holds an invalid action as
received) and the runner's ``call_tool`` path (which traces the name and the input it was given),
unknown tools, invalid actions, and every ending (an answer, a budget or deadline refusal,
``abort``, an agent error, an agent that never returned). The ending is taken from ``run_end``
and the raw answer from ``result.json`` (the trace's text form when grading had failed), and
passed to the env's ``finish``, which fixes the termination reason, grades and diffs exactly as
the recording episode did. Wall-clock limits are not re-enacted: they only decided which calls
were refused, and refused calls are not in the trace (silo-format §5.2).

Before replaying, the run directory is read and checked (:func:`silo_gym.rundir.read_run`: every
file against its format, ``run.json`` against the trace), and the environment against
``config.environmentHash`` of the run; a mismatch (its data, tasks or tool schemas changed)
refuses the replay unless ``force``. ``regrade`` writes only into a directory that holds no
recorded files, and never through a link inside the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .env import SiloEnv
from .episode import ACCEPTED_SHAPES, ParsedAction, parse_action, recorded_not_plain_reason
from .errors import SiloError, VerifierError
from .jsonfmt import canonical, dumps_compact, dumps_pretty_bytes, loads_strict
from .plain_json import describe_path
from .runs.files import read_run_file
from .runs.rundir import RESULT_FILE, RUN_ARTIFACTS, RecordedCall, RunRecord, read_run, run_error
from .snapshot import restore_state, snapshot_state
from .validation import type_name
from .wrappers.record import write_atomic

__all__ = [
    "CheckChange",
    "Divergence",
    "RegradeReport",
    "ReplayReport",
    "Replayer",
    "regrade_out_dir",
    "regrade_run",
    "replay_run",
]

REGRADE_FILE = "regrade.json"

#: Replays run without a deadline: the recorded calls all ran before it (§5.2).
_NO_DEADLINE_MS = 10**12
_SHOWN = 300  # characters of a value shown in a divergence
_BEFORE = 60  # of those, characters shown before the first difference


def first_difference(a: str, b: str) -> int | None:
    """The index of the first character where ``a`` and ``b`` differ (the length of the shorter
    one when it is a prefix of the other), or ``None`` when they are equal."""
    if a == b:
        return None
    n = min(len(a), len(b))
    low, high = 0, n  # a[:low] == b[:low]; the answer lies in [low, high]
    while low < high:  # halving on slices: fast for the long lines of a state diff
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _window(text: str, at: int | None) -> str:
    """``text`` shortened to :data:`_SHOWN` characters around index ``at`` (the first difference),
    with ``…`` where something was cut and the length when it was."""
    if len(text) <= _SHOWN:
        return text
    start = 0 if at is None or at < _SHOWN - _BEFORE else at - _BEFORE
    end = min(len(text), start + _SHOWN)
    head = "…" if start else ""
    tail = "…" if end < len(text) else ""
    return f"{head}{text[start:end]}{tail} ({len(text)} characters)"


@dataclass(frozen=True)
class Divergence:
    """The first place where the replay differs from the recording.

    ``where`` is ``"call <n> (<tool>)"`` or a file name; ``recorded`` and ``replayed`` are the
    two values there (compact JSON for a call's output, the differing line for a file).
    """

    where: str
    what: str
    recorded: str
    replayed: str

    def __str__(self) -> str:
        at = first_difference(self.recorded, self.replayed)
        cut = len(self.recorded) > _SHOWN or len(self.replayed) > _SHOWN
        where = f" (first difference at character {at + 1})" if at is not None and cut else ""
        return (f"{self.where}: {self.what}{where}\n"
                f"  recorded: {_window(self.recorded, at)}\n"
                f"  replayed: {_window(self.replayed, at)}")


@dataclass
class ReplayReport:
    """What a replay found.

    Attributes:
        identical: every call's output and both episode files are identical (the proof).
        call_divergence: the first call whose output differs, or None.
        file_divergences: the first differing line of ``result.json`` and of ``state-diff.json``.
        problem: why nothing could be proved (the run never ended), or None.
        notes: things the reader should know (a torn last line, another silo_gym version, an
            environment hash overridden by ``force``, no hash recorded).
        calls: the number of calls replayed.
        result / state_diff: the replayed ``result.json`` dict (None when grading failed) and
            state diff; ``initial_state`` / ``final_state``: the replayed worlds (kept only when
            asked, for viewers).
    """

    record: RunRecord
    identical: bool = False
    call_divergence: Divergence | None = None
    file_divergences: list[Divergence] = field(default_factory=list)
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    calls: int = 0
    result: dict[str, Any] | None = None
    state_diff: dict[str, Any] | None = None
    grading_error: str | None = None
    initial_state: Any = None
    final_state: Any = None

    @property
    def divergence(self) -> Divergence | None:
        """The first difference: a call's output, else ``result.json``, else ``state-diff.json``."""
        if self.call_divergence is not None:
            return self.call_divergence
        return self.file_divergences[0] if self.file_divergences else None

    @property
    def world_divergence(self) -> Divergence | None:
        """The first difference in the world itself: a call's output or the state diff (a
        changed verifier moves only ``result.json``)."""
        if self.call_divergence is not None:
            return self.call_divergence
        return next((d for d in self.file_divergences if d.where == "state-diff.json"), None)

    def summary(self) -> str:
        """The text ``silo-gym replay`` prints."""
        rec = self.record
        head = f"Run {rec.run_id} ({rec.environment} / {rec.task_id})"
        lines = [f"note: {note}" for note in self.notes]
        if self.problem is not None:
            lines.append(f"{head}: not replayed: {self.problem}")
        elif self.identical:
            lines.append(f"{head}: replayed {self.calls} tool call{'s' if self.calls != 1 else ''} and the "
                         "ending; result.json and state-diff.json are byte-identical.")
        else:
            lines.append(f"{head}: the replay diverges.")
            if self.divergence is not None:
                lines.append(f"First divergence at {self.divergence}")
        return "\n".join(lines) + "\n"


# -- the calls ---------------------------------------------------------------------------------


def _runner_reason(call: RecordedCall, message: str) -> str | None:
    """The reason the runner's ``call_tool`` gave an invalid call (silo-format §5.2 via
    gym-api.md's shape rules), when the recorded message is one of its two; it traces the name
    and the input it was given, not a whole action."""
    if call.tool is None:
        prefix = '"tool" must be a string, received '
        reason = message[: -len(ACCEPTED_SHAPES) - 1] if message.endswith(ACCEPTED_SHAPES) else ""
        return reason if reason.startswith(prefix) else None
    if call.input is not None and not isinstance(call.input, dict):
        return f'"input" must be an object or null, received {type_name(call.input)}.'
    return None


_MISSING: Any = object()


def _holds_refused_value(call: RecordedCall, reason: str) -> bool:
    """Whether the traced input still has a value at the place rule 8's ``reason`` names
    (``"<path>" must be plain JSON data, received <what>.``), written as §7.3 writes what was
    refused: ``null`` for ``NaN`` and the infinities. Paths are compared as the refusal wrote
    them (:func:`~silo_gym.plain_json.describe_path`), so any member name matches."""
    path_text = reason[1:reason.find('"', 1)]
    what = reason.partition(" received ")[2]
    action = call.input
    # Rule 8 names a place in the input; an answer's refusal one in the answer (our rule).
    top = "answer" if path_text.startswith("answer") else "input"
    if top == "answer":
        root = action.get("answer") if isinstance(action, dict) and "answer" in action else _MISSING
    else:
        root = action.get("input") if isinstance(action, dict) and "tool" in action else action
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), root)] if root is not _MISSING else []
    while stack:
        path, value = stack.pop()
        if describe_path(path, top) == path_text and (value is None or not what.startswith(("NaN", "Infinity", "-Infinity"))):
            return True
        if isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
    return False


def replayed_action(call: RecordedCall) -> ParsedAction:
    """The action a recorded call stands for, as the episode executes it.

    A valid call is ``(tool, input)``. An invalid action is re-checked from what the trace holds:
    the action as received (Gymnasium path), or the runner's name and input; the recorded
    message tells the two apart.
    """
    recorded = call.result.get("output") if call.result is not None else None
    invalid = isinstance(recorded, dict) and recorded.get("code") == "invalid_action"
    if not invalid and isinstance(call.tool, str) and (call.input is None or isinstance(call.input, dict)):
        return ParsedAction("tool", tool=call.tool, input=call.input, traced_tool=call.tool, traced_input=call.input)
    message = str(recorded.get("message")) if isinstance(recorded, dict) else ""
    as_step = parse_action(call.input)
    if as_step.kind == "invalid" and f"{as_step.reason} {ACCEPTED_SHAPES}" == message:
        return as_step
    not_plain = recorded_not_plain_reason(message)
    if not_plain is not None and _holds_refused_value(call, not_plain):
        # An input that was not plain JSON: the trace wrote it by §7.3, so it cannot be derived
        # again, but the place the refusal names must still be there (an edit is not believed).
        return ParsedAction("invalid", reason=not_plain, traced_tool=call.tool, traced_input=call.input)
    reason = _runner_reason(call, message)
    if reason is not None:
        return ParsedAction("invalid", reason=reason, traced_tool=call.tool, traced_input=call.input)
    if as_step.kind == "invalid":
        return as_step
    # A well-formed action the recording answered as invalid: run it, and let it diverge.
    return ParsedAction("tool", tool=as_step.tool, input=as_step.input, traced_tool=call.tool,
                        traced_input=call.input)


def _call_divergence(call: RecordedCall, result: dict[str, Any]) -> Divergence | None:
    where = f"call {call.call_id} ({call.tool if isinstance(call.tool, str) else dumps_compact(call.tool)})"
    recorded = call.result
    if recorded is None:
        return Divergence(where, "the trace has no tool_result for it", "(none)", dumps_compact(result["output"]))
    got_error = "isError" in result
    if bool(recorded.get("isError")) != got_error:
        return Divergence(where, "isError differs", str(bool(recorded.get("isError"))).lower(),
                          str(got_error).lower())
    want, got = canonical(recorded.get("output")), canonical(result["output"])
    if want != got:
        return Divergence(where, "the output differs", want.decode("utf-8"), got.decode("utf-8"))
    return None


def _file_divergence(name: str, recorded: bytes | None, replayed: bytes | None) -> Divergence | None:
    if recorded == replayed:
        return None
    if recorded is None or replayed is None:
        return Divergence(name, "present in one run only", "(absent)" if recorded is None else "(present)",
                          "(absent)" if replayed is None else "(present)")
    old, new = recorded.decode("utf-8", "replace").split("\n"), replayed.decode("utf-8", "replace").split("\n")
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return Divergence(name, f"line {number} differs", a.strip(), b.strip())
    return Divergence(name, f"{len(old)} lines recorded, {len(new)} replayed", "", "")


# -- the environment -----------------------------------------------------------------------------


def _check_environment(env: SiloEnv, current: str, record: RunRecord, force: bool, report: ReplayReport) -> None:
    """Compare the environment (whose hash is ``current``) with the run's provenance
    (``config.environmentHash`` and ``config.siloGymVersion``); a hash mismatch refuses the
    replay unless ``force``."""
    from . import __version__

    config = record.config
    recorded_version = config.get("siloGymVersion")
    if recorded_version is not None and recorded_version != __version__:
        report.notes.append(f"the run was recorded with silo_gym {recorded_version}; this is {__version__}.")
    recorded_hash = config.get("environmentHash")
    if recorded_hash is None:
        report.notes.append("run.json records no environmentHash, so the environment's data, tasks and tool "
                            "schemas cannot be checked against the recording; replaying anyway.")
        return
    if current == recorded_hash:
        return
    message = (f'environment hash mismatch: run {record.run_id} was recorded on environment "{record.environment}" '
               f"with environmentHash {recorded_hash}, but {env.silo_env.path} now hashes to {current} (its "
               "data, tasks or tool schemas changed since).")
    if not force:
        raise SiloError("environment_changed", f"{message} Pass --force to replay anyway and see where it "
                                               "diverges.",
                        {"runDir": str(record.run_dir), "recorded": recorded_hash, "current": current})
    report.notes.append(f"{message} Replaying anyway (--force).")


#: Replays never hit the budget either: limits are not re-enacted (see the module docstring).
_NO_BUDGET = 10**9


def _answer(record: RunRecord) -> Any:
    """The raw answer: ``agentOutput`` of ``result.json``; the trace's text form when grading
    had failed (verifiers only ever see the text form, silo-format §5.4)."""
    result = record.result
    if result is not None:
        return result.get("agentOutput")
    out = record.first("agent_output")
    text = out.get("output") if out is not None else None
    return text if isinstance(text, str) and text != "" else None


# -- replay --------------------------------------------------------------------------------------


class Replayer:
    """Replays runs, keeping one env per (environment, task) so many runs replay fast (the
    viewer replays every run it shows). ``cwd`` is the project root environments are found from."""

    def __init__(self, cwd: str | os.PathLike[str] | None = None) -> None:
        self.cwd = cwd
        self._envs: dict[tuple[str, str], SiloEnv] = {}

    def env_for(self, record: RunRecord) -> SiloEnv:
        """The env for the run's environment and task, opened once per replayer (so is its
        content hash, ``SiloEnv.environment_hash()``)."""
        key = (record.environment, record.task_id)
        env = self._envs.get(key)
        if env is None:
            env = self._envs[key] = SiloEnv(record.environment, record.task_id, max_tool_calls=_NO_BUDGET,
                                            timeout_ms=_NO_DEADLINE_MS, cwd=self.cwd)
        return env

    def replay(self, run_dir: str | os.PathLike[str], *, force: bool = False,
               keep_worlds: bool = False) -> ReplayReport:
        """See :func:`replay_run`; ``keep_worlds`` keeps the initial and final states in the report."""
        record = read_run(run_dir)
        report = ReplayReport(record)
        if record.torn is not None:
            report.notes.append(record.torn)
        run_end = record.first("run_end")
        if run_end is None:
            report.problem = ("the trace has no run_end: the run never ended (it crashed or is still running), "
                              "so there is no ending to replay and no result to prove.")
            return report
        if record.state_diff_bytes is None and record.run is not None:
            report.problem = ("the run ended ungraded (it has run.json but no state-diff.json: a tool call was still "
                              "running when it ended, silo-format §5.3), so there is no result to prove.")
            return report
        env = self.env_for(record)
        _check_environment(env, env.environment_hash(), record, force, report)
        _replay(env, record, run_end, report, keep_worlds)
        return report

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
        self._envs.clear()


def replay_run(run_dir: str | os.PathLike[str], *, force: bool = False,
               cwd: str | os.PathLike[str] | None = None) -> ReplayReport:
    """Re-execute a run on a fresh world and compare (see the module docstring).

    The environment is found by the run's name like ``silo-gym run`` does (``cwd`` is the
    project root). A run whose trace has no ``run_end`` (it never ended; a torn last line is
    reported in ``notes``) is not replayed: :attr:`ReplayReport.problem` says why.

    Raises:
        SiloError: ``run_invalid`` for a directory that is not a readable run (silo-format §6);
            ``environment_changed`` when the environment's hash differs from the recorded one and
            ``force`` is off; the setup errors of silo-format §5.1 (environment, task, verifier).
    """
    replayer = Replayer(cwd)
    try:
        return replayer.replay(run_dir, force=force)
    finally:
        replayer.close()


def _replay(env: SiloEnv, record: RunRecord, run_end: dict[str, Any], report: ReplayReport,
            keep_worlds: bool) -> None:
    variant = record.config.get("variant")
    env.reset(options={"variant": variant} if variant is not None else None)
    episode = env.episode
    assert episode is not None
    initial = snapshot_state(episode.state) if keep_worlds else None
    for call in record.calls():
        result = episode.run_call(replayed_action(call))[0]
        report.calls += 1
        if report.call_divergence is None:
            report.call_divergence = _call_divergence(call, result)
    reason = run_end.get("terminationReason")
    error = run_end.get("error")
    try:
        *_, info = env.finish(_answer(record), error=error if isinstance(error, str) else None,
                              reason=reason if isinstance(reason, str) else None)
        report.result, report.state_diff = info["result"], info["state_diff"]
    except VerifierError as exc:
        report.grading_error = exc.message
        end = episode.end
        report.state_diff = end.state_diff if end is not None else None
    if initial is not None:
        report.initial_state = restore_state(initial)
        report.final_state = episode.state
    replayed_result = dumps_pretty_bytes(report.result) if report.result is not None else None
    replayed_diff = dumps_pretty_bytes(report.state_diff) if report.state_diff is not None else None
    for name, recorded, replayed in (("result.json", record.result_bytes, replayed_result),
                                     ("state-diff.json", record.state_diff_bytes, replayed_diff)):
        found = _file_divergence(name, recorded, replayed)
        if found is not None:
            report.file_divergences.append(found)
    report.identical = report.divergence is None


# -- regrade -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckChange:
    """One check whose verdict, detail or requiredness changed (``None``: absent on that side)."""

    label: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "before": self.before, "after": self.after}


@dataclass
class RegradeReport:
    """What ``regrade_run`` wrote: the new ``result.json`` and the summary ``regrade.json``."""

    replay: ReplayReport
    result: dict[str, Any]
    changes: list[CheckChange]
    out_dir: Path
    summary: dict[str, Any]

    def text(self) -> str:
        """The text ``silo-gym regrade`` prints."""
        rec = self.replay.record
        before = rec.result
        lines = [f"note: {note}" for note in self.replay.notes]
        world = self.replay.world_divergence
        if world is not None:
            lines.append(f"warning: the replayed world differs from the recording: {world}")
        lines.append(f"Run {rec.run_id} ({rec.environment} / {rec.task_id}) regraded with today's verifier "
                     f"{rec.task.get('verifierId')}.")
        if before is not None:
            lines.append(f"Before: passed={dumps_compact(before.get('passed'))} reward={dumps_compact(before.get('reward'))}")
        else:
            lines.append("Before: no result.json (grading had failed)")
        lines.append(f"After:  passed={dumps_compact(self.result['passed'])} reward={dumps_compact(self.result['reward'])}")
        if not self.changes:
            lines.append("No check changed.")
        for change in self.changes:
            lines.append(f"Changed: {change.label}")
            for side, value in (("before", change.before), ("after", change.after)):
                if value is None:
                    lines.append(f"  {side}: (no such check)")
                else:
                    verdict = "pass" if value.get("passed") else "FAIL"
                    required = "required" if value.get("required") else "optional"
                    lines.append(f"  {side}: {verdict} ({required}) {value.get('detail') or ''}".rstrip())
        lines.append(f"Wrote {self.out_dir / 'result.json'} and {self.out_dir / 'regrade.json'}")
        return "\n".join(lines) + "\n"


def _check_key(check: dict[str, Any]) -> dict[str, Any]:
    return {"passed": check.get("passed"), "detail": check.get("detail"), "required": check.get("required")}


def changed_checks(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[CheckChange]:
    """Checks paired by label (the n-th check of a label with the n-th of the same label), in
    the new verifier's order, then those only the old one had."""
    def keyed(checks: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
        seen: dict[str, int] = {}
        out: dict[tuple[str, int], dict[str, Any]] = {}
        for check in checks:
            label = str(check.get("label"))
            out[(label, seen.get(label, 0))] = _check_key(check)
            seen[label] = seen.get(label, 0) + 1
        return out

    old, new = keyed(before), keyed(after)
    changes = [CheckChange(key[0], old.get(key), value) for key, value in new.items() if old.get(key) != value]
    changes += [CheckChange(key[0], value, None) for key, value in old.items() if key not in new]
    return changes


def _output_error(target: Path, problem: str) -> SiloError:
    return SiloError("output_invalid", f"--out {target} {problem}", {"out": str(target)})


def _earlier_regrade(directory: Path) -> bool:
    """Whether ``directory`` holds a ``regrade.json`` written by regrade (its ``result.json`` is
    then an earlier regrade's, not a recorded one)."""
    try:
        summary = loads_strict(read_run_file(directory / REGRADE_FILE))  # a FIFO there must not block
    except (OSError, ValueError):
        return False
    return isinstance(summary, dict) and "runId" in summary and "changedChecks" in summary


def regrade_out_dir(run_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None) -> Path:
    """Where :func:`regrade_run` writes: ``out_dir``, or ``<run_dir>/regrade``, once checked.

    Refused (``output_invalid``, nothing written): an empty path (it would silently mean the
    current directory); a path inside the run directory that is or passes through a symbolic
    link (regrade never follows a link out of the run, or back into its recorded files); a path
    that exists and is not a directory; a directory holding run artifacts (``trace.jsonl``,
    ``run.json``, ``state-diff.json``, or a ``result.json`` that is not an earlier regrade's):
    recorded files are never touched. An earlier regrade's directory is written over.

    Raises:
        SiloError: ``output_invalid`` as above, details ``{out}``.
    """
    if out_dir is not None and os.fspath(out_dir) == "":
        raise SiloError("output_invalid", 'The output directory is an empty path (""); give a directory, or leave '
                                          "--out out for the default RUN_DIR/regrade.", {"out": ""})
    run_abs = Path(os.path.abspath(run_dir))
    target = Path(out_dir) if out_dir is not None else Path(run_dir) / "regrade"
    target_abs = Path(os.path.abspath(target))
    if target_abs == run_abs or run_abs in target_abs.parents:
        probe = run_abs
        for part in target_abs.relative_to(run_abs).parts:
            probe = probe / part
            if os.path.islink(probe):
                what = "is a symbolic link" if probe == target_abs else f"passes through the symbolic link {probe}"
                raise _output_error(target, f"{what} (to {os.readlink(probe)}); inside the run directory regrade "
                                            "never follows a link, out of the run or back into its recorded files. "
                                            "Remove the link, or pass another --out.")
    if os.path.lexists(target) and not os.path.isdir(target):
        raise _output_error(target, "exists and is not a directory; give a directory (regrade writes result.json "
                                    "and regrade.json into it).")
    if os.path.isdir(target):
        try:
            names = set(os.listdir(target))
        except OSError as exc:
            raise _output_error(target, f"cannot be read ({exc.strerror or exc}).") from None
        earlier = _earlier_regrade(target)
        recorded = [n for n in RUN_ARTIFACTS if n in names and not (n == RESULT_FILE and earlier)]
        if recorded:
            raise _output_error(target, f"holds run artifacts ({', '.join(recorded)}): it is a run directory or "
                                        "holds a run's files, and recorded files are never touched. Give another "
                                        "--out (regrade writes result.json and regrade.json into it).")
        for name in (RESULT_FILE, REGRADE_FILE):
            if name in names and os.path.isdir(target / name) and not os.path.islink(target / name):
                raise _output_error(target, f"holds a directory named {name}, where regrade writes a file.")
    return target


def regrade_run(run_dir: str | os.PathLike[str], *, out_dir: str | os.PathLike[str] | None = None,
                force: bool = False, cwd: str | os.PathLike[str] | None = None) -> RegradeReport:
    """Grade a run's replayed final world with today's verifier.

    Writes ``<out_dir>/result.json`` (the new result, silo-format §6.2) and
    ``<out_dir>/regrade.json`` (``{"runId", "taskId", "verifierId", "worldIdentical",
    "worldDivergence", "before": {"passed", "reward"} | null, "after": {"passed", "reward"},
    "changedChecks": [{"label", "before", "after"}]}``), each atomically. ``worldIdentical`` is
    false when a call's output or the state diff differs from the recording (the world itself
    changed, not only the grading). ``out_dir`` defaults to ``<run_dir>/regrade`` and is checked
    by :func:`regrade_out_dir` before anything is replayed. The recorded files are never touched.

    Raises:
        SiloError: as :func:`replay_run`; ``run_invalid`` when the run never ended;
            ``output_invalid`` for an ``out_dir`` :func:`regrade_out_dir` refuses.
        VerifierError: today's verifier failed on the replayed world (nothing is written).
    """
    target = regrade_out_dir(run_dir, out_dir)
    replay = replay_run(run_dir, force=force, cwd=cwd)
    record = replay.record
    if replay.problem is not None:
        raise run_error(record.run_dir, f"cannot regrade: {replay.problem}")
    if replay.result is None:
        raise VerifierError(f"Today's verifier failed on the replayed world: {replay.grading_error}",
                            {"runDir": str(record.run_dir)})
    before = record.result
    changes = changed_checks(list(before["checks"]) if before is not None else [], list(replay.result["checks"]))
    world = replay.world_divergence
    summary = {
        "runId": record.run_id,
        "taskId": record.task_id,
        "verifierId": record.task.get("verifierId"),
        "worldIdentical": world is None,
        "worldDivergence": str(world) if world is not None else None,
        "before": {"passed": before.get("passed"), "reward": before.get("reward")} if before is not None else None,
        "after": {"passed": replay.result["passed"], "reward": replay.result["reward"]},
        "changedChecks": [c.to_json() for c in changes],
    }
    target.mkdir(parents=True, exist_ok=True)
    write_atomic(target / "result.json", dumps_pretty_bytes(replay.result))
    write_atomic(target / REGRADE_FILE, dumps_pretty_bytes(summary))
    return RegradeReport(replay, replay.result, changes, target, summary)
