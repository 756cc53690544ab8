"""A text protocol for models without native tool calling (gym-api.md, "LLM policies").

The system prompt lists the tools (name, description, input schema) and the protocol:

- a tool call is a JSON object ``{"tool": "<name>", "input": {...}}`` inside
  ``<tool_call>...</tool_call>`` tags (several tags run in order), or inside a fenced
  ```` ```json ```` block. The Hermes/Qwen form ``{"name": ..., "arguments": {...}}`` is accepted
  too, and ``{"answer": ...}`` in a tag is a final answer;
- results come back in a user message, one ``<tool_result>...</tool_result>`` block per call,
  holding the observation (the tool result's compact JSON);
- a reply with no tool call is the final answer: its text, stripped of surrounding whitespace.

Parsing never raises. A ``<tool_call>`` tag whose body is not a JSON object (not JSON, or an
array, a number...) is stepped as the body text, so the env answers ``invalid_action`` ("The
action is not valid JSON." / "The action is array, not an object.") and the model can correct
itself; an unclosed ``<tool_call>`` tag runs to the end of the reply (servers often stop at the
closing tag). A fenced block counts as a call only when it is tagged ``json`` (or untagged and
starts with ``{``) and is either not valid JSON (stepped as its text, like a broken tag) or an
object with ``tool``, ``name`` or ``answer``; any other fenced JSON is ordinary reply text, so an
answer that contains JSON is still an answer. Tags take precedence: when a reply has any
``<tool_call>`` tag, fenced blocks are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..jsonfmt import dumps_compact, loads_strict
from .policy import (
    DEFAULT_RETRY,
    Episode,
    EpisodeLoop,
    RetryPolicy,
    Steps,
    aclose_model,
    adrive,
    copy_messages,
    drive,
    is_async_callable,
    run_coroutine,
)

__all__ = ["TEXT_PROTOCOL_INTRO", "TextProtocolPolicy", "format_tool_results", "parse_reply", "render_tools"]

#: The default first paragraph of the text protocol's system prompt.
TEXT_PROTOCOL_INTRO = (
    "You are an agent that completes tasks by calling tools. You cannot act directly: you call "
    "tools by writing tool calls in your reply, and their results come back to you."
)

_PROTOCOL = """## How to call a tool

To call a tool, write one JSON object inside <tool_call></tool_call> tags:

