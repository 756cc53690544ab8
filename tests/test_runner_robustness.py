"""The runner under attack: a tool that never returns, agents that raise, agents that return
something other than ``{"output": ...}`` (issue 10 items 3 and 8; silo-format §5.3, amended)."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from silo_gym import run_task
from silo_gym.cli.run_cmd import format_single_run, format_summary, summary_json
from silo_gym.runner import GRACE_MS

STUCK_TOOLS = '''
import threading

from silo_gym import define_tool

RELEASE = threading.Event()


def _stuck(state, input):
    state["count"] += 1          # a partial write before hanging
    RELEASE.wait(30)
    state["count"] += 100
    return "finally"


def _bump(state, input):
    state["count"] += 1
    return {"count": state["count"]}


_OBJ = {"type": "object", "properties": {}, "additionalProperties": False}
tools = [
    define_tool(name="bump", description="Add one.", input_schema=_OBJ, run=_bump),
    define_tool(name="stuck", description="Never returns (until released).", input_schema=_OBJ, run=_stuck),
]
'''


def _stuck_env(tmp_path, make_env_dir):
    make_env_dir(tmp_path / ".silo" / "environments", "stuckworld", tools=STUCK_TOOLS)


def _release(tmp_path):
    import sys

    for name, module in list(sys.modules.items()):
        if name.endswith(".tools") and hasattr(module, "RELEASE"):
            module.RELEASE.set()


def test_a_tool_that_never_returns_does_not_hold_the_runner(tmp_path, make_env_dir):
    _stuck_env(tmp_path, make_env_dir)

    def agent(task, tools, call_tool, signal):
        call_tool("bump")
        call_tool("stuck")
        return {"output": "never"}

    start = time.monotonic()
    try:
        r = run_task("stuckworld", "TASK-001", agent, cwd=tmp_path, timeout_ms=300)
        elapsed = time.monotonic() - start
        assert elapsed < 0.3 + GRACE_MS / 1000 + 2.5  # never the 30 s the tool would take
        assert r.reward is None and r.passed is None and r.verifier is None
        assert r.result is None and r.state_diff is None
        assert r.error == 'Tool "stuck" did not return within 300 ms.'
        assert r.run["terminationReason"] == "timeout" and r.run["toolCallCount"] == 2
        files = sorted(os.listdir(r.run_dir))
        assert files == ["run.json", "trace.jsonl"]  # no reward, no state diff for a world in flux
        types = [e["type"] for e in r.trace]
        assert types == ["run_start", "tool_call", "tool_result", "tool_call", "run_end"]
        assert r.trace[-1]["error"] == r.error and r.trace[-1]["terminationReason"] == "timeout"
        with open(os.path.join(r.run_dir, "run.json"), encoding="utf-8") as fh:
            assert json.load(fh)["terminationReason"] == "timeout"
        report = format_single_run(r)
        assert "Result:      UNGRADED\n" in report and "Reward:      none\n" in report
        assert 'Error:       Tool "stuck" did not return within 300 ms.\n' in report
        summary = summary_json("grp_x", "TASK-001", [r])
        assert summary["runs"][0]["reward"] is None and summary["meanReward"] is None
        assert summary["passed"] == 0 and summary["runs"][0]["toolCalls"] == 2
        assert "run 1  UNGRADED  reward none · 2 calls · timeout" in format_summary(summary, [r])
    finally:
        _release(tmp_path)
    # The late return of the stuck tool adds nothing to the recorded run.
    time.sleep(0.2)
    with open(os.path.join(r.run_dir, "trace.jsonl"), encoding="utf-8") as fh:
        assert [json.loads(line)["type"] for line in fh][-1] == "run_end"
    assert sorted(os.listdir(r.run_dir)) == ["run.json", "trace.jsonl"]


def test_an_agent_exception_keeps_its_traceback_in_the_trace(runs_dir):
    def helper_that_fails():
        raise ValueError("the plan broke")

    def agent(task, tools, call_tool, signal):
        call_tool("get_order", {"orderId": "O-1"})
        helper_that_fails()

    r = run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    assert r.run["terminationReason"] == "agent_error" and r.error == "the plan broke"
    end = [e for e in r.trace if e["type"] == "run_end"][0]
    assert list(end)[-1] == "traceback"
    assert "Traceback (most recent call last)" in end["traceback"]
    assert "helper_that_fails" in end["traceback"] and "ValueError: the plan broke" in end["traceback"]
    with open(os.path.join(r.run_dir, "trace.jsonl"), encoding="utf-8") as fh:
        on_disk = [json.loads(line) for line in fh]
    assert on_disk[-2]["traceback"] == end["traceback"]


def test_a_normal_end_has_no_traceback_key(runs_dir):
    r = run_task("orders", "TASK-001", lambda *a: {"output": "x"}, runs_dir=runs_dir)
    end = [e for e in r.trace if e["type"] == "run_end"][0]
    assert list(end) == ["seq", "type", "at", "terminationReason", "error", "toolCalls", "toolErrors", "durationMs"]


@pytest.mark.parametrize(("returned", "error"), [
    ("plain answer", 'Agent returned a str (\'plain answer\'); an agent must return {"output": <answer>}.'),
    (42, 'Agent returned a int (42); an agent must return {"output": <answer>}.'),
    (None, 'Agent returned None; an agent must return {"output": <answer>}.'),
    ({"answer": "x"}, 'Agent returned a mapping without "output" (keys: "answer"); an agent must return '
                      '{"output": <answer>}.'),
])
def test_a_bare_return_is_a_clear_agent_error(returned, error, runs_dir):
    r = run_task("orders", "TASK-001", lambda *a: returned, runs_dir=runs_dir)
    assert r.run["terminationReason"] == "agent_error"
    assert r.error == error and r.agent_output is None
    assert r.result["error"] == error


def test_a_late_tool_return_does_not_tear_the_trace_sequence(tmp_path, make_env_dir):
    """Events stay numbered 1..n with no gap or repeat even when a stuck tool returns while the
    runner ends the run."""
    _stuck_env(tmp_path, make_env_dir)

    def agent(task, tools, call_tool, signal):
        threading.Timer(0.3 + GRACE_MS / 1000 + 0.01, lambda: _release(tmp_path)).start()
        call_tool("stuck")
        return {"output": "x"}

    try:
        r = run_task("stuckworld", "TASK-001", agent, cwd=tmp_path, timeout_ms=300)
    finally:
        _release(tmp_path)
    time.sleep(0.2)
    with open(os.path.join(r.run_dir, "trace.jsonl"), encoding="utf-8") as fh:
        seqs = [json.loads(line)["seq"] for line in fh]
    assert seqs == list(range(1, len(seqs) + 1))


SLEEPY_AGENT = """
import time


