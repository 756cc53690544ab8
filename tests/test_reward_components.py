"""Reward components on the ending step (issue 21): the checks as named parts that sum back to
Silo's reward under its rounding rule, in every reward mode, on both shipped worlds."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

import silo_gym  # noqa: F401
from silo_gym.components import component_fields, components_reward, reward_components
from silo_gym.env import SiloEnv
from silo_gym.rounding import round2
from silo_gym.verifiers import check, optional

DEMO_TASKS = [f"TASK-00{n}" for n in range(1, 7)]
PROJECT_TASKS = [f"TASK-{n:03d}" for n in range(1, 16)]
ALL = [("demo", t) for t in DEMO_TASKS] + [("project", t) for t in PROJECT_TASKS]


def _random_episode(env: gym.Env[Any, Any], seed: int, calls: int, answer: str) -> dict[str, Any]:
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(calls):
        _, _, terminated, truncated, info = env.step(env.action_space.sample())
        if terminated or truncated:
            return info
    return env.step({"answer": answer})[4]


def _assert_components(info: dict[str, Any]) -> None:
    result = info["result"]
    components = info["reward_components"]
    assert list(components) == [c["label"] for c in result["checks"]]  # the shipped worlds repeat no label
    assert [(p["passed"], p["required"]) for p in components.values()] == \
        [(c["passed"], c["required"]) for c in result["checks"]]
    assert components_reward(components) == result["reward"]  # exactly, under round2
    required = [p for p in components.values() if p["required"]]
    optional_parts = [p for p in components.values() if not p["required"]]
    assert info["required_fraction"] == result["requiredPassed"] / result["requiredTotal"]
    assert info["required_fraction"] == sum(p["passed"] for p in required) / len(required)
    expected_optional = sum(p["passed"] for p in optional_parts) / len(optional_parts) if optional_parts else 1.0
    assert info["optional_fraction"] == expected_optional
    assert info["passed"] is result["passed"] is (info["required_fraction"] == 1.0)


@pytest.mark.parametrize(("world", "task"), ALL)
def test_components_sum_back_to_the_reward_on_random_episodes(world: str, task: str) -> None:
    env = gym.make(f"silo/{world}-{task}", variants=True, disable_env_checker=True)
    for seed in range(4):
        info = _random_episode(env, seed, calls=seed + 1, answer=["", "42", "done", "Ada Lane 3"][seed])
        _assert_components(info)
    env.close()


@pytest.mark.parametrize("world", ["demo", "project"])
def test_components_of_the_reference_solver_all_pass(world: str) -> None:
    from silo_gym import data

    solver = f"examples/agents/{'crm' if world == 'demo' else 'project'}_solver.py:make_policy"
    rows = data.collect(f"silo/{world}", solver, episodes_per_task=1)
    for row in rows:
        assert row["passed"] and row["required_fraction"] == 1.0
        assert components_reward(row["reward_components"]) == row["reward"]
        assert all(p["passed"] for p in row["reward_components"].values() if p["required"])


def test_a_repeated_label_gets_a_number_and_the_parts_still_add_up() -> None:
    checks = [check("x", True), check("x", False), optional("x", True), check("x #2", True), optional("y", False)]
    parts = reward_components(checks)
    assert list(parts) == ["x", "x #2", "x #3", "x #2 #2", "y"]
    assert [p["passed"] for p in parts.values()] == [True, False, True, True, False]
    assert components_reward(parts) == round2(3 / 5) == 0.6
    fields = component_fields([c.to_json() for c in checks])  # the JSON form reads the same
    assert fields["reward_components"] == parts
    assert fields["required_fraction"] == 2 / 3 and fields["optional_fraction"] == 0.5


def test_rounding_follows_silo_not_python() -> None:
    checks = [check("a", True)] + [optional(f"o{i}", False) for i in range(7)]  # 1/8: 0.125 rounds up
    assert components_reward(reward_components(checks)) == 0.13 != round(1 / 8, 2)
    assert component_fields([check("only", False)])["optional_fraction"] == 1.0
    with pytest.raises(ValueError, match="no reward components"):
        components_reward({})


def test_the_final_info_is_fresh_and_the_artifacts_unchanged(make_env_dir: Any, tmp_path: Any) -> None:
    env_dir = make_env_dir(tmp_path)
    env = SiloEnv("widgets", "TASK-001", path=str(env_dir))
    env.reset(seed=0)
    env.step({"tool": "bump", "input": {}})
    info = env.step({"answer": "ok"})[4]
    assert info["reward_components"] == {"count is 1": {"passed": True, "required": True},
                                         "label kept": {"passed": True, "required": False}}
    assert (info["required_fraction"], info["optional_fraction"]) == (1.0, 1.0)
    assert list(info["result"]) == ["passed", "reward", "requiredPassed", "requiredTotal", "failedRequired",
                                    "checksPassed", "checksFailed", "toolCalls", "toolErrors", "terminationReason",
                                    "agentOutput", "error", "checks"]
    info["reward_components"]["count is 1"]["passed"] = False
    env.reset(seed=0)
    env.step({"tool": "bump", "input": {}})
    again = env.step({"answer": "ok"})[4]
    assert again["reward_components"]["count is 1"]["passed"] is True
    assert json.dumps(again["result"]) == json.dumps(info["result"])


def test_steps_before_the_end_carry_no_components() -> None:
    env = gym.make("silo/demo-TASK-001", disable_env_checker=True)
    env.reset(seed=0)
    info = env.step({"tool": "get_current_date", "input": {}})[4]
    assert set(info) == {"tool_calls", "tool_errors", "call_id", "tool", "is_error"}
