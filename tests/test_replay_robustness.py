"""``silo-gym replay`` / ``regrade`` on run directories that are not what they claim to be.

A recorded run is evidence: regrade never writes over recorded files or out of the run through a
link, every file of a run directory is checked against its format before anything is replayed,
and ``run.json`` and the trace must tell the same story. Each refusal is a ``run_invalid`` (or,
for the output directory, ``output_invalid``) that names the file, the trace line and the field.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import listing, subprocess_env
from golden import gate as g

import silo_gym
from silo_gym import SiloError
from silo_gym.replay import regrade_run, replay_run

ARTIFACTS = ("trace.jsonl", "result.json", "state-diff.json", "run.json")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "silo_gym", *args], cwd=cwd, env=subprocess_env(),
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One solved TASK-001 run (two tool calls), copied by each test that edits it."""
    runs = tmp_path_factory.mktemp("recorded")
    return Path(silo_gym.run_task("demo", "TASK-001", g.silo_agent("solver"), runs_dir=runs).run_dir)


def _copy(recorded: Path, where: Path, name: str | None = None) -> Path:
    target = where / (name or recorded.name)
    shutil.copytree(recorded, target)
    return target


def _files(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}


def _edit_trace(run_dir: Path, edit: Callable[[list[dict[str, Any]]], None]) -> None:
    events = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    edit(events)
    (run_dir / "trace.jsonl").write_text("".join(silo_gym.dumps_compact(e) + "\n" for e in events))


def _edit_json(run_dir: Path, name: str, edit: Callable[[dict[str, Any]], None]) -> None:
    value = json.loads((run_dir / name).read_text())
    edit(value)
    (run_dir / name).write_text(silo_gym.dumps_pretty(value))


def _refused(run_dir: Path) -> SiloError:
    """Both commands refuse the run with the same run_invalid error and write nothing."""
    before = listing(run_dir)
    with pytest.raises(SiloError) as replayed:
        replay_run(run_dir)
    with pytest.raises(SiloError) as regraded:
        regrade_run(run_dir)
    assert replayed.value.code == regraded.value.code == "run_invalid"
    assert replayed.value.message == regraded.value.message
    assert replayed.value.message.startswith(f"{run_dir}: ")
    assert listing(run_dir) == before
    return replayed.value


# -- 1. regrade --out never overwrites recorded artifacts ---------------------------------------------


def test_regrade_refuses_an_out_that_is_a_run_directory(recorded: Path, tmp_path: Path) -> None:
    run = _copy(recorded, tmp_path)
    other = _copy(recorded, tmp_path, "run_20260101000000_othr")
    kept = {run: _files(run), other: _files(other)}
    for out in (run, other):
        done = _cli("regrade", str(run), "--out", str(out), cwd=tmp_path)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith(f"error: output_invalid: --out {out} holds run artifacts (")
        assert "recorded files are never touched" in done.stderr
    with pytest.raises(SiloError) as caught:
        regrade_run(run, out_dir=other)
    assert caught.value.code == "output_invalid" and caught.value.details == {"out": str(other)}
    assert {run: _files(run), other: _files(other)} == kept
    assert not (run / "regrade.json").exists() and not (other / "regrade.json").exists()

    # Any one artifact is enough: a directory holding only a result.json of its own is refused
    # too (it is not an earlier regrade), and so is a dangling link named like an artifact.
    for name in ARTIFACTS:
        holder = tmp_path / f"holds-{name}"
        holder.mkdir()
        (holder / name).write_text("{}")
        with pytest.raises(SiloError) as caught:
            regrade_run(run, out_dir=holder)
        assert caught.value.code == "output_invalid" and name in caught.value.message
        assert listing(holder) == [name] and (holder / name).read_text() == "{}"
    dangling = tmp_path / "dangling"
    dangling.mkdir()
    (dangling / "run.json").symlink_to(tmp_path / "nowhere")
    with pytest.raises(SiloError):
        regrade_run(run, out_dir=dangling)
    assert not (tmp_path / "nowhere").exists()


