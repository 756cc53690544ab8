"""``ChatPolicy``: a policy loop over any chat function (gym-api.md, "LLM policies").

``ChatPolicy(complete, api=...)`` drives one Gymnasium episode of a Silo env with a chat model::

    policy = ChatPolicy(complete)                       # complete(messages, tools) -> reply
    episode = policy.run_episode(gym.make("silo/demo-TASK-001"), seed=0)
    episode.reward, episode.messages

How ``complete`` is called, per ``api``:

``"chat"`` (OpenAI Chat Completions)
    ``complete(messages, tools)``: ``messages`` are Chat messages (system, user, then assistant /
    ``tool`` messages), ``tools`` is :func:`to_openai_chat_tools`. It returns one assistant message
    (a dict, the SDK's ``ChatCompletionMessage``, a whole ``ChatCompletion``, or a ``str``).
``"responses"`` (OpenAI Responses)
    ``complete(items, tools)``: ``items`` is the Responses ``input`` list (a system and a user
    message, then earlier output items and ``function_call_output`` items), ``tools`` is
    :func:`to_openai_responses_tools`. It returns the response's ``output`` list (or the whole
    response). Pass ``items`` as ``input=``.
``"anthropic"`` (Anthropic Messages)
    ``complete(messages, tools)``: ``messages[0]`` is ``{"role": "system", "content": ...}``, which
    ``complete`` passes as the top-level ``system=`` (see :func:`split_anthropic_system`); the rest
    are Messages-API messages; ``tools`` is :func:`to_anthropic_tools`. It returns the assistant
    message (``{"role", "content": [blocks]}``, the SDK's ``Message``, or just the blocks).

``complete`` may wrap its reply in :class:`ModelReply` to report token usage, the model name and
latency for the trace's ``model_step`` event; otherwise the latency is measured around the call
and the model name is the policy's ``model``.

Sync and async: ``complete`` may be a plain function or a coroutine function (``async def``).
``run_episode`` and ``await arun_episode`` play the same loop (one generator, :class:`EpisodeLoop`,
driven by :func:`drive` or :func:`adrive`), so they give the same episode for the same replies.
``arun_episode`` never blocks the event loop: a plain ``complete`` runs in a worker thread
(``asyncio.to_thread``). ``run_episode`` with an async ``complete`` runs the episode with
``asyncio.run`` (outside a running event loop only).

Retries: a model call that fails with a transient error (HTTP 429 or 5xx, a connection error; see
:mod:`silo_gym.llm.retry`) is tried again after an exponential, jittered pause that honours the
server's ``Retry-After``; ``Episode.retries`` counts them. Any other error aborts the episode
(``agent_error``, graded and recorded) and propagates.

``Episode.messages`` is the whole conversation in the API's format, append-only: each reply is
stored normalized (:func:`normalize_reply`), with ``call_<n>`` filled in for calls without an id.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import inspect
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..info import ResetInfo
from .formats import (
    as_plain,
    get_field,
    normalize_reply,
    reply_text,
    reply_tool_calls,
    set_call_id,
    to_anthropic_tools,
    to_openai_chat_tools,
    to_openai_responses_tools,
    tool_result_message,
)
from .retry import DEFAULT_RETRY, RetryPolicy

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "EPISODE_METER",
    "ChatPolicy",
    "Episode",
    "EpisodeLoop",
    "EpisodeMeter",
    "ModelReply",
    "aclose_model",
    "copy_messages",
    "adrive",
    "drive",
    "is_async_callable",
]

#: The system prompt of ``ChatPolicy`` (and of the chat-format rows ``silo_gym.data`` builds for
#: policies that are not chat models).
DEFAULT_SYSTEM_PROMPT = (
    "You are an agent that completes tasks by calling the tools you are given. "
    "Call tools to look things up and to make changes; each result comes back to you as JSON: "
    '{"output": ...}, or {"output": {"code": ..., "message": ...}, "isError": true} when the call '
    "failed (read the message and correct the call). "
    "When the task is done, reply with your final answer as plain text, without calling a tool: "
    "that reply ends the episode and is graded."
)


@dataclass
class ModelReply:
    """A model reply with its metadata, for the ``model_step`` trace event (silo-format §6.5).

    ``message`` is what ``complete`` would return on its own; ``usage`` is the provider's usage
    object (a dict); ``model`` the model name the server reported; ``latency_ms`` overrides the
    latency the policy measures around the call.
    """

    message: Any
    usage: dict[str, Any] | None = None
    model: str | None = None
    latency_ms: float | None = None


@dataclass
class Episode:
    """One episode run by a policy.

    Attributes:
        messages: the whole conversation in the policy's format (chat, responses, anthropic;
            chat-style messages with text content for the text protocol).
        actions: every action stepped, in order (dicts; a ``str`` for an unparseable text-protocol
            call); the last is the answer unless a step truncated the episode.
        reward: the reward of the step that ended the episode.
        terminated: the episode ended with an answer.
        truncated: a limit (or an abort) ended it.
        info: the final step's info (``result``, ``state_diff``, ``termination_reason``...).
        observations: the observation returned by each step, aligned with ``actions``.
        api: the API surface (``chat``, ``responses``, ``anthropic`` or ``text``).
        prompt_length: how many leading entries of ``messages`` are the prompt (system + user).
        reset_info: the info ``reset`` returned (``task_id``, ``tools``...).
        retries: model calls retried after a transient error (:mod:`silo_gym.llm.retry`).
    """

    messages: list[Any]
    actions: list[Any]
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    observations: list[str] = field(default_factory=list)
    api: str = "chat"
    prompt_length: int = 2
    reset_info: dict[str, Any] = field(default_factory=dict)
    retries: int = 0

    @property
    def prompt(self) -> list[Any]:
        """The prompt messages (system and user)."""
        return self.messages[: self.prompt_length]


#: One model call as the loop asks for it: the positional arguments of ``complete``.
Request = tuple[Any, ...]
#: What the driver sends back: the raw reply and the call's latency in ms.
Reply = tuple[Any, float]
#: The episode loop as a generator: yields requests, receives replies, returns the Episode.
Steps = Generator[Request, Reply, Episode]


@dataclass
class EpisodeMeter:
    """What a driver reports about the episode it plays, for a harness that may have to stop it
    (:func:`silo_gym.data.collect` reads it when an episode times out).

    Attributes:
        retries: model calls retried so far.
        turns: model calls started so far (retries not counted).
        waiting: ``True`` while a model call is in flight.
    """

    retries: int = 0
    turns: int = 0
    waiting: bool = False


#: The meter of the episode played in the current context (``None``: nobody is watching). A
#: harness sets a fresh :class:`EpisodeMeter` in the task that plays one episode.
EPISODE_METER: contextvars.ContextVar[EpisodeMeter | None] = contextvars.ContextVar("silo_gym_episode_meter",
                                                                                     default=None)

_TOOL_CONVERTERS: dict[str, Callable[[Any], list[dict[str, Any]]]] = {
    "chat": to_openai_chat_tools,
    "responses": to_openai_responses_tools,
    "anthropic": to_anthropic_tools,
}


def is_async_callable(fn: Any) -> bool:
    """True when calling ``fn`` returns a coroutine: an ``async def`` function, a
    ``functools.partial`` of one, or an object whose ``__call__`` is ``async def``."""
    if inspect.iscoroutinefunction(fn):
        return True
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        return False
    return inspect.iscoroutinefunction(type(fn).__call__)


def run_coroutine(coro: Awaitable[Episode]) -> Episode:
    """Run ``coro`` to its end with ``asyncio.run``; refuse inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)  # type: ignore[arg-type]
    close = getattr(coro, "close", None)
    if callable(close):
        close()
    raise RuntimeError("run_episode() was called inside a running event loop with an async model function; "
                       "use `await policy.arun_episode(env, ...)` there.")


