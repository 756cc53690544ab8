"""Everything that takes an environment works on the project world unchanged: the LLM tool formats
(54 tools within the providers' name rules and counts, and a scripted model solving tasks through
the policy loops), vector envs (including variant worlds per sub-env) and ``data.collect``."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import numpy as np
import pytest

import silo_gym
from silo_gym import data
from silo_gym.llm import (
    ChatPolicy,
    TextProtocolPolicy,
    to_anthropic_tools,
    to_openai_chat_tools,
    to_openai_responses_tools,
)

from . import SOLVER_PATH, TASK_IDS, load_solver

#: OpenAI and Anthropic accept function names matching this, and OpenAI at most 128 tools.
PROVIDER_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: Gemini's stricter rule: a letter or underscore first, then letters, digits, "_", "." or "-".
GEMINI_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.-]{0,63}")
MAX_TOOLS = 128


@pytest.fixture(scope="module")
def tools():
    env = gym.make("silo/project-TASK-001")
    _, info = env.reset(seed=0)
    env.close()
    return info["tools"]


def test_tool_list_fits_every_provider(tools):
    assert len(tools) == 54 <= MAX_TOOLS
    for tool in tools:
        assert PROVIDER_NAME.fullmatch(tool["name"]) and GEMINI_NAME.fullmatch(tool["name"])
        assert 0 < len(tool["description"]) <= 1024
        assert tool["inputSchema"]["type"] == "object"
    chat, responses, anthropic = (to_openai_chat_tools(tools), to_openai_responses_tools(tools),
                                  to_anthropic_tools(tools))
    assert [t["function"]["name"] for t in chat] == [t["name"] for t in responses] == [
        t["name"] for t in anthropic] == [t["name"] for t in tools]
    assert all(t["function"]["parameters"] == tool["inputSchema"] for t, tool in zip(chat, tools, strict=True))
    # the whole list is plain JSON, small enough to send with every request
    assert len(json.dumps(chat)) < 60_000


@pytest.fixture
def project_planners(monkeypatch):
    """The LLM tests' scripted models, replaying the project solver instead of the CRM one."""
    from llm import _scripted

    monkeypatch.setattr(_scripted, "load_solver", load_solver)
    return _scripted


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "text"])
@pytest.mark.parametrize("task_id", ["TASK-004", "TASK-012"])
def test_a_scripted_model_solves_project_tasks_in_every_format(project_planners, api, task_id):
    env = gym.make(f"silo/project-{task_id}")
    if api == "text":
        policy = TextProtocolPolicy(project_planners.plan_text, model="scripted")
    else:
        policy = ChatPolicy(project_planners.PLANNERS[api], api=api, model="scripted")
    episode = policy.run_episode(env, seed=0)
    env.close()
    assert episode.reward == 1.0 and episode.info["passed"] is True and episode.info["tool_errors"] == 0


def _solve_vector(envs, policies, observations, steps: int = 20):
    """Step every sub-env with its own solver policy until each finished one episode."""
    n = len(policies)
    rewards: list[float | None] = [None] * n
    infos_i: list[dict] = [{} for _ in range(n)]
    for _ in range(steps):
        actions = [policies[i](observations[i], infos_i[i]) if rewards[i] is None else {"answer": "done"}
                   for i in range(n)]
        observations, reward, terminated, truncated, infos = envs.step(actions)
        for i in range(n):
            if rewards[i] is not None:
                continue
            if terminated[i] or truncated[i]:
                rewards[i] = float(reward[i])
            else:
                infos_i[i] = {"call_id": int(infos["call_id"][i])}
        if all(r is not None for r in rewards):
            return rewards
    raise AssertionError(f"episodes did not finish: {rewards}")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_env_with_variant_worlds(mode):
    solver = load_solver()
    kwargs = {"vectorization_mode": mode}
    if mode == "async":
        kwargs["vector_kwargs"] = {"shared_memory": False}
    envs = gym.make_vec("silo/project-TASK-003", num_envs=2, variants=True, **kwargs)
    try:
        observations, infos = envs.reset(seed=7)
        assert all("Devon Ito" in o for o in observations) and observations[0] != observations[1]
        variants = list(infos["variant"])
        assert all(isinstance(v, (int, np.integer)) and v >= 0 for v in variants)
        rewards = _solve_vector(envs, [solver.make_policy(), solver.make_policy()], observations)
        assert rewards == [1.0, 1.0]
    finally:
        envs.close()
    # the same seed draws the same variants again
    again = gym.make_vec("silo/project-TASK-003", num_envs=2, variants=True, vectorization_mode="sync")
    assert list(again.reset(seed=7)[1]["variant"]) == variants
    again.close()


def test_multi_task_vector_env():
    solver = load_solver()
    envs = silo_gym.make_vec(["silo/project-TASK-001", "silo/project-TASK-014", "silo/project-TASK-007"])
    try:
        observations, infos = envs.reset(seed=0, options={"variant": [None, 3, 11]})
        assert list(infos["task_id"]) == ["TASK-001", "TASK-014", "TASK-007"]
        assert list(infos["variant"]) == [None, 3, 11]
        rewards = _solve_vector(envs, [solver.make_policy() for _ in range(3)], observations)
        assert rewards == [1.0, 1.0, 1.0]
    finally:
        envs.close()


def test_per_environment_env_draws_tasks():
    env = gym.make("silo/project")
    seen = set()
    for seed in range(12):
        _, info = env.reset(seed=seed)
        seen.add(info["task_id"])
    env.close()
    assert seen <= set(TASK_IDS) and len(seen) >= 6


def test_collect_rows_for_the_solver_and_a_random_policy(tmp_path):
    rows = data.collect(["silo/project"], f"{SOLVER_PATH}:make_policy", episodes_per_task=1, seed=0,
                        runs_dir=tmp_path / "runs")
    assert [r["task_id"] for r in rows] == TASK_IDS
    assert all(r["reward"] == 1 and r["passed"] for r in rows)
    assert len(list((tmp_path / "runs").iterdir())) == 15
    random_rows = data.collect(["silo/project-TASK-013", "silo/project-TASK-008"], "random", episodes_per_task=2,
                               seed=0)
    assert len(random_rows) == 4 and all(r["reward"] < 1 for r in random_rows)
    variant_rows = data.collect(["silo/project-TASK-010"], f"{SOLVER_PATH}:make_policy", episodes_per_task=3,
                                seed=1, env_kwargs={"variants": True})
    assert all(r["reward"] == 1 for r in variant_rows)
    assert len({r["prompt"][-1]["content"] for r in variant_rows}) == 3  # three different worlds
