"""``silo-gym serve``: one task as an MCP server over stdio or streamable HTTP (issue 15)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

from .episodes import EpisodeSettings, default_runs_dir

if TYPE_CHECKING:
    import anyio

    from .server import SiloMcpServer

__all__ = ["serve"]

Transport = Literal["stdio", "http"]


def serve(
    environment: str,
    task_id: str,
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    runs_dir: str | os.PathLike[str] | None = None,
    max_tool_calls: int = 100,
    timeout_ms: int = 120000,
    variant: int | None = None,
    cwd: str | None = None,
) -> int:
    """Serve ``task_id`` of ``environment`` until the client leaves (stdio) or SIGINT or SIGTERM
    stops the server (either transport); every client session is recorded under ``runs_dir``
    (default ``<cwd>/.silo/runs``), a session still open when a signal stops the server as
    ``agent_error`` with ``SERVER_STOPPED``. Returns the exit code: 0, or 143 after SIGTERM.

    The environment is opened before anything is served, so setup errors raise at once.

    Raises:
        SiloError: setup errors of silo-format §5.1 and ``tool_name_reserved``.
        ModuleNotFoundError: the ``mcp`` extra is not installed (the message says what to install).
        OSError: the HTTP port cannot be bound.
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f'--transport must be "stdio" or "http", got "{transport}".')
    try:
        import anyio

        from .server import announce_to_stderr, build_server, serve_http, serve_stdio
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.split(".")[0] in ("mcp", "mcp_types", "uvicorn", "anyio", "starlette"):
            raise ModuleNotFoundError(
                f'silo-gym serve needs the MCP SDK ("{exc.name}" is missing): pip install "silo-gym[mcp]"',
                name=exc.name,
            ) from exc
        raise
    settings = EpisodeSettings(environment, task_id, runs_dir=default_runs_dir(runs_dir, cwd),
                               max_tool_calls=max_tool_calls, timeout_ms=timeout_ms, variant=variant, cwd=cwd)
    silo = build_server(settings)
    stop = _Stop(silo)
    if transport == "stdio":
        serving: Callable[[], Awaitable[None]] = functools.partial(serve_stdio, silo)
        # stdout carries the protocol; stderr tells a person at a terminal what is going on
        sys.stderr.write(f"Serving task {task_id} of {environment} over MCP stdio: waiting for a client on "
                         f"stdin (sessions are recorded in {settings.runs_dir}; Ctrl-C stops).\n")
        sys.stderr.flush()
    else:
        serving = functools.partial(serve_http, silo, host=host, port=port, ready=announce_to_stderr)
    with stop.on_signals():
        try:
            anyio.run(stop.serve, serving)
        except KeyboardInterrupt:  # a SIGINT we could not take over (not the main thread)
            pass
    return 128 + signal.SIGTERM if stop.signum == signal.SIGTERM else 0


class _Stop:
    """SIGINT and SIGTERM as a graceful stop of the server: every session still open is ended as
    ``SERVER_STOPPED`` and recorded in full, then :func:`serve` returns (0 after SIGINT, 143 after
    SIGTERM, as ``silo-gym run`` and ``collect`` exit on SIGTERM), without waiting for a stdio
    client to write again or close stdin.

    Over HTTP uvicorn takes both signals while it serves, shuts down gracefully (the lifespan ends
    the sessions), then hands the signal on to the handler it found: ours, which records it.
    """

    def __init__(self, silo: SiloMcpServer) -> None:
        self.silo = silo
        self.signum: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scope: anyio.CancelScope | None = None

    @contextlib.contextmanager
    def on_signals(self) -> Iterator[None]:
        """Our handler for SIGINT and SIGTERM while serving (main thread only), then the previous ones."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self._received) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _received(self, signum: int, frame: Any) -> None:
        if self.signum is None:
            self.signum = signum
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._stop)

    def _stop(self) -> None:
        self.silo.stopping.set()
        if self._scope is not None:
            self._scope.cancel()

    async def serve(self, serving: Callable[[], Awaitable[None]]) -> None:
        """Run ``serving`` until it ends or a signal stops it."""
        import anyio  # the mcp extra's: imported only when serving

        self._loop = asyncio.get_running_loop()
        with anyio.CancelScope() as self._scope:
            if self.signum is not None:  # it came before the loop ran
                self._stop()
            await serving()
