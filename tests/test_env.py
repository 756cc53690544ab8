"""SiloEnv: the Gymnasium face of one episode (gym-api.md, "One episode", "Episode control")."""

from __future__ import annotations

import json
import os
import warnings

import gymnasium as gym
import numpy as np
import pytest
from conftest import DEFAULT_TASK, ENVS_DIR
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

from silo_gym import RunLimitError, SiloEnv, SiloError
from silo_gym.loader import open_environment
from silo_gym.tools import tool_list
from silo_gym.wrappers import RecordRun

ORDERS = "silo/orders-TASK-001"
SHIP = {"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "express"}}
GET = {"tool": "get_order", "input": {"orderId": "O-1"}}
O1 = '{"id":"O-1","customer":"Ada Lane","status":"pending","carrier":null,"total":42.5}'
STEP_KEYS = ["tool_calls", "tool_errors", "call_id", "tool", "is_error"]
FINAL_KEYS = STEP_KEYS + ["termination_reason", "error", "passed", "reward_components", "required_fraction",
                          "optional_fraction", "result", "state_diff"]
RESET_KEYS = ["environment", "task_id", "title", "variant", "tools", "tool_calls", "max_tool_calls"]
ORDERS_TOOLS = [
    {"name": "get_order", "description": "Read one order by id.",
     "inputSchema": {"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"],
                     "additionalProperties": False}},
    {"name": "ship_order", "description": "Ship a pending order with a carrier.",
     "inputSchema": {"type": "object",
                     "properties": {"orderId": {"type": "string"},
                                    "carrier": {"type": "string", "enum": ["ground", "express"]},
                                    "express": {"type": "boolean"}},
                     "required": ["orderId", "carrier"], "additionalProperties": False}},
    {"name": "explode", "description": "Always fails with a plain exception (for tests).",
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}},
]


def _silo_ids() -> list[str]:
    return sorted(k for k in gym.registry if k.startswith("silo/"))


def _demo_pending(env_id: str) -> bool:
    if not env_id.startswith("silo/demo"):
        return False
    try:
        return not open_environment("demo", fresh=False).module.verifiers
    except SiloError:
        return True


def test_test_environments_are_registered():
    ids = _silo_ids()
    for env_id in ("silo/orders", "silo/orders-TASK-001", "silo/inventory", "silo/inventory-TASK-001"):
        assert env_id in ids


@pytest.mark.parametrize("env_id", _silo_ids())
def test_check_env_passes_without_warnings(env_id):
    if _demo_pending(env_id):
        pytest.fail("environments/demo has no verifiers")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gym.make(env_id)
        check_env(env.unwrapped)
        env.close()
        env = gym.make(env_id)
        obs, info = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        assert (reward, terminated, truncated) == (0.0, False, False)
        obs, reward, terminated, truncated, info = env.step({"answer": "done"})
        assert terminated and not truncated
        env.reset()
        env.step("not json")
        env.close()
    assert [str(w.message) for w in caught] == []


def test_reset_info_and_observation():
    env = gym.make(ORDERS)
    obs, info = env.reset(seed=0)
    assert obs == "Order O-1 is ready. Ship it with the express carrier."
    assert list(info) == RESET_KEYS
    assert info == {
        "environment": "orders",
        "task_id": "TASK-001",
        "title": "Ship an order",
        "variant": None,
        "tools": ORDERS_TOOLS,
        "tool_calls": 0,
        "max_tool_calls": 100,
    }
    assert [list(t) for t in info["tools"]] == [["name", "description", "inputSchema"]] * 3
    assert info["tools"] == tool_list(env.unwrapped.episode.tools)


def test_reset_returns_fresh_objects_each_time():
    env = gym.make(ORDERS, max_tool_calls=7)
    _, a = env.reset()
    a["tools"][0]["inputSchema"]["properties"]["orderId"]["type"] = "integer"
    a["tools"].append({"name": "junk"})
    _, b = env.reset()
    assert b["tools"] == ORDERS_TOOLS
    assert b["max_tool_calls"] == 7
    assert b["tools"] is not a["tools"]
    assert b["tools"][1]["inputSchema"] is not env.unwrapped.episode.tools[1].input_schema
    # The action space was built once and never changes.
    assert env.action_space.contains({"tool": "explode"})
    assert not env.action_space.contains({"tool": "junk"})