def agent(task, tools, call_tool, signal):
    call_tool("get_order", {"orderId": "O-1"})
    print("calling", flush=True)
    time.sleep(60)
    return {"output": "late"}


def exits(task, tools, call_tool, signal):
    import sys
    sys.exit(0)
"""


@pytest.mark.parametrize(("sig", "code"), [(2, 130), (15, 143)])
def test_an_interrupted_silo_gym_run_leaves_a_whole_run(tmp_path, sig, code):
    import signal
    import subprocess
    import sys

    from conftest import ENVS_DIR, sigint_as_default, subprocess_env

    (tmp_path / "agent.py").write_text(SLEEPY_AGENT)
    child = subprocess.Popen([sys.executable, "-m", "silo_gym", "run", "--env", "orders", "--task", "TASK-001",
                              "--agent", "agent.py"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=subprocess_env(SILO_GYM_PATH=str(ENVS_DIR)), text=True,
                             preexec_fn=sigint_as_default)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "calling"
    child.send_signal(signal.Signals(sig))
    _, err = child.communicate(timeout=60)
    assert child.returncode == code, err
    (run_dir,) = list((tmp_path / ".silo" / "runs").iterdir())
    assert sorted(os.listdir(run_dir)) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
    run = json.loads((run_dir / "run.json").read_text())
    assert run["terminationReason"] == "agent_error" and run["toolCallCount"] == 1
    events = [json.loads(line)["type"] for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    assert events[-2:] == ["run_end", "verifier_result"]


def test_an_agent_calling_sys_exit_fails_the_command(tmp_path, monkeypatch, capsys):
    from silo_gym.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(SLEEPY_AGENT)
    code = main(["run", "--env", "orders", "--task", "TASK-001", "--agent", "agent.py:exits"])
    err = capsys.readouterr().err
    assert code == 1 and "sys.exit(0) was called" in err
    (run_dir,) = list((tmp_path / ".silo" / "runs").iterdir())
    assert json.loads((run_dir / "result.json").read_text())["terminationReason"] == "agent_error"


def test_agent_text_never_drives_the_terminal(runs_dir):
    from silo_gym.cli.run_cmd import format_single_run

    def agent(task, tools, call_tool, signal):
        raise RuntimeError("\x1b[2J\x1b[31mfake PASS\x07")

    report = format_single_run(run_task("orders", "TASK-001", agent, runs_dir=runs_dir))
    assert "\x1b" not in report and "\x07" not in report
    assert "Error:       RuntimeError: \\x1b[2J\\x1b[31mfake PASS\\x07\n" in report
