"""run_task: Silo-style agents driving their own loop (silo-format §5.3, §5.6)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import types

import pytest
from conftest import ENVS_DIR

import silo_gym
from silo_gym import RunLimitError, RunResult, SiloError, VerifierError, run_task
from silo_gym.loader import open_environment
from silo_gym.provenance import environment_hash
from silo_gym.runner import GRACE_MS, _split_agent_spec, load_agent
from silo_gym.verifiers import VerifierOutcome

ORDERS_HASH = environment_hash(open_environment("orders", fresh=False))

SHIP = {"orderId": "O-1", "carrier": "express"}


def ship_agent(task, tools, call_tool, signal):
    call_tool("ship_order", SHIP)
    return {"output": "Shipped."}


def _files(run_dir):
    return sorted(os.listdir(run_dir))


@pytest.mark.parametrize(("env", "agent_path"), [("orders", ENVS_DIR / "orders" / "agent.py"),
                                                 ("inventory", ENVS_DIR / "inventory" / "agent.py")])
def test_scripted_agents_pass(env, agent_path, runs_dir):
    result = run_task(env, "TASK-001", str(agent_path), runs_dir=runs_dir)
    assert isinstance(result, RunResult)
    assert result.passed is True and result.reward == 1
    assert result.error is None
    assert result.run["config"]["agentPath"] == str(agent_path)
    assert result.run["terminationReason"] == "completed"
    assert _files(result.run_dir) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]


def test_run_result_fields(runs_dir):
    seen = {}

    def agent(task, tools, call_tool, signal):
        seen.update(task=task, tools=tools, signal=signal)
        tools.clear()  # a fresh copy: mutating it changes nothing
        call_tool("get_order", {"orderId": "O-9"})
        return ship_agent(task, tools, call_tool, signal)

    r = run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    assert seen["task"] == "Order O-1 is ready. Ship it with the express carrier."
    assert isinstance(seen["signal"], threading.Event) and not seen["signal"].is_set()
    assert r.task.id == "TASK-001" and r.task.title == "Ship an order"
    assert r.agent_output == "Shipped."
    assert isinstance(r.verifier, VerifierOutcome) and r.verifier.verifier_id == "VER-001"
    assert r.tool_errors == 1
    assert r.run_dir == os.path.join(str(runs_dir), r.run["runId"])
    with open(os.path.join(r.run_dir, "run.json"), encoding="utf-8") as fh:
        assert json.load(fh) == r.run
    assert r.run["config"] == {"maxToolCalls": 100, "timeoutMs": 120000, "agentPath": None, "variant": None,
                               "siloGymVersion": silo_gym.__version__, "environmentHash": ORDERS_HASH}
    assert [e["type"] for e in r.trace] == ["run_start", "tool_call", "tool_result", "tool_call", "tool_result",
                                            "agent_output", "run_end", "verifier_result"]
    with open(os.path.join(r.run_dir, "trace.jsonl"), encoding="utf-8") as fh:
        assert [json.loads(line) for line in fh] == r.trace
    assert r.trace[0]["tools"] == ["get_order", "ship_order", "explode"]


def test_async_agent(runs_dir):
    async def agent(task, tools, call_tool, signal):
        await asyncio.sleep(0)
        call_tool("ship_order", SHIP)
        return {"output": "async"}

    r = run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    assert (r.passed, r.agent_output, r.run["terminationReason"]) == (True, "async", "completed")


@pytest.mark.parametrize(("exc", "message"), [(ValueError("bad plan"), "bad plan"), (KeyError("k"), "'k'"),
                                              (RuntimeError(), "RuntimeError"), (ZeroDivisionError(""),
                                                                                 "ZeroDivisionError")])
def test_agent_exception_is_agent_error(exc, message, runs_dir):
    def agent(task, tools, call_tool, signal):
        call_tool("ship_order", SHIP)
        raise exc

    r = run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    assert r.run["terminationReason"] == "agent_error"
    assert r.error == message and r.result["error"] == message
    assert r.agent_output is None and r.result["agentOutput"] is None
    assert r.passed is True  # graded anyway


def test_agent_catching_limit_and_returning(runs_dir):
    caught = []

    def agent(task, tools, call_tool, signal):
        call_tool("get_order", {"orderId": "O-1"})
        try:
            call_tool("ship_order", SHIP)
        except RunLimitError as e:
            caught.append((e.reason, e.message, signal.is_set()))
        try:
            call_tool("ship_order", SHIP)
        except RunLimitError as e:
            caught.append((e.reason, e.message))
        return {"output": {"gave": "up"}}

    r = run_task("orders", "TASK-001", agent, max_tool_calls=1, runs_dir=runs_dir)
    assert caught == [("max_tool_calls", "Tool call limit exceeded (1).", True),
                      ("max_tool_calls", "Run ended: max_tool_calls.")]
    assert r.run["terminationReason"] == "max_tool_calls"
    assert r.error is None
    assert r.agent_output == {"gave": "up"} and r.result["toolCalls"] == 1
    assert [e["type"] for e in r.trace].count("tool_call") == 1
    assert r.run["config"]["maxToolCalls"] == 1


def test_agent_raising_run_limit_error(runs_dir):
    def agent(task, tools, call_tool, signal):
        call_tool("ship_order", SHIP)

    r = run_task("orders", "TASK-001", lambda *a: (agent(*a), a[2]("explode"))[1] and {}, max_tool_calls=0,
                 runs_dir=runs_dir)
    assert r.run["terminationReason"] == "max_tool_calls"
    assert r.error == "Tool call limit exceeded (0)."
    assert r.agent_output is None and r.result["toolCalls"] == 0


def test_agent_raising_after_limit_keeps_limit_reason(runs_dir):
    def agent(task, tools, call_tool, signal):
        try:
            call_tool("explode")
        except RunLimitError:
            pass
        raise ValueError("then crashed")

    r = run_task("orders", "TASK-001", agent, max_tool_calls=0, runs_dir=runs_dir)
    assert (r.run["terminationReason"], r.error) == ("max_tool_calls", "then crashed")


def test_agent_raising_its_own_run_limit_error(runs_dir):
    def agent(task, tools, call_tool, signal):
        raise RunLimitError("timeout", "I gave up in time.")

    r = run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    assert (r.run["terminationReason"], r.error, r.agent_output) == ("timeout", "I gave up in time.", None)


def test_deadline_timer_fires_without_further_calls(runs_dir):
    def agent(task, tools, call_tool, signal):
        assert signal.wait(5)
        try:
            call_tool("get_order", {"orderId": "O-1"})
        except RunLimitError as e:
            return {"output": e.message}
        return {"output": "not refused"}

    start = time.monotonic()
    r = run_task("orders", "TASK-001", agent, timeout_ms=150, runs_dir=runs_dir)
    assert time.monotonic() - start < 5  # the deadline (150 ms) fired, not the 120 s default
    assert (r.run["terminationReason"], r.error, r.agent_output) == ("timeout", None, "Run ended: timeout.")
    assert r.run["config"]["timeoutMs"] == 150


def test_hanging_agent_is_abandoned(tmp_path, make_env_dir):
    """Deadline + grace: an agent hanging in its own code is abandoned, the run is graded, and
    every later call of the abandoned agent is refused."""
    make_env_dir(tmp_path / ".silo" / "environments", "widgets")
    late: list = []
    release = threading.Event()

    def agent(task, tools, call_tool, signal):
        call_tool("bump")
        release.wait(10)  # hangs outside any tool call
        try:
            late.append(call_tool("bump"))
        except RunLimitError as e:
            late.append((e.reason, e.message))
        return {"output": "too late"}

    start = time.monotonic()
    r = run_task("widgets", "TASK-001", agent, cwd=tmp_path, timeout_ms=200)
    elapsed = time.monotonic() - start
    assert GRACE_MS / 1000 + 0.2 <= elapsed < GRACE_MS / 1000 + 3.0
    assert r.run["terminationReason"] == "timeout"
    assert r.error == "Agent did not return within 200 ms."
    assert r.agent_output is None and r.result["toolCalls"] == 1 and r.passed is True
    types = [e["type"] for e in r.trace]
    assert types == ["run_start", "tool_call", "tool_result", "agent_output", "run_end", "verifier_result"]
    release.set()
    for _ in range(100):
        if late:
            break
        time.sleep(0.02)
    assert late == [("timeout", "Run ended: timeout.")]
    with open(os.path.join(r.run_dir, "result.json"), encoding="utf-8") as fh:
        assert json.load(fh)["toolCalls"] == 1  # the abandoned agent changed nothing


def test_concurrent_calls_are_serialised(runs_dir):
    def agent(task, tools, call_tool, signal):
        threads = [threading.Thread(target=lambda: [call_tool("get_order", {"orderId": "O-1"}) for _ in range(20)])
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return {"output": "x"}

    r = run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    assert r.result["toolCalls"] == 80
    calls = [e for e in r.trace if e["type"] in ("tool_call", "tool_result")]
    assert [e["callId"] for e in calls] == [i // 2 + 1 for i in range(160)]
    assert [e["type"] for e in calls] == ["tool_call", "tool_result"] * 80


@pytest.mark.parametrize(
    ("returned", "raw"),
    [({"output": "x"}, "x"), ({"output": None}, None),
     ({"output": {1, 2}}, None), ({"output": 0}, 0), (types.MappingProxyType({"output": "m"}), "m")],
)
def test_raw_output_forms(returned, raw, runs_dir):
    r = run_task("orders", "TASK-001", lambda *a: returned, runs_dir=runs_dir)
    assert r.agent_output == raw and type(r.agent_output) is type(raw)
    assert r.run["terminationReason"] == "completed"


def test_agent_spec_split():
    assert _split_agent_spec("a.py") == ("a.py", "agent")
    assert _split_agent_spec("dir/a.py:solve") == ("dir/a.py", "solve")
    assert _split_agent_spec("a.py:1bad") == ("a.py:1bad", "agent")
    assert _split_agent_spec("a:b") == ("a:b", "agent")
    assert _split_agent_spec("x.py:y.py:z") == ("x.py:y.py", "z")
    assert _split_agent_spec("C:/agents/a.py") == ("C:/agents/a.py", "agent")


def _write_agent(tmp_path, name="agent.py", body=None):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    path.write_text(body or (
        "SHIP = {'orderId': 'O-1', 'carrier': 'express'}\n\n"
        "def agent(task, tools, call_tool, signal):\n"
        "    call_tool('ship_order', SHIP)\n"
        "    return {'output': 'default'}\n\n"
        "def other(task, tools, call_tool, signal):\n"
        "    return {'output': 'other'}\n\n"
        "not_callable = 5\n"))
    return path


def test_agent_specs_relative_to_cwd(tmp_path, monkeypatch):
    _write_agent(tmp_path / "agents")
    monkeypatch.chdir("/")
    r = run_task("orders", "TASK-001", "agents/agent.py", cwd=tmp_path)
    assert (r.agent_output, r.passed) == ("default", True)
    assert r.run["config"]["agentPath"] == "agents/agent.py"
    assert r.run_dir.startswith(str(tmp_path / ".silo" / "runs") + os.sep)
    r = run_task("orders", "TASK-001", "agents/agent.py:other", cwd=tmp_path, runs_dir=tmp_path / "r")
    assert r.agent_output == "other"
    assert r.run["config"]["agentPath"] == "agents/agent.py:other"


def test_agent_path_like(tmp_path):
    path = _write_agent(tmp_path)
    r = run_task("orders", "TASK-001", path, runs_dir=tmp_path / "r")
    assert r.agent_output == "default" and r.run["config"]["agentPath"] == str(path)


def test_agent_invalid(tmp_path):
    _write_agent(tmp_path)
    with pytest.raises(SiloError) as exc:
        load_agent("missing.py", cwd=tmp_path)
    assert exc.value.code == "agent_invalid"
    assert exc.value.message.startswith('Agent "missing.py" could not be imported: FileNotFoundError: ')
    with pytest.raises(SiloError) as exc:
        load_agent("agent.py:nope", cwd=tmp_path)
    assert exc.value.message == 'Agent "agent.py:nope" must define a callable named "nope".'
    with pytest.raises(SiloError) as exc:
        load_agent("agent.py:not_callable", cwd=tmp_path)
    assert exc.value.message == 'Agent "agent.py:not_callable" must define a callable named "not_callable".'
    _write_agent(tmp_path, "broken.py", "raise ImportError('no deps')\n")
    with pytest.raises(SiloError) as exc:
        load_agent(str(tmp_path / "broken.py"))
    assert exc.value.message == f'Agent "{tmp_path / "broken.py"}" could not be imported: ImportError: no deps'
    assert isinstance(exc.value.__cause__, ImportError)
    _write_agent(tmp_path, "noagent.py", "x = 1\n")
    with pytest.raises(SiloError) as exc:
        run_task("orders", "TASK-001", "noagent.py", cwd=tmp_path)
    assert exc.value.message == 'Agent "noagent.py" must define a callable named "agent".'
    assert not (tmp_path / ".silo").exists()  # setup failed before any run directory


def test_setup_errors_come_before_the_agent(tmp_path):
    with pytest.raises(SiloError) as exc:
        run_task("orders", "TASK-404", "missing.py", cwd=tmp_path)
    assert exc.value.code == "task_not_found"
    with pytest.raises(SiloError) as exc:
        run_task("nowhere", "TASK-001", "missing.py", cwd=tmp_path)
    assert exc.value.code == "environment_not_found"
    assert not (tmp_path / ".silo").exists()


def test_grading_failure_propagates_with_files(tmp_path, make_env_dir, monkeypatch):
    verifiers = '''
from silo_gym import define_verifier


def _check(final, initial, context):
    raise RuntimeError("grader broke")


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="n", check=_check)]
'''
    project = tmp_path / "project"
    make_env_dir(project / ".silo" / "environments", "gradefail", verifiers=verifiers)
    monkeypatch.chdir(project)
    with pytest.raises(VerifierError) as exc:
        run_task("gradefail", "TASK-001", lambda *a: {"output": "x"})
    assert exc.value.message == 'Verifier "VER-001" failed: grader broke'
    (run_id,) = os.listdir(project / ".silo" / "runs")
    assert _files(project / ".silo" / "runs" / run_id) == ["run.json", "state-diff.json", "trace.jsonl"]


def test_agent_path_recorded_for_callables_is_null(runs_dir):
    r = run_task("orders", "TASK-001", ship_agent, runs_dir=runs_dir)
    assert r.run["config"]["agentPath"] is None
    with open(os.path.join(r.run_dir, "run.json"), encoding="utf-8") as fh:
        assert '"agentPath": null' in fh.read()
