"""``silo-gym mock-model``: the scripted model server from the shell (issue 11).

::

    silo-gym mock-model [--port 8000] [--host 127.0.0.1] [--latency-ms 200]
                        [--fault "429@3 hang@7 malformed%0.1"] [--plan path.py[:name]]
                        [--model NAME] [--retry-after S] [--seed N]

Serves OpenAI Chat Completions and Responses at ``http://HOST:PORT/v1`` and Anthropic Messages at
``http://HOST:PORT`` (see :mod:`silo_gym.mock_model.server` for the fault rules, separated by
spaces) until Ctrl-C. The plan defaults to the demo's reference solver.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from .listen import listen_error
from .parser import Commands, UsageError, at_least_zero, whole_number

__all__ = ["mock_model_command", "register"]


def _port(text: str) -> int:
    value = whole_number(text)
    if not 0 <= value <= 65535:
        raise ValueError("must be between 0 and 65535.")
    return value


def mock_model_command(args: argparse.Namespace) -> int:
    from ..mock_model import MockModelServer
    from ..mock_model.server import parse_fault, require_aiohttp

    try:
        require_aiohttp()
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    try:
        faults = [parse_fault(rule) for rule in (args.fault or "").split()]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        server = MockModelServer(latency_ms=args.latency_ms, faults=faults, plan=args.plan, model=args.model,
                                 host=args.host, port=args.port, retry_after_s=args.retry_after, seed=args.seed)
    except (FileNotFoundError, TypeError) as exc:
        raise UsageError(str(exc)) from None

    async def serve() -> None:
        await server.start_on_loop()
        sys.stdout.write(f"Scripted model server on {server.url}: OpenAI base URL {server.openai_base_url}, "
                         f"Anthropic base URL {server.anthropic_base_url}; "
                         f"{server.latency_s * 1000:g} ms per reply. Ctrl-C stops it.\n")
        sys.stdout.flush()
        try:
            await asyncio.Event().wait()
        finally:
            await server.stop_on_loop()

    with contextlib.suppress(KeyboardInterrupt):
        try:
            asyncio.run(serve())
        except OSError as exc:
            refused = listen_error(exc, args.host, args.port)
            if refused is None:
                raise
            raise refused from None
    return 0


def register(commands: Commands) -> None:
    """``silo-gym mock-model``."""
    about = "serve a scripted model (OpenAI and Anthropic APIs) for tests and benchmarks"
    p = commands.add_parser("mock-model", help=about, description=about)
    p.add_argument("--port", metavar="PORT", type=_port, default=8000, help="port to listen on (0: a free one)")
    p.add_argument("--host", metavar="HOST", default="127.0.0.1", help="address to listen on")
    p.add_argument("--latency-ms", metavar="MS", type=at_least_zero, default=0.0,
                   help="wait before each reply, in milliseconds")
    p.add_argument("--fault", metavar="RULES",
                   help='requests that misbehave, space-separated: "429@3 hang@7 500@9-11 malformed%%0.1"')
    p.add_argument("--plan", metavar="path.py[:name]",
                   help="the plan function to play (default: the demo reference solver's plan)")
    p.add_argument("--model", metavar="NAME", default="silo-mock", help="the model name the server reports")
    p.add_argument("--retry-after", metavar="S", type=at_least_zero, default=1.0,
                   help="Retry-After of 429 and 503 answers, in seconds")
    p.add_argument("--seed", metavar="N", type=whole_number, default=0, help="seed of probabilistic faults")
    p.set_defaults(handler=mock_model_command)
