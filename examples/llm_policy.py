"""An LLM policy on a demo task: ``ChatPolicy`` with a scripted ``complete``, and how to plug in a
real model served by any OpenAI-compatible server (vLLM, Ollama, llama.cpp, OpenAI...).

    python examples/llm_policy.py                       # the scripted model, no server needed
    SILO_LLM_BASE_URL=http://localhost:8000/v1 SILO_LLM_MODEL=Qwen/Qwen2.5-7B-Instruct \\
        python examples/llm_policy.py                   # a real model (pip install "silo-gym[openai]")

Serving a model locally, for example:

    vllm serve Qwen/Qwen2.5-7B-Instruct --enable-auto-tool-choice --tool-call-parser hermes
    # base URL http://localhost:8000/v1
    ollama pull llama3.1                                # base URL http://localhost:11434/v1

A model without native tool calling can use ``TextProtocolPolicy(openai_complete(..., api="text"))``.
"""

from __future__ import annotations

import json
import os
import tempfile

import gymnasium as gym

import silo_gym  # noqa: F401  (importing registers the silo/... ids)
from silo_gym.llm import ChatPolicy, TextProtocolPolicy, openai_complete
from silo_gym.wrappers import RecordRun


def scripted_complete(messages: list[dict], tools: list[dict]) -> dict:
    """A stand-in for a chat model (OpenAI Chat format in and out): it asks for the forecast
    report, then answers with the weighted amount it read from the tool result."""
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    if not results:
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "forecast_report", "arguments": "{}"}}]}
    weighted = silo_gym.format_number(results[-1]["output"]["weightedAmount"]["amount"])
    return {"role": "assistant", "content": f"The probability-weighted value of all open deals is ${weighted}."}


def make_policy() -> ChatPolicy | TextProtocolPolicy:
    base_url = os.environ.get("SILO_LLM_BASE_URL")
    if not base_url:
        return ChatPolicy(scripted_complete, model="scripted")
    model = os.environ.get("SILO_LLM_MODEL", "llama3.1")
    if os.environ.get("SILO_LLM_TEXT_PROTOCOL"):
        return TextProtocolPolicy(openai_complete(base_url, model, api="text", temperature=0), model=model)
    return ChatPolicy(openai_complete(base_url, model, temperature=0), model=model)


def main() -> None:
    policy = make_policy()
    runs_dir = tempfile.mkdtemp(prefix="silo-llm-runs-")
    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=runs_dir)  # records model_step events too
    episode = policy.run_episode(env, seed=0)
    env.close()
    for message in episode.messages[1:]:
        text = message.get("content") or json.dumps(message.get("tool_calls"))
        print(f"{message['role']:>9}: {text[:110]}")
    print(f"reward={episode.reward} passed={episode.info['passed']} tool_calls={episode.info['tool_calls']}")
    print("run recorded in", episode.info["run_dir"])


if __name__ == "__main__":
    main()
