"""``silo-gym serve``: a task as an MCP server (issue 15; logic in :mod:`silo_gym.serve`)."""

from __future__ import annotations

import argparse

from .listen import listen_error
from .parser import Commands, non_negative


def serve_command(args: argparse.Namespace) -> int:
    from ..serve.command import serve  # the MCP SDK is imported only when serving

    try:
        return serve(args.env, args.task, transport=args.transport, host=args.host, port=args.port,
                     runs_dir=args.runs_dir, max_tool_calls=args.max_tool_calls, timeout_ms=args.timeout_ms,
                     variant=args.variant)
    except OSError as exc:
        refused = listen_error(exc, args.host, args.port) if args.transport == "http" else None
        if refused is None:
            raise
        raise refused from None


def _port(text: str) -> int:
    value = non_negative(text)
    if value > 65535:
        raise ValueError(f"must be a port number from 0 to 65535; got {value}.")
    return value


def register(commands: Commands) -> None:
    """``silo-gym serve``."""
    about = "serve a task over MCP, one recorded episode per client session (extra mcp)"
    p = commands.add_parser("serve", help=about, description=about)
    p.add_argument("--env", metavar="E", required=True, help="environment name")
    p.add_argument("--task", metavar="T", required=True, help="task id")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                   help="stdio (one client on stdin/stdout) or http (streamable HTTP at /mcp)")
    p.add_argument("--host", metavar="H", default="127.0.0.1", help="address to listen on (http)")
    p.add_argument("--port", metavar="P", type=_port, default=8000, help="port to listen on (http; 0: any free port)")
    p.add_argument("--runs-dir", metavar="D", default=None, help="where run directories go (default ./.silo/runs)")
    p.add_argument("--max-tool-calls", metavar="N", type=non_negative, default=100,
                   help="tool calls allowed per session")
    p.add_argument("--timeout-ms", metavar="MS", type=non_negative, default=120000,
                   help="time allowed per session, from its first request")
    p.add_argument("--variant", metavar="K", type=non_negative, default=None,
                   help="serve variant K of the task's world (docs/variants.md)")
    p.set_defaults(handler=serve_command)