def test_full_episode_values():
    env = gym.make(ORDERS)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(GET)
    assert obs == '{"output":' + O1 + "}"
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert type(reward) is float
    assert list(info) == STEP_KEYS
    assert info == {"tool_calls": 1, "tool_errors": 0, "call_id": 1, "tool": "get_order", "is_error": False}
    obs, reward, terminated, truncated, info = env.step(json.dumps(SHIP))
    assert json.loads(obs)["output"]["shipment"] == {"id": "SHP-1", "orderId": "O-1", "carrier": "express"}
    assert info["call_id"] == 2 and info["tool"] == "ship_order"
    obs, reward, terminated, truncated, info = env.step({"answer": "Shipped O-1."})
    assert obs == '{"terminationReason":"completed","error":null}'
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert list(info) == FINAL_KEYS
    assert info["tool_calls"] == 2 and info["tool_errors"] == 0
    assert info["call_id"] == 0 and info["tool"] == "" and info["is_error"] is False
    assert info["termination_reason"] == "completed" and info["error"] is None and info["passed"] is True
    assert list(info["result"]) == [
        "passed", "reward", "requiredPassed", "requiredTotal", "failedRequired", "checksPassed", "checksFailed",
        "toolCalls", "toolErrors", "terminationReason", "agentOutput", "error", "checks"]
    assert info["result"] == {
        "passed": True, "reward": 1, "requiredPassed": 2, "requiredTotal": 2, "failedRequired": [],
        "checksPassed": 3, "checksFailed": 0, "toolCalls": 2, "toolErrors": 0, "terminationReason": "completed",
        "agentOutput": "Shipped O-1.", "error": None,
        "checks": [
            {"label": "O-1 is shipped", "passed": True, "detail": "status = shipped", "required": True},
            {"label": "O-1 went express", "passed": True, "detail": "carrier = express", "required": True},
            {"label": "No other order changed", "passed": True, "detail": "", "required": False},
        ],
    }
    assert info["state_diff"] == {"scalars": [], "collections": {
        "orders": {"added": [], "removed": [], "changed": ["O-1"]},
        "shipments": {"added": ["SHP-1"], "removed": [], "changed": []},
        "sequences": {"added": [], "removed": [], "changed": ["SHP"]},
    }}
    with pytest.raises(ResetNeeded, match=r"^The episode has ended; call reset\(\) before step\(\)\.$"):
        env.step(GET)


def test_final_info_objects_are_fresh():
    env = gym.make(ORDERS)
    env.reset()
    *_, info1 = env.step({"answer": ["a"]})
    info1["result"]["checks"].clear()
    info1["state_diff"]["scalars"].append("junk")
    env.reset()
    *_, info2 = env.step({"answer": ["a"]})
    assert len(info2["result"]["checks"]) == 3
    assert info2["state_diff"] == {"scalars": [], "collections": {}}
    assert info2["result"]["agentOutput"] == ["a"]


