"""A Silo task as an MCP server, on the official ``mcp`` SDK's low-level ``Server``.

What a client sees:

- the task's tools, each with its ``name``, ``description`` and ``inputSchema`` exactly as a Silo
  agent receives them (silo-format §3.2), plus ``submit_answer`` (``{"answer": <any JSON>}``);
- the task's instruction as the server's ``instructions`` and as the prompt named ``task``;
- every tool result as one text content holding the compact JSON (silo-format §7.2) of the
  tool's ``output``, with MCP's ``isError`` set from Silo's; a call refused by a limit answers
  ``{"code": "max_tool_calls" | "timeout", "message": ...}`` with ``isError: true``;
- ``submit_answer`` ends the episode and answers the ``result.json`` dict (as text and as
  ``structuredContent``).

Each client session is one recorded episode (:class:`~silo_gym.serve.episodes.ServedEpisode`),
started by the session's first request after the handshake: over stdio the connection (one per
server process), over streamable HTTP the ``Mcp-Session-Id``. Streamable HTTP is served at the
SDK's default path ``/mcp``. Sessions exist only in MCP's handshake era (protocol versions up to
2025-11-25); the 2026-07-28 era is sessionless, so over HTTP the server answers the
``server/discover`` probe with "method not found", which makes the SDK's clients (``mode="auto"``)
fall back to the ``initialize`` handshake. Over stdio both eras work, since the connection itself
is the session.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ..extras import missing_extra

try:
    import anyio
    import anyio.from_thread
    import anyio.lowlevel
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel.server import Server
    from mcp.shared.exceptions import MCPError
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ModuleNotFoundError as _missing:
    raise missing_extra(_missing, "silo_gym.serve.server", "mcp") from _missing

from .. import __version__
from ..jsonfmt import dumps_compact
from .episodes import (
    SERVER_STOPPED,
    SESSION_CLOSED,
    SUBMIT_ANSWER,
    SUBMIT_ANSWER_TOOL,
    EpisodeSettings,
    ServedEpisode,
    ToolReply,
    check_servable,
)
from .stdio_wire import RecordedLines, relay, relay_streams

__all__ = ["MCP_PATH", "PROMPT_NAME", "RUN_DIR_META", "RUN_ID_META", "SessionTable", "SiloMcpServer", "build_server", "http_app", "serve_http",
           "serve_stdio"]

logger = logging.getLogger(__name__)

#: Where streamable HTTP is served (the SDK's default path).
MCP_PATH = "/mcp"
#: The name of the prompt that holds the task's instruction.
PROMPT_NAME = "task"
_SESSION_HEADER = "mcp-session-id"
#: Seconds the HTTP server lets requests in flight finish when told to stop.
SHUTDOWN_GRACE_S = 1


class SessionTable:
    """The episodes of the sessions served by one lifespan of the server.

    Over stdio (and in-process) the SDK enters the server's lifespan once per connection, and
    that connection is the one session (key ``None``). Over streamable HTTP the lifespan spans
    the whole server and sessions are told apart by their ``Mcp-Session-Id``.
    """

    def __init__(self, settings: EpisodeSettings, stopping: threading.Event | None = None) -> None:
        self.settings = settings
        self.stopping = stopping if stopping is not None else threading.Event()
        self._episodes: dict[str | None, ServedEpisode] = {}
        self._locks: dict[str | None, anyio.Lock] = {}
        self._create = anyio.Lock()

    async def episode(self, key: str | None) -> tuple[ServedEpisode, anyio.Lock]:
        """The session's episode, started (a fresh world and run directory) at its first request."""
        async with self._create:
            found = self._episodes.get(key)
            if found is None:
                found = await anyio.to_thread.run_sync(ServedEpisode, self.settings)
                self._episodes[key] = found
                self._locks[key] = anyio.Lock()  # FIFO: a session's calls run in arrival order
            return found, self._locks[key]

    async def close(self, key: str | None, message: str) -> None:
        """End one session's unanswered episode (the client deleted the session)."""
        found = self._episodes.pop(key, None)
        self._locks.pop(key, None)
        if found is not None:
            await anyio.to_thread.run_sync(found.abandon, message)

    async def close_all(self) -> None:
        """End every unanswered episode as the lifespan ends: for the stdio connection (key
        ``None``) that is its session closing, unless the server is stopping (``stopping`` is
        set: a signal); for HTTP sessions, the server stopping."""
        for key in list(self._episodes):
            closed = key is None and not self.stopping.is_set()
            await self.close(key, SESSION_CLOSED if closed else SERVER_STOPPED)


