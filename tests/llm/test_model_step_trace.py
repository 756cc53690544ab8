"""Under RecordRun, each model turn is a ``model_step`` trace event (silo-format §6.5)."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

from silo_gym.llm import ChatPolicy, ModelReply, TextProtocolPolicy
from silo_gym.wrappers import RecordRun

from ._scripted import PLANNERS, plan_text

MODEL_STEP_KEYS = ["seq", "type", "at", "messages", "reply", "usage", "latencyMs", "api", "model"]
RUN_JSON_KEYS = ["runId", "environment", "taskId", "task", "verifierId", "verifierName", "config", "startedAt",
                 "finishedAt", "durationMs", "terminationReason", "toolCallCount"]


def _policy(api):
    if api == "text":
        return TextProtocolPolicy(plan_text, model="scripted-7b")
    return ChatPolicy(PLANNERS[api], api=api, model="scripted-7b")


def _trace(run_dir):
    return [json.loads(line) for line in (Path(run_dir) / "trace.jsonl").read_text("utf-8").splitlines()]


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "text"])
def test_model_steps_between_tool_events(tmp_path, api):
    env = RecordRun(gym.make("silo/demo-TASK-002"), runs_dir=tmp_path)
    ep = _policy(api).run_episode(env, seed=0)
    env.close()
    assert ep.reward == 1.0
    run_dir = ep.info["run_dir"]
    events = _trace(run_dir)
    types = [e["type"] for e in events]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    # run_start, then per turn: model_step followed by that turn's call pairs; then the end events
    calls = ep.info["tool_calls"]
    expected = ["run_start"]
    for _ in range(calls):
        expected += ["model_step", "tool_call", "tool_result"]
    expected += ["model_step", "agent_output", "run_end", "verifier_result"]
    assert types == expected
    steps = [e for e in events if e["type"] == "model_step"]
    for step in steps:
        assert list(step) == MODEL_STEP_KEYS
        assert step["api"] == api and step["model"] == "scripted-7b"
        assert step["usage"] is None and isinstance(step["latencyMs"], (int, float))
    # the first holds the whole prompt; later ones the messages added since the previous turn
    assert steps[0]["messages"] == json.loads(json.dumps(ep.messages[: ep.prompt_length]))
    rebuilt = []
    for step in steps:
        rebuilt += step["messages"]
        rebuilt += step["reply"] if api == "responses" else [step["reply"]]
    assert rebuilt == json.loads(json.dumps(ep.messages))
    run = json.loads((Path(run_dir) / "run.json").read_text("utf-8"))
    assert list(run) == RUN_JSON_KEYS
    assert run["terminationReason"] == "completed"


def test_usage_and_model_from_model_reply(tmp_path):
    def model(messages, tools):
        return ModelReply({"role": "assistant", "content": "x"}, usage={"prompt_tokens": 12, "completion_tokens": 1},
                          model="served-name", latency_ms=42.5)

    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=tmp_path)
    ep = ChatPolicy(model, model="asked-name").run_episode(env, seed=0)
    env.close()
    step = next(e for e in _trace(ep.info["run_dir"]) if e["type"] == "model_step")
    assert step["usage"] == {"prompt_tokens": 12, "completion_tokens": 1}
    assert step["model"] == "served-name" and step["latencyMs"] == 42.5


def test_without_record_run_nothing_is_logged():
    env = gym.make("silo/demo-TASK-004")
    ep = ChatPolicy(PLANNERS["chat"]).run_episode(env, seed=0)
    assert ep.reward == 1.0 and "run_id" not in ep.info
    env.close()


def test_aborted_model_is_recorded_as_agent_error(tmp_path):
    turns = []

    def flaky(messages, tools):
        turns.append(1)
        if len(turns) == 2:
            raise TimeoutError("model timed out")
        return PLANNERS["chat"](messages, tools)

    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=tmp_path)
    with pytest.raises(TimeoutError):  # transient, but retries are switched off
        ChatPolicy(flaky, retry=None).run_episode(env, seed=0)
    run_dir = env.run_dir
    env.close()
    result = json.loads((Path(run_dir) / "result.json").read_text("utf-8"))
    assert result["terminationReason"] == "agent_error" and result["error"] == "model timed out"
    assert [e["type"] for e in _trace(run_dir)][:4] == ["run_start", "model_step", "tool_call", "tool_result"]


def test_usage_and_model_from_a_whole_provider_response(tmp_path):
    def model(messages, tools):
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "No."}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 30, "output_tokens": 2}}

    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=tmp_path)
    ep = ChatPolicy(model, api="anthropic").run_episode(env, seed=0)
    env.close()
    assert ep.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "No."}]}
    step = next(e for e in _trace(ep.info["run_dir"]) if e["type"] == "model_step")
    assert step["usage"] == {"input_tokens": 30, "output_tokens": 2} and step["model"] == "claude-test"
    assert step["reply"] == ep.messages[-1]
