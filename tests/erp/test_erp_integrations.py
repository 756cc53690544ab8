"""Everything that takes an environment works on the ERP world unchanged: the LLM tool formats
(185 tools within the providers' name rules; more than OpenAI's 128-tool cap, so a subset is what
such a provider gets), a scripted model solving tasks through the policy loops, vector envs, the
per-environment env and ``data.collect``."""

from __future__ import annotations

import json
import re

import gymnasium as gym
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

PROVIDER_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
GEMINI_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.-]{0,63}")
OPENAI_MAX_TOOLS = 128


@pytest.fixture(scope="module")
def tools():
    env = gym.make("silo/erp-TASK-001")
    _, info = env.reset(seed=0)
    env.close()
    return info["tools"]


def test_tool_list_and_provider_rules(tools):
    assert len(tools) == 185 > OPENAI_MAX_TOOLS  # README: bind a subset for capped providers
    assert len({t["name"] for t in tools}) == 185
    for tool in tools:
        assert PROVIDER_NAME.fullmatch(tool["name"]) and GEMINI_NAME.fullmatch(tool["name"])
        assert 0 < len(tool["description"]) <= 1024, tool["name"]
        schema = tool["inputSchema"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert isinstance(schema["required"], list)
    chat, responses, anthropic = (
        to_openai_chat_tools(tools),
        to_openai_responses_tools(tools),
        to_anthropic_tools(tools),
    )
    assert (
        [t["function"]["name"] for t in chat]
        == [t["name"] for t in responses]
        == [t["name"] for t in anthropic]
    )
    assert [t["name"] for t in anthropic] == [t["name"] for t in tools]
    # A capped provider gets a subset: one task's tools, from the solver's own plan.
    subset = [
        t for t in chat if t["function"]["name"] in {"get_vendor_invoice", "update_vendor_invoice_line"}
    ]
    assert len(subset) == 2 and len(json.dumps(chat)) > len(json.dumps(subset))


@pytest.fixture
def erp_planners(monkeypatch):
    """The LLM tests' scripted models, replaying the ERP solver instead of the CRM one."""
    from llm import _scripted

    monkeypatch.setattr(_scripted, "load_solver", load_solver)
    return _scripted


@pytest.mark.parametrize("api", ["chat", "anthropic", "text"])
def test_a_scripted_model_solves_an_erp_task_in_every_format(erp_planners, api):
    env = gym.make("silo/erp-TASK-012")
    if api == "text":
        policy = TextProtocolPolicy(erp_planners.plan_text, model="scripted")
    else:
        policy = ChatPolicy(erp_planners.PLANNERS[api], api=api, model="scripted")
    episode = policy.run_episode(env, seed=0)
    env.close()
    assert episode.reward == 1.0 and episode.info["passed"] is True and episode.info["tool_errors"] == 0


def test_multi_task_vector_env():
    solver = load_solver()
    envs = silo_gym.make_vec(["silo/erp-TASK-003", "silo/erp-TASK-014", "silo/erp-TASK-016"])
    try:
        observations, infos = envs.reset(seed=0)
        assert list(infos["task_id"]) == ["TASK-003", "TASK-014", "TASK-016"]
        policies = [solver.make_policy() for _ in range(3)]
        rewards: list[float | None] = [None] * 3
        infos_i: list[dict] = [{} for _ in range(3)]
        for _ in range(20):
            actions = [
                policies[i](observations[i], infos_i[i]) if rewards[i] is None else {"answer": "done"}
                for i in range(3)
            ]
            observations, reward, terminated, truncated, infos = envs.step(actions)
            for i in range(3):
                if rewards[i] is None and (terminated[i] or truncated[i]):
                    rewards[i] = float(reward[i])
                elif rewards[i] is None:
                    infos_i[i] = {"call_id": int(infos["call_id"][i])}
            if all(r is not None for r in rewards):
                break
        assert rewards == [1.0, 1.0, 1.0]
    finally:
        envs.close()


def test_per_environment_env_draws_tasks():
    env = gym.make("silo/erp")
    seen = {env.reset(seed=seed)[1]["task_id"] for seed in range(12)}
    env.close()
    assert seen <= set(TASK_IDS) and len(seen) >= 6


def test_collect_rows_for_the_solver_and_a_random_policy(tmp_path):
    rows = data.collect(
        ["silo/erp"], f"{SOLVER_PATH}:make_policy", episodes_per_task=1, seed=0, runs_dir=tmp_path / "runs"
    )
    assert [r["task_id"] for r in rows] == TASK_IDS
    assert all(r["reward"] == 1 and r["passed"] for r in rows)
    assert len(list((tmp_path / "runs").iterdir())) == 18
    random_rows = data.collect(["silo/erp-TASK-013"], "random", episodes_per_task=2, seed=0)
    assert len(random_rows) == 2 and all(r["reward"] < 1 for r in random_rows)