def test_regrade_replaces_an_earlier_regrade(recorded: Path, tmp_path: Path) -> None:
    run = _copy(recorded, tmp_path)
    first = regrade_run(run)
    assert first.out_dir == run / "regrade"
    summary = (run / "regrade" / "regrade.json").read_bytes()
    (run / "regrade" / "result.json").write_text("stale")
    regrade_run(run)  # the default directory, again
    assert json.loads((run / "regrade" / "result.json").read_text())["passed"] is True
    assert (run / "regrade" / "regrade.json").read_bytes() == summary
    out = tmp_path / "elsewhere"
    regrade_run(run, out_dir=out)
    regrade_run(run, out_dir=out)  # an --out of earlier regrades, again
    assert listing(out) == ["regrade.json", "result.json"]


def test_regrade_never_follows_a_link_out_of_the_run(recorded: Path, tmp_path: Path) -> None:
    run = _copy(recorded, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (run / "regrade").symlink_to(outside)
    kept = _files(run)
    done = _cli("regrade", str(run), cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"error: output_invalid: --out {run / 'regrade'} is a symbolic link")
    for out in (run / "regrade", run / "regrade" / "deeper"):
        with pytest.raises(SiloError) as caught:
            regrade_run(run, out_dir=out)
        assert caught.value.code == "output_invalid" and "symbolic link" in caught.value.message
    assert listing(outside) == [] and _files(run) == kept and (run / "regrade").is_symlink()

    # A link inside the run that leads back into it is refused the same way (it would name a
    # directory of recorded files).
    (run / "regrade").unlink()
    (run / "loop").symlink_to(run)
    with pytest.raises(SiloError):
        regrade_run(run, out_dir=run / "loop")
    assert _files(run) == kept


def test_empty_out_paths_are_refused_not_the_current_directory(recorded: Path, tmp_path: Path) -> None:
    run = _copy(recorded, tmp_path / "runs")
    work = tmp_path / "work"
    work.mkdir()
    for args in (("regrade", str(run), "--out", ""), ("view", str(run.parent), "--out", "")):
        done = _cli(*args, cwd=work)
        assert done.returncode == 1, args
        assert done.stderr.startswith("error: --out must be a directory, not an empty path."), done.stderr
    assert listing(work) == []
    with pytest.raises(SiloError) as caught:
        regrade_run(run, out_dir="")
    assert caught.value.code == "output_invalid" and "empty path" in caught.value.message
    assert listing(work) == [] and not (run / "regrade").exists()


# -- 2. a file of the run that cannot be read ---------------------------------------------------------


@pytest.mark.parametrize("name", ARTIFACTS)
def test_an_unreadable_file_is_a_run_invalid_naming_it(recorded: Path, tmp_path: Path, name: str) -> None:
    run = _copy(recorded, tmp_path)
    (run / name).unlink()
    (run / name).mkdir()  # open() gives IsADirectoryError
    error = _refused(run)
    assert f"{name} cannot be read (Is a directory)" in error.message
    done = _cli("replay", str(run), cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("error: run_invalid: ") and "Errno" not in done.stderr


@pytest.mark.parametrize("name", ["result.json", "state-diff.json", "run.json"])
def test_a_file_that_is_not_json_is_a_run_invalid_naming_the_place(recorded: Path, tmp_path: Path, name: str) -> None:
    run = _copy(recorded, tmp_path)
    (run / name).write_bytes(b'{\n  "passed": tr\xffue\n}\n')
    error = _refused(run)
    assert f"{name} is not valid JSON at line 2, column " in error.message


# -- 3. run.json and the trace must agree -------------------------------------------------------------


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(obj: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for key in parents:
            obj = obj[key]
        obj[last] = value
    return edit


@pytest.mark.parametrize(("field", "value", "recorded_value"), [
    ("taskId", "TASK-002", '"TASK-001"'),
    ("environment", "orders", '"demo"'),
    ("runId", "run_20260101000000_abcd", None),
    ("config.variant", 3, "null"),
    ("config.maxToolCalls", 5, "100"),
    ("task.instruction", "Do something else.", None),
    ("verifierId", "VER-002", '"VER-001"'),
    ("terminationReason", "timeout", '"completed"'),
    ("toolCallCount", 1, "2"),
])
def test_run_json_that_disagrees_with_the_trace_is_refused(recorded: Path, tmp_path: Path, field: str, value: Any,
                                                           recorded_value: str | None) -> None:
    run = _copy(recorded, tmp_path)
    _edit_json(run, "run.json", _set(field, value))
    error = _refused(run)
    assert "run.json and trace.jsonl disagree" in error.message, error.message
    assert f"run.json has {silo_gym.dumps_compact(value)}" in error.message
    if recorded_value is not None:
        assert f"has {recorded_value}" in error.message.split("run.json has")[1]
    assert field.split(".")[-1] in error.message


def test_regrade_grades_with_the_traced_task_only(recorded: Path, tmp_path: Path) -> None:
    """The reported case: run.json names TASK-002; regrade used to grade with VER-002's checks."""
    run = _copy(recorded, tmp_path)
    _edit_json(run, "run.json", _set("taskId", "TASK-002"))
    done = _cli("regrade", str(run), cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "taskId" in done.stderr and '"TASK-002"' in done.stderr and '"TASK-001"' in done.stderr
    assert not (run / "regrade").exists()


def test_the_answer_in_result_json_must_be_the_traced_one(recorded: Path, tmp_path: Path) -> None:
    run = _copy(recorded, tmp_path)
    _edit_json(run, "result.json", _set("agentOutput", "Something else."))
    error = _refused(run)
    assert "agentOutput" in error.message and "agent_output" in error.message
    assert '"Something else."' in error.message


# -- 4. edited files give run_invalid naming the file, the line, the field, what is accepted ---------


def _drop_call_id(events: list[dict[str, Any]]) -> None:
    del events[1]["callId"]


def _set_event(index: int, key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def edit(events: list[dict[str, Any]]) -> None:
        events[index][key] = value
    return edit


def _run_end(key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def edit(events: list[dict[str, Any]]) -> None:
        next(e for e in events if e["type"] == "run_end")[key] = value
    return edit


TRACE_EDITS: list[tuple[str, Callable[[list[dict[str, Any]]], None], list[str]]] = [
    ("no callId", _drop_call_id, ["trace.jsonl line 2 (tool_call): callId: Field required"]),
    ("callId a string", _set_event(1, "callId", "x"),
     ["trace.jsonl line 2 (tool_call): callId: Input should be a valid integer (got \"x\")"]),
    ("callId a bool", _set_event(1, "callId", True), ["line 2 (tool_call): callId", "(got true)"]),
    ("callId zero", _set_event(1, "callId", 0), ["line 2 (tool_call): callId", "greater than or equal to 1"]),
    ("callId out of order", _set_event(1, "callId", 2),
     ["trace.jsonl line 2 (tool_call): callId: the calls are numbered 1, 2, 3, ... in trace order, so this "
      "one must be 1 (got 2)"]),
    ("result of no call", _set_event(2, "callId", 9),
     ["trace.jsonl line 3 (tool_result): callId: no tool_call with callId 9 is waiting for its result"]),
    ("isError not a bool", _set_event(2, "isError", "no"), ["line 3 (tool_result): isError", "valid boolean"]),
    ("unknown type", _set_event(1, "type", "tool_kall"),
     ["trace.jsonl line 2: type:", "'run_start'", "'tool_call'", "(got \"tool_kall\")"]),
    ("bogus ending", _run_end("terminationReason", "bogus"),
     ["(run_end): terminationReason: Input should be 'completed', 'max_tool_calls', 'timeout' or 'agent_error' "
      "(got \"bogus\")"]),
    ("negative toolCalls", _run_end("toolCalls", -1), ["(run_end): toolCalls", "greater than or equal to 0"]),
    ("a second run_start", lambda ev: ev.insert(2, dict(ev[0], seq=3)), ["trace.jsonl line 3 (run_start)",
                                                                         "only line 1"]),
    ("variant as text", lambda ev: ev[0]["config"].__setitem__("variant", "7"),
     ["trace.jsonl line 1 (run_start): config.variant: Input should be a valid integer (got \"7\")"]),
]


@pytest.mark.parametrize(("what", "edit", "expected"), TRACE_EDITS, ids=[t[0] for t in TRACE_EDITS])
def test_an_edited_trace_is_a_run_invalid_naming_line_and_field(recorded: Path, tmp_path: Path, what: str,
                                                                edit: Any, expected: list[str]) -> None:
    run = _copy(recorded, tmp_path)
    _edit_trace(run, edit)
    error = _refused(run)
    for part in expected:
        assert part in error.message, error.message


RESULT_EDITS: list[tuple[str, str, Any, list[str]]] = [
    ("checks a string", "checks", "abc", ["result.json is not a valid result.json: checks: Input should be a valid "
                                          "list (got \"abc\")"]),
    ("checks of numbers", "checks", [1, 2], ["result.json is not a valid result.json: checks[0]: ", "(got 1)"]),
    ("reward above 1", "reward", 2, ["result.json", "reward", "less than or equal to 1", "(got 2)"]),
    ("no such ending", "terminationReason", "bogus", ["result.json", "terminationReason", "'completed'"]),
]


@pytest.mark.parametrize(("what", "key", "value", "expected"), RESULT_EDITS, ids=[t[0] for t in RESULT_EDITS])
def test_an_edited_result_is_a_run_invalid_naming_the_field(recorded: Path, tmp_path: Path, what: str, key: str,
                                                            value: Any, expected: list[str]) -> None:
    run = _copy(recorded, tmp_path)
    _edit_json(run, "result.json", _set(key, value))
    error = _refused(run)
    for part in expected:
        assert part in error.message, error.message


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("config.variant", "x", "run.json is not a valid run.json: config.variant: Input should be a valid integer "
                            "(got \"x\")"),
    ("config.variant", -1, "config.variant: Input should be greater than or equal to 0 (got -1)"),
    ("config.variant", 2**63, "config.variant: Input should be less than 9223372036854775808"),
    ("config", [], "run.json is not a valid run.json: config: "),
])
def test_an_edited_run_json_is_a_run_invalid_naming_the_field(recorded: Path, tmp_path: Path, field: str,
                                                              value: Any, expected: str) -> None:
    run = _copy(recorded, tmp_path)
    _edit_json(run, "run.json", _set(field, value))
    error = _refused(run)
    assert expected in error.message, error.message
    done = _cli("regrade", str(run), cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("error: run_invalid: ")
    assert "Traceback" not in done.stderr and not (run / "regrade").exists()


def test_state_diff_is_checked_against_its_format(recorded: Path, tmp_path: Path) -> None:
    run = _copy(recorded, tmp_path)
    _edit_json(run, "state-diff.json", _set("collections", {"leads": {"added": [1], "removed": [], "changed": []}}))
    error = _refused(run)
    assert "state-diff.json is not a valid state-diff.json: collections.leads.added[0]: " in error.message


def test_run_files_are_read_with_os_errors_named(recorded: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    run = _copy(recorded, tmp_path)
    (run / "state-diff.json").chmod(0)
    try:
        error = _refused(run)
    finally:
        (run / "state-diff.json").chmod(0o644)
    assert "state-diff.json cannot be read (Permission denied)" in error.message
