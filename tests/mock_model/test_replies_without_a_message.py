"""A model reply that holds no assistant message is a model error, never an empty final answer
(issue 19, item 7): a 200 holding ``{"error": ...}``, no ``choices``, ``choices: []``, a null
``message``, a Responses reply without output, an Anthropic ``"type": "error"``. A transient one is
retried; any other fails the episode, and a collection makes it a failed row with ``reward: None``."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from silo_gym.data import collect
from silo_gym.llm import ChatPolicy, ModelReplyError, RetryPolicy, anthropic_acomplete, openai_acomplete
from silo_gym.llm.formats import normalize_reply
from silo_gym.llm.replies import anthropic_reply, chat_message, responses_output
from silo_gym.llm.retry import is_transient
from silo_gym.wrappers import RecordRun

pytest.importorskip("openai")
FAST = RetryPolicy(initial_delay_s=0.01, max_delay_s=0.05)

NO_MESSAGE = [
    ("error-object", {"error": {"message": "upstream failed", "type": "invalid_request_error", "code": None}}),
    ("error-string", {"error": "model not loaded"}),
    ("no-choices", {"id": "x", "object": "chat.completion"}),
    ("empty-choices", {"id": "x", "choices": []}),
    ("null-message", {"id": "x", "choices": [{"index": 0, "message": None}]}),
    ("choices-not-a-list", {"id": "x", "choices": {"0": {}}}),
]


@pytest.mark.parametrize(("what", "reply"), NO_MESSAGE, ids=[n for n, _ in NO_MESSAGE])
def test_a_chat_reply_without_a_message_raises(what, reply):
    with pytest.raises(ModelReplyError) as caught:
        chat_message(reply)
    assert "model server" in str(caught.value)
    with pytest.raises(ModelReplyError):
        normalize_reply("chat", reply)  # a complete function handing the whole reply on
    assert not is_transient(caught.value)


@pytest.mark.parametrize(("error", "status"), [
    ({"message": "busy", "code": 503}, 503), ({"message": "slow down", "code": "429"}, 429),
    ({"message": "x", "type": "server_error"}, 500), ({"message": "x", "code": "rate_limit_exceeded"}, 429),
    ({"type": "overloaded_error", "message": "x"}, 529),
])
def test_an_error_that_names_a_transient_failure_is_transient(error, status):
    with pytest.raises(ModelReplyError) as caught:
        chat_message({"error": error})
    assert caught.value.status_code == status and is_transient(caught.value)


def test_responses_and_anthropic_replies_without_a_message_raise():
    for reply in ({"id": "r", "output": []}, {"id": "r"}, {"error": {"message": "x"}}):
        with pytest.raises(ModelReplyError):
            responses_output(reply)
    for reply in ({"type": "error", "error": {"type": "overloaded_error", "message": "x"}}, {"role": "assistant"}):
        with pytest.raises(ModelReplyError):
            anthropic_reply(reply)
    assert anthropic_reply({"role": "assistant", "content": []}) == []  # an empty answer is an answer


def _play(policy, runs):
    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=runs)
    try:
        return policy.run_episode(env, seed=0)
    finally:
        env.close()


def _only_run(runs):
    [run] = list(runs.iterdir())
    return json.loads((run / "result.json").read_text())


@pytest.mark.parametrize("lean", [False, True])
def test_an_empty_reply_fails_the_episode_instead_of_grading_it(fresh_server, tmp_path, lean):
    server = fresh_server(faults=["empty@1"])
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=lean), retry=FAST)
    with pytest.raises(ModelReplyError, match="no assistant message"):
        _play(policy, tmp_path)
    result = _only_run(tmp_path)
    assert result["terminationReason"] == "agent_error"  # aborted as the model's failure, not "completed"
    assert "no assistant message" in result["error"]


@pytest.mark.parametrize("lean", [False, True])
def test_an_error_in_a_200_reply_is_retried_when_transient(fresh_server, tmp_path, lean):
    server = fresh_server(faults=["error200@1"])
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=lean), retry=FAST)
    ep = _play(policy, tmp_path)
    assert ep.reward == 1.0 and ep.retries == 1
    assert server.served_faults == [(1, "error200")]


@pytest.mark.parametrize("api", ["responses", "text"])
def test_other_openai_surfaces_refuse_an_empty_reply_too(fresh_server, tmp_path, api):
    from silo_gym.llm import TextProtocolPolicy

    server = fresh_server(faults=["empty@1"])
    if api == "text":
        policy = TextProtocolPolicy(openai_acomplete(server.openai_base_url, "m", api="text", lean=True), retry=FAST)
    else:
        policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", api="responses", lean=True),
                            api="responses", retry=FAST)
    with pytest.raises(ModelReplyError):
        _play(policy, tmp_path)


@pytest.mark.parametrize("lean", [False, True])
def test_anthropic_replies_without_a_message(fresh_server, tmp_path, lean):
    pytest.importorskip("anthropic")
    server = fresh_server(faults=["empty@1", "error200@2"])
    policy = ChatPolicy(anthropic_acomplete("m", base_url=server.anthropic_base_url, lean=lean), api="anthropic",
                        retry=FAST)
    with pytest.raises(ModelReplyError):
        _play(policy, tmp_path / "a")
    ep = _play(policy, tmp_path / "b")  # request 2: a transient error in a 200, retried
    assert ep.reward == 1.0 and ep.retries == 1


def test_a_collection_makes_it_a_failed_row_with_no_reward(fresh_server):
    server = fresh_server(faults=["empty%1"])  # every reply empty
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m", retry=FAST)
    [row] = collect(["silo/demo-TASK-004"], policy, episodes_per_task=1, max_retries=1)
    assert row["reward"] is None and row["passed"] is None
    assert row["error"].startswith("Episode failed after 2 attempt(s): ModelReplyError: ")
