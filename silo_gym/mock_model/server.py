"""The scripted model server: an HTTP server that speaks OpenAI Chat Completions, OpenAI Responses
and Anthropic Messages and plays a scripted plan per task (issue 11, item 5).

Routes (``aiohttp``, the ``silo-gym[aiohttp]`` extra):

- ``POST /v1/chat/completions``: tool calls when the request has ``tools``; without tools, the
  text protocol (``<tool_call>`` tags, for ``TextProtocolPolicy``);
- ``POST /v1/responses``: ``function_call`` / ``message`` output items;
- ``POST /v1/messages``: Anthropic ``tool_use`` / ``text`` blocks;
- ``GET /v1/models``: the one model name; ``GET /_mock/stats``: requests served and faults played.

OpenAI clients take ``http://HOST:PORT/v1`` as base URL, Anthropic clients ``http://HOST:PORT``.
Each reply waits ``latency_ms`` first. *Faults* make chosen requests misbehave; requests are
numbered from 1 in arrival order:

``hang@N``
    request N never gets an answer (until the server stops);
``429@N``, ``500@N`` (any status from 400 to 599)
    request N is answered at once with that status and an error body in the API's format
    (429 and 503 carry ``Retry-After`` / ``retry-after-ms`` = ``retry_after_s``);
``malformed@N``
    the tool call of request N has arguments that are not JSON (Anthropic: a string ``input``);
    the scripted model sends the call again once it reads the ``invalid_action`` result.
``error200@N``
    request N is answered with status 200 and a body holding only an error, as some gateways
    pass an upstream failure on (``{"error": {..., "code": 503}}``; Anthropic: ``"type":
    "error"`` with an ``overloaded_error``): a transient error, retried by the policy.
``empty@N``
    request N is answered with status 200 and a reply holding no assistant message (Chat:
    ``choices: []``; Responses: no ``output`` items; Anthropic: no ``content``): a model
    error, never an empty answer.

``N`` may be a list and ranges (``429@1,4-6``); ``KIND%P`` hits each request with probability
``P`` (a seeded draw). The first fault that matches a request wins.
"""

from __future__ import annotations

import asyncio
import math
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from .script import Plan, Turn, load_plan, next_action, read_anthropic, read_chat, read_responses, read_text

__all__ = ["Fault", "MockModelServer", "parse_fault"]

_MISSING = 'The mock model server needs "aiohttp": pip install "silo-gym[aiohttp]"'
_FAULT_HELP = ('a fault is KIND@N[,N-M...] or KIND%P, KIND being hang, malformed, error200, empty or an HTTP '
               'status 400-599 (e.g. 429@3, hang@7, 500@2-4, malformed%0.1, empty@2)')
_BODY_FAULTS = ("error200", "empty")


@dataclass(frozen=True)
class Fault:
    """One fault rule (module docs): ``kind`` is ``"hang"``, ``"malformed"``, ``"error200"``,
    ``"empty"`` or a status text
    (``"429"``); ``requests`` the request numbers it hits, or ``probability`` per request."""

    kind: str
    requests: frozenset[int] = frozenset()
    probability: float | None = None

    @property
    def status(self) -> int | None:
        return int(self.kind) if self.kind.isdigit() else None


def parse_fault(text: str) -> Fault:
    """Parse ``KIND@N[,N-M...]`` or ``KIND%P`` (module docs).

    Raises:
        ValueError: a malformed rule, with what is accepted.
    """
    raw = text.strip()
    kind, sep, rest = raw.partition("@")
    probability = None
    requests: set[int] = set()
    if not sep:
        kind, sep, rest = raw.partition("%")
        if not sep:
            raise ValueError(f'Bad fault "{text}": {_FAULT_HELP}.')
        try:
            probability = float(rest)
        except ValueError:
            probability = -1.0
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f'Bad fault "{text}": the probability after % must be between 0 and 1.')
    else:
        for part in rest.split(","):
            lo, dash, hi = part.strip().partition("-")
            if not lo.isdigit() or (dash and not hi.isdigit()):
                raise ValueError(f'Bad fault "{text}": request numbers are whole numbers from 1 ({_FAULT_HELP}).')
            first, last = int(lo), int(hi) if dash else int(lo)
            if first < 1 or last < first:
                raise ValueError(f'Bad fault "{text}": request numbers are whole numbers from 1 ({_FAULT_HELP}).')
            requests.update(range(first, last + 1))
    kind = kind.strip().lower()
    if kind not in ("hang", "malformed", *_BODY_FAULTS) and not (kind.isdigit() and 400 <= int(kind) <= 599):
        raise ValueError(f'Bad fault "{text}": {_FAULT_HELP}.')
    return Fault(kind, frozenset(requests), probability)


def require_aiohttp() -> Any:
    try:
        from aiohttp import web
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return web


_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}