def _session_key(ctx: ServerRequestContext[SessionTable, Any]) -> str | None:
    """``Mcp-Session-Id`` over HTTP; ``None`` over stdio (the connection is the session)."""
    request = ctx.request
    if request is None:
        return None
    key = request.headers.get(_SESSION_HEADER)
    if not key:
        raise MCPError(
            code=types.INVALID_REQUEST,
            message="This server plays one recorded episode per MCP session; over HTTP that needs the "
                    "initialize handshake (protocol 2025-11-25 or earlier), which gives an Mcp-Session-Id.",
        )
    return str(key)


#: ``_meta`` keys of every tool result: where the session's run is recorded.
RUN_ID_META = "silo-gym/runId"
RUN_DIR_META = "silo-gym/runDir"


def _tool_result(reply: ToolReply, episode: ServedEpisode | None) -> types.CallToolResult:
    meta = {RUN_ID_META: episode.run_id, RUN_DIR_META: episode.run_dir} if episode is not None else None
    return types.CallToolResult(
        content=[types.TextContent(text=dumps_compact(reply.payload))],
        structured_content=reply.result,
        is_error=reply.is_error,
        _meta=meta,
    )


class SiloMcpServer:
    """The MCP ``server`` for one task and the session tables of its live lifespans.

    ``stopping``: set when the server is told to stop (``silo-gym serve`` on SIGINT or SIGTERM),
    so every session still open ends as :data:`SERVER_STOPPED`, the stdio one included.
    """

    def __init__(self, server: Server[SessionTable], settings: EpisodeSettings,
                 stopping: threading.Event | None = None) -> None:
        self.server = server
        self.settings = settings
        self.tables: list[SessionTable] = []
        self.stopping = stopping if stopping is not None else threading.Event()


