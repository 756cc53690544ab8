"""Helpers for the data-collection tests: the reference solver and the test environments."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from typing import Any

import gymnasium as gym

import silo_gym

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLVER_PATH = ROOT / "examples" / "agents" / "crm_solver.py"


def load_solver() -> Any:
    name = "_crm_solver_for_collect_tests"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SOLVER_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def ensure_test_env(name: str) -> None:
    """Register ``tests/envs/<name>`` unless the conftest's SILO_GYM_PATH already did."""
    if f"silo/{name}" not in gym.registry:
        silo_gym.register_environment(str(ROOT / "tests" / "envs" / name))


def plan_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """A scripted chat model replaying the reference plan from the conversation."""
    instruction = next(m["content"] for m in messages if m["role"] == "user")
    plan = load_solver().plan(instruction)
    action = next(plan)
    for m in messages:
        if m["role"] == "tool":
            action = plan.send(json.loads(m["content"]))
    plan.close()
    if "answer" in action:
        return {"role": "assistant", "content": action["answer"]}
    n = sum(1 for m in messages if m["role"] == "tool") + 1
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"r{n}", "type": "function",
         "function": {"name": action["tool"], "arguments": json.dumps(action["input"])}}]}