class MockModelServer:
    """The scripted model server (module docs), in a background thread or on your event loop.

    Args:
        latency_ms: the wait before each reply, in milliseconds.
        faults: fault rules (strings as in :func:`parse_fault`, or :class:`Fault`).
        plan: the plan function, or ``path.py[:name]`` of one (default: the demo reference
            plan, :data:`~silo_gym.mock_model.script.DEFAULT_PLAN`).
        model: the model name the server reports.
        host, port: where to listen (``port=0``: a free port, see :attr:`port` after start).
        retry_after_s: the ``Retry-After`` of 429 and 503 answers, in seconds.
        seed: the seed of probabilistic faults.

    Use ``with MockModelServer(latency_ms=50) as server:`` (a thread serving ``server.openai_base_url``
    and ``server.anthropic_base_url``), or ``await server.serve()`` on a running loop.
    """

    def __init__(self, *, latency_ms: float = 0.0, faults: Sequence[str | Fault] = (), plan: Any = None,
                 model: str = "silo-mock", host: str = "127.0.0.1", port: int = 0, retry_after_s: float = 1.0,
                 seed: int = 0) -> None:
        if not latency_ms >= 0:
            raise ValueError(f"latency_ms must be >= 0, got {latency_ms!r}.")
        self.latency_s = float(latency_ms) / 1000.0
        self.faults = [f if isinstance(f, Fault) else parse_fault(f) for f in faults]
        self.plan: Plan = plan if callable(plan) else load_plan(plan)
        self.model = model
        self.host = host
        self.port = port
        self.retry_after_s = float(retry_after_s)
        self.requests = 0
        self.served_faults: list[tuple[int, str]] = []
        self._rng = random.Random(seed)
        self._runner: Any = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._hangs: set[asyncio.Future[None]] = set()

    # -- addresses ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """The base URL for OpenAI clients (``.../v1``)."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The base URL for Anthropic clients."""
        return self.url

    # -- requests ----------------------------------------------------------------------------

    def fault_for(self, n: int) -> Fault | None:
        for fault in self.faults:
            if n in fault.requests or (fault.probability is not None and self._rng.random() < fault.probability):
                return fault
        return None

    async def _prologue(self, request: Any, api: str) -> tuple[Any, Fault | None, Any]:
        """Count the request, read its body, play a status/hang fault or the latency. Returns
        ``(body, fault, error response or None)``."""
        web = require_aiohttp()
        self.requests += 1
        n = self.requests
        fault = self.fault_for(n)
        if fault is not None:
            self.served_faults.append((n, fault.kind))
        raw = await request.read()
        if fault is not None and fault.status is not None:
            return None, fault, self._error(web, api, fault.status, f"Scripted {fault.status} on request {n}.")
        if fault is not None and fault.kind in _BODY_FAULTS:
            return None, fault, self._no_message(web, api, fault.kind, n)
        if fault is not None and fault.kind == "hang":
            waiter = asyncio.get_running_loop().create_future()
            self._hangs.add(waiter)
            try:
                await waiter  # until the server stops
            finally:
                self._hangs.discard(waiter)
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None, fault, self._error(web, api, 400, "The request body is not JSON.")
        if not isinstance(body, dict):
            return None, fault, self._error(web, api, 400, "The request body must be a JSON object.")
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        return body, fault, None

    def _error(self, web: Any, api: str, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        if api == "anthropic":
            payload: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            payload = {"error": {"message": message, "type": kind, "param": None, "code": None}}
        headers = {}
        if status in (429, 503):
            headers = {"Retry-After": str(math.ceil(self.retry_after_s)),
                       "retry-after-ms": str(int(self.retry_after_s * 1000))}
        return web.Response(status=status, body=orjson.dumps(payload), content_type="application/json",
                            headers=headers)

    def _no_message(self, web: Any, api: str, kind: str, n: int) -> Any:
        """A 200 reply holding no assistant message (``error200`` / ``empty`` faults)."""
        payload: dict[str, Any]
        if kind == "error200":
            message = f"Scripted error in a 200 reply on request {n}."
            if api == "anthropic":
                payload = {"type": "error", "error": {"type": "overloaded_error", "message": message}}
            else:
                payload = {"error": {"message": message, "type": "server_error", "code": 503}}
        elif api == "chat":
            payload = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": self.model,
                       "choices": []}
        elif api == "responses":
            payload = {"id": f"resp_{n}", "object": "response", "created_at": 0, "status": "failed",
                       "model": self.model, "output": []}
        else:
            payload = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": self.model}
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    def _missing(self, web: Any, api: str, field: str) -> Any:
        return self._error(web, api, 400, f'The request has no "{field}" list.')

    @staticmethod
    def _usage(body: Any, turn: Turn, api: str) -> dict[str, int]:
        prompt = max(1, len(orjson.dumps(body)) // 4)
        completion = max(1, len(turn.answer() if turn.is_answer else turn.arguments()) // 4)
        if api == "chat":
            return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        return {"input_tokens": prompt, "output_tokens": completion, **({"total_tokens": prompt + completion}
                                                                        if api == "responses" else {})}

    async def chat(self, request: Any) -> Any:
        web = require_aiohttp()
        body, fault, error = await self._prologue(request, "chat")
        if error is not None:
            return error
        messages = body.get("messages")
        if not isinstance(messages, list):
            return self._missing(web, "chat", "messages")
        instruction, results = read_chat(messages) if body.get("tools") else read_text(messages)
        action, done = next_action(self.plan, instruction, results)
        turn = Turn(action, done + 1, malformed=fault is not None and fault.kind == "malformed")
        message: dict[str, Any]
        if body.get("tools"):
            message = turn.chat_message()
        else:
            message = {"role": "assistant", "content": turn.text_content()}
        finish = "tool_calls" if "tool_calls" in message else "stop"
        payload = {"id": f"chatcmpl-{self.requests}", "object": "chat.completion", "created": 0,
                   "model": self.model,
                   "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                   "usage": self._usage(body, turn, "chat")}
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    async def responses(self, request: Any) -> Any:
        web = require_aiohttp()
        body, fault, error = await self._prologue(request, "responses")
        if error is not None:
            return error
        items = body.get("input")
        if not isinstance(items, (list, str)):
            return self._missing(web, "responses", "input")
        action, done = next_action(self.plan, *read_responses(items))
        turn = Turn(action, done + 1, malformed=fault is not None and fault.kind == "malformed")
        payload = {"id": f"resp_{self.requests}", "object": "response", "created_at": 0, "status": "completed",
                   "model": self.model, "output": turn.responses_output(), "parallel_tool_calls": True,
                   "tool_choice": "auto", "tools": [], "usage": self._usage(body, turn, "responses")}
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    async def messages(self, request: Any) -> Any:
        web = require_aiohttp()
        body, fault, error = await self._prologue(request, "anthropic")
        if error is not None:
            return error
        messages = body.get("messages")
        if not isinstance(messages, list):
            return self._missing(web, "anthropic", "messages")
        action, done = next_action(self.plan, *read_anthropic(messages))
        turn = Turn(action, done + 1, malformed=fault is not None and fault.kind == "malformed")
        payload = {"id": f"msg_{self.requests}", "type": "message", "role": "assistant", "model": self.model,
                   "content": turn.anthropic_content(), "stop_reason": "end_turn" if turn.is_answer else "tool_use",
                   "stop_sequence": None, "usage": self._usage(body, turn, "anthropic")}
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    async def models(self, request: Any) -> Any:
        web = require_aiohttp()
        payload = {"object": "list", "data": [{"id": self.model, "object": "model", "created": 0,
                                               "owned_by": "silo-gym"}]}
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    async def stats(self, request: Any) -> Any:
        web = require_aiohttp()
        payload = {"requests": self.requests, "faults": [{"request": n, "kind": k} for n, k in self.served_faults]}
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    def app(self) -> Any:
        """The ``aiohttp.web.Application`` with the routes of the module docs."""
        web = require_aiohttp()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self.chat)
        app.router.add_post("/v1/responses", self.responses)
        app.router.add_post("/v1/messages", self.messages)
        app.router.add_get("/v1/models", self.models)
        app.router.add_get("/_mock/stats", self.stats)
        return app

    # -- running -----------------------------------------------------------------------------

    async def start_on_loop(self) -> None:
        """Start listening on the running loop (:attr:`port` is set when it returns)."""
        web = require_aiohttp()
        self._runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, backlog=4096, reuse_address=True)
        await site.start()
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = int(sockets[0].getsockname()[1])

    async def stop_on_loop(self) -> None:
        """Release hung requests and stop listening."""
        for waiter in list(self._hangs):
            if not waiter.done():
                waiter.cancel()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def serve(self) -> None:
        """Serve on the running loop until cancelled."""
        await self.start_on_loop()
        try:
            await asyncio.Event().wait()
        finally:
            await self.stop_on_loop()

    def start(self) -> MockModelServer:
        """Serve from a background thread; returns when the server listens."""
        if self._thread is not None:
            raise RuntimeError("The server is already running.")
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self._stopped = asyncio.Event()
            try:
                loop.run_until_complete(self.start_on_loop())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_until_complete(self._stopped.wait())
                loop.run_until_complete(self.stop_on_loop())
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="silo-gym-mock-model", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread = None
            raise failure[0]
        return self

    def stop(self) -> None:
        """Stop a server started with :meth:`start` (hung requests are dropped)."""
        thread, loop, stopped = self._thread, self._loop, self._stopped
        if thread is None or loop is None or stopped is None:
            return
        loop.call_soon_threadsafe(stopped.set)
        thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> MockModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
