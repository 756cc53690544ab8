"""``run_endpoint_episode``: one silo episode as a plain chat loop against an OpenAI-compatible
base URL, for trainers that capture tokens at their own proxy (docs/training.md: ART, AReaL,
rLLM, Agent Lightning, OpenRLHF's server mode).

Those trainers hand the rollout code a base URL (and often an API key that names the session);
everything the model generates passes through their server, which records the prompt and
completion tokens. The environment side only has to talk to that URL::

    from silo_gym.llm import run_endpoint_episode

    env = gym.make("silo/demo-TASK-001")
    episode = run_endpoint_episode(env, base_url, "my-model", seed=0)
    episode.reward                       # the verifier's reward, as in result.json
    # in a coroutine: episode = await arun_endpoint_episode(env, base_url, "my-model")

Each request carries the whole conversation so far (system prompt, instruction, earlier replies
and tool results) and, with ``api="chat"``, the task's tools; the proxy's completion for it is the
model's tokens, and tool results only ever appear in later *requests*, so a trainer that trains
on completions never trains on tool output. Requests go through the ``openai`` SDK (its
``httpx`` transport), which is what ART's ``capture_auto_trajectory`` watches; pass ``client=``
to use the trainer's own client.

The ``openai`` package is the ``silo-gym[openai]`` extra.
"""

from __future__ import annotations

import os
from typing import Any

from .openai_adapter import openai_acomplete, openai_complete
from .policy import ChatPolicy, Episode
from .retry import DEFAULT_RETRY, RetryPolicy
from .text_protocol import TextProtocolPolicy

__all__ = ["arun_endpoint_episode", "run_endpoint_episode"]

_MISSING = 'run_endpoint_episode needs the "openai" package: pip install "silo-gym[openai]"'
_APIS = ("chat", "text")


def _key(api_key: str | None) -> str:
    return api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or "EMPTY"


def _policy(complete: Any, api: str, system_prompt: str | None, model: str,
            retry: RetryPolicy | None) -> ChatPolicy | TextProtocolPolicy:
    if api == "chat":
        return ChatPolicy(complete, system_prompt=system_prompt, model=model, retry=retry)
    return TextProtocolPolicy(complete, system_prompt=system_prompt, model=model, retry=retry)


def _check_api(api: str) -> None:
    if api not in _APIS:
        raise ValueError(f'api must be "chat" (native tool calls) or "text" (the text protocol); got {api!r}.')


def run_endpoint_episode(env: Any, base_url: str | None, model: str, *, api_key: str | None = None,
                         seed: int | None = None, options: dict[str, Any] | None = None, api: str = "chat",
                         system_prompt: str | None = None, client: Any = None, http_client: Any = None,
                         retry: RetryPolicy | None = DEFAULT_RETRY, **params: Any) -> Episode:
    """Reset ``env`` and play one episode against the chat endpoint at ``base_url``.

    Args:
        env: a silo env (``gym.make("silo/...")``, wrappers allowed; ``RecordRun`` records it).
        base_url: the OpenAI-compatible base URL (``.../v1``) the trainer gives the rollout.
        model: the model name sent with every request (the trainer's served name).
        api_key: the key (some trainers put the session in it); defaults to ``OPENAI_API_KEY``,
            else ``"EMPTY"``.
        seed, options: passed to ``env.reset`` (``options={"task_id": ..., "variant": ...}``).
        api: ``"chat"`` (native tool calls: ``tools`` in each request, ``role: "tool"`` results;
            :class:`~silo_gym.llm.ChatPolicy`) or ``"text"`` (no ``tools``: the text protocol's
            ``<tool_call>`` tags; :class:`~silo_gym.llm.TextProtocolPolicy`).
        system_prompt: the system message (``None``: the policy's default; ``""``: none, with
            ``api="chat"``).
        client: an ``openai.OpenAI`` to send the requests with instead of building one (it is
            not closed here).
        http_client: an ``httpx.Client`` for the ``openai.OpenAI`` built here.
        retry: how transient model errors are retried (``None``: never).
        **params: passed to every ``chat.completions.create`` call (``temperature``,
            ``max_tokens``, ``extra_body``, ``extra_headers``...).

    Returns:
        The :class:`~silo_gym.llm.Episode`: ``reward`` is the final step's reward (the verifier's,
        equal to ``result.json``'s), ``messages`` the whole conversation, ``info["result"]`` the
        ``result.json`` dict.

    Raises:
        ValueError: an unknown ``api``.
        ImportError: the ``openai`` package is missing.
        Exception: a permanent model error, or the last transient one; the episode was ended first
            as ``agent_error`` (graded and recorded), so no reward is made up.
    """
    _check_api(api)
    owned = None
    if client is None:
        try:
            import openai
        except ImportError as exc:
            raise ImportError(_MISSING) from exc
        # No SDK retries: the policy retries transient errors itself and counts them.
        owned = client = openai.OpenAI(base_url=base_url, api_key=_key(api_key), http_client=http_client,
                                       max_retries=0)
    try:
        complete = openai_complete(base_url, model, api="chat" if api == "chat" else "text", client=client, **params)
        return _policy(complete, api, system_prompt, model, retry).run_episode(env, seed=seed, options=options)
    finally:
        if owned is not None and http_client is None:
            owned.close()


async def arun_endpoint_episode(env: Any, base_url: str | None, model: str, *, api_key: str | None = None,
                                seed: int | None = None, options: dict[str, Any] | None = None,
                                api: str = "chat", system_prompt: str | None = None, client: Any = None,
                                http_client: Any = None, retry: RetryPolicy | None = DEFAULT_RETRY,
                                **params: Any) -> Episode:
    """:func:`run_endpoint_episode` on the running event loop (``openai.AsyncOpenAI``).

    The same arguments, except that ``client`` is an ``openai.AsyncOpenAI`` and ``http_client``
    an ``httpx.AsyncClient`` (AReaL passes one to its agents). The env's steps run on the loop
    (they are quick and in-process); the model calls are awaited.
    """
    _check_api(api)
    owned = None
    if client is None:
        try:
            import openai
        except ImportError as exc:
            raise ImportError(_MISSING) from exc
        owned = client = openai.AsyncOpenAI(base_url=base_url, api_key=_key(api_key), http_client=http_client,
                                            max_retries=0)
    try:
        complete = openai_acomplete(base_url, model, api="chat" if api == "chat" else "text", client=client,
                                    **params)
        return await _policy(complete, api, system_prompt, model, retry).arun_episode(env, seed=seed,
                                                                                     options=options)
    finally:
        if owned is not None and http_client is None:
            await owned.close()