<tool_call>{"tool": "<tool name>", "input": {<arguments matching the tool's input schema>}}</tool_call>

You may write several <tool_call> tags in one reply; they run in order. The results come back in the next message, one <tool_result></tool_result> block per call, as JSON: {"output": ...} on success, or {"output": {"code": ..., "message": ...}, "isError": true} when the call failed. Read the error message and send a corrected call.

When the task is done, reply with your final answer as plain text, without any <tool_call> tag. That reply ends the episode and is graded."""

_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"```([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)


def render_tools(tools: Sequence[Mapping[str, Any]]) -> str:
    """The tool list as prompt text: name, description and compact JSON input schema of each."""
    lines = ["## Tools", ""]
    if not tools:
        lines.append("(no tools)")
    for tool in tools:
        lines.append(f"### {tool['name']}")
        if tool.get("description"):
            lines.append(str(tool["description"]))
        lines.append(f"Input schema: {dumps_compact(tool.get('inputSchema') or {'type': 'object'})}")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _from_object(value: dict[str, Any], text: str) -> Any:
    """A parsed call object as the action to step (normalizing ``name``/``arguments``)."""
    if "tool" not in value and "answer" not in value and "name" in value and set(value) <= {"name", "arguments"}:
        arguments = value.get("arguments")
        if isinstance(arguments, str):  # double-encoded arguments
            try:
                parsed = loads_strict(arguments) if arguments.strip() else {}
            except ValueError:
                parsed = arguments
            arguments = parsed if isinstance(parsed, dict) else arguments
        return {"tool": value["name"], "input": {} if arguments is None else arguments}
    return value


def _tag_action(body: str) -> Any:
    text = body.strip()
    try:
        value = loads_strict(text)
    except ValueError:
        return text  # stepped as an invalid JSON string -> invalid_action
    if not isinstance(value, dict):
        return text  # "The action is <type>, not an object."
    return _from_object(value, text)


def parse_reply(text: str) -> list[Any] | None:
    """The actions written in a text-protocol reply, or ``None`` when it holds no tool call (then
    the reply is the final answer). Each action is a dict, or a ``str`` that the env will answer
    with ``invalid_action``."""
    if not isinstance(text, str):
        return None
    if "<tool_call>" in text:
        return [_tag_action(m.group(1)) for m in _TAG.finditer(text)]
    actions: list[Any] = []
    for m in _FENCE.finditer(text):
        lang, body = m.group(1).lower(), m.group(2).strip()
        if lang not in ("json", "") or (lang == "" and not body.startswith("{")):
            continue
        try:
            value = loads_strict(body)
        except ValueError:
            actions.append(body)
            continue
        if isinstance(value, dict) and ("tool" in value or "name" in value or "answer" in value):
            actions.append(_from_object(value, body))
    return actions or None


def format_tool_results(results: Sequence[str]) -> str:
    """The user message content carrying one turn's observations."""
    return "\n".join(f"<tool_result>\n{obs}\n</tool_result>" for obs in results)


def _reply_content(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, Mapping):
        content = raw.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(str(p.get("text") or "") for p in content if isinstance(p, Mapping))
        return ""
    if raw is None:
        return ""
    content = getattr(raw, "content", None)
    return content if isinstance(content, str) else str(raw)


class TextProtocolPolicy:
    """A policy loop for models without native tool calling.

    Args:
        complete_text: ``complete_text(messages) -> str``: ``messages`` are chat messages with
            text content (system, user, assistant, user...); it returns the reply text (or a
            ``{"content": ...}`` message, or a :class:`~silo_gym.llm.ModelReply` wrapping either).
        system_prompt: the first paragraph of the system prompt (default
            :data:`TEXT_PROTOCOL_INTRO`); the tool list and the protocol always follow it.
        model: the model name for ``model_step`` events (``api="text"``).
        retry: how transient model errors are retried (``None``: never), as for ``ChatPolicy``.

    ``run_episode(env, *, seed=None, options=None) -> Episode`` works like ``ChatPolicy``'s:
    each tool call in a reply is one step; ``Episode.messages`` is the chat conversation
    (tool results as user messages of ``<tool_result>`` blocks); each turn is reported as a
    ``model_step`` with ``reply = {"role": "assistant", "content": <text>}``. A permanent error
    from ``complete_text`` aborts the episode (``agent_error``) and propagates.
    ``complete_text`` may be ``async def``; ``await arun_episode(...)`` plays the same loop on the
    running event loop.
    """

    api = "text"

    def __init__(self, complete_text: Callable[..., Any], *, system_prompt: str | None = None,
                 model: str | None = None, retry: RetryPolicy | None = DEFAULT_RETRY) -> None:
        self.complete_text = complete_text
        self.intro = TEXT_PROTOCOL_INTRO if system_prompt is None else system_prompt
        self.model = model
        self.retry = retry

    @property
    def is_async(self) -> bool:
        """True when ``complete_text`` is a coroutine function."""
        return is_async_callable(self.complete_text)

    def __repr__(self) -> str:
        return f"TextProtocolPolicy(model={self.model!r})"

    @property
    def name(self) -> str:
        """A short label for data sets: ``text:<model>`` or ``text``."""
        return f"text:{self.model}" if self.model else "text"

    def system_message(self, tools: Sequence[Mapping[str, Any]]) -> str:
        parts = [self.intro] if self.intro else []
        parts += [render_tools(tools), _PROTOCOL]
        return "\n\n".join(parts)

    def prompt(self, observation: str, tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The system message (intro, tools, protocol) and the instruction as user message."""
        return [{"role": "system", "content": self.system_message(tools)}, {"role": "user", "content": observation}]

    def run_episode(self, env: Any, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Episode:
        """Reset ``env`` and play one episode to its end; returns the :class:`Episode`."""
        if self.is_async:
            return run_coroutine(self._arun_once(env, seed, options))
        return drive(self.steps(env, seed, options), self.complete_text, self.retry)

    async def _arun_once(self, env: Any, seed: int | None, options: dict[str, Any] | None) -> Episode:
        try:
            return await self.arun_episode(env, seed=seed, options=options)
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Close the model function's connections on the running loop (``complete_text.aclose()``)."""
        await aclose_model(self.complete_text)

    async def arun_episode(self, env: Any, *, seed: int | None = None,
                           options: dict[str, Any] | None = None) -> Episode:
        """:meth:`run_episode` on the running event loop."""
        return await adrive(self.steps(env, seed, options), self.complete_text, self.retry, self.is_async)

    def steps(self, env: Any, seed: int | None, options: dict[str, Any] | None) -> Steps:
        """The episode loop as a generator of model requests (see ``ChatPolicy.steps``)."""
        loop = EpisodeLoop(env, "text", self.model)
        obs, reset_info = loop.reset(seed, options)
        messages: list[dict[str, Any]] = self.prompt(obs, reset_info.get("tools") or [])
        pending: list[Any] = list(messages)
        while not loop.done:
            raw, usage, model, latency = yield from loop.ask(copy_messages(messages))
            text = _reply_content(raw)
            reply = {"role": "assistant", "content": text}
            messages.append(reply)
            loop.report(pending, reply, usage, model, latency)
            pending = []
            actions = parse_reply(text)
            if actions is None:
                loop.step({"answer": text.strip()})
                break
            results: list[str] = []
            for action in actions:
                obs, _ = loop.step(action)
                results.append(obs)
                if loop.done:
                    break
            user = {"role": "user", "content": format_tool_results(results)}
            messages.append(user)
            pending.append(user)
        return loop.episode(messages, 2, reset_info)
