"""``anthropic_complete`` / ``anthropic_acomplete``: ``complete`` functions over the ``anthropic``
SDK (Messages API) for ``ChatPolicy(api="anthropic")``.

The ``anthropic`` package is an optional extra (``pip install "silo-gym[anthropic]"``); it is
imported only when a client is built. ``ChatPolicy(api="anthropic")`` passes the system prompt as
the conversation's first message; these functions send it as the top-level ``system`` parameter
(:func:`~silo_gym.llm.formats.split_anthropic_system`).

Example::

    from silo_gym.llm import ChatPolicy, anthropic_acomplete

    policy = ChatPolicy(anthropic_acomplete("claude-sonnet-4-5", max_tokens=1024), api="anthropic")
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .formats import split_anthropic_system
from .loop_local import LoopLocal
from .policy import ModelReply
from .replies import anthropic_reply

__all__ = ["anthropic_acomplete", "anthropic_complete"]

_MISSING = 'The Anthropic adapter needs the "anthropic" package: pip install "silo-gym[anthropic]"'
#: ``max_tokens`` is required by the Messages API; this is sent unless given.
DEFAULT_MAX_TOKENS = 1024


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return anthropic


def _plain(obj: Any) -> Any:
    dump = getattr(obj, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else obj


def _reply(response: Any, model: str) -> ModelReply:
    message = {"role": getattr(response, "role", None) or "assistant",
               "content": [_plain(block) for block in anthropic_reply(response)]}
    usage = _plain(getattr(response, "usage", None))
    return ModelReply(message, usage=usage if isinstance(usage, dict) else None,
                      model=getattr(response, "model", None) or model)


def _request(model: str, params: dict[str, Any], messages: list[dict[str, Any]],
             tools: list[dict[str, Any]] | None) -> dict[str, Any]:
    system, rest = split_anthropic_system(messages)
    kwargs: dict[str, Any] = {"max_tokens": DEFAULT_MAX_TOKENS, **params, "model": model, "messages": rest}
    if system:
        kwargs["system"] = system
    if tools:
        kwargs["tools"] = tools
    return kwargs


def _key(api_key: str | None) -> str:
    return api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY") or "EMPTY"


class _AsyncAnthropic:
    """Builds ``anthropic.AsyncAnthropic`` clients without SDK retries (picklable)."""

    def __init__(self, base_url: str | None, api_key: str | None) -> None:
        self.base_url = base_url
        self.api_key = _key(api_key)

    def __call__(self) -> Any:
        return _sdk().AsyncAnthropic(base_url=self.base_url, api_key=self.api_key, max_retries=0)


def anthropic_complete(model: str, *, base_url: str | None = None, api_key: str | None = None,
                       client: Any = None, **params: Any) -> Callable[..., ModelReply]:
    """A ``complete(messages, tools)`` asking ``model`` through ``anthropic.Anthropic``.

    Args:
        model: the model name.
        base_url: the server (``None``: ``ANTHROPIC_BASE_URL`` or Anthropic's API).
        api_key: defaults to ``ANTHROPIC_API_KEY`` (``"EMPTY"`` when unset, for local servers).
        client: an ``anthropic.Anthropic`` to use instead of building one (with ``max_retries=0``:
            the policy retries transient errors and counts them).
        **params: passed to every ``messages.create`` (``max_tokens`` defaults to 1024,
            ``temperature``...).

    Returns:
        ``complete(messages, tools)`` returning a :class:`ModelReply` whose message is
        ``{"role": "assistant", "content": [blocks]}``, with the usage and the served model name.

    Raises:
        ImportError: the ``anthropic`` package is not installed.
    """
    if client is None:
        client = _sdk().Anthropic(base_url=base_url, api_key=_key(api_key), max_retries=0)

    def complete(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        return _reply(client.messages.create(**_request(model, params, messages, tools)), model)

    return complete


def anthropic_acomplete(model: str, *, base_url: str | None = None, api_key: str | None = None,
                        client: Any = None, lean: bool = False, max_connections: int | None = None,
                        **params: Any) -> Callable[..., Any]:
    """The async form of :func:`anthropic_complete` (``anthropic.AsyncAnthropic``, one client per
    event loop), for ``arun_episode`` and concurrent collection.

    ``lean=True`` sends the same requests on silo_gym's lean HTTP path
    (:mod:`silo_gym.llm.lean_client`, the ``silo-gym[aiohttp]`` extra) instead of the SDK;
    ``max_connections`` caps its pool.
    """
    if lean:
        from .lean_client import lean_acomplete

        return lean_acomplete("anthropic", base_url, model, api_key=api_key, max_connections=max_connections,
                              **{"max_tokens": DEFAULT_MAX_TOKENS, **params})
    if client is None:
        _sdk()  # fail now, not at the first call
    clients = LoopLocal(_AsyncAnthropic(base_url, api_key)) if client is None else None

    def get_client() -> Any:
        return clients.get() if clients is not None else client

    async def complete(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        return _reply(await get_client().messages.create(**_request(model, params, messages, tools)), model)

    if clients is not None:
        complete.aclose = clients.aclose  # type: ignore[attr-defined]
    return complete
