"""``openai_complete`` end to end: the real ``openai`` client over real HTTP, against a small
OpenAI-compatible server started here on 127.0.0.1 that replays the reference plan."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import gymnasium as gym
import pytest

from silo_gym.llm import ChatPolicy, TextProtocolPolicy, openai_complete
from silo_gym.wrappers import RecordRun

from ._scripted import (
    DEMO_TASKS,
    chat_reply,
    chat_state,
    next_action,
    responses_reply,
    responses_state,
    text_reply,
    text_state,
)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body, self.headers.get("Authorization")))
        usage_chat = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if self.path.endswith("/chat/completions"):
            if body.get("tools"):
                message = chat_reply(next_action(*chat_state(body["messages"])))
            else:  # the text protocol
                message = {"role": "assistant", "content": text_reply(next_action(*text_state(body["messages"])))}
            payload = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "served-model",
                       "choices": [{"index": 0, "message": message,
                                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                       "usage": usage_chat}
        elif self.path.endswith("/responses"):
            output = responses_reply(next_action(*responses_state(body["input"])))
            payload = {"id": "resp_1", "object": "response", "created_at": 0, "model": "served-model",
                       "status": "completed", "output": output, "parallel_tool_calls": True,
                       "tool_choice": "auto", "tools": body.get("tools") or [],
                       "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                                 "input_tokens_details": {"cached_tokens": 0},
                                 "output_tokens_details": {"reasoning_tokens": 0}}}
        else:
            self.send_error(404)
            return
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests = []


@pytest.fixture
def server(monkeypatch):
    pytest.importorskip("openai")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    srv = _Server()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


def _url(srv):
    return f"http://127.0.0.1:{srv.server_address[1]}/v1"


@pytest.mark.parametrize("task_id", DEMO_TASKS)
def test_chat_completions_solve_demo_tasks(server, task_id, tmp_path):
    complete = openai_complete(_url(server), "scripted", api_key="sk-test", temperature=0)
    env = RecordRun(gym.make(f"silo/demo-{task_id}"), runs_dir=tmp_path)
    ep = ChatPolicy(complete, model="scripted").run_episode(env, seed=0)
    env.close()
    assert ep.reward == 1.0 and ep.terminated
    path, body, auth = server.requests[0]
    assert path == "/v1/chat/completions" and auth == "Bearer sk-test"
    assert body["model"] == "scripted" and body["temperature"] == 0
    assert body["tools"][0]["type"] == "function"
    steps = [json.loads(line) for line in (Path(ep.info["run_dir"]) / "trace.jsonl").read_text().splitlines()
             if '"type":"model_step"' in line]
    assert steps and all(s["model"] == "served-model" and s["api"] == "chat" for s in steps)
    assert steps[0]["usage"]["total_tokens"] == 15


def test_responses_api_solves_a_demo_task(server):
    complete = openai_complete(_url(server), "scripted", api="responses")
    env = gym.make("silo/demo-TASK-001")
    ep = ChatPolicy(complete, api="responses").run_episode(env, seed=0)
    env.close()
    assert ep.reward == 1.0
    assert {p for p, _, _ in server.requests} == {"/v1/responses"}
    assert server.requests[-1][1]["input"][0] == {"role": "system", "content": ep.messages[0]["content"]}


def test_text_mode_solves_a_demo_task(server):
    complete = openai_complete(_url(server), "scripted", api="text")
    env = gym.make("silo/demo-TASK-003")
    ep = TextProtocolPolicy(complete).run_episode(env, seed=0)
    env.close()
    assert ep.reward == 1.0
    assert all("tools" not in body for _, body, _ in server.requests)


def test_missing_openai_package_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ImportError, match=r'pip install "silo-gym\[openai\]"'):
        openai_complete("http://127.0.0.1:9/v1", "m")


def test_bad_api_is_rejected():
    with pytest.raises(ValueError):
        openai_complete("http://127.0.0.1:9/v1", "m", api="anthropic", client=object())