@pytest.mark.parametrize(
    ("actions", "fraction", "binary", "passed"),
    [
        ([], 0.33, 0.0, False),
        ([{"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "ground"}}], 0.67, 0.0, False),
        ([SHIP], 1.0, 1.0, True),
    ],
)
def test_reward_modes(actions, fraction, binary, passed):
    for mode, expected in (("fraction", fraction), ("binary", binary)):
        env = gym.make(ORDERS, reward_mode=mode)
        env.reset()
        for action in actions:
            assert env.step(action)[1] == 0.0
        _, reward, _, _, info = env.step({"answer": "ok"})
        assert reward == expected and type(reward) is float
        assert info["passed"] is passed
        assert info["result"]["reward"] == fraction  # the artifacts keep the fraction


def test_constructor_validation():
    with pytest.raises(ValueError):
        SiloEnv("orders", "TASK-001", reward_mode="nope")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SiloEnv("orders", "TASK-001", render_mode="human")
    with pytest.raises(ValueError):
        SiloEnv("orders", "TASK-001", max_tool_calls=-1)
    assert SiloEnv.metadata == {"render_modes": ["ansi"], "render_fps": 1}


def test_render_ansi_transcript():
    env = gym.make(ORDERS, render_mode="ansi")
    env.reset()
    env.step(GET)
    env.step({"tool": "nope"})
    env.step({"answer": "Shipped O-1."})
    text = env.render()
    assert text.splitlines() == [
        "Task TASK-001: Ship an order",
        "Instruction: Order O-1 is ready. Ship it with the express carrier.",
        '[1] get_order {"orderId":"O-1"}',
        '  -> {"output":' + O1 + "}",
        "[2] nope null",
        '  -> {"output":{"code":"tool_not_found","message":"Unknown tool \\"nope\\"."},"isError":true}',
        "Answer: Shipped O-1.",
        "End: completed; passed=false reward=0.33",
    ]
    assert SiloEnv("orders", "TASK-001").render() is None


def _multi_env_dir(tmp_path, make_env_dir, n=5):
    tasks = {f"{i}.json": dict(DEFAULT_TASK, id=f"T-{i}", title=f"Task {i}", instruction=f"Do {i}.")
             for i in range(n)}
    return make_env_dir(tmp_path, "multi", tasks=tasks)


def test_per_environment_env_chooses_tasks(tmp_path, make_env_dir):
    env_dir = _multi_env_dir(tmp_path, make_env_dir)
    env = SiloEnv("multi", path=str(env_dir))
    ids = [t.id for t in env.tasks]
    assert ids == ["T-0", "T-1", "T-2", "T-3", "T-4"]
    obs, info = env.reset(options={"task_id": "T-3"})
    assert (obs, info["task_id"], info["title"]) == ("Do 3.", "T-3", "Task 3")

    def drawn(seed):
        got = [env.reset(seed=seed)[1]["task_id"]]
        got += [env.reset()[1]["task_id"] for _ in range(7)]
        return got

    for seed in (0, 1, 12345):
        rng = np.random.default_rng(seed)
        expected = [ids[int(rng.integers(len(ids)))] for _ in range(8)]
        assert drawn(seed) == expected
        assert drawn(seed) == expected
    assert len(set(drawn(7))) > 1

    with pytest.raises(SiloError) as exc:
        env.reset(options={"task_id": "NOPE"})
    assert exc.value.code == "task_not_found"
    assert exc.value.message == 'Task "NOPE" was not found in multi. Available: T-0, T-1, T-2, T-3, T-4.'
    assert exc.value.details == {"environment": "multi", "taskId": "NOPE",
                                 "available": ["T-0", "T-1", "T-2", "T-3", "T-4"]}


def test_registered_per_environment_env():
    env = gym.make("silo/orders")
    assert env.unwrapped.task_id is None
    _, info = env.reset(options={"task_id": "TASK-001"})
    assert info["task_id"] == "TASK-001"
    _, info = env.reset(seed=5)
    assert info["task_id"] == "TASK-001"


def test_per_task_env_refuses_another_task():
    env = gym.make(ORDERS)
    _, info = env.reset(options={"task_id": "TASK-001"})
    assert info["task_id"] == "TASK-001"
    with pytest.raises(ValueError) as exc:
        env.reset(options={"task_id": "TASK-002"})
    assert str(exc.value) == 'This env is bound to task "TASK-001"; use "silo/orders" to choose a task at reset.'


def test_unknown_task_at_construction():
    with pytest.raises(SiloError) as exc:
        SiloEnv("orders", "TASK-404")
    assert exc.value.code == "task_not_found"
    assert exc.value.message == 'Task "TASK-404" was not found in orders. Available: TASK-001.'


def test_environment_without_tasks(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "empty", tasks={})
    with pytest.raises(SiloError) as exc:
        SiloEnv("empty", path=str(env_dir))
    assert exc.value.code == "task_not_found"
    assert exc.value.message == 'No tasks found in environment "empty". Add a task before running.'


def test_verifier_not_found(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "nover", tasks={"a.json": dict(DEFAULT_TASK, verifierId="VER-404")})
    with pytest.raises(SiloError) as exc:
        SiloEnv("nover", "TASK-001", path=str(env_dir))
    assert exc.value.code == "verifier_not_found"
    assert exc.value.message == 'Verifier "VER-404" for task "TASK-001" was not found.'
    assert exc.value.details == {"verifierId": "VER-404", "taskId": "TASK-001"}


def test_reset_needed_messages():
    env = SiloEnv("orders", "TASK-001")
    for call in (lambda: env.step(GET), lambda: env.abort("x"), lambda: env.finish(None)):
        with pytest.raises(ResetNeeded) as exc:
            call()
        assert str(exc.value) == "Call reset() before step()."
    with pytest.raises(ResetNeeded):
        env.call_tool("get_order", {"orderId": "O-1"})
    env.reset()
    env.abort("policy crashed")
    for call in (lambda: env.step(GET), lambda: env.abort("x"), lambda: env.finish(None)):
        with pytest.raises(ResetNeeded) as exc:
            call()
        assert str(exc.value) == "The episode has ended; call reset() before step()."
    env.reset()
    assert env.step(GET)[0] == '{"output":' + O1 + "}"


def test_abort_ends_as_agent_error_and_grades():
    env = SiloEnv("orders", "TASK-001")
    env.reset()
    env.step(SHIP)
    obs, reward, terminated, truncated, info = env.abort("policy crashed")
    assert obs == '{"terminationReason":"agent_error","error":"policy crashed"}'
    assert (terminated, truncated) == (False, True)
    assert reward == 1.0 and info["passed"] is True  # the verifier ran on the final state
    assert info["termination_reason"] == "agent_error" and info["error"] == "policy crashed"
    assert info["result"]["agentOutput"] is None and info["result"]["toolCalls"] == 1


def test_budget_refuses_call_n_plus_one():
    env = gym.make(ORDERS, max_tool_calls=2)
    env.reset()
    assert env.step(GET)[4]["call_id"] == 1
    assert env.step({"tool": "explode"})[4]["call_id"] == 2
    obs, reward, terminated, truncated, info = env.step(SHIP)
    assert obs == '{"terminationReason":"max_tool_calls","error":"Tool call limit exceeded (2)."}'
    assert (terminated, truncated) == (False, True)
    assert info["tool_calls"] == 2 and info["tool_errors"] == 1
    assert info["result"]["toolCalls"] == 2
    assert info["error"] == "Tool call limit exceeded (2)."
    assert info["call_id"] == 0 and info["tool"] == ""
    # The refused ship_order did not run.
    assert info["state_diff"] == {"scalars": [], "collections": {}}
    assert reward == 0.33


@pytest.mark.parametrize("refused", [GET, "garbage", {"tool": 5}, {"answer": 1, "tool": "x"}])
def test_budget_refuses_invalid_actions_too(refused):
    env = gym.make(ORDERS, max_tool_calls=0)
    env.reset()
    obs, _, terminated, truncated, info = env.step(refused)
    assert obs == '{"terminationReason":"max_tool_calls","error":"Tool call limit exceeded (0)."}'
    assert (terminated, truncated) == (False, True)
    assert info["tool_calls"] == 0 and info["tool_errors"] == 0


def test_answer_after_budget_completes():
    env = gym.make(ORDERS, max_tool_calls=1)
    env.reset()
    env.step(SHIP)
    obs, reward, terminated, truncated, info = env.step({"answer": "done"})
    assert obs == '{"terminationReason":"completed","error":null}'
    assert (terminated, truncated) == (True, False)
    assert reward == 1.0 and info["tool_calls"] == 1


def test_zero_budget_answer_completes():
    env = gym.make(ORDERS, max_tool_calls=0)
    env.reset()
    _, _, terminated, truncated, info = env.step('{"answer": null}')
    assert (terminated, truncated) == (True, False)
    assert info["result"]["agentOutput"] is None and info["termination_reason"] == "completed"


def test_timeout_refuses_and_answer_completes():
    env = gym.make(ORDERS, timeout_ms=0)
    env.reset()
    obs, _, terminated, truncated, info = env.step(GET)
    assert obs == '{"terminationReason":"timeout","error":"Run ended: timeout."}'
    assert (terminated, truncated) == (False, True)
    assert info["tool_calls"] == 0 and info["termination_reason"] == "timeout"
    env.reset()
    obs, _, terminated, truncated, _ = env.step({"answer": "late"})
    assert obs == '{"terminationReason":"completed","error":null}'
    assert (terminated, truncated) == (True, False)


def test_deadline_before_budget():
    env = gym.make(ORDERS, timeout_ms=0, max_tool_calls=0)
    env.reset()
    assert env.step(GET)[4]["termination_reason"] == "timeout"


def test_max_observation_length_replaces_observation_only(tmp_path, make_env_dir, runs_dir):
    env_dir = make_env_dir(tmp_path)
    env = RecordRun(SiloEnv("widgets", "TASK-001", path=str(env_dir), max_observation_length=256), runs_dir)
    env.reset()
    obs, _, _, _, info = env.step({"tool": "big", "input": {"n": 300}})
    assert obs == ('{"output":{"code":"observation_too_large","message":"The tool result is 313 characters long; '
                   'the limit is 256."},"isError":true}')
    assert env.observation_space.contains(obs)
    assert info["is_error"] is False and info["tool_errors"] == 0
    obs, *_ = env.step({"tool": "big", "input": {"n": 243}})
    assert obs == '{"output":"' + "x" * 243 + '"}'  # exactly 256 characters is allowed
    env.step({"answer": "x"})
    lines = [json.loads(x) for x in open(f"{info['run_dir']}/trace.jsonl", encoding="utf-8")]
    results = [e for e in lines if e["type"] == "tool_result"]
    assert results[0]["output"] == "x" * 300 and results[0]["isError"] is False


# -- episode control (gym-api.md, "Episode control and events") -----------------------------------


def test_call_tool_runner_semantics():
    env = SiloEnv("orders", "TASK-001", max_tool_calls=1)
    env.reset()
    assert env.call_tool("get_order", {"orderId": "O-1"}) == {"output": json.loads(O1)}
    with pytest.raises(RunLimitError) as exc:
        env.call_tool("get_order", {"orderId": "O-1"})
    assert (exc.value.reason, exc.value.message) == ("max_tool_calls", "Tool call limit exceeded (1).")
    assert env.episode.signal.is_set()
    with pytest.raises(RunLimitError) as exc:
        env.call_tool("get_order", {"orderId": "O-1"})
    assert (exc.value.reason, str(exc.value)) == ("max_tool_calls", "Run ended: max_tool_calls.")
    assert env.episode.done is False  # the episode stays open until finish
    env.expire()  # the first limit wins
    obs, _, terminated, truncated, info = env.finish("partial")
    assert obs == '{"terminationReason":"max_tool_calls","error":null}'
    assert (terminated, truncated) == (False, True)
    assert info["result"]["agentOutput"] == "partial" and info["tool_calls"] == 1


def test_call_tool_shapes_and_unknown_tools():
    env = SiloEnv("orders", "TASK-001")
    env.reset()
    assert env.call_tool("nope") == {
        "output": {"code": "tool_not_found", "message": 'Unknown tool "nope".'}, "isError": True}
    result = env.call_tool(7)  # type: ignore[arg-type]
    assert result["output"]["code"] == "invalid_action"
    assert result["output"]["message"].startswith('"tool" must be a string, received number. Expected ')
    result = env.call_tool("get_order", [1])  # type: ignore[arg-type]
    assert result["output"]["message"].startswith('"input" must be an object or null, received array. ')
    assert env.episode.tool_calls == 3 and env.episode.tool_errors == 3


def test_expire_then_finish_is_timeout():
    env = SiloEnv("orders", "TASK-001")
    env.reset()
    env.expire()
    with pytest.raises(RunLimitError) as exc:
        env.call_tool("get_order", {"orderId": "O-1"})
    assert (exc.value.reason, exc.value.message) == ("timeout", "Run ended: timeout.")
    obs, _, terminated, truncated, info = env.finish(None)
    assert obs == '{"terminationReason":"timeout","error":null}'
    assert (terminated, truncated) == (False, True)


@pytest.mark.parametrize(
    ("kwargs", "reason", "error"),
    [
        ({}, "completed", None),
        ({"error": "bad"}, "agent_error", "bad"),
        ({"reason": "timeout"}, "timeout", None),
        ({"error": "slow", "reason": "timeout"}, "timeout", "slow"),
        ({"reason": "completed"}, "completed", None),
    ],
)
def test_finish_reason_rules(kwargs, reason, error):
    env = SiloEnv("orders", "TASK-001")
    env.reset()
    obs, _, terminated, truncated, info = env.finish("out", **kwargs)
    assert json.loads(obs) == {"terminationReason": reason, "error": error}
    assert terminated is (reason == "completed") and truncated is (reason != "completed")
    assert info["termination_reason"] == reason and info["error"] == error


def test_listeners_get_consecutive_events_and_end_notification():
    env = SiloEnv("orders", "TASK-001")
    seen: list[dict] = []
    env.add_listener(seen.append, run_id="run_x", agent_path="a.py")
    env.reset()
    env.step(GET)
    env.log_model_step([{"role": "user", "content": "hi"}], {"role": "assistant", "content": "ok"},
                       usage={"total_tokens": 3}, latency_ms=12.5, api="chat", model="m")
    env.step("oops")
    env.step({"answer": "done"})
    events, end = seen[:-1], seen[-1]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events] == [
        "run_start", "tool_call", "tool_result", "model_step", "tool_call", "tool_result", "agent_output",
        "run_end", "verifier_result"]
    assert events[0]["runId"] == "run_x" and events[0]["config"]["agentPath"] == "a.py"
    assert list(events[3]) == ["seq", "type", "at", "messages", "reply", "usage", "latencyMs", "api", "model"]
    assert list(end) == ["type", "result", "stateDiff", "run"]
    assert end["type"] == "episode_end" and end["run"]["runId"] == "run_x"
    assert end["result"]["agentOutput"] == "done"
    # Dropped after its episode: the next episode does not report to it.
    env.reset()
    env.step({"answer": "again"})
    assert len(seen) == len(events) + 1


def test_log_model_step_without_recorder_does_nothing():
    env = gym.make(ORDERS)
    env.reset()
    log = env.get_wrapper_attr("log_model_step")
    assert log([], {"role": "assistant"}) is None
    assert env.unwrapped.episode._seq == 0


def test_reset_abandons_episode_and_grades_it():
    env = SiloEnv("orders", "TASK-001")
    seen: list[dict] = []
    env.add_listener(seen.append)
    env.reset()
    env.step(SHIP)
    env.reset()
    end = seen[-1]
    assert end["type"] == "episode_end"
    assert end["result"]["terminationReason"] == "agent_error"
    assert end["result"]["error"] == "Episode abandoned by reset()."
    assert end["result"]["passed"] is True
    seen.clear()
    env.step(SHIP)
    env.close()  # the fresh episode has no listener; closing still ends it
    assert env.episode.done and env.episode.end.error == "Episode abandoned by close()."
    assert seen == []


def test_close_discards_an_episode_that_received_nothing(runs_dir):
    """A run directory is an episode played: close() neither grades nor records an episode that
    received no action (gym-api.md, amended); one that received any is abandoned and graded."""
    env = RecordRun(SiloEnv("orders", "TASK-001"), runs_dir=runs_dir)
    _, info = env.reset()
    env.close()
    assert env.unwrapped.episode.done and env.unwrapped.episode.end is None
    assert not os.path.exists(info["run_dir"]) and os.listdir(runs_dir) == []
    with pytest.raises(gym.error.ResetNeeded):
        env.step(SHIP)
    # A model turn counts as receiving something.
    env = RecordRun(SiloEnv("orders", "TASK-001"), runs_dir=runs_dir)
    _, info = env.reset()
    env.unwrapped.log_model_step([{"role": "user", "content": "hi"}], {"role": "assistant", "content": "..."})
    env.close()
    assert env.unwrapped.episode.end.error == "Episode abandoned by close()."
    assert sorted(os.listdir(info["run_dir"])) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]


def test_environment_name_as_given_without_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = SiloEnv("ORDERS", "TASK-001")
    _, info = env.reset()
    assert info["environment"] == "ORDERS"  # the name as given (silo-format §6.4)
    assert SiloEnv("orders", "TASK-001", path=str(ENVS_DIR / "orders")).environment_name == "orders"


def test_inventory_answer_is_graded_from_initial_state():
    env = gym.make("silo/inventory-TASK-001")
    env.reset()
    obs, *_ = env.step({"tool": "list_items", "input": {"limit": 0}})
    assert json.loads(obs)["isError"] is True
    assert json.loads(obs)["output"]["code"] == "invalid_input"
    _, reward, terminated, _, info = env.step({"answer": "There are 207 units."})
    assert (reward, terminated, info["passed"]) == (1.0, True, True)
    env.reset()
    _, reward, _, _, info = env.step({"answer": 207})
    assert info["passed"] is True and info["result"]["agentOutput"] == 207
