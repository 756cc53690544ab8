"""The ChatPolicy loop: history, several calls per turn, ids, answers, and garbage that never
crashes it."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from silo_gym.llm import ChatPolicy, ModelReply, RetryPolicy

from ._scripted import ensure_test_env

SHIP = {"orderId": "O-1", "carrier": "express"}


@pytest.fixture
def orders():
    ensure_test_env("orders")
    made = []

    def make(**kwargs):
        env = gym.make("silo/orders-TASK-001", **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()


def call(name, arguments, call_id=None):
    entry = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        entry["id"] = call_id
    return entry


def assistant(*calls, content=None):
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return message


class Script:
    """A scripted model: returns its replies in order and records what it was given."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.seen = []

    def __call__(self, messages, tools):
        self.seen.append((messages, tools))
        reply = self.replies.pop(0)
        return reply(messages) if callable(reply) else reply


def test_several_calls_in_one_turn_are_consecutive_steps(orders):
    model = Script(
        assistant(call("get_order", '{"orderId": "O-1"}', "a"), call("ship_order", json.dumps(SHIP), "b")),
        assistant(content="Shipped O-1."),
    )
    ep = ChatPolicy(model).run_episode(orders(), seed=0)
    assert ep.reward == 1.0 and ep.terminated and not ep.truncated
    assert ep.actions == [{"tool": "get_order", "input": {"orderId": "O-1"}}, {"tool": "ship_order", "input": SHIP},
                          {"answer": "Shipped O-1."}]
    roles = [m["role"] for m in ep.messages]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert [ep.messages[3]["tool_call_id"], ep.messages[4]["tool_call_id"]] == ["a", "b"]
    assert ep.messages[3]["content"] == ep.observations[0]
    assert ep.info["tool_calls"] == 2 and ep.info["result"]["agentOutput"] == "Shipped O-1."


def test_history_is_append_only_and_prompt_uses_only_observation_and_tools(orders):
    model = Script(
        assistant(call("get_order", '{"orderId": "O-1"}', "a")),
        assistant(call("ship_order", json.dumps(SHIP), "b")),
        assistant(content="done"),
    )
    env = orders()
    ep = ChatPolicy(model, system_prompt="SYS").run_episode(env, seed=0)
    first, tools = model.seen[0]
    assert first == [{"role": "system", "content": "SYS"},
                     {"role": "user", "content": "Order O-1 is ready. Ship it with the express carrier."}]
    assert "Ship an order" not in json.dumps(first)  # the title is not shown
    assert [t["function"]["name"] for t in tools] == ["get_order", "ship_order", "explode"]
    for (earlier, _), (later, _) in zip(model.seen, model.seen[1:], strict=False):
        assert later[: len(earlier)] == earlier
    assert ep.messages[: len(model.seen[-1][0])] == model.seen[-1][0]
    assert ep.prompt == first


def test_system_prompt_empty_sends_no_system_message(orders):
    model = Script(assistant(content="x"))
    ep = ChatPolicy(model, system_prompt="").run_episode(orders(), seed=0)
    assert [m["role"] for m in model.seen[0][0]] == ["user"]
    assert ep.prompt_length == 1


def test_invalid_json_arguments_and_unknown_tool_are_error_observations(orders):
    model = Script(
        assistant(call("get_order", '{"orderId": "O-1"', "a"), call("warp_drive", "{}", "b"),
                  call("get_order", "[1, 2]", "c")),
        assistant(call("ship_order", json.dumps(SHIP), "d")),
        assistant(content="ok"),
    )
    ep = ChatPolicy(model).run_episode(orders(), seed=0)
    assert ep.actions[0] == {"tool": "get_order", "input": '{"orderId": "O-1"'}
    first = json.loads(ep.observations[0])
    assert first["isError"] is True and first["output"]["code"] == "invalid_action"
    assert first["output"]["message"].startswith('"input" must be an object or null, received string.')
    assert json.loads(ep.observations[1])["output"] == {"code": "tool_not_found", "message": 'Unknown tool "warp_drive".'}
    assert json.loads(ep.observations[2])["output"]["code"] == "invalid_action"
    # the model saw the errors as the tool results of its calls
    seen = model.seen[1][0]
    assert [m["content"] for m in seen if m["role"] == "tool"] == ep.observations[:3]
    assert ep.info["tool_calls"] == 4 and ep.info["tool_errors"] == 3
    assert ep.reward == 1.0