async def aclose_model(complete: Any) -> None:
    """Close what a model function holds on the running loop (its ``aclose()``, if any)."""
    close = getattr(complete, "aclose", None)
    if callable(close):
        result = close()
        if inspect.isawaitable(result):
            await result


def _meter() -> EpisodeMeter:
    return EPISODE_METER.get() or EpisodeMeter()


def drive(steps: Steps, complete: Callable[..., Any], retry: RetryPolicy | None = DEFAULT_RETRY) -> Episode:
    """Play an episode loop synchronously: call ``complete`` for each request (retrying transient
    errors with ``time.sleep`` pauses) and return the :class:`Episode`.

    Raises:
        TypeError: ``complete`` returned an awaitable (use :func:`adrive`).
        Exception: a permanent model error, or the last transient one (the loop aborted the
            episode first).
    """
    meter = _meter()
    retries = 0
    try:
        request = next(steps)
        while True:
            meter.turns += 1
            meter.waiting = True
            attempt = 0
            while True:
                t0 = time.perf_counter()
                try:
                    raw = complete(*request)
                    if inspect.isawaitable(raw):
                        close = getattr(raw, "close", None)
                        if callable(close):
                            close()
                        raise TypeError("The model function returned an awaitable; run the episode with "
                                        "`await policy.arun_episode(env, ...)`.")
                except Exception as exc:
                    delay = retry.next_delay(exc, attempt) if retry is not None else None
                    if delay is None:
                        meter.waiting = False
                        steps.throw(exc)  # the loop aborts the episode and re-raises
                        raise
                    attempt += 1
                    retries += 1
                    meter.retries += 1
                    time.sleep(delay)
                    continue
                except BaseException as stop:  # KeyboardInterrupt, SystemExit: abort, then propagate
                    meter.waiting = False
                    steps.throw(stop)
                    raise
                break
            meter.waiting = False
            request = steps.send((raw, (time.perf_counter() - t0) * 1000.0))
    except StopIteration as stop:
        episode: Episode = stop.value
        episode.retries = retries
        return episode


