"""``openai_complete`` / ``openai_acomplete``: ``complete`` functions over the ``openai`` client,
so any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, SGLang, TGI...) can drive a
``ChatPolicy`` or a ``TextProtocolPolicy``; the async one (``openai.AsyncOpenAI``) lets
``silo_gym.data.collect(..., concurrency=N)`` keep N episodes in flight on one event loop.

The ``openai`` package is an optional extra (``pip install "silo-gym[openai]"``); it is imported
only when a client is built.

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

from .loop_local import LoopLocal
from .policy import ModelReply
from .replies import chat_message, responses_output

__all__ = ["openai_acomplete", "openai_complete"]

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


def _text_content(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    return content if isinstance(content, str) else ""


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
        client: an ``openai.OpenAI`` instance to use instead of building one (the one built here
            has ``max_retries=0``: the policy retries transient errors and counts them).
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
        # No SDK retries: the policy retries transient errors itself and counts them.
        client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0)

    def complete_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        kwargs = dict(params)
        if tools:
            kwargs["tools"] = tools
        response = client.chat.completions.create(model=model, messages=messages, **kwargs)
        message = _plain(chat_message(response))
        return ModelReply(message, usage=_usage(response), model=getattr(response, "model", None) or model)

    def complete_responses(items: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        kwargs = dict(params)
        if tools:
            kwargs["tools"] = tools
        response = client.responses.create(model=model, input=items, **kwargs)
        output = [_plain(item) for item in responses_output(response)]
        return ModelReply(output, usage=_usage(response), model=getattr(response, "model", None) or model)

    def complete_text(messages: list[dict[str, Any]]) -> ModelReply:
        response = client.chat.completions.create(model=model, messages=messages, **params)
        content = _text_content(chat_message(response))
        return ModelReply(content, usage=_usage(response), model=getattr(response, "model", None) or model)

    if api == "chat":
        return complete_chat
    if api == "responses":
        return complete_responses
    return complete_text


class _AsyncOpenAI:
    """Builds ``openai.AsyncOpenAI`` clients (picklable, unlike a client). The SDK's own retries
    are off: the policy retries transient errors and counts them (``RetryPolicy``)."""

    def __init__(self, base_url: str | None, api_key: str | None) -> None:
        self.base_url = base_url
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or "EMPTY"

    def __call__(self) -> Any:
        try:
            import openai
        except ImportError as exc:
            raise ImportError(_MISSING) from exc
        return openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0)


def openai_acomplete(base_url: str | None, model: str, *, api_key: str | None = None, api: str = "chat",
                     client: Any = None, lean: bool = False, max_connections: int | None = None,
                     **params: Any) -> Callable[..., Any]:
    """An async ``complete`` function asking ``model`` at ``base_url`` (issue 11).

    Args:
        base_url: the server's OpenAI-compatible base URL (``.../v1``); ``None`` uses
            ``OPENAI_BASE_URL`` or api.openai.com.
        model: the model name sent with each request.
        api_key: the key; defaults to ``OPENAI_API_KEY``, else ``"EMPTY"``.
        api: ``"chat"`` (Chat Completions), ``"responses"`` (Responses) or ``"text"`` (Chat
            Completions without tools, for ``TextProtocolPolicy``).
        client: an ``openai.AsyncOpenAI`` to use (its own retry setting applies); by default one
            is built per event loop with ``max_retries=0``, since the policy retries transient
            errors itself and counts them (``Episode.retries``, the rows' ``retries``).
        lean: send the requests on silo_gym's lean HTTP path instead of the SDK
            (:mod:`silo_gym.llm.lean_client`, the ``silo-gym[aiohttp]`` extra): the same
            requests and replies, several times cheaper per call.
        max_connections: with ``lean``, cap the connection pool (``None``: one connection per
            call in flight).
        **params: passed to every ``create`` call (``temperature``, ``max_tokens``...).

    Returns:
        ``async complete(messages, tools)`` (``async complete_text(messages)`` for ``api="text"``)
        returning a :class:`ModelReply` as :func:`openai_complete` does.

    Raises:
        ImportError: the ``openai`` package (or, with ``lean``, ``aiohttp``) is not installed.
    """
    if api not in ("chat", "responses", "text"):
        raise ValueError(f'api must be "chat", "responses" or "text"; got {api!r}.')
    if lean:
        from .lean_client import lean_acomplete

        return lean_acomplete("openai", base_url, model, api_key=api_key, api=api,
                              max_connections=max_connections, **params)
    if client is None:
        try:
            import openai  # noqa: F401  (fail now, not at the first call)
        except ImportError as exc:
            raise ImportError(_MISSING) from exc
    clients = LoopLocal(_AsyncOpenAI(base_url, api_key)) if client is None else None

    def get_client() -> Any:
        return clients.get() if clients is not None else client

    async def complete_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        kwargs = dict(params)
        if tools:
            kwargs["tools"] = tools
        response = await get_client().chat.completions.create(model=model, messages=messages, **kwargs)
        message = _plain(chat_message(response))
        return ModelReply(message, usage=_usage(response), model=getattr(response, "model", None) or model)

    async def complete_responses(items: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        kwargs = dict(params)
        if tools:
            kwargs["tools"] = tools
        response = await get_client().responses.create(model=model, input=items, **kwargs)
        output = [_plain(item) for item in responses_output(response)]
        return ModelReply(output, usage=_usage(response), model=getattr(response, "model", None) or model)

    async def complete_text(messages: list[dict[str, Any]]) -> ModelReply:
        response = await get_client().chat.completions.create(model=model, messages=messages, **params)
        content = _text_content(chat_message(response))
        return ModelReply(content, usage=_usage(response), model=getattr(response, "model", None) or model)

    chosen: Any = {"chat": complete_chat, "responses": complete_responses, "text": complete_text}[api]
    if clients is not None:  # ours to close: the SDK client of the running loop
        chosen.aclose = clients.aclose
    return chosen  # type: ignore[no-any-return]
