"""The text protocol: parsing replies, and parse failures the model can read and correct."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from silo_gym.llm import TextProtocolPolicy, parse_reply
from silo_gym.llm.text_protocol import render_tools

from ._scripted import ensure_test_env

SHIP = {"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "express"}}


@pytest.mark.parametrize(("text", "expected"), [
    ('<tool_call>{"tool": "get_order", "input": {"orderId": "O-1"}}</tool_call>',
     [{"tool": "get_order", "input": {"orderId": "O-1"}}]),
    ('Sure.\n<tool_call>\n{"name": "get_order", "arguments": {"orderId": "O-1"}}\n</tool_call>',
     [{"tool": "get_order", "input": {"orderId": "O-1"}}]),
    ('<tool_call>{"name": "get_order", "arguments": "{\\"orderId\\": \\"O-1\\"}"}</tool_call>',
     [{"tool": "get_order", "input": {"orderId": "O-1"}}]),
    ('<tool_call>{"tool": "a"}</tool_call> and <tool_call>{"tool": "b", "input": {}}</tool_call>',
     [{"tool": "a"}, {"tool": "b", "input": {}}]),
    ('<tool_call>{"tool": "get_order", "input": {"orderId": "O-1"}}',  # unclosed: runs to the end
     [{"tool": "get_order", "input": {"orderId": "O-1"}}]),
    ('```json\n{"tool": "get_order", "input": {"orderId": "O-1"}}\n```',
     [{"tool": "get_order", "input": {"orderId": "O-1"}}]),
    ('```\n{"tool": "x"}\n```', [{"tool": "x"}]),
    ("<tool_call>{'tool': 'x'}</tool_call>", ["{'tool': 'x'}"]),  # not JSON: stepped as text
    ("<tool_call>[1, 2]</tool_call>", ["[1, 2]"]),  # not an object
    ("<tool_call></tool_call>", [""]),
    ('```json\n{"tool": "x", \n```', ['{"tool": "x",']),  # broken fenced JSON is a failed call
    ('<tool_call>{"answer": "42"}</tool_call>', [{"answer": "42"}]),
    ('<tool_call>{"tool": "x", "extra": 1}</tool_call>', [{"tool": "x", "extra": 1}]),
])
def test_parse_reply_calls(text, expected):
    assert parse_reply(text) == expected


@pytest.mark.parametrize("text", [
    "The answer is 42.",
    "",
    'Here is the data:\n```json\n{"total": 42}\n```',  # fenced JSON that is not a call
    "```python\nprint(1)\n```",
])
def test_parse_reply_answers(text):
    assert parse_reply(text) is None


def test_render_tools_lists_every_tool():
    text = render_tools([{"name": "t", "description": "Does t.", "inputSchema": {"type": "object"}}])
    assert "### t" in text and "Does t." in text and 'Input schema: {"type":"object"}' in text


@pytest.fixture
def env():
    ensure_test_env("orders")
    e = gym.make("silo/orders-TASK-001")
    yield e
    e.close()


def test_parse_failure_is_an_invalid_action_the_model_corrects(env):
    replies = [
        "<tool_call>{tool: ship_order}</tool_call>",
        f"<tool_call>{json.dumps(SHIP)}</tool_call>",
        "  Shipped O-1 express.  ",
    ]
    seen = []

    def model(messages):
        seen.append(messages)
        return replies.pop(0)

    ep = TextProtocolPolicy(model, model="m").run_episode(env, seed=0)
    assert ep.actions == ["{tool: ship_order}", SHIP, {"answer": "Shipped O-1 express."}]
    error = json.loads(ep.observations[0])
    assert error["isError"] is True and error["output"]["code"] == "invalid_action"
    assert error["output"]["message"].startswith("The action is not valid JSON.")
    # the model read the error in the next prompt
    assert seen[1][-1] == {"role": "user", "content": f"<tool_result>\n{ep.observations[0]}\n</tool_result>"}
    assert ep.reward == 1.0 and ep.info["tool_errors"] == 1
    system = seen[0][0]["content"]
    assert "<tool_call>" in system and "ship_order" in system and '"carrier"' in system
    assert seen[0][1] == {"role": "user", "content": "Order O-1 is ready. Ship it with the express carrier."}


def test_several_calls_per_reply_and_truncation(env):
    call = '<tool_call>{"tool": "get_order", "input": {"orderId": "O-1"}}</tool_call>'
    env = gym.make("silo/orders-TASK-001", max_tool_calls=3)
    ep = TextProtocolPolicy(lambda messages: call * 2).run_episode(env, seed=0)
    assert ep.truncated and ep.info["termination_reason"] == "max_tool_calls"
    assert len(ep.actions) == 4
    assert ep.messages[-1]["content"].count("<tool_result>") == 2
    env.close()


def test_reply_forms(env):
    ep = TextProtocolPolicy(lambda m: {"role": "assistant", "content": "done"}).run_episode(env, seed=0)
    assert ep.actions == [{"answer": "done"}] and ep.api == "text"
