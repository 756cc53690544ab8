"""SkyRL: silo ids in skyrl_gym's registry, built with skyrl_gym's own ``make`` and driven with
scripted model text in silo_gym's text protocol (what SkyRL's generator does with a model)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym")
from silo_gym.integrations import skyrl as silo_skyrl  # noqa: E402
from silo_gym.llm.text_protocol import TEXT_PROTOCOL_INTRO  # noqa: E402

from ._helpers import load_solver  # noqa: E402


def _reply(action: dict[str, Any]) -> str:
    if "answer" in action:
        return str(action["answer"])
    return f"Let me look.\n<tool_call>{json.dumps(action)}</tool_call>"


def _play(env: Any, prompt: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """A scripted model: the reference solver's plan, reading results from the conversation."""
    history, _ = env.init(prompt)
    plan = load_solver().plan(history[-1]["content"])
    action = next(plan)
    outputs = []
    while True:
        out = env.step(_reply(action))
        outputs.append(out)
        if out["done"]:
            return history, outputs
        assert out["reward"] == 0.0 and len(out["observations"]) == 1
        message = out["observations"][0]
        history = history + [{"role": "assistant", "content": _reply(action)}, message]
        body = message["content"].split("<tool_result>\n", 1)[1].rsplit("\n</tool_result>", 1)[0]
        action = plan.send(json.loads(body))


def test_every_silo_id_is_in_skyrl_gyms_registry() -> None:
    assert "silo/demo" in skyrl_gym.registry and "silo/demo-TASK-003" in skyrl_gym.registry
    assert silo_skyrl.register(["silo/demo"]) == []  # already there: left alone


def test_a_scripted_episode_through_skyrl_make(tmp_path: pathlib.Path) -> None:
    rows = silo_skyrl.dataset("silo/demo-TASK-002", seed=3)
    row = rows[0]
    assert row["env_class"] == "silo/demo" and row["task_id"] == "TASK-002"
    assert row["prompt"][0]["content"].startswith(TEXT_PROTOCOL_INTRO) and "reassign_opportunity" in row["prompt"][0]["content"]
    extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")} | {"max_turns": 10}
    env = skyrl_gym.make(row["env_class"], env_config={"runs_dir": str(tmp_path), "max_tool_calls": 20}, extras=extras)
    history, outputs = _play(env, row["prompt"])
    assert history[: len(row["prompt"])] == row["prompt"]  # the data set prompt is kept as it is
    final = outputs[-1]
    result_path = pathlib.Path(final["metadata"]["run_dir"], "result.json")
    result = json.loads(result_path.read_text(encoding="utf-8"))
    assert final["reward"] == result["reward"] == 1.0 and final["observations"] == []
    assert final["metadata"]["result"] == result and final["metadata"]["termination_reason"] == "completed"
    assert len(outputs) == 4 and result["toolCalls"] == 3
    assert env.get_metrics() == {"tool_calls": 3, "tool_errors": 0, "reward": 1, "passed": 1.0}
    env.close()


def test_an_empty_prompt_gets_the_text_protocol_prompt_and_bad_text_is_counted(tmp_path: pathlib.Path) -> None:
    env = skyrl_gym.make("silo/demo-TASK-004", env_config={"runs_dir": str(tmp_path)}, extras={"max_turns": 2})
    history, meta = env.init([])
    assert history[0]["role"] == "system" and history[1]["content"].startswith("Amara wants")
    assert meta["task_id"] == "TASK-004"
    out = env.step("<tool_call>{not json</tool_call>")
    assert not out["done"] and "invalid_action" in out["observations"][0]["content"]
    out = env.step('<tool_call>{"tool": "forecast_report", "input": {"includeClosed": "no"}}</tool_call>')
    # max_turns reached without an answer: the episode ends, graded, as agent_error
    assert out["done"] and out["metadata"]["termination_reason"] == "agent_error"
    trace = [json.loads(line) for line in
             pathlib.Path(out["metadata"]["run_dir"], "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    results = [e for e in trace if e["type"] == "tool_result"]
    assert [r["output"]["code"] for r in results] == ["invalid_action", "invalid_input"]
    assert out["reward"] == out["metadata"]["result"]["reward"] and out["metadata"]["result"]["toolCalls"] == 2
    env.close()


def test_a_per_environment_id_needs_a_task_id() -> None:
    with pytest.raises(ValueError, match="task_id"):
        skyrl_gym.make("silo/demo", env_config={}, extras={})


def test_every_trajectory_of_a_row_starts_from_its_world() -> None:
    rows = silo_skyrl.dataset("silo/project-TASK-003", repeats=2, seed=11, variants=True)
    assert [sorted(r) for r in rows] == [["env_class", "prompt", "seed", "task_id", "variant"]] * 2
    starts = []
    for row in rows:
        extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
        seen = []
        for _ in range(3):  # n_samples_per_prompt trajectories, each with its own env
            env = skyrl_gym.make(row["env_class"], env_config={"variants": True}, extras=extras)
            history, meta = env.init(row["prompt"])
            seen.append((history[-1]["content"], meta["variant"],
                         json.dumps(env.env.unwrapped.episode.state, sort_keys=True)))
            env.close()
        assert seen[0] == seen[1] == seen[2] and seen[0][1] == row["variant"]
        starts.append(seen[0])
    assert starts[0][0] != starts[1][0] and starts[0][2] != starts[1][2]
    # a row whose variant is null plays the canonical world, even on a variant env config
    env = skyrl_gym.make("silo/project", env_config={"variants": True},
                         extras={"task_id": "TASK-003", "seed": 5, "variant": None})
    assert env.init([])[1]["variant"] is None
    env.close()


def test_the_last_step_carries_the_reward_components() -> None:
    env = skyrl_gym.make("silo/demo-TASK-006", env_config={}, extras={"max_turns": 3})
    env.init([])
    out = env.step("Nobody.")
    assert out["done"]
    meta = out["metadata"]
    assert meta["reward_components"]["The answer does not name the deactivated rep"] == {"passed": True,
                                                                                         "required": True}
    assert meta["required_fraction"] == 1 / 3 and meta["optional_fraction"] == 1.0
    assert out["reward"] == meta["result"]["reward"]
    env.close()


def test_a_shaped_turn_sums_its_steps() -> None:
    import gymnasium as gym

    probe = gym.make("silo/demo", reward_mode="shaped", disable_env_checker=True)
    start = probe.reset(options={"task_id": "TASK-002"})[1]["potential"]
    probe.close()
    env = skyrl_gym.make("silo/demo-TASK-002", env_config={"reward_mode": "shaped"}, extras={"max_turns": 9})
    history, _ = env.init([])
    plan = load_solver().plan(history[-1]["content"])
    action = next(plan)
    read = '<tool_call>{"tool": "get_current_date", "input": {}}</tool_call>'
    total = 0.0
    while True:
        # each turn: the solver's call, then a read that changes nothing: the turn's progress is
        # in its first step, so it counts only if the turn adds up its steps
        out = env.step(_reply(action) + ("" if "answer" in action else read))
        total += out["reward"]
        if out["done"]:
            break
        body = out["observations"][0]["content"].split("<tool_result>\n", 1)[1].split("\n</tool_result>", 1)[0]
        action = plan.send(json.loads(body))
    assert out["metadata"]["result"]["reward"] == 1.0 and start < 1.0
    assert total == pytest.approx(1.0 - start, abs=1e-12)
    env.close()
