"""The scripted server's faults, and what a policy makes of them: 429/5xx retried and counted,
other statuses failing at once, malformed calls corrected, bad fault rules refused."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from silo_gym.llm import ChatPolicy, ModelHTTPError, RetryPolicy, anthropic_acomplete, openai_acomplete
from silo_gym.mock_model import parse_fault
from silo_gym.wrappers import RecordRun

pytest.importorskip("openai")
FAST = RetryPolicy(initial_delay_s=0.01, max_delay_s=1.0)


def _play(policy, env_id="silo/demo-TASK-004", runs=None):
    env = gym.make(env_id)
    if runs is not None:
        env = RecordRun(env, runs_dir=runs)
    try:
        return policy.run_episode(env, seed=0)
    finally:
        env.close()


@pytest.mark.parametrize("lean", [False, True])
def test_429_then_success_is_retried_and_counted(fresh_server, lean):
    server = fresh_server(faults=["429@1", "503@3"], retry_after_s=0.2)
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=lean), retry=FAST)
    ep = _play(policy)
    assert ep.reward == 1.0 and ep.retries == 2
    assert server.requests == 4  # 2 turns + 2 retries
    assert server.served_faults == [(1, "429"), (3, "503")]


def test_retry_after_is_honoured(fresh_server):
    import time

    server = fresh_server(faults=["429@1"], retry_after_s=0.4)
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), retry=FAST)
    t0 = time.perf_counter()
    ep = _play(policy)
    assert ep.retries == 1 and time.perf_counter() - t0 >= 0.4  # not the 0.01 s backoff


def test_anthropic_route_errors_are_retried_too(fresh_server):
    pytest.importorskip("anthropic")
    server = fresh_server(faults=["500@1"])
    policy = ChatPolicy(anthropic_acomplete("m", base_url=server.anthropic_base_url), api="anthropic", retry=FAST)
    ep = _play(policy)
    assert ep.reward == 1.0 and ep.retries == 1


@pytest.mark.parametrize("lean", [False, True])
def test_400_fails_at_once_and_aborts_the_episode(fresh_server, tmp_path, lean):
    import openai

    server = fresh_server(faults=["400@1"])
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=lean), retry=FAST)
    with pytest.raises(ModelHTTPError if lean else openai.BadRequestError) as caught:
        _play(policy, runs=tmp_path)
    assert server.requests == 1  # never retried
    assert "Scripted 400 on request 1" in str(caught.value)
    (run,) = tmp_path.iterdir()
    result = json.loads((run / "result.json").read_text())
    assert result["terminationReason"] == "agent_error" and "400" in result["error"]


def test_retries_run_out(fresh_server):
    server = fresh_server(faults=["500@1-10"])
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True),
                        retry=RetryPolicy(max_retries=2, initial_delay_s=0.01))
    with pytest.raises(ModelHTTPError, match="HTTP 500"):
        _play(policy)
    assert server.requests == 3


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic"])
def test_malformed_tool_call_is_an_invalid_action_the_model_corrects(fresh_server, api):
    server = fresh_server(faults=["malformed@1"])
    if api == "anthropic":
        complete = anthropic_acomplete("m", base_url=server.anthropic_base_url, lean=True)
    else:
        complete = openai_acomplete(server.openai_base_url, "m", api=api, lean=True)
    ep = _play(ChatPolicy(complete, api=api))
    assert ep.reward == 1.0
    assert ep.info["tool_errors"] == 1 and ep.info["tool_calls"] == 2
    assert isinstance(ep.actions[0]["input"], str)  # stepped as the raw text
    assert json.loads(ep.observations[0])["output"]["code"] == "invalid_action"
    assert ep.actions[1] == {"tool": "forecast_report", "input": {}}


@pytest.mark.parametrize(("rule", "message"), [
    ("429", "a fault is KIND@N"), ("hang@0", "whole numbers from 1"), ("teapot@1", "a fault is KIND@N"),
    ("418x@1", "a fault is KIND@N"), ("hang%2", "between 0 and 1"), ("500@3-1", "whole numbers from 1"),
])
def test_bad_fault_rules(rule, message):
    with pytest.raises(ValueError, match=message):
        parse_fault(rule)


def test_fault_rules():
    rule = parse_fault("503@2,5-7")
    assert rule.kind == "503" and rule.status == 503 and rule.requests == {2, 5, 6, 7}
    assert parse_fault("malformed%0.25").probability == 0.25
