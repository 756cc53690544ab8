"""The ``openai`` and ``anthropic`` adapters (sync, async and lean) against the scripted server with
the real SDKs: every demo task is solved, and every path gives the same conversation."""

from __future__ import annotations

import asyncio

import gymnasium as gym
import pytest

from silo_gym.llm import (
    ChatPolicy,
    TextProtocolPolicy,
    anthropic_acomplete,
    anthropic_complete,
    openai_acomplete,
    openai_complete,
)

pytest.importorskip("openai")
pytest.importorskip("anthropic")

TASKS = [f"silo/demo-TASK-00{n}" for n in range(1, 7)]


def _policies(server):
    o, a = server.openai_base_url, server.anthropic_base_url
    return {
        ("chat", "sync"): ChatPolicy(openai_complete(o, "m"), model="m"),
        ("chat", "async"): ChatPolicy(openai_acomplete(o, "m"), model="m"),
        ("chat", "lean"): ChatPolicy(openai_acomplete(o, "m", lean=True), model="m"),
        ("responses", "sync"): ChatPolicy(openai_complete(o, "m", api="responses"), api="responses"),
        ("responses", "async"): ChatPolicy(openai_acomplete(o, "m", api="responses"), api="responses"),
        ("responses", "lean"): ChatPolicy(openai_acomplete(o, "m", api="responses", lean=True), api="responses"),
        ("anthropic", "sync"): ChatPolicy(anthropic_complete("m", base_url=a), api="anthropic"),
        ("anthropic", "async"): ChatPolicy(anthropic_acomplete("m", base_url=a), api="anthropic"),
        ("anthropic", "lean"): ChatPolicy(anthropic_acomplete("m", base_url=a, lean=True), api="anthropic"),
        ("text", "sync"): TextProtocolPolicy(openai_complete(o, "m", api="text")),
        ("text", "async"): TextProtocolPolicy(openai_acomplete(o, "m", api="text")),
        ("text", "lean"): TextProtocolPolicy(openai_acomplete(o, "m", api="text", lean=True)),
    }


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "text"])
def test_every_client_path_solves_every_task_with_the_same_conversation(server, api):
    policies = _policies(server)
    for env_id in TASKS:
        episodes = {}
        for path in ("sync", "async", "lean"):
            env = gym.make(env_id)
            episodes[path] = policies[(api, path)].run_episode(env, seed=0)
            env.close()
        for path, ep in episodes.items():
            assert ep.reward == 1.0 and ep.terminated, (env_id, path, ep.info["error"])
            assert ep.retries == 0
        assert episodes["async"].messages == episodes["sync"].messages == episodes["lean"].messages, env_id
        assert episodes["async"].actions == episodes["sync"].actions == episodes["lean"].actions


def test_usage_and_model_reach_the_trace(server, tmp_path):
    import json

    from silo_gym.wrappers import RecordRun

    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=tmp_path)
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "asked", lean=True))
    ep = policy.run_episode(env, seed=0)
    env.close()
    steps = [json.loads(line) for line in open(f"{ep.info['run_dir']}/trace.jsonl") if '"model_step"' in line]
    assert len(steps) == 2
    assert steps[0]["model"] == "silo-mock"  # the name the server reported
    assert steps[0]["usage"]["prompt_tokens"] > 1000  # the tool list went out with the request
    assert all(s["latencyMs"] >= 5 for s in steps)  # the server's latency is in the measurement


def test_async_clients_serve_episodes_concurrently(server):
    async def main():
        policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m"))
        envs = [gym.make(TASKS[i % 6]) for i in range(12)]
        try:
            return await asyncio.gather(*(policy.arun_episode(env, seed=0) for env in envs))
        finally:
            await policy.aclose()
            for env in envs:
                env.close()

    episodes = asyncio.run(main())
    assert [ep.reward for ep in episodes] == [1.0] * 12