async def adrive(steps: Steps, complete: Callable[..., Any], retry: RetryPolicy | None = DEFAULT_RETRY,
                 is_async: bool | None = None) -> Episode:
    """Play an episode loop on the running event loop: await ``complete`` for each request (a
    plain function runs in a worker thread), retrying transient errors with ``asyncio.sleep``
    pauses; return the :class:`Episode`. A cancellation aborts the episode and propagates."""
    if is_async is None:
        is_async = is_async_callable(complete)
    meter = _meter()
    retries = 0
    try:
        request = next(steps)
        while True:
            meter.turns += 1
            meter.waiting = True
            attempt = 0
            while True:
                t0 = time.perf_counter()
                try:
                    if is_async:
                        raw = await complete(*request)
                    else:
                        raw = await asyncio.to_thread(complete, *request)
                        if inspect.isawaitable(raw):
                            raw = await raw
                except Exception as exc:
                    delay = retry.next_delay(exc, attempt) if retry is not None else None
                    if delay is None:
                        meter.waiting = False
                        steps.throw(exc)
                        raise
                    attempt += 1
                    retries += 1
                    meter.retries += 1
                    try:
                        await asyncio.sleep(delay)
                    except BaseException as stop:
                        steps.throw(stop)
                        raise
                    continue
                except BaseException as stop:  # cancelled (a timeout, an interruption): meter kept as is
                    steps.throw(stop)
                    raise
                break
            meter.waiting = False
            request = steps.send((raw, (time.perf_counter() - t0) * 1000.0))
    except StopIteration as stop:
        episode: Episode = stop.value
        episode.retries = retries
        return episode


