"""``silo-gym serve``: one task as an MCP server over stdio or streamable HTTP (issue 15)."""

from __future__ import annotations

import os
from typing import Literal

from .episodes import EpisodeSettings, default_runs_dir

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
    """Serve ``task_id`` of ``environment`` until the client leaves (stdio) or the process is
    interrupted (HTTP); every client session is recorded under ``runs_dir`` (default
    ``<cwd>/.silo/runs``). Returns the exit code (0).

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
    try:
        if transport == "stdio":
            anyio.run(serve_stdio, silo)
        else:
            anyio.run(lambda: serve_http(silo, host=host, port=port, ready=announce_to_stderr))
    except KeyboardInterrupt:
        pass
    return 0
