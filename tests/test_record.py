"""RecordRun: the four run artifacts (silo-format §6; gym-api.md, "Recording")."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import gymnasium as gym
import pytest
from conftest import subprocess_env
from gymnasium.error import ResetNeeded

import silo_gym
from silo_gym import SiloEnv, VerifierError, dumps_compact
from silo_gym.loader import open_environment
from silo_gym.provenance import environment_hash
from silo_gym.wrappers import RecordRun
from silo_gym.wrappers import record as record_mod

ORDERS_HASH = environment_hash(open_environment("orders", fresh=False))

ORDERS = "silo/orders-TASK-001"
SHIP = {"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "express"}}
RUN_ID = re.compile(r"run_[0-9]{14}_[0-9a-z]{4}")
AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
FILES = ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
EVENT_KEYS = {
    "run_start": ["runId", "environment", "task", "config", "tools"],
    "tool_call": ["callId", "tool", "input"],
    "tool_result": ["callId", "tool", "output", "isError", "durationMs"],
    "model_step": ["messages", "reply", "usage", "latencyMs", "api", "model"],
    "agent_output": ["output"],
    "run_end": ["terminationReason", "error", "toolCalls", "toolErrors", "durationMs"],
    "verifier_result": ["verifierId", "passed", "reward", "checks"],
}
RESULT_KEYS = ["passed", "reward", "requiredPassed", "requiredTotal", "failedRequired", "checksPassed",
               "checksFailed", "toolCalls", "toolErrors", "terminationReason", "agentOutput", "error", "checks"]
RUN_KEYS = ["runId", "environment", "taskId", "task", "verifierId", "verifierName", "config", "startedAt",
            "finishedAt", "durationMs", "terminationReason", "toolCallCount"]


def read_run(run_dir):
    files = sorted(os.listdir(run_dir))
    out = {"files": files}
    with open(os.path.join(run_dir, "trace.jsonl"), encoding="utf-8") as fh:
        raw = fh.read()
    out["trace_raw"] = raw
    out["trace"] = [json.loads(line) for line in raw.splitlines()]
    for name in ("result.json", "run.json", "state-diff.json"):
        path = os.path.join(run_dir, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                out[name + ":raw"] = fh.read()
            out[name] = json.loads(out[name + ":raw"])
    return out


def check_trace_shape(trace):
    assert [e["seq"] for e in trace] == list(range(1, len(trace) + 1))
    for e in trace:
        assert list(e)[:3] == ["seq", "type", "at"]
        assert list(e)[3:] == EVENT_KEYS[e["type"]], e
        assert AT.fullmatch(e["at"])
    assert trace[0]["type"] == "run_start"
    calls = [e for e in trace if e["type"] == "tool_call"]
    assert [c["callId"] for c in calls] == list(range(1, len(calls) + 1))
    for i, e in enumerate(trace):
        if e["type"] == "tool_call":
            nxt = trace[i + 1]
            assert nxt["type"] == "tool_result" and nxt["callId"] == e["callId"] and nxt["tool"] == e["tool"]
        if e["type"] == "tool_result":
            assert type(e["isError"]) is bool and type(e["durationMs"]) is int and e["durationMs"] >= 0
    types = [e["type"] for e in trace]
    tail = types[types.index("agent_output"):]
    assert tail in (["agent_output", "run_end", "verifier_result"], ["agent_output", "run_end"])


def test_solved_episode_artifacts(runs_dir):
    env = RecordRun(gym.make(ORDERS), runs_dir=runs_dir)
    obs, info = env.reset(seed=0)
    run_id, run_dir = info["run_id"], info["run_dir"]
    assert RUN_ID.fullmatch(run_id)
    assert run_dir == str(runs_dir / run_id) and os.path.isabs(run_dir)
    _, _, _, _, info1 = env.step({"tool": "get_order", "input": {"orderId": "O-1"}})
    # Trace lines are flushed as they happen.
    assert len(read_run(run_dir)["trace"]) == 3
    _, _, _, _, info2 = env.step(SHIP)
    *_, final = env.step({"answer": "Shipped O-1."})
    for i in (info1, info2, final):
        assert (i["run_id"], i["run_dir"]) == (run_id, run_dir)
    run = read_run(run_dir)
    assert run["files"] == FILES  # no temporary file is left behind
    assert list(run["result.json"]) == RESULT_KEYS
    assert run["result.json"] == final["result"]
    assert run["result.json:raw"] == textwrap.dedent("""\
        {
          "passed": true,
          "reward": 1,
          "requiredPassed": 2,
          "requiredTotal": 2,
          "failedRequired": [],
          "checksPassed": 3,
          "checksFailed": 0,
          "toolCalls": 2,
          "toolErrors": 0,
          "terminationReason": "completed",
          "agentOutput": "Shipped O-1.",
          "error": null,
          "checks": [
            {
              "label": "O-1 is shipped",
              "passed": true,
              "detail": "status = shipped",
              "required": true
            },
            {
              "label": "O-1 went express",
              "passed": true,
              "detail": "carrier = express",
              "required": true
            },
            {
              "label": "No other order changed",
              "passed": true,
              "detail": "",
              "required": false
            }
          ]
        }
        """)
    assert run["state-diff.json:raw"] == textwrap.dedent("""\
        {
          "scalars": [],
          "collections": {
            "orders": {
              "added": [],
              "removed": [],
              "changed": [
                "O-1"
              ]
            },
            "shipments": {
              "added": [
                "SHP-1"
              ],
              "removed": [],
              "changed": []
            },
            "sequences": {
              "added": [],
              "removed": [],
              "changed": [
                "SHP"
              ]
            }
          }
        }
        """)
    meta = run["run.json"]
    assert list(meta) == RUN_KEYS
    assert meta["runId"] == run_id and meta["environment"] == "orders" and meta["taskId"] == "TASK-001"
    assert meta["task"] == {"id": "TASK-001", "title": "Ship an order",
                            "instruction": "Order O-1 is ready. Ship it with the express carrier.",
                            "verifierId": "VER-001", "difficulty": "easy", "entities": ["O-1"]}
    assert list(meta["task"]) == ["id", "title", "instruction", "verifierId", "difficulty", "entities"]
    assert meta["verifierId"] == "VER-001" and meta["verifierName"] == "Order O-1 shipped express"
    assert meta["config"] == {"maxToolCalls": 100, "timeoutMs": 120000, "agentPath": None, "variant": None,
                              "siloGymVersion": silo_gym.__version__, "environmentHash": ORDERS_HASH}
    assert list(meta["config"]) == ["maxToolCalls", "timeoutMs", "agentPath", "variant", "siloGymVersion",
                                    "environmentHash"]
    assert AT.fullmatch(meta["startedAt"]) and AT.fullmatch(meta["finishedAt"])
    assert meta["startedAt"] <= meta["finishedAt"]
    stamp = meta["startedAt"]
    digits = stamp[0:4] + stamp[5:7] + stamp[8:10] + stamp[11:13] + stamp[14:16] + stamp[17:19]
    assert abs(int(run_id[4:18]) - int(digits)) <= 1 or run_id[4:18] <= digits
    assert type(meta["durationMs"]) is int and meta["durationMs"] >= 0
    assert meta["terminationReason"] == "completed" and meta["toolCallCount"] == 2
    assert run["run.json:raw"].endswith("}\n") and '\n  "config": {\n    "maxToolCalls": 100,' in run["run.json:raw"]

    trace = run["trace"]
    check_trace_shape(trace)
    assert [e["type"] for e in trace] == ["run_start", "tool_call", "tool_result", "tool_call", "tool_result",
                                          "agent_output", "run_end", "verifier_result"]
    start = trace[0]
    assert start["runId"] == run_id and start["environment"] == "orders"
    assert start["task"] == meta["task"] and start["config"] == meta["config"]
    assert start["tools"] == ["get_order", "ship_order", "explode"]
    assert trace[1]["input"] == {"orderId": "O-1"} and trace[1]["tool"] == "get_order"
    assert trace[2]["output"]["status"] == "pending" and trace[2]["isError"] is False
    assert trace[5]["output"] == "Shipped O-1."
    assert trace[6] == {**trace[6], "terminationReason": "completed", "error": None, "toolCalls": 2,
                        "toolErrors": 0}
    assert trace[7] == {**trace[7], "verifierId": "VER-001", "passed": True, "reward": 1,
                        "checks": run["result.json"]["checks"]}
    assert '"reward":1,' in run["trace_raw"].splitlines()[7]
    for line in run["trace_raw"].splitlines():
        assert line == dumps_compact(json.loads(line))


def test_fraction_reward_format(runs_dir):
    env = RecordRun(gym.make(ORDERS), runs_dir=runs_dir)
    _, info = env.reset()
    env.step({"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "ground"}})
    env.step({"answer": None})
    run = read_run(info["run_dir"])
    assert '\n  "reward": 0.67,\n' in run["result.json:raw"]
    assert '\n  "agentOutput": null,\n' in run["result.json:raw"]
    assert run["result.json"]["failedRequired"] == ["O-1 went express"]
    assert run["trace"][-3] == {**run["trace"][-3], "output": ""}  # agent_output of None is ""


def test_unchanged_state_diff_bytes(runs_dir):
    env = RecordRun(gym.make(ORDERS), runs_dir=runs_dir)
    _, info = env.reset()
    env.step({"answer": "nothing"})
    with open(os.path.join(info["run_dir"], "state-diff.json"), "rb") as fh:
        assert fh.read() == b'{\n  "scalars": [],\n  "collections": {}\n}\n'


def test_refused_calls_leave_no_trace_line(runs_dir):
    env = RecordRun(gym.make(ORDERS, max_tool_calls=1), runs_dir=runs_dir)
    _, info = env.reset()
    env.step("garbage")
    *_, final = env.step(SHIP)
    assert final["termination_reason"] == "max_tool_calls" and final["run_id"] == info["run_id"]
    run = read_run(info["run_dir"])
    check_trace_shape(run["trace"])
    assert [e["type"] for e in run["trace"]] == ["run_start", "tool_call", "tool_result", "agent_output",
                                                 "run_end", "verifier_result"]
    assert run["trace"][1]["input"] == "garbage" and run["trace"][1]["tool"] is None
    assert run["trace"][4]["error"] == "Tool call limit exceeded (1)."
    assert run["result.json"]["toolCalls"] == 1 and run["run.json"]["toolCallCount"] == 1
    assert run["result.json"]["error"] == "Tool call limit exceeded (1)."


def test_trace_text_matches_canonical_writer(tmp_path, make_env_dir, runs_dir):
    tools = '''
from silo_gym import define_tool


def _echo(state, input):
    out = {"text": input.get("text"), "big": 2 ** 70, "n": [1, None, True]}
    if input.get("floats"):
        out.update(neg=-0.0, f=2.5e-7, g=[2.0, 1e21])
    return out


tools = [define_tool(name="echo", description="", input_schema={"type": "object"}, run=_echo)]
'''
    env = RecordRun(SiloEnv("echo", "TASK-001", path=str(make_env_dir(tmp_path, "echo", tools=tools))), runs_dir)
    _, info = env.reset()
    odd = "ctl\x00\x01\x1f\x7f \u2028\u2029 é 😀 \"q\" \\ \ud800 end"
    obs, *_ = env.step({"tool": "echo", "input": {"text": odd, "floats": True}})
    plain, *_ = env.step({"tool": "echo", "input": {"text": odd}})
    env.step({"tool": "echo", "input": {"text": "plain"}})
    env.step({"tool": "echo", "input": {"text": "plain", "floats": True}})
    env.step({"tool": "echo", "input": {"text": 2 ** 70, "n": -(2 ** 65)}})
    env.step({"answer": odd})
    with open(os.path.join(info["run_dir"], "trace.jsonl"), "rb") as fh:
        lines = fh.read().split(b"\n")
    assert lines[-1] == b""
    for line in lines[:-1]:
        event = json.loads(line)
        assert line.decode("utf-8") == dumps_compact(event)
    for text in (obs, plain):
        assert text == dumps_compact(json.loads(text))
        assert "\\ud800" in text and "\u2028" in text
    assert '"big":1180591620717411303424,"n":[1,null,true],"neg":0,"f":2.5e-7,"g":[2,1e+21]' in obs
    assert '"big":1180591620717411303424,"n":[1,null,true]}}' in plain


def test_many_resets_give_unique_run_ids(runs_dir):
    env = RecordRun(SiloEnv("orders", "TASK-001"), runs_dir=runs_dir)
    ids = set()
    for _ in range(150):
        _, info = env.reset()
        ids.add(info["run_id"])
        env.step({"tool": "get_order", "input": {"orderId": "O-1"}})
    unplayed = env.reset()[1]["run_id"]
    env.close()  # the last episode received nothing: discarded, its directory removed
    assert len(ids) == 150
    assert sorted(os.listdir(runs_dir)) == sorted(ids) and unplayed not in ids
    for run_id in ids:
        assert RUN_ID.fullmatch(run_id)
        run = read_run(runs_dir / run_id)
        assert run["files"] == FILES
        assert run["result.json"]["error"] == "Episode abandoned by reset()."


def test_run_dir_collisions_retry_then_give_up(tmp_path, monkeypatch):
    names = iter(["run_20260101000000_aaaa", "run_20260101000000_aaaa", "run_20260101000000_bbbb"])
    monkeypatch.setattr(record_mod, "new_run_id", lambda prefix="run": next(names))
    assert record_mod.create_run_dir(tmp_path)[0] == "run_20260101000000_aaaa"
    assert record_mod.create_run_dir(tmp_path)[0] == "run_20260101000000_bbbb"
    monkeypatch.setattr(record_mod, "new_run_id", lambda prefix="run": "run_20260101000000_aaaa")
    with pytest.raises(FileExistsError):
        record_mod.create_run_dir(tmp_path)


def test_two_processes_racing_into_one_runs_dir(runs_dir):
    script = textwrap.dedent(f"""
        import silo_gym
        from silo_gym import SiloEnv
        from silo_gym.wrappers import RecordRun
        env = RecordRun(SiloEnv("orders", "TASK-001"), runs_dir={str(runs_dir)!r})
        for _ in range(40):
            env.reset()
            env.step({{"answer": "x"}})
        print("ok")
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=subprocess_env()) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    dirs = os.listdir(runs_dir)
    assert len(dirs) == 80 and len(set(dirs)) == 80
    for d in dirs:
        assert sorted(os.listdir(runs_dir / d)) == FILES