def test_garbage_counts_against_the_budget(orders):
    model = Script(
        assistant(call("get_order", "not json", "a")),
        assistant(call("nope", "{}", "b")),
        assistant(call("get_order", "{{", "c")),
        assistant(content="never reached"),
    )
    ep = ChatPolicy(model).run_episode(orders(max_tool_calls=2), seed=0)
    assert ep.truncated and not ep.terminated
    assert ep.info["termination_reason"] == "max_tool_calls"
    assert ep.info["error"] == "Tool call limit exceeded (2)."
    assert ep.info["tool_calls"] == 2 and ep.info["tool_errors"] == 2
    assert len(model.replies) == 1  # the loop stopped at the env's end
    # the refused call's result is the final observation
    assert ep.messages[-1] == {"role": "tool", "tool_call_id": "c", "content": ep.observations[-1]}
    assert json.loads(ep.observations[-1]) == {"terminationReason": "max_tool_calls",
                                               "error": "Tool call limit exceeded (2)."}


def test_calls_without_id_run_as_call_n(orders):
    model = Script(
        assistant(call("get_order", '{"orderId": "O-1"}', "given")),
        assistant(call("get_order", '{"orderId": "O-1"}'), call("ship_order", json.dumps(SHIP))),
        assistant(content="done"),
    )
    ep = ChatPolicy(model).run_episode(orders(), seed=0)
    turn = ep.messages[4]
    assert [c["id"] for c in turn["tool_calls"]] == ["call_2", "call_3"]
    assert list(turn["tool_calls"][0]) == ["id", "type", "function"]
    assert [m["tool_call_id"] for m in ep.messages if m["role"] == "tool"] == ["given", "call_2", "call_3"]
    assert ep.reward == 1.0


@pytest.mark.parametrize("content", [None, ""])
def test_empty_message_is_the_final_answer_empty_string(orders, content):
    ep = ChatPolicy(Script({"role": "assistant", "content": content})).run_episode(orders(), seed=0)
    assert ep.actions == [{"answer": ""}]
    assert ep.terminated and ep.info["result"]["agentOutput"] == ""
    assert ep.reward == pytest.approx(0.33)  # only the optional "no other order changed" check


def test_model_that_never_stops_is_truncated_at_max_tool_calls(orders):
    turns = []

    def forever(messages, tools):
        turns.append(1)
        return assistant(call("get_order", '{"orderId": "O-1"}'))

    ep = ChatPolicy(forever).run_episode(orders(max_tool_calls=5), seed=0)
    assert ep.truncated and not ep.terminated
    assert ep.info["termination_reason"] == "max_tool_calls"
    assert len(turns) == 6 and len(ep.actions) == 6
    assert ep.info["tool_calls"] == 5
    assert ep.messages[-1]["tool_call_id"] == "call_6"  # the refused call's would-be id


def test_truncation_mid_turn_drops_the_rest_of_the_turn(orders):
    model = Script(assistant(*(call("get_order", '{"orderId": "O-1"}') for _ in range(4))))
    ep = ChatPolicy(model).run_episode(orders(max_tool_calls=2), seed=0)
    assert ep.truncated and len(ep.actions) == 3
    assert [m["tool_call_id"] for m in ep.messages if m["role"] == "tool"] == ["call_1", "call_2", "call_3"]


def test_model_exception_aborts_the_episode_and_propagates(orders):
    calls = []

    def broken(messages, tools):
        calls.append(1)
        raise ConnectionError("server down")

    env = orders()
    # A connection error is transient: retried (a fast policy here; the default backs off for
    # about 24 s in all), then it propagates and the episode ends as agent_error.
    with pytest.raises(ConnectionError):
        ChatPolicy(broken, retry=RetryPolicy(max_retries=2, initial_delay_s=0.001)).run_episode(env, seed=0)
    assert len(calls) == 3
    episode = env.unwrapped.episode
    assert episode.done and episode.end.reason == "agent_error" and episode.end.error == "server down"


