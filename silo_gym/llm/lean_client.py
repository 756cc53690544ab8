"""A lean HTTP path to model servers: the same ``complete`` contract as the SDK adapters, at a
fraction of their cost per call (issue 11, "Beat the floor").

Behind ``openai_acomplete(..., lean=True)`` and ``anthropic_acomplete(..., lean=True)``. Where the
official SDKs build typed request and response objects on every call, this path:

- serialises the tool list once per list object and splices the bytes into every request body
  (the demo's Chat tool list is about 38 KB; a policy passes the same list on every call);
- writes the rest of the body with ``orjson`` and reads the reply with ``orjson`` into plain dicts
  (``None`` values dropped, as the SDK adapters' ``model_dump(exclude_none=True)`` does, so the
  conversation and the rows are the same);
- sends it on one ``aiohttp`` session per event loop whose connection pool grows to the number of
  calls in flight (``max_connections`` caps it; ``None``: no cap).

It does no retries of its own: a status of 400 and above raises
:class:`~silo_gym.llm.retry.ModelHTTPError` (with the server's ``Retry-After``), a connection
failure raises aiohttp's ``ClientConnectionError``, a 200 holding no assistant message (an
``{"error": ...}`` body, no ``choices``...) raises :class:`~silo_gym.llm.replies.ModelReplyError`,
and the policy decides (``RetryPolicy``).
``aiohttp`` is the ``silo-gym[aiohttp]`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import orjson

from .formats import split_anthropic_system
from .loop_local import LoopLocal
from .policy import ModelReply
from .replies import anthropic_reply, chat_message, responses_output
from .retry import ModelHTTPError, parse_retry_after

__all__ = ["LeanClient", "drop_none", "lean_acomplete"]

_MISSING = 'The lean model client needs "aiohttp": pip install "silo-gym[aiohttp]"'
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_TIMEOUT_S = 600.0


def drop_none(value: Any) -> Any:
    """``value`` with every ``None`` dict value removed, recursively (lists keep their items)."""
    if isinstance(value, dict):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_none(v) for v in value]
    return value


def require_aiohttp() -> Any:
    try:
        import aiohttp
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return aiohttp


def _error_message(status: int, data: bytes) -> str:
    try:
        payload = orjson.loads(data)
    except orjson.JSONDecodeError:
        text = data.decode("utf-8", "replace").strip()
        return text[:300] or f"status {status}"
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    return data.decode("utf-8", "replace")[:300]


class LeanClient:
    """POSTs JSON bodies to one server and returns the decoded replies (module docs).

    Args:
        base_url: ``http://host:port/v1`` for OpenAI-style servers, ``http://host:port`` for
            Anthropic (requests go to ``<base_url>/v1/messages``).
        headers: sent with every request (authentication, API version).
        max_connections: the connection pool's cap (``None``: grows with the calls in flight).
        timeout_s: the whole request's timeout, in seconds.
    """

    def __init__(self, base_url: str, headers: dict[str, str], *, max_connections: int | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        require_aiohttp()
        self.base_url = base_url.rstrip("/")
        self.headers = {"Content-Type": "application/json", **headers}
        self.max_connections = max_connections
        self.timeout_s = timeout_s
        self._sessions: LoopLocal[Any] = LoopLocal(self._new_session)
        self._tools: dict[int, tuple[Any, bytes]] = {}

    def __getstate__(self) -> dict[str, Any]:  # picklable: no sessions, no cached bytes
        return {**self.__dict__, "_tools": {}, "_sessions": LoopLocal(self._new_session)}

    def tools_bytes(self, tools: Any) -> bytes:
        """``orjson.dumps(tools)``, computed once per list object (kept alive with its bytes)."""
        found = self._tools.get(id(tools))
        if found is not None and found[0] is tools:
            return found[1]
        data = orjson.dumps(tools)
        if len(self._tools) >= 64:
            self._tools.clear()
        self._tools[id(tools)] = (tools, data)
        return data

    def body(self, fields: dict[str, Any], tools: Any) -> bytes:
        """The request body: ``fields`` and, when given, ``"tools"`` spliced in as cached bytes."""
        head = orjson.dumps(fields)
        if not tools:
            return head
        if head == b"{}":
            return b'{"tools":' + self.tools_bytes(tools) + b"}"
        return head[:-1] + b',"tools":' + self.tools_bytes(tools) + b"}"

    def _new_session(self) -> Any:
        aiohttp = require_aiohttp()
        connector = aiohttp.TCPConnector(limit=self.max_connections or 0, ttl_dns_cache=300)
        return aiohttp.ClientSession(connector=connector, headers=self.headers,
                                     timeout=aiohttp.ClientTimeout(total=self.timeout_s))

    def _session(self) -> Any:
        session = self._sessions.get()
        if session.closed:
            self._sessions.forget()
            session = self._sessions.get()
        return session

    async def post(self, path: str, body: bytes) -> dict[str, Any]:
        """POST ``body`` to ``<base_url><path>``; the decoded JSON reply.

        Raises:
            ModelHTTPError: a status of 400 or above.
            aiohttp.ClientError: the connection failed.
            ValueError: the reply is not a JSON object.
        """
        async with self._session().post(self.base_url + path, data=body) as response:
            data = await response.read()
            if response.status >= 400:
                raise ModelHTTPError(response.status, _error_message(response.status, data),
                                     retry_after_s=parse_retry_after(response.headers),
                                     body=data.decode("utf-8", "replace"))
        try:
            payload = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise ValueError(f"The model server's reply is not JSON: {data[:200]!r}") from exc
        if not isinstance(payload, dict):
            raise ValueError(f"The model server's reply is not a JSON object: {data[:200]!r}")
        return payload

    async def aclose(self) -> None:
        """Close the session of the running event loop (others close with their loops)."""
        await self._sessions.aclose()


def _usage(payload: dict[str, Any]) -> dict[str, Any] | None:
    usage = payload.get("usage")
    return drop_none(usage) if isinstance(usage, dict) else None


def lean_acomplete(provider: str, base_url: str | None, model: str, *, api_key: str | None = None,
                   api: str = "chat", max_connections: int | None = None,
                   timeout_s: float = DEFAULT_TIMEOUT_S, **params: Any) -> Callable[..., Any]:
    """An async ``complete`` over :class:`LeanClient` (use it through ``openai_acomplete`` /
    ``anthropic_acomplete`` with ``lean=True``).

    Args:
        provider: ``"openai"`` (``api`` ``"chat"``, ``"responses"`` or ``"text"``) or
            ``"anthropic"`` (Messages).
        base_url: the server (``None``: ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``, else the
            provider's public endpoint).
        api_key: defaults to ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` (``"EMPTY"`` when unset).
        **params: sent in every request body (``temperature``, ``max_tokens``...).

    Returns:
        ``async complete(messages, tools)`` (``complete_text(messages)`` for ``api="text"``)
        returning a :class:`ModelReply`, with ``complete.aclose()`` to close its session.
    """
    if provider == "openai":
        if api not in ("chat", "responses", "text"):
            raise ValueError(f'api must be "chat", "responses" or "text"; got {api!r}.')
        url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or "EMPTY"
        client = LeanClient(url, {"Authorization": f"Bearer {key}"}, max_connections=max_connections,
                            timeout_s=timeout_s)
    elif provider == "anthropic":
        url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY") or "EMPTY"
        client = LeanClient(url, {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION},
                            max_connections=max_connections, timeout_s=timeout_s)
        params.setdefault("max_tokens", 1024)
    else:
        raise ValueError(f'provider must be "openai" or "anthropic"; got {provider!r}.')

    async def complete_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        payload = await client.post("/chat/completions", client.body({"model": model, **params, "messages": messages},
                                                                     tools))
        message = drop_none(chat_message(payload))
        return ModelReply(message, usage=_usage(payload), model=payload.get("model") or model)

    async def complete_responses(items: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        payload = await client.post("/responses", client.body({"model": model, **params, "input": items}, tools))
        output = [drop_none(item) for item in responses_output(payload)]
        return ModelReply(output, usage=_usage(payload), model=payload.get("model") or model)

    async def complete_text(messages: list[dict[str, Any]]) -> ModelReply:
        payload = await client.post("/chat/completions", client.body({"model": model, **params, "messages": messages},
                                                                     None))
        content = chat_message(payload).get("content")
        return ModelReply(content if isinstance(content, str) else "", usage=_usage(payload), model=payload.get("model") or model)

    async def complete_anthropic(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        system, rest = split_anthropic_system(messages)
        fields: dict[str, Any] = {"model": model, **params, "messages": rest}
        if system:
            fields["system"] = system
        payload = await client.post("/v1/messages", client.body(fields, tools))
        message = {"role": payload.get("role") or "assistant",
                   "content": [drop_none(b) for b in anthropic_reply(payload)]}
        return ModelReply(message, usage=_usage(payload), model=payload.get("model") or model)

    chosen: Any
    if provider == "anthropic":
        chosen = complete_anthropic
    else:
        chosen = {"chat": complete_chat, "responses": complete_responses, "text": complete_text}[api]
    chosen.aclose = client.aclose
    chosen.client = client
    return chosen  # type: ignore[no-any-return]
