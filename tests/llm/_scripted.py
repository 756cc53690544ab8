"""Scripted "models" for the LLM-policy tests.

Each replays the demo reference solver's plan (``examples/agents/crm_solver.py``), so the calls
stay in sync with the solver: it is stateless and rebuilds the plan from the conversation it is
given (the instruction, then every tool result so far), exactly as a model would read it.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import pathlib
import re
import sys
from typing import Any

import silo_gym

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLVER_PATH = ROOT / "examples" / "agents" / "crm_solver.py"
TEST_ENVS = ROOT / "tests" / "envs"
DEMO_TASKS = [f"TASK-00{n}" for n in range(1, 7)]


def load_solver() -> Any:
    name = "_crm_solver_for_llm_tests"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SOLVER_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def ensure_test_env(name: str) -> None:
    """Register ``tests/envs/<name>`` unless the conftest's SILO_GYM_PATH already did."""
    import gymnasium as gym

    if f"silo/{name}" not in gym.registry:
        silo_gym.register_environment(str(TEST_ENVS / name))


def next_action(instruction: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The plan's next action after feeding it ``results`` (tool result dicts) in order."""
    plan = load_solver().plan(instruction)
    try:
        action = next(plan)
        for result in results:
            action = plan.send(result)
        return action
    finally:
        plan.close()


_ids = itertools.count(1)


def fresh_id(prefix: str) -> str:
    return f"{prefix}{next(_ids):05d}"


# -- chat ------------------------------------------------------------------------------------


def chat_state(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    instruction = next(m["content"] for m in messages if m["role"] == "user")
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    return instruction, results


def chat_reply(action: dict[str, Any], with_id: bool = True) -> dict[str, Any]:
    if "answer" in action:
        return {"role": "assistant", "content": action["answer"]}
    call: dict[str, Any] = {"type": "function",
                            "function": {"name": action["tool"], "arguments": json.dumps(action["input"])}}
    if with_id:
        call = {"id": fresh_id("call_x"), **call}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def plan_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    assert tools and tools[0]["type"] == "function"
    return chat_reply(next_action(*chat_state(messages)))


# -- responses --------------------------------------------------------------------------------


def responses_state(items: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    instruction = next(i["content"] for i in items if i.get("role") == "user")
    results = [json.loads(i["output"]) for i in items if i.get("type") == "function_call_output"]
    return instruction, results


def responses_reply(action: dict[str, Any]) -> list[dict[str, Any]]:
    if "answer" in action:
        return [{"type": "message", "id": fresh_id("msg_"), "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": action["answer"], "annotations": []}]}]
    return [{"type": "function_call", "id": fresh_id("fc_"), "call_id": fresh_id("call_r"), "name": action["tool"],
             "arguments": json.dumps(action["input"]), "status": "completed"}]


def plan_responses(items: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    assert tools and "name" in tools[0] and "parameters" in tools[0]
    return responses_reply(next_action(*responses_state(items)))


# -- anthropic --------------------------------------------------------------------------------


def anthropic_state(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    assert messages[0]["role"] == "system"
    instruction = messages[1]["content"]
    results = []
    for m in messages[2:]:
        if m["role"] == "user" and isinstance(m["content"], list):
            results += [json.loads(b["content"]) for b in m["content"] if b["type"] == "tool_result"]
    return instruction, results


def anthropic_reply(action: dict[str, Any]) -> dict[str, Any]:
    if "answer" in action:
        return {"role": "assistant", "content": [{"type": "text", "text": action["answer"]}],
                "stop_reason": "end_turn"}
    return {"role": "assistant", "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "Let me check."},
                        {"type": "tool_use", "id": fresh_id("toolu_"), "name": action["tool"],
                         "input": action["input"]}]}


def plan_anthropic(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    assert tools and "input_schema" in tools[0]
    return anthropic_reply(next_action(*anthropic_state(messages)))


# -- text protocol ----------------------------------------------------------------------------

_RESULT = re.compile(r"<tool_result>\n(.*?)\n</tool_result>", re.DOTALL)


def text_state(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    assert "<tool_call>" in messages[0]["content"]
    instruction = messages[1]["content"]
    results = []
    for m in messages[2:]:
        if m["role"] == "user":
            results += [json.loads(t) for t in _RESULT.findall(m["content"])]
    return instruction, results


def text_reply(action: dict[str, Any]) -> str:
    if "answer" in action:
        return action["answer"]
    return f"I will call {action['tool']}.\n<tool_call>{json.dumps(action)}</tool_call>"


def plan_text(messages: list[dict[str, Any]]) -> str:
    return text_reply(next_action(*text_state(messages)))


PLANNERS = {"chat": plan_chat, "responses": plan_responses, "anthropic": plan_anthropic}
