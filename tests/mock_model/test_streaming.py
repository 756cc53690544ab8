"""``"stream": true`` Chat Completions: the same reply as Server-Sent Events, which the OpenAI SDK
reads back (verifiers' chat loop always streams)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from conftest import REPO_ROOT

openai = pytest.importorskip("openai")

TOOLS = [{"type": "function", "function": {"name": "search_leads", "parameters": {"type": "object"}}}]


def _events(server: Any, body: dict[str, Any]) -> list[Any]:
    request = urllib.request.Request(f"{server.openai_base_url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        text = response.read().decode()
    lines = [line[len("data: "):] for line in text.split("\n\n") if line.startswith("data: ")]
    return [line if line == "[DONE]" else json.loads(line) for line in lines]


def test_a_streamed_tool_call_and_its_usage_chunk(server: Any) -> None:
    instruction = json.loads((REPO_ROOT / "environments" / "demo" / "tasks" / "TASK-001.json").read_text())["instruction"]
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True}, "tools": TOOLS,
            "messages": [{"role": "user", "content": instruction}]}
    events = _events(server, body)
    assert events[-1] == "[DONE]"
    first, finish, usage = events[:-1]
    (call,) = first["choices"][0]["delta"]["tool_calls"]
    assert call["index"] == 0 and call["id"] == "call_1" and call["function"]["name"] == "search_leads"
    assert finish["choices"][0]["finish_reason"] == "tool_calls" and finish["choices"][0]["delta"] == {}
    assert usage["choices"] == [] and usage["usage"]["total_tokens"] > 0
    unstreamed = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{server.openai_base_url}/chat/completions", data=json.dumps({**body, "stream": False}).encode(),
        headers={"Content-Type": "application/json"}), timeout=30).read())
    assert unstreamed["choices"][0]["message"]["tool_calls"][0]["function"] == call["function"]


def test_the_openai_sdk_reads_the_stream(server: Any) -> None:
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="unused")
    stream = client.chat.completions.create(model="m", stream=True, messages=[
        {"role": "user", "content": "Something no plan covers."}], tools=TOOLS)
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "I have no scripted solution for this task."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
