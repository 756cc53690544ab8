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
from dataclasses import dataclass, field, fields
from typing import Any

from .policy import ChatPolicy, Episode, ModelReply
from .retry import DEFAULT_RETRY, RetryPolicy
from .text_protocol import TextProtocolPolicy

__all__ = ["EndpointEpisode", "arun_endpoint_episode", "run_endpoint_episode"]

_MISSING = 'run_endpoint_episode needs the "openai" package: pip install "silo-gym[openai]"'
_APIS = ("chat", "text")


@dataclass
class EndpointEpisode(Episode):
    """An :class:`~silo_gym.llm.Episode` played against an endpoint, with what the endpoint sent.

    Attributes:
        completions: the ``ChatCompletion`` of each model turn, in order (one per assistant
            message of ``messages``; retried failures are not in it).
        tools: the ``tools`` sent with every request (``api="chat"``), else ``None``.
    """

    completions: list[Any] = field(default_factory=list)
    tools: list[dict[str, Any]] | None = None

    def messages_and_choices(self) -> list[Any]:
        """``messages`` with each assistant message replaced by the ``Choice`` it came from (the
        SDK object, with its ``logprobs``): the form ART's ``Trajectory(messages_and_choices=...)``
        takes, where only the choices are trained on."""
        choices = iter(c.choices[0] for c in self.completions)
        return [next(choices) if isinstance(m, dict) and m.get("role") == "assistant" else m for m in self.messages]


def _key(api_key: str | None) -> str:
    return api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or "EMPTY"


def _sdk_client(asynchronous: bool, base_url: str | None, api_key: str | None, http_client: Any) -> Any:
    """An ``openai.OpenAI`` (``AsyncOpenAI``) without SDK retries: the policy retries transient
    errors itself and counts them."""
    try:
        import openai
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    make = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return make(base_url=base_url, api_key=_key(api_key), http_client=http_client, max_retries=0)


def _check_api(api: str) -> None:
    if api not in _APIS:
        raise ValueError(f'api must be "chat" (native tool calls) or "text" (the text protocol); got {api!r}.')


def _usage(response: Any) -> dict[str, Any] | None:
    usage = getattr(response, "usage", None)
    dump = getattr(usage, "model_dump", None)
    value = dump(exclude_none=True) if callable(dump) else usage
    return value if isinstance(value, dict) else None


class _Recorder:
    """Sends the requests of one episode and keeps every response (:class:`EndpointEpisode`)."""

    def __init__(self, client: Any, model: str, api: str, params: dict[str, Any]) -> None:
        self.client, self.model, self.api, self.params = client, model, api, params
        self.completions: list[Any] = []
        self.tools: list[dict[str, Any]] | None = None

    def _kwargs(self, tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        kwargs = dict(self.params)
        if tools:
            kwargs["tools"] = self.tools = tools
        return kwargs

    def _reply(self, response: Any) -> ModelReply:
        self.completions.append(response)
        message = response.choices[0].message
        if self.api == "text":
            value: Any = message.content or ""
        else:
            dump = getattr(message, "model_dump", None)
            value = dump(exclude_none=True) if callable(dump) else message
        return ModelReply(value, usage=_usage(response), model=getattr(response, "model", None) or self.model)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        response = self.client.chat.completions.create(model=self.model, messages=messages, **self._kwargs(tools))
        return self._reply(response)

    async def acomplete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        response = await self.client.chat.completions.create(model=self.model, messages=messages,
                                                             **self._kwargs(tools))
        return self._reply(response)

    def policy(self, function: Any, system_prompt: str | None, retry: RetryPolicy | None) -> Any:
        if self.api == "chat":
            return ChatPolicy(function, system_prompt=system_prompt, model=self.model, retry=retry)
        return TextProtocolPolicy(function, system_prompt=system_prompt, model=self.model, retry=retry)

    def episode(self, episode: Episode) -> EndpointEpisode:
        values = {f.name: getattr(episode, f.name) for f in fields(Episode)}
        return EndpointEpisode(**values, completions=self.completions, tools=self.tools)


def run_endpoint_episode(env: Any, base_url: str | None, model: str, *, api_key: str | None = None,
                         seed: int | None = None, options: dict[str, Any] | None = None, api: str = "chat",
                         system_prompt: str | None = None, client: Any = None, http_client: Any = None,
                         retry: RetryPolicy | None = DEFAULT_RETRY, **params: Any) -> EndpointEpisode:
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
        An :class:`EndpointEpisode`: ``reward`` is the final step's reward (the verifier's, equal
        to ``result.json``'s), ``messages`` the whole conversation, ``info["result"]`` the
        ``result.json`` dict, ``completions`` the endpoint's responses.

    Raises:
        ValueError: an unknown ``api``.
        ImportError: the ``openai`` package is missing.
        Exception: a permanent model error, or the last transient one; the episode was ended first
            as ``agent_error`` (graded and recorded), so no reward is made up.
    """
    _check_api(api)
    owned = _sdk_client(False, base_url, api_key, http_client) if client is None else None
    client = owned if owned is not None else client
    recorder = _Recorder(client, model, api, params)
    try:
        episode = recorder.policy(recorder.complete, system_prompt, retry).run_episode(env, seed=seed, options=options)
    finally:
        if owned is not None and http_client is None:
            owned.close()
    return recorder.episode(episode)


async def arun_endpoint_episode(env: Any, base_url: str | None, model: str, *, api_key: str | None = None,
                                seed: int | None = None, options: dict[str, Any] | None = None,
                                api: str = "chat", system_prompt: str | None = None, client: Any = None,
                                http_client: Any = None, retry: RetryPolicy | None = DEFAULT_RETRY,
                                **params: Any) -> EndpointEpisode:
    """:func:`run_endpoint_episode` on the running event loop (``openai.AsyncOpenAI``).

    The same arguments, except that ``client`` is an ``openai.AsyncOpenAI`` and ``http_client``
    an ``httpx.AsyncClient`` (AReaL passes one to its agents). The env's steps run on the loop
    (they are quick and in-process); the model calls are awaited.
    """
    _check_api(api)
    owned = _sdk_client(True, base_url, api_key, http_client) if client is None else None
    client = owned if owned is not None else client
    recorder = _Recorder(client, model, api, params)
    try:
        episode = await recorder.policy(recorder.acomplete, system_prompt, retry).arun_episode(env, seed=seed,
                                                                                             options=options)
    finally:
        if owned is not None and http_client is None:
            await owned.close()
    return recorder.episode(episode)
