"""Tool schemas and tool-call / tool-result converters for the three provider formats."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from silo_gym.llm import (
    action_to_anthropic_tool_use,
    action_to_chat_tool_call,
    action_to_responses_call,
    anthropic_tool_result,
    anthropic_tool_use_to_action,
    chat_tool_call_to_action,
    chat_tool_result,
    responses_call_to_action,
    responses_tool_result,
    split_anthropic_system,
    to_anthropic_tools,
    to_chat_messages,
    to_openai_chat_tools,
    to_openai_responses_tools,
)
from silo_gym.llm.formats import normalize_reply, reply_text, reply_tool_calls

from ._scripted import ensure_test_env


@pytest.fixture(scope="module")
def tools():
    ensure_test_env("orders")
    env = gym.make("silo/orders-TASK-001")
    _, info = env.reset(seed=0)
    env.close()
    return info["tools"]


def test_chat_tools_shape(tools):
    out = to_openai_chat_tools(tools)
    assert [t["function"]["name"] for t in out] == [t["name"] for t in tools]
    for converted, tool in zip(out, tools, strict=True):
        assert converted == {"type": "function", "function": {
            "name": tool["name"], "description": tool["description"], "parameters": tool["inputSchema"]}}


def test_responses_tools_shape(tools):
    out = to_openai_responses_tools(tools)
    for converted, tool in zip(out, tools, strict=True):
        assert converted == {"type": "function", "name": tool["name"], "description": tool["description"],
                             "parameters": tool["inputSchema"], "strict": False}


def test_anthropic_tools_shape(tools):
    out = to_anthropic_tools(tools)
    for converted, tool in zip(out, tools, strict=True):
        assert converted == {"name": tool["name"], "description": tool["description"],
                             "input_schema": tool["inputSchema"]}


@pytest.mark.parametrize("convert", [to_openai_chat_tools, to_openai_responses_tools, to_anthropic_tools])
def test_tool_schemas_are_fresh_copies(tools, convert):
    before = json.dumps(tools)
    out = convert(tools)
    schema = out[0]["function"]["parameters"] if "function" in out[0] else (
        out[0].get("parameters") or out[0].get("input_schema"))
    schema["properties"]["mutated"] = {"type": "string"}
    assert json.dumps(tools) == before


ACTIONS = [
    {"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "express"}},
    {"tool": "get_order", "input": {"orderId": "Ünïcode \"quoted\" \\ back"}},
    {"tool": "explode", "input": {}},
    {"tool": "ship_order", "input": {"nested": {"list": [1, 2.5, None, True]}}},
]

ROUND_TRIPS = {
    "chat": (action_to_chat_tool_call, chat_tool_call_to_action),
    "responses": (action_to_responses_call, responses_call_to_action),
    "anthropic": (action_to_anthropic_tool_use, anthropic_tool_use_to_action),
}


@pytest.mark.parametrize("api", list(ROUND_TRIPS))
@pytest.mark.parametrize("action", ACTIONS)
def test_action_round_trip(api, action):
    to_call, to_action = ROUND_TRIPS[api]
    call = to_call(action, "call_9")
    assert to_action(json.loads(json.dumps(call))) == action


@pytest.mark.parametrize("api", list(ROUND_TRIPS))
def test_round_trip_keeps_the_call_id(api):
    to_call, _ = ROUND_TRIPS[api]
    call = to_call(ACTIONS[0], "abc")
    ref = {"chat": "id", "responses": "call_id", "anthropic": "id"}[api]
    assert call[ref] == "abc"


def test_malformed_chat_arguments_are_kept_raw():
    def call(arguments):
        return {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": arguments}}

    assert chat_tool_call_to_action(call('{"orderId": "O-1"')) == {"tool": "get_order", "input": '{"orderId": "O-1"'}
    assert chat_tool_call_to_action(call("[1, 2]")) == {"tool": "get_order", "input": "[1, 2]"}
    assert chat_tool_call_to_action(call("NaN")) == {"tool": "get_order", "input": "NaN"}
    assert chat_tool_call_to_action(call('{"a": 1} trailing')) == {"tool": "get_order", "input": '{"a": 1} trailing'}
    assert chat_tool_call_to_action(call("")) == {"tool": "get_order", "input": {}}
    assert chat_tool_call_to_action(call(None)) == {"tool": "get_order", "input": {}}
    # a malformed call survives the round trip unchanged
    action = {"tool": "get_order", "input": "{oops"}
    assert chat_tool_call_to_action(action_to_chat_tool_call(action, "x")) == action


def test_anthropic_input_that_is_not_an_object_is_kept():
    block = {"type": "tool_use", "id": "t1", "name": "get_order", "input": [1]}
    assert anthropic_tool_use_to_action(block) == {"tool": "get_order", "input": [1]}
    block = {"type": "tool_use", "id": "t1", "name": "get_order", "input": '{"orderId": "O-1"}'}
    assert anthropic_tool_use_to_action(block) == {"tool": "get_order", "input": {"orderId": "O-1"}}


def test_tool_results_keep_the_call_id():
    ok = '{"output":{"id":"O-1"}}'
    err = '{"output":{"code":"not_found","message":"x"},"isError":true}'
    assert chat_tool_result("call_3", ok) == {"role": "tool", "tool_call_id": "call_3", "content": ok}
    assert responses_tool_result("call_3", ok) == {"type": "function_call_output", "call_id": "call_3", "output": ok}
    assert anthropic_tool_result("toolu_1", ok) == {"type": "tool_result", "tool_use_id": "toolu_1", "content": ok}
    assert anthropic_tool_result("toolu_1", err) == {"type": "tool_result", "tool_use_id": "toolu_1",
                                                     "content": err, "is_error": True}


def test_sdk_like_objects_are_accepted():
    class Function:
        name = "get_order"
        arguments = '{"orderId": "O-1"}'

    class Call:
        id = "c1"
        type = "function"
        function = Function()

    assert chat_tool_call_to_action(Call()) == {"tool": "get_order", "input": {"orderId": "O-1"}}


def test_normalize_chat_reply_variants():
    whole = {"id": "chatcmpl-1", "choices": [{"message": {"role": "assistant", "content": [
        {"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]}}]}
    assert normalize_reply("chat", whole) == {"role": "assistant", "content": "Hello"}
    assert normalize_reply("chat", "plain") == {"role": "assistant", "content": "plain"}
    reply = normalize_reply("chat", {"role": "assistant", "content": None, "reasoning_content": "hmm",
                                     "tool_calls": [{"type": "function",
                                                     "function": {"name": "x", "arguments": {"a": 1}}}]})
    assert reply == {"role": "assistant", "content": None,
                     "tool_calls": [{"type": "function", "function": {"name": "x", "arguments": '{"a":1}'}}]}
    assert [r.action for r in reply_tool_calls("chat", reply)] == [{"tool": "x", "input": {"a": 1}}]
    assert reply_text("chat", {"role": "assistant", "content": None}) == ""


def test_split_anthropic_system():
    system, rest = split_anthropic_system([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}])
    assert system == "S" and rest == [{"role": "user", "content": "U"}]


def test_to_chat_messages_from_responses_and_anthropic():
    obs = '{"output":{"id":"O-1"}}'
    responses = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "get_order", "arguments": '{"orderId":"O-1"}'},
        {"type": "function_call", "call_id": "c2", "name": "explode", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": obs},
        {"type": "function_call_output", "call_id": "c2", "output": obs},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
    ]
    expected = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": '{"orderId":"O-1"}'}},
            {"id": "c2", "type": "function", "function": {"name": "explode", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": obs},
        {"role": "tool", "tool_call_id": "c2", "content": obs},
        {"role": "assistant", "content": "Done."},
    ]
    assert to_chat_messages(responses, "responses") == expected
    anthropic = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "get_order", "input": {"orderId": "O-1"}},
            {"type": "tool_use", "id": "c2", "name": "explode", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": obs},
            {"type": "tool_result", "tool_use_id": "c2", "content": obs}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]
    assert to_chat_messages(anthropic, "anthropic") == expected