def test_a_permanent_model_exception_is_not_retried(orders):
    calls = []

    def broken(messages, tools):
        calls.append(1)
        raise ValueError("bad request")

    env = orders()
    with pytest.raises(ValueError):
        ChatPolicy(broken).run_episode(env, seed=0)  # the default policy: nothing to wait for
    assert len(calls) == 1
    assert env.unwrapped.episode.end.reason == "agent_error"


def test_model_reply_wrapper_and_sdk_style_message(orders):
    class Message:
        def __init__(self, data):
            self.data = data

        def model_dump(self, exclude_none=False):
            return self.data

    model = Script(ModelReply(Message(assistant(content="hi")), usage={"total_tokens": 3}, model="m"))
    ep = ChatPolicy(model).run_episode(orders(), seed=0)
    assert ep.actions == [{"answer": "hi"}]


def test_anthropic_results_of_a_turn_share_one_user_message(orders):
    def model(messages, tools):
        if len(messages) == 2:
            return {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "get_order", "input": {"orderId": "missing"}},
                {"type": "tool_use", "name": "ship_order", "input": SHIP}]}
        return {"role": "assistant", "content": []}

    ep = ChatPolicy(model, api="anthropic").run_episode(orders(), seed=0)
    user = ep.messages[3]
    assert user["role"] == "user" and [b["tool_use_id"] for b in user["content"]] == ["t1", "call_2"]
    assert user["content"][0]["is_error"] is True and "is_error" not in user["content"][1]
    assert ep.messages[2]["content"][1]["id"] == "call_2"
    assert ep.actions[-1] == {"answer": ""} and ep.reward == 1.0


def test_responses_history_and_answer(orders):
    def model(items, tools):
        if not any(i.get("type") == "function_call_output" for i in items):
            return {"output": [{"type": "reasoning", "id": "rs_1", "summary": []},
                               {"type": "function_call", "name": "ship_order", "arguments": json.dumps(SHIP)}]}
        return [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Shipped."}]}]

    ep = ChatPolicy(model, api="responses").run_episode(orders(), seed=0)
    assert [i.get("type", i.get("role")) for i in ep.messages] == [
        "system", "user", "reasoning", "function_call", "function_call_output", "message"]
    assert ep.messages[3]["call_id"] == ep.messages[4]["call_id"] == "call_1"
    assert ep.actions[-1] == {"answer": "Shipped."} and ep.reward == 1.0


def test_bad_api_is_rejected():
    with pytest.raises(ValueError):
        ChatPolicy(lambda m, t: None, api="text")


def test_the_tool_list_is_converted_without_copying_the_episodes_own(orders):
    # The converted list is cached by the tools' JSON; the episode's copy of info["tools"] stays
    # pending (not made) unless someone reads it, and reading it still gives a fresh list.
    model = Script(assistant(content="a"), assistant(content="b"))
    policy = ChatPolicy(model)
    one = policy.run_episode(orders(), seed=0)
    two = policy.run_episode(orders(), seed=1)
    assert model.seen[0][1] is model.seen[1][1]  # converted once
    assert [t["function"]["name"] for t in model.seen[1][1]] == ["get_order", "ship_order", "explode"]
    assert one.reset_info.tools_json() is not None  # never made
    tools = one.reset_info["tools"]
    assert [t["name"] for t in tools] == ["get_order", "ship_order", "explode"]
    assert one.reset_info.tools_json() is None and tools is not two.reset_info["tools"]


def test_a_prompt_override_receives_the_tool_list(orders):
    seen = []

    class Listing(ChatPolicy):
        def prompt(self, observation, tools):
            seen.append([t["name"] for t in tools])
            return super().prompt(observation, tools)

    Listing(Script(assistant(content="x"))).run_episode(orders(), seed=0)
    assert seen == [["get_order", "ship_order", "explode"]]


def test_a_provider_tools_override_is_used(orders):
    class OnlyReads(ChatPolicy):
        def provider_tools(self, tools):
            return super().provider_tools([t for t in tools if t["name"] == "get_order"])

    model = Script(assistant(content="x"))
    OnlyReads(model).run_episode(orders(), seed=0)
    assert [t["function"]["name"] for t in model.seen[0][1]] == ["get_order"]