def test_spec_rebuilds_the_wrapper_stack(runs_dir):
    env = RecordRun(gym.make(ORDERS, max_tool_calls=5), runs_dir=runs_dir, agent_path="x.py")
    rebuilt = gym.make(env.spec)
    assert isinstance(rebuilt, RecordRun)
    assert rebuilt.runs_dir == env.runs_dir and rebuilt.agent_path == "x.py"
    assert rebuilt.unwrapped.max_tool_calls == 5
    _, info = rebuilt.reset()
    rebuilt.step({"answer": 1})
    assert read_run(info["run_dir"])["run.json"]["config"] == {
        "maxToolCalls": 5, "timeoutMs": 120000, "agentPath": "x.py", "variant": None,
        "siloGymVersion": silo_gym.__version__, "environmentHash": ORDERS_HASH}


def test_run_dir_removed_when_reset_raises(runs_dir):
    env = RecordRun(gym.make(ORDERS), runs_dir=runs_dir)
    with pytest.raises(ValueError):
        env.reset(options={"task_id": "OTHER"})
    assert os.listdir(runs_dir) == []
    _, info = env.reset()
    assert os.listdir(runs_dir) == [info["run_id"]]


def test_relative_runs_dir_is_fixed_at_construction(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = RecordRun(gym.make(ORDERS), runs_dir="rel/runs")
    monkeypatch.chdir("/")
    _, info = env.reset()
    assert info["run_dir"].startswith(str(tmp_path / "rel" / "runs") + os.sep)


def test_default_runs_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = RecordRun(gym.make(ORDERS))
    _, info = env.reset()
    assert info["run_dir"] == str(tmp_path / ".silo" / "runs" / info["run_id"])


def test_record_run_needs_a_silo_env():
    with pytest.raises(TypeError):
        RecordRun(gym.make("CartPole-v1"))


@pytest.mark.parametrize("how", ["reset", "close"])
def test_abandoned_episode_is_recorded_in_full(how, runs_dir):
    env = RecordRun(gym.make(ORDERS), runs_dir=runs_dir, agent_path="agent.py")
    _, info = env.reset()
    env.step(SHIP)
    if how == "reset":
        _, new_info = env.reset()
        assert new_info["run_id"] != info["run_id"]
    else:
        env.close()
    run = read_run(info["run_dir"])
    assert run["files"] == FILES
    check_trace_shape(run["trace"])
    message = f"Episode abandoned by {how}()."
    assert run["result.json"]["terminationReason"] == "agent_error"
    assert run["result.json"]["error"] == message
    assert run["result.json"]["passed"] is True
    assert run["run.json"]["terminationReason"] == "agent_error"
    assert run["run.json"]["config"]["agentPath"] == "agent.py"
    assert run["trace"][-2]["error"] == message


FAILING_VERIFIERS = '''
from silo_gym import check, define_verifier, optional


def _raises(final, initial, context):
    raise KeyError("count")


def _optional_only(final, initial, context):
    return [optional("nice", True)]


def _empty(final, initial, context):
    return []


def _not_a_list(final, initial, context):
    return (check("x", True),)


def _silent(final, initial, context):
    raise RuntimeError()


verifiers = [
    define_verifier(id="V-RAISE", task_id="T-RAISE", name="raises", check=_raises),
    define_verifier(id="V-OPT", task_id="T-OPT", name="optional only", check=_optional_only),
    define_verifier(id="V-EMPTY", task_id="T-EMPTY", name="empty", check=_empty),
    define_verifier(id="V-TUPLE", task_id="T-TUPLE", name="tuple", check=_not_a_list),
    define_verifier(id="V-SILENT", task_id="T-SILENT", name="silent", check=_silent),
]
'''

NO_REQUIRED = 'returned no required checks; a task cannot be graded on optional checks alone.'


@pytest.mark.parametrize(
    ("task_id", "verifier_id", "underlying", "cause"),
    [
        ("T-RAISE", "V-RAISE", "'count'", KeyError),
        ("T-OPT", "V-OPT", f'Verifier "V-OPT" {NO_REQUIRED}', ValueError),
        ("T-EMPTY", "V-EMPTY", f'Verifier "V-EMPTY" {NO_REQUIRED}', ValueError),
        ("T-TUPLE", "V-TUPLE", None, TypeError),
        ("T-SILENT", "V-SILENT", "RuntimeError", RuntimeError),
    ],
)
def test_grading_failure(tmp_path, make_env_dir, runs_dir, task_id, verifier_id, underlying, cause):
    tasks = {f"{t}.json": {"id": t, "title": t, "instruction": "i", "verifierId": v}
             for t, v in (("T-RAISE", "V-RAISE"), ("T-OPT", "V-OPT"), ("T-EMPTY", "V-EMPTY"),
                          ("T-TUPLE", "V-TUPLE"), ("T-SILENT", "V-SILENT"))}
    env_dir = make_env_dir(tmp_path, "failing", verifiers=FAILING_VERIFIERS, tasks=tasks)
    env = RecordRun(SiloEnv("failing", task_id, path=str(env_dir)), runs_dir)
    _, info = env.reset()
    env.step({"tool": "bump"})
    with pytest.raises(VerifierError) as exc:
        env.step({"answer": "done"})
    err = exc.value
    assert err.code == "verifier_failed"
    if underlying is not None:
        assert err.message == f'Verifier "{verifier_id}" failed: {underlying}'
    else:
        assert err.message.startswith(f'Verifier "{verifier_id}" failed: ')
    assert err.details == {"verifierId": verifier_id, "taskId": task_id}
    assert isinstance(err.__cause__, cause)
    run = read_run(info["run_dir"])
    assert run["files"] == ["run.json", "state-diff.json", "trace.jsonl"]
    check_trace_shape(run["trace"])
    assert [e["type"] for e in run["trace"]][-2:] == ["agent_output", "run_end"]
    assert run["state-diff.json"] == {"scalars": [{"field": "count", "from": 0, "to": 1}], "collections": {}}
    assert run["run.json"]["terminationReason"] == "completed" and run["run.json"]["toolCallCount"] == 1
    for call in (lambda: env.step({"answer": 1}), lambda: env.unwrapped.abort("x")):
        with pytest.raises(ResetNeeded) as exc2:
            call()
        assert str(exc2.value) == "The episode has ended; call reset() before step()."
    # The env is usable again after reset.
    _, info2 = env.reset()
    assert info2["run_id"] != info["run_id"]


def test_grading_failure_when_abandoned_by_reset(tmp_path, make_env_dir, runs_dir):
    tasks = {"a.json": {"id": "T-RAISE", "title": "t", "instruction": "i", "verifierId": "V-RAISE"}}
    env_dir = make_env_dir(tmp_path, "failing", verifiers=FAILING_VERIFIERS, tasks=tasks)
    env = RecordRun(SiloEnv("failing", "T-RAISE", path=str(env_dir)), runs_dir)
    _, info = env.reset()
    env.step({"tool": "peek"})  # an episode that received an action is graded when abandoned
    with pytest.raises(VerifierError):
        env.reset()
    assert os.listdir(runs_dir) == [info["run_id"]]  # the new run's directory was removed
    assert read_run(info["run_dir"])["files"] == ["run.json", "state-diff.json", "trace.jsonl"]


def test_model_steps_are_recorded(runs_dir):
    env = RecordRun(gym.make(ORDERS), runs_dir=runs_dir)
    _, info = env.reset()
    log = env.get_wrapper_attr("log_model_step")
    log([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        {"role": "assistant", "content": None, "tool_calls": []}, usage={"prompt_tokens": 3}, latency_ms=1.5,
        api="responses", model="m-1")
    env.step(SHIP)
    log([{"role": "tool", "content": "{}"}], {"role": "assistant", "content": "done"})
    env.step({"answer": "done"})
    trace = read_run(info["run_dir"])["trace"]
    check_trace_shape(trace)
    steps = [e for e in trace if e["type"] == "model_step"]
    assert [e["seq"] for e in steps] == [2, 5]
    assert steps[0] == {**steps[0], "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
                        "reply": {"role": "assistant", "content": None, "tool_calls": []},
                        "usage": {"prompt_tokens": 3}, "latencyMs": 1.5, "api": "responses", "model": "m-1"}
    assert steps[1] == {**steps[1], "usage": None, "latencyMs": None, "api": "chat", "model": None}
    with open(os.path.join(info["run_dir"], "run.json"), encoding="utf-8") as fh:
        assert list(json.load(fh)) == RUN_KEYS  # no key is added for model steps


def test_write_atomic_leaves_no_temporary_file_on_error(tmp_path, monkeypatch):
    target = tmp_path / "result.json"

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(record_mod.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        record_mod.write_atomic(target, b"{}\n")
    assert os.listdir(tmp_path) == []


CUSTOM_VERIFIERS = '''
from silo_gym import check
from silo_gym.verifiers import score_checks


class Custom:
    task_id = "TASK-001"
    name = "custom object"

    def __init__(self, id, mode):
        self.id = id
        self.mode = mode

    def check(self, final, initial, context):
        if self.mode == "raise":
            raise RuntimeError()
        if self.mode == "none":
            return None
        return score_checks(self.id, self.task_id, [check("count is 1", final["count"] == 1)])


verifiers = [Custom("V-RAISE", "raise"), Custom("V-NONE", "none"), Custom("V-OK", "ok")]
'''


@pytest.mark.parametrize(("verifier_id", "message"), [("V-RAISE", 'Verifier "V-RAISE" failed: RuntimeError'),
                                                      ("V-NONE", None), ("V-OK", "")])
def test_verifier_objects_not_made_with_define_verifier(tmp_path, make_env_dir, runs_dir, verifier_id, message):
    tasks = {"a.json": {"id": "TASK-001", "title": "t", "instruction": "i", "verifierId": verifier_id}}
    env_dir = make_env_dir(tmp_path, "custom", verifiers=CUSTOM_VERIFIERS, tasks=tasks)
    env = RecordRun(SiloEnv("custom", "TASK-001", path=str(env_dir)), runs_dir)
    _, info = env.reset()
    env.step({"tool": "bump"})
    if message == "":
        *_, final = env.step({"answer": 1})
        assert final["passed"] is True
        assert read_run(info["run_dir"])["run.json"]["verifierName"] == "custom object"
        return
    with pytest.raises(VerifierError) as exc:
        env.step({"answer": 1})
    assert exc.value.code == "verifier_failed"
    assert exc.value.details == {"verifierId": verifier_id, "taskId": "TASK-001"}
    if message is not None:
        assert exc.value.message == message
    else:
        assert exc.value.message.startswith(f'Verifier "{verifier_id}" failed: ')
        assert exc.value.message != f'Verifier "{verifier_id}" failed: '
    assert read_run(info["run_dir"])["files"] == ["run.json", "state-diff.json", "trace.jsonl"]
    with pytest.raises(ResetNeeded):
        env.step({"answer": 1})
