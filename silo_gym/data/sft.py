"""Supervised fine-tuning rows from episode rows: TRL's conversational format with a ``tools``
column, for warm-starting a model on successful trajectories before RL (docs/training.md)."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from ..jsonfmt import dumps_compact, loads_strict
from ..llm.formats import to_openai_chat_tools

__all__ = ["SFT_COLUMNS", "sft_rows"]

#: The columns of an SFT row, in order.
SFT_COLUMNS: tuple[str, ...] = ("messages", "tools", "environment", "task_id")


def _environment_tools(environment: str) -> list[dict[str, Any]]:
    """The tool list of a registered environment (``silo/<environment>``), in OpenAI Chat format."""
    import gymnasium as gym

    env_id = f"silo/{environment}"
    if env_id not in gym.registry:
        raise ValueError(
            f'Environment "{environment}" is not registered in this process; register it or pass tools=.'
        )
    env = gym.make(env_id, disable_env_checker=True)
    try:
        return to_openai_chat_tools(env.unwrapped.fresh_tool_list())  # type: ignore[attr-defined]
    finally:
        env.close()


def _arguments(text: Any) -> Any:
    """Tool-call arguments as chat templates want them: a JSON object text becomes the object;
    anything else (a malformed call) stays as written."""
    if isinstance(text, str):
        try:
            value = loads_strict(text) if text.strip() else {}
        except ValueError:
            return text
        return value if isinstance(value, dict) else text
    return copy.deepcopy(text)


def _sft_messages(messages: Iterable[Mapping[str, Any]], tool_names: Mapping[str, str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    called: dict[Any, Any] = {}  # tool_call_id -> tool name, for the tool messages' "name"
    for message in messages:
        m = copy.deepcopy(dict(message))
        calls = m.get("tool_calls")
        if m.get("role") == "assistant" and calls:
            converted = []
            for call in calls:
                function = call.get("function") or {}
                name = function.get("name")
                name = tool_names.get(name, name) if isinstance(name, str) else name
                entry = {k: v for k, v in call.items() if k != "function"}
                entry["function"] = {"name": name, "arguments": _arguments(function.get("arguments"))}
                called[call.get("id")] = name
                converted.append(entry)
            m["tool_calls"] = converted
        elif "tool_calls" in m and not calls:
            del m["tool_calls"]
        if m.get("role") == "tool" and "name" not in m and m.get("tool_call_id") in called:
            m["name"] = called[m["tool_call_id"]]
        out.append(m)
    return out


def sft_rows(rows: Iterable[Mapping[str, Any]], *, tools: list[dict[str, Any]] | None = None,
             tool_names: Mapping[str, str] | None = None, min_reward: float | None = None) -> list[dict[str, Any]]:
    """Successful episodes as conversational SFT rows (TRL's ``SFTTrainer`` layout).

    Which rows: with ``min_reward=None`` those that ``passed``; otherwise those whose ``reward``
    is at least ``min_reward``. Failed rows (``reward`` is ``None``) never.

    Columns (:data:`SFT_COLUMNS`):

    - ``messages``: the row's whole conversation in OpenAI Chat format, with each tool call's
      ``arguments`` as an object (what chat templates render; text that is not a JSON object,
      a malformed call, stays text), the tool name mapped through ``tool_names``, and each
      ``tool`` message given the ``name`` of its call;
    - ``tools``: the JSON text of the tool schemas (``SFTTrainer`` parses a string): ``tools``
      when given, else the environment's tools in OpenAI Chat format
      (:func:`silo_gym.llm.to_openai_chat_tools`; the environment must be registered);
    - ``environment``, ``task_id``.

    Building a ``datasets.Dataset``: ``arguments`` objects differ between calls, and Arrow's
    inferred struct would add every other call's keys as nulls; store ``messages`` as
    ``datasets.List(datasets.Json())`` (:func:`silo_gym.integrations.trl.sft_dataset` does).

    Raises:
        ValueError: an environment not registered while ``tools`` is ``None``.
    """
    names = dict(tool_names or {})
    cached: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for row in rows:
        reward = row.get("reward")
        if reward is None:
            continue
        if (min_reward is None and not row.get("passed")) or (min_reward is not None and float(reward) < min_reward):
            continue
        environment = str(row.get("environment"))
        if environment not in cached:
            cached[environment] = dumps_compact(tools if tools is not None else _environment_tools(environment))
        out.append({
            "messages": _sft_messages(row.get("messages") or [], names),
            "tools": cached[environment],
            "environment": environment,
            "task_id": row.get("task_id"),
        })
    return out
