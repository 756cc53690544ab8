"""``run_endpoint_episode`` / ``arun_endpoint_episode`` against the scripted model server: the
plain chat loop the proxy-based trainers need (docs/training.md)."""

from __future__ import annotations

import asyncio
import json
import pathlib

import gymnasium as gym
import pytest

from silo_gym.llm import RetryPolicy, arun_endpoint_episode, run_endpoint_episode
from silo_gym.wrappers import RecordRun

openai = pytest.importorskip("openai")
FAST = RetryPolicy(initial_delay_s=0.01, max_delay_s=0.5)


def _result(episode) -> dict:
    return json.loads(pathlib.Path(episode.info["run_dir"], "result.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("api", ["chat", "text"])
def test_sync_and_async_play_the_same_episode_with_result_json_s_reward(server, tmp_path, api):
    episodes = []
    for play in ("sync", "async"):
        env = RecordRun(gym.make("silo/demo-TASK-002"), runs_dir=tmp_path / play)
        if play == "sync":
            ep = run_endpoint_episode(env, server.openai_base_url, "m", seed=3, api=api)
        else:
            ep = asyncio.run(arun_endpoint_episode(env, server.openai_base_url, "m", seed=3, api=api))
        env.close()
        episodes.append(ep)
        assert ep.reward == _result(ep)["reward"] == 1.0 and ep.info["result"] == _result(ep)
    assert episodes[0].messages == episodes[1].messages and episodes[0].actions == episodes[1].actions
    for ep in episodes:  # the endpoint's response of each model turn, in order
        assistant = [m for m in ep.messages if m["role"] == "assistant"]
        assert len(ep.completions) == len(assistant) == len(ep.actions)
        mixed = ep.messages_and_choices()
        assert [type(m).__name__ for m in mixed if not isinstance(m, dict)] == ["Choice"] * len(assistant)
        assert [m for m in mixed if isinstance(m, dict)] == [m for m in ep.messages if m["role"] != "assistant"]
        assert (ep.tools is not None) == (api == "chat")
    if api == "chat":
        assert [m["role"] for m in episodes[0].messages[:3]] == ["system", "user", "assistant"]
        assert episodes[0].messages[3]["role"] == "tool"
    else:
        assert "<tool_result>" in episodes[0].messages[3]["content"]


def test_a_malformed_call_reaches_the_env_and_its_error_goes_back(fresh_server, tmp_path):
    server = fresh_server(faults=["malformed@1"])
    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=tmp_path)
    ep = run_endpoint_episode(env, server.openai_base_url, "m", seed=0)
    env.close()
    result = _result(ep)
    assert result["toolErrors"] == 1 and result["reward"] == ep.reward == 1.0
    tool_message = ep.messages[3]
    assert tool_message["role"] == "tool" and json.loads(tool_message["content"])["output"]["code"] == "invalid_action"


def test_a_model_failure_ends_the_episode_graded_and_propagates(fresh_server, tmp_path):
    server = fresh_server(faults=["400@2"])
    env = RecordRun(gym.make("silo/demo-TASK-002"), runs_dir=tmp_path)
    with pytest.raises(openai.BadRequestError):
        asyncio.run(arun_endpoint_episode(env, server.openai_base_url, "m", seed=3, retry=FAST))
    env.close()
    (run,) = tmp_path.iterdir()
    result = json.loads((run / "result.json").read_text(encoding="utf-8"))
    assert result["terminationReason"] == "agent_error" and result["toolCalls"] == 1


def test_a_trainers_client_is_used_and_left_open(server):
    class Counting(openai.OpenAI):
        posts = 0

        def post(self, *args, **kwargs):
            Counting.posts += 1
            return super().post(*args, **kwargs)

    client = Counting(base_url=server.openai_base_url, api_key="session-7", max_retries=0)
    env = gym.make("silo/demo-TASK-001")
    ep = run_endpoint_episode(env, None, "m", client=client, seed=0, temperature=0.0)
    env.close()
    assert ep.reward == 1.0 and Counting.posts == len([m for m in ep.messages if m["role"] == "assistant"])
    assert not client.is_closed()
    client.close()


def test_an_unknown_api_is_refused():
    env = gym.make("silo/demo-TASK-001")
    with pytest.raises(ValueError, match='api must be "chat"'):
        run_endpoint_episode(env, "http://127.0.0.1:9/v1", "m", api="responses")
    env.close()