def build_server(settings: EpisodeSettings) -> SiloMcpServer:
    """The MCP server for one task (see the module docstring).

    The environment is opened once here, so a missing environment, task or verifier fails now.

    Raises:
        SiloError: setup errors of silo-format §5.1, ``tool_name_reserved`` when the
            environment has its own tool named ``submit_answer``, and the variant errors
            (``variant_unsupported``, ``variant_preconditions_unmet``) for ``settings.variant``.
        NotADirectoryError: ``settings.runs_dir`` exists and is not a directory.
    """
    if settings.runs_dir.exists() and not settings.runs_dir.is_dir():
        raise NotADirectoryError(f"--runs-dir {settings.runs_dir} is not a directory; runs are recorded in "
                                 "a directory of run directories.")
    probe = settings.make_env()
    check_servable(probe)
    # An unrecorded reset: checks the variant (preconditions) and renders its instruction.
    instruction, _ = probe.reset(options=settings.reset_options())
    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
             for t in (*probe.fresh_tool_list(), SUBMIT_ANSWER_TOOL)]

    tables: list[SessionTable] = []
    stopping = threading.Event()

    @contextlib.asynccontextmanager
    async def lifespan(_server: Server[SessionTable]) -> AsyncIterator[SessionTable]:
        table = SessionTable(settings, stopping)
        tables.append(table)
        try:
            yield table
        finally:
            tables.remove(table)
            with anyio.CancelScope(shield=True):
                await table.close_all()

    async def list_tools(ctx: ServerRequestContext[SessionTable, Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        await ctx.lifespan_context.episode(_session_key(ctx))
        return types.ListToolsResult(tools=[tool.model_copy(deep=True) for tool in tools])

    async def call_tool(ctx: ServerRequestContext[SessionTable, Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        episode, lock = await ctx.lifespan_context.episode(_session_key(ctx))
        async with lock:
            if params.name == SUBMIT_ANSWER:
                reply = await in_daemon_thread(episode.submit_call, params.arguments)
            else:
                reply = await in_daemon_thread(episode.call_tool, params.name, params.arguments)
        return _tool_result(reply, episode)

    async def list_prompts(ctx: ServerRequestContext[SessionTable, Any],
                           params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=PROMPT_NAME, description="The task to carry out with this server's tools.")])

    async def get_prompt(ctx: ServerRequestContext[SessionTable, Any],
                         params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT_NAME:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f'Unknown prompt "{params.name}"; this server has one prompt, "{PROMPT_NAME}".')
        episode, _ = await ctx.lifespan_context.episode(_session_key(ctx))
        return types.GetPromptResult(messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=episode.instruction))])

    server: Server[SessionTable] = Server(
        f"silo-{settings.environment}-{settings.task_id}",
        version=__version__,
        instructions=instruction,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    _handshake_only_over_http(server)
    built = SiloMcpServer(server, settings, stopping)
    built.tables = tables
    return built


async def in_daemon_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a daemon thread of its own, awaited; a cancellation (the server stopping)
    stops the wait at once and leaves the thread behind. A tool that never returns then holds
    neither the session's lock nor the process's exit (AnyIO's worker threads are joined at exit),
    and the session's episode ends ungraded (``ServedEpisode.abandon``: the call is still running)."""
    token = anyio.lowlevel.current_token()
    done = anyio.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the waiting task
            box["error"] = exc
        finally:
            with contextlib.suppress(Exception):  # the loop is gone: nobody waits any more
                anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=work, name="silo-gym serve tool call", daemon=True).start()
    await done.wait()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _handshake_only_over_http(server: Server[SessionTable]) -> None:
    """Answer the 2026-07-28 ``server/discover`` probe over HTTP with "method not found", so
    clients fall back to the handshake era, whose sessions hold the episodes; stdio keeps it."""
    entry = server.get_request_handler("server/discover")
    assert entry is not None
    discover = entry.handler

    async def handshake_only(ctx: ServerRequestContext[SessionTable, Any], params: Any) -> Any:
        if ctx.request is not None:
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found", data="server/discover")
        return await discover(ctx, params)

    server.add_request_handler("server/discover", entry.params_type, handshake_only)


async def serve_stdio(silo: SiloMcpServer) -> None:
    """Serve one client over stdin/stdout until it disconnects (one session, one episode), or
    until cancelled: then at once, whether or not the client ever writes again or closes stdin."""
    from mcp.server.stdio import stdio_server

    server = silo.server
    with _client_stdin() as fd:
        if fd is None:  # no stdin to take over: the SDK's own reader
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            return
        async with _lines_read_by_a_daemon(fd) as lines:
            recorded = RecordedLines(lines)
            async with stdio_server(stdin=recorded) as (sdk_read, write_stream):  # type: ignore[arg-type]
                # Every line gets its message or a JSON-RPC error (silo_gym.serve.stdio_wire).
                to_server, from_relay = relay_streams()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(relay, sdk_read, recorded, to_server, write_stream)
                    await server.run(from_relay, write_stream, server.create_initialization_options())
                    tg.cancel_scope.cancel()


@contextlib.contextmanager
def _client_stdin() -> Iterator[int | None]:
    """A private descriptor of the client's stdin, fd 0 reading the null device meanwhile (as the
    SDK's own claim does: environment code that reads stdin never takes the client's messages);
    None when there is no stdin. The private descriptor is never closed: the reader thread may
    still be blocked on it after serving."""
    try:
        private = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        yield None
        return
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield private
    finally:
        os.dup2(private, 0)


@contextlib.asynccontextmanager
async def _lines_read_by_a_daemon(fd: int) -> AsyncIterator[AsyncIterator[str]]:
    """The lines of ``fd`` (text, each with its newline), read by a daemon thread.

    The SDK reads stdin in an AnyIO worker thread, which can neither be cancelled nor left behind
    at exit, so a server told to stop waited for the client's next line or for EOF (a process
    alive long after SIGTERM). A daemon thread is left blocked in its read: the server stops and
    the process exits at once.
    """
    send, receive = anyio.create_memory_object_stream[str](16)
    token = anyio.lowlevel.current_token()

    def read() -> None:
        try:
            # A buffered reader finds each newline once (joining raw chunks anew for every read
            # was quadratic in a long line's length); the last line may lack its newline.
            with os.fdopen(fd, "rb", closefd=False) as lines:
                for line in lines:
                    anyio.from_thread.run(send.send, line.decode("utf-8", "replace"), token=token)
        except Exception:  # noqa: S110 - serving ended (stream closed, event loop gone) or stdin failed
            pass
        with contextlib.suppress(Exception):  # EOF: the client disconnected (no-op once serving ended)
            anyio.from_thread.run_sync(send.close, token=token)

    threading.Thread(target=read, name="silo-gym serve stdin", daemon=True).start()
    async with send, receive:
        yield receive


def http_app(silo: SiloMcpServer, host: str = "127.0.0.1") -> ASGIApp:
    """The streamable HTTP ASGI app at ``/mcp``; a client's ``DELETE`` of its session ends that
    session's episode at once (unanswered: ``agent_error``)."""
    app = silo.server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    tables = silo.tables

    async def asgi(scope: Scope, receive: Receive, send: Send) -> None:
        key = None
        if scope.get("type") == "http" and scope.get("method") == "DELETE":
            key = dict(scope.get("headers") or []).get(_SESSION_HEADER.encode())
        if not key or not tables:
            await app(scope, receive, send)
            return

        async def send_after_recording(message: Message) -> None:
            # The session is gone once the SDK accepts the DELETE: record the episode before the
            # client hears so, so its run directory is complete when the client moves on.
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                await tables[0].close(key.decode("latin-1"), SESSION_CLOSED)
            await send(message)

        await app(scope, receive, send_after_recording)

    return asgi


async def serve_http(silo: SiloMcpServer, host: str = "127.0.0.1", port: int = 8000,
                     ready: Callable[[str], None] | None = None) -> None:
    """Serve streamable HTTP at ``http://<host>:<port>/mcp`` until cancelled or interrupted.

    ``port=0`` picks a free port; ``ready(url)`` is called with the URL once it listens.
    """
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound = sock.getsockname()[1]
    # A request still running after the grace (a tool call that hangs) is cancelled, so a stop is
    # never held up by a tool; its session then ends ungraded (in_daemon_thread).
    config = uvicorn.Config(http_app(silo, host), log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE_S)
    for name in ("uvicorn.error", "mcp.shared.jsonrpc_dispatcher"):
        logging.getLogger(name).addFilter(_quiet_forced_stop)
    uv = uvicorn.Server(config)
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{bound}{MCP_PATH}"

    async def announce() -> None:
        while not uv.started:
            await anyio.sleep(0.01)
        if ready is not None:
            ready(url)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await uv.serve(sockets=[sock])
        tg.cancel_scope.cancel()


#: What uvicorn and the SDK log of a request cancelled by a stop (a tool call that hangs): expected.
_FORCED_STOP_NOISE = ("ASGI callable returned without completing response", "gave up: transport write blocked")


def _quiet_forced_stop(record: logging.LogRecord) -> bool:
    message = record.getMessage()
    return not any(part in message for part in _FORCED_STOP_NOISE)


def announce_to_stderr(url: str) -> None:
    sys.stderr.write(f"Serving over MCP streamable HTTP at {url}\n")
    sys.stderr.flush()
