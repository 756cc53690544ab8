"""``openai_complete``: a ``complete`` function over the ``openai`` client, so any
OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, SGLang, TGI...) can drive a
``ChatPolicy`` or a ``TextProtocolPolicy``.

The ``openai`` package is an optional extra (``pip install "silo-gym[openai]"``); it is imported
only when :func:`openai_complete` is called.

Example (a local vLLM or Ollama server)::

    from silo_gym.llm import ChatPolicy, openai_complete

    complete = openai_complete("http://localhost:8000/v1", "Qwen/Qwen2.5-7B-Instruct",
                               temperature=0.2)
    policy = ChatPolicy(complete, model="Qwen/Qwen2.5-7B-Instruct")
    # Ollama: openai_complete("http://localhost:11434/v1", "llama3.1", api_key="ollama")
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .policy import ModelReply

__all__ = ["openai_complete"]

_MISSING = 'The OpenAI adapter needs the "openai" package: pip install "silo-gym[openai]"'


def _usage(response: Any) -> dict[str, Any] | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    dump = getattr(usage, "model_dump", None)
    value = dump(exclude_none=True) if callable(dump) else usage
    return value if isinstance(value, dict) else None


def _plain(obj: Any) -> Any:
    dump = getattr(obj, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else obj


def openai_complete(base_url: str | None, model: str, api_key: str | None = None, *, api: str = "chat",
                    client: Any = None, **params: Any) -> Callable[..., ModelReply]:
    """A ``complete`` function that asks ``model`` at ``base_url`` through the ``openai`` client.

    Args:
        base_url: the server's OpenAI-compatible base URL (``.../v1``); ``None`` uses the
            client's default (``OPENAI_BASE_URL`` or api.openai.com).
        model: the model name sent with each request.
        api_key: the key; defaults to ``OPENAI_API_KEY``, else ``"EMPTY"`` (local servers ignore it).
        api: ``"chat"`` (Chat Completions; for ``ChatPolicy(api="chat")``), ``"responses"``
            (the Responses API; for ``ChatPolicy(api="responses")``) or ``"text"`` (Chat
            Completions without tools; the ``complete_text`` of a ``TextProtocolPolicy``).
        client: an ``openai.OpenAI`` instance to use instead of building one.
        **params: passed to every ``create`` call (``temperature``, ``max_tokens``,
            ``extra_body``...).

    Returns:
        ``complete(messages, tools)`` (``complete_text(messages)`` for ``api="text"``) returning a
        :class:`ModelReply` with the assistant message (Chat: a dict; Responses: the output items;
        text: the reply text), the server's ``usage`` and the model name it reported.

    Raises:
        ImportError: the ``openai`` package is not installed.
    """
    if api not in ("chat", "responses", "text"):
        raise ValueError(f'api must be "chat", "responses" or "text"; got {api!r}.')
    if client is None:
        try:
            import openai
        except ImportError as exc:
            raise ImportError(_MISSING) from exc
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or "EMPTY"
        client = openai.OpenAI(base_url=base_url, api_key=key)

    def complete_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        kwargs = dict(params)
        if tools:
            kwargs["tools"] = tools
        response = client.chat.completions.create(model=model, messages=messages, **kwargs)
        message = _plain(response.choices[0].message)
        return ModelReply(message, usage=_usage(response), model=getattr(response, "model", None) or model)

    def complete_responses(items: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        kwargs = dict(params)
        if tools:
            kwargs["tools"] = tools
        response = client.responses.create(model=model, input=items, **kwargs)
        output = [_plain(item) for item in response.output]
        return ModelReply(output, usage=_usage(response), model=getattr(response, "model", None) or model)

    def complete_text(messages: list[dict[str, Any]]) -> ModelReply:
        response = client.chat.completions.create(model=model, messages=messages, **params)
        content = response.choices[0].message.content or ""
        return ModelReply(content, usage=_usage(response), model=getattr(response, "model", None) or model)

    if api == "chat":
        return complete_chat
    if api == "responses":
        return complete_responses
    return complete_text
