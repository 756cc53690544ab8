"""LLM policies for Silo envs (gym-api.md, "LLM policies").

- Tool schemas for the big APIs: :func:`to_openai_chat_tools`, :func:`to_openai_responses_tools`,
  :func:`to_anthropic_tools` (each takes ``info["tools"]``), and converters between provider tool
  calls / tool results and env actions / observations (:mod:`silo_gym.llm.formats`).
- :class:`ChatPolicy`: a policy loop over ``complete(messages, tools)`` with native tool calling.
- :class:`TextProtocolPolicy`: the same loop for models without tool calling (``<tool_call>``
  tags or fenced JSON).
- :func:`openai_complete` / :func:`openai_acomplete`: a ``complete`` over the ``openai`` client
  (optional extra ``silo-gym[openai]``), for any OpenAI-compatible server;
  :func:`anthropic_complete` / :func:`anthropic_acomplete` over the ``anthropic`` SDK
  (``silo-gym[anthropic]``). The async ones take ``lean=True`` for silo_gym's lean HTTP path.
- Both policies accept sync or async model functions (``run_episode`` / ``await arun_episode``)
  and retry transient model errors (:class:`RetryPolicy`, :mod:`silo_gym.llm.retry`).
"""

from __future__ import annotations

from .anthropic_adapter import anthropic_acomplete, anthropic_complete
from .formats import (
    ToolCallRef,
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
    tool_result_message,
)
from .openai_adapter import openai_acomplete, openai_complete
from .policy import DEFAULT_SYSTEM_PROMPT, ChatPolicy, Episode, ModelReply
from .replies import ModelReplyError
from .retry import DEFAULT_RETRY, ModelHTTPError, RetryPolicy
from .text_protocol import TextProtocolPolicy, parse_reply

__all__ = [
    "DEFAULT_RETRY",
    "DEFAULT_SYSTEM_PROMPT",
    "ChatPolicy",
    "Episode",
    "ModelHTTPError",
    "ModelReplyError",
    "ModelReply",
    "RetryPolicy",
    "TextProtocolPolicy",
    "ToolCallRef",
    "action_to_anthropic_tool_use",
    "action_to_chat_tool_call",
    "action_to_responses_call",
    "anthropic_acomplete",
    "anthropic_complete",
    "anthropic_tool_result",
    "anthropic_tool_use_to_action",
    "chat_tool_call_to_action",
    "chat_tool_result",
    "openai_acomplete",
    "openai_complete",
    "parse_reply",
    "responses_call_to_action",
    "responses_tool_result",
    "split_anthropic_system",
    "to_anthropic_tools",
    "to_chat_messages",
    "to_openai_chat_tools",
    "to_openai_responses_tools",
    "tool_result_message",
]