class EpisodeLoop:
    """Stepping, reporting and bookkeeping shared by ``ChatPolicy`` and ``TextProtocolPolicy``
    (one loop for sync and async play: see :func:`drive` / :func:`adrive`)."""

    def __init__(self, env: Any, api: str, model: str | None) -> None:
        self.env = env
        self.api = api
        self.model = model
        self.actions: list[Any] = []
        self.observations: list[str] = []
        self.reward = 0.0
        self.terminated = False
        self.truncated = False
        self.info: dict[str, Any] = {}
        self.tool_calls = 0
        try:
            self._log: Callable[..., Any] | None = env.get_wrapper_attr("log_model_step")
        except AttributeError:
            self._log = None

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self.info = info
        self.tool_calls = int(info.get("tool_calls", 0) or 0)
        return obs, info

    def ask(self, *args: Any) -> Generator[Request, Reply, tuple[Any, dict[str, Any] | None, str | None, float]]:
        """Ask the driver for one model call (``yield from``); returns ``(reply, usage, model,
        latency_ms)``. A failure thrown in by the driver aborts the episode (``agent_error``) and
        propagates."""
        try:
            raw, latency = yield args
        except GeneratorExit:  # the driver let go of the loop: touch nothing (the env may be reused)
            raise
        except BaseException as exc:
            self.abort(exc)
            raise
        usage, model = None, self.model
        if isinstance(raw, ModelReply):
            usage = raw.usage
            model = raw.model if raw.model is not None else model
            latency = raw.latency_ms if raw.latency_ms is not None else latency
            raw = raw.message
        else:  # a whole provider response (dict or SDK object) carries its own usage and model
            found = as_plain(get_field(raw, "usage"))
            usage = found if isinstance(found, dict) else None
            served = get_field(raw, "model")
            model = served if isinstance(served, str) else model
        return raw, usage, model, latency

    def abort(self, exc: BaseException) -> None:
        """End the open episode as ``agent_error`` (graded and recorded), as the runner does."""
        unwrapped: Any = getattr(self.env, "unwrapped", None)
        episode = getattr(unwrapped, "episode", None)
        abort = getattr(unwrapped, "abort", None)
        if episode is not None and not episode.done and callable(abort):
            abort(str(exc) or type(exc).__name__)

    def report(self, messages: list[Any], reply: Any, usage: dict[str, Any] | None, model: str | None,
               latency_ms: float) -> None:
        if self._log is not None:
            self._log(messages, reply, usage=usage, latency_ms=latency_ms, api=self.api, model=model)

    def step(self, action: Any) -> tuple[str, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.actions.append(action)
        self.observations.append(obs)
        self.reward = float(reward)
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        self.info = info
        self.tool_calls = int(info.get("tool_calls", self.tool_calls) or 0)
        return obs, info

    def episode(self, messages: list[Any], prompt_length: int, reset_info: dict[str, Any]) -> Episode:
        return Episode(messages=messages, actions=self.actions, reward=self.reward, terminated=self.terminated,
                       truncated=self.truncated, info=self.info, observations=self.observations, api=self.api,
                       prompt_length=prompt_length, reset_info=reset_info)


def copy_messages(messages: list[Any]) -> list[Any]:
    """A deep copy of a conversation for ``complete``: an orjson round trip (JSON data, the usual
    case: many times cheaper than ``copy.deepcopy``), else ``copy.deepcopy``."""
    try:
        return orjson.loads(orjson.dumps(messages))  # type: ignore[no-any-return]
    except (TypeError, orjson.JSONEncodeError):
        return copy.deepcopy(messages)


def _tools_key(tools: list[dict[str, Any]]) -> bytes | None:
    try:
        return orjson.dumps(tools)
    except (TypeError, OverflowError, RecursionError):
        return None


class ChatPolicy:
    """A policy loop over a chat function with native tool calling (gym-api.md, "LLM policies").

    Args:
        complete: ``complete(messages, tools) -> reply`` in the format of ``api`` (module docs),
            a plain function or an ``async def`` one.
        api: ``"chat"`` (default), ``"responses"`` or ``"anthropic"``.
        system_prompt: the system message; ``None`` uses :data:`DEFAULT_SYSTEM_PROMPT`, ``""``
            sends no system message.
        model: the model name reported in ``model_step`` events (unless the reply's
            :class:`ModelReply` names one).
        retry: how transient model errors are retried (:class:`~silo_gym.llm.retry.RetryPolicy`;
            ``None`` never retries).

    The prompt is built from the reset observation (the instruction) and ``info["tools"]`` only.
    ``complete`` gets a copy of the conversation each turn; ``tools`` is converted once per tool
    list and the same list is passed on every call (read it, do not change it). Each turn:

    - several tool calls become consecutive steps, each answered by the provider's tool-result
      message keeping the call id (Anthropic: all results of a turn in one user message);
    - a call without an id runs as ``call_<n>``, ``n`` being that step's ``info["call_id"]``;
    - arguments that are not a JSON object are stepped as ``{"tool": name, "input": <raw
      arguments>}``: the env answers ``invalid_action``, counts the call, and the model reads the
      error as the tool result;
    - a turn without tool calls is the final answer ``{"answer": <its text>}`` (``None`` -> ``""``);
    - the loop stops when the env ends the episode, also in mid-turn (a refused call's final
      observation ``{"terminationReason": ..., "error": ...}`` becomes its tool result and the
      rest of the turn's calls are dropped).

    Each turn is reported with ``env.get_wrapper_attr("log_model_step")(messages added since the
    previous turn, reply, usage=..., latency_ms=..., api=..., model=...)`` before its calls are
    stepped (the first report holds the whole prompt), so under ``RecordRun`` the trace has a
    ``model_step`` before each turn's tool events.

    If ``complete`` raises a permanent error (or a transient one past ``retry.max_retries``), the
    episode is aborted (``agent_error``, graded and recorded) and the exception propagates.
    """

    def __init__(self, complete: Callable[..., Any], *, api: str = "chat", system_prompt: str | None = None,
                 model: str | None = None, retry: RetryPolicy | None = DEFAULT_RETRY) -> None:
        if api not in _TOOL_CONVERTERS:
            raise ValueError(f'api must be "chat", "responses" or "anthropic"; got {api!r}.')
        self.complete = complete
        self.api = api
        self.system_prompt = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt
        self.model = model
        self.retry = retry
        self._tools: dict[bytes, list[dict[str, Any]]] = {}

    def __repr__(self) -> str:
        return f"ChatPolicy(api={self.api!r}, model={self.model!r})"

    @property
    def name(self) -> str:
        """A short label for data sets: ``chat:<model>`` (or ``responses:``/``anthropic:``)."""
        return f"{self.api}:{self.model}" if self.model else self.api

    @property
    def is_async(self) -> bool:
        """True when ``complete`` is a coroutine function."""
        return is_async_callable(self.complete)

    def prompt(self, observation: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The first messages: the system prompt (unless empty) and the instruction as user message.

        ``tools`` is not written into the prompt: it is passed to ``complete`` in the API's format.
        """
        messages: list[dict[str, Any]] = []
        if self.system_prompt:
            messages.append({"role": "system", "content": self.system_prompt})
        messages.append({"role": "user", "content": observation})
        return messages

    def provider_tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``info["tools"]`` in the API's format, converted once per distinct tool list."""
        key = _tools_key(tools)
        if key is None:
            return _TOOL_CONVERTERS[self.api](tools)
        return self._provider_tools_of(key, lambda: tools)

    def _provider_tools_of(self, key: bytes, tools: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        found = self._tools.get(key)
        if found is None:
            if len(self._tools) >= 64:
                self._tools.clear()
            found = self._tools[key] = _TOOL_CONVERTERS[self.api](tools())
        return found

    def run_episode(self, env: Any, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Episode:
        """Reset ``env`` and play one episode to its end; returns the :class:`Episode`.

        With an async ``complete`` the episode runs under ``asyncio.run`` (``RuntimeError`` inside
        a running event loop: use :meth:`arun_episode`).
        """
        if self.is_async:
            return run_coroutine(self._arun_once(env, seed, options))
        return drive(self.steps(env, seed, options), self.complete, self.retry)

    async def _arun_once(self, env: Any, seed: int | None, options: dict[str, Any] | None) -> Episode:
        try:
            return await self.arun_episode(env, seed=seed, options=options)
        finally:
            await self.aclose()  # the loop of asyncio.run ends with this episode

    async def aclose(self) -> None:
        """Close the model function's connections on the running loop (``complete.aclose()``)."""
        await aclose_model(self.complete)

    async def arun_episode(self, env: Any, *, seed: int | None = None,
                           options: dict[str, Any] | None = None) -> Episode:
        """:meth:`run_episode` on the running event loop (a plain ``complete`` runs in a worker
        thread, so the loop is never blocked by the model)."""
        return await adrive(self.steps(env, seed, options), self.complete, self.retry, self.is_async)

    def steps(self, env: Any, seed: int | None, options: dict[str, Any] | None) -> Steps:
        """The episode loop as a generator of model requests (driven by :func:`drive`/:func:`adrive`)."""
        api = self.api
        loop = EpisodeLoop(env, api, self.model)
        obs, reset_info = loop.reset(seed, options)
        tools_json = reset_info.tools_json() if isinstance(reset_info, ResetInfo) else None
        if (tools_json is not None and type(self).prompt is ChatPolicy.prompt
                and type(self).provider_tools is ChatPolicy.provider_tools):
            # The default prompt does not read the tools and the default conversion is cached by
            # the list's JSON: the episode's own copy of the list is made only if someone reads
            # it. A subclass overriding either hook gets the list as before.
            tools = self._provider_tools_of(tools_json, lambda: orjson.loads(tools_json))
            messages: list[Any] = self.prompt(obs, [])
        else:
            tools = self.provider_tools(reset_info.get("tools") or [])
            messages = self.prompt(obs, reset_info.get("tools") or [])
        prompt_length = len(messages)
        pending: list[Any] = list(messages)
        while not loop.done:
            raw, usage, model, latency = yield from loop.ask(copy_messages(messages), tools)
            try:
                reply = normalize_reply(api, raw)
            except Exception as exc:
                loop.abort(exc)
                raise
            calls = reply_tool_calls(api, reply)
            base = loop.tool_calls
            ids: list[str] = []
            for i, ref in enumerate(calls):
                if ref.id is None or ref.id == "":
                    call_id = f"call_{base + i + 1}"  # equals the step's info["call_id"]
                    set_call_id(api, reply, i, call_id)
                    ids.append(call_id)
                else:
                    ids.append(str(ref.id))
            if api == "responses":
                messages.extend(reply)
            else:
                messages.append(reply)
            loop.report(pending, reply, usage, model, latency)
            pending = []
            if not calls:
                loop.step({"answer": reply_text(api, reply)})
                break
            blocks: list[dict[str, Any]] = []
            for ref, call_id in zip(calls, ids, strict=True):
                obs, _ = loop.step(ref.action)
                result = tool_result_message(api, call_id, obs)
                if api == "anthropic":
                    blocks.append(result)
                else:
                    messages.append(result)
                    pending.append(result)
                if loop.done:
                    break
            if blocks:
                user = {"role": "user", "content": blocks}
                messages.append(user)
                pending.append(user)
        return loop.episode(messages, prompt_length, reset_info)
