"""The ``silo-gym`` command line (silo-format §10): a thin shell over the library.

Each command group lives in its own module, listed in :data:`COMMAND_MODULES`, with a
``register(commands)`` function that adds its argparse parser(s) to ``commands`` (the subparsers
of ``silo-gym``; see :func:`~silo_gym.cli.parser.add_group` for ``silo-gym <group> <command>``)
and sets the handler with ``parser.set_defaults(handler=fn)``: ``fn(args) -> exit code``, where
``args`` is the parsed ``argparse.Namespace``. ``set_defaults(plain_errors=True)`` prints a
``SiloError`` without its code, as ``init`` does (§10.1).

To add a command: write its module, add the module's name to :data:`COMMAND_MODULES`. Every
module is imported to build the parser, so keep heavy or optional imports inside the handler.
Parsing follows :mod:`silo_gym.cli.parser`; errors are printed here, once, in the spec's format.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import Any

from ..errors import SiloError
from ..suggest import did_you_mean
from .parser import HELP_WIDTH, CommandParser, FlagError, HelpRequested, UsageError

__all__ = ["COMMAND_MODULES", "HELP", "build_parser", "main", "overview"]

#: The modules under ``silo_gym.cli`` that register commands, in the order of the help text.
COMMAND_MODULES: tuple[str, ...] = (
    "run_cmd",
    "authoring",
    "collect_cmd",
    "mock_model_cmd",
    "schema_cmd",
    "serve_cmd",
    "replay_cmd",
    "view_cmd",
    "eval_cmd",
    "export_cmd",
    "learn_cmd",
)

_TITLE = "silo-gym: Silo environments as Gymnasium environments"


def _version() -> str:
    from .. import __version__

    return __version__


def build_parser() -> CommandParser:
    """The whole command tree: ``silo-gym`` with every command module's commands registered."""
    root = CommandParser(prog="silo-gym", description=_TITLE)
    root.add_argument("--version", action="version", version=f"silo-gym {_version()}",
                      help="print the version and exit")
    commands = root.add_subparsers(title="commands", metavar="<command>")
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(commands)
    return root


def _leaves(parser: CommandParser) -> Iterator[CommandParser]:
    if parser.commands is None or parser.runs_alone:
        yield parser
    if parser.commands is None:
        return
    for child in parser.commands.choices.values():
        yield from _leaves(child)


def _purposes(parser: CommandParser, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(command path, its one-line purpose)`` for every command, in the order of the help: the
    ``help=`` each command was added with."""
    if parser.commands is None:
        return
    helps = {action.dest: action.help or "" for action in parser.commands._choices_actions}
    for name, child in parser.commands.choices.items():
        path = f"{prefix}{name}"
        if child.commands is None or child.runs_alone:  # a command of its own (eval, as well as eval compare)
            yield path, str(helps.get(name, ""))
        if child.commands is not None:
            yield from _purposes(child, path + " ")


def overview(root: CommandParser) -> str:
    """The text of ``silo-gym --help``: what each command is for, then the usage of every command."""
    import argparse
    import textwrap

    purposes = list(_purposes(root))
    column = max(len(path) for path, _ in purposes) + 4
    lines = [_TITLE, "", "Commands:"]
    for path, purpose in purposes:
        wrapped = textwrap.wrap(purpose, HELP_WIDTH - column, break_on_hyphens=False) or [""]
        lines.append(f"  {path:<{column - 2}}{wrapped[0]}")
        lines += [" " * column + more for more in wrapped[1:]]
    lines += ["", "Usage:"]
    for leaf in _leaves(root):
        formatter = argparse.HelpFormatter(leaf.prog, width=HELP_WIDTH)
        actions = [a for a in leaf.declared if "--help" not in a.option_strings]
        formatter.add_usage(None, actions, [], prefix="  ")
        lines.append(formatter.format_help().rstrip("\n"))
    lines += [
        "  silo-gym --version",
        "  silo-gym help [<command>]",
        "",
        'Run "silo-gym <command> --help" for what each flag does and its default.',
        "Gymnasium ids: silo/<env>-<TASK> for one task, silo/<env> for the whole environment.",
    ]
    return "\n".join(lines) + "\n"


def __getattr__(name: str) -> Any:
    if name == "HELP":  # built on use: it imports every command module
        return overview(build_parser())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _UnknownCommand(Exception):
    pass


def _resolve(root: CommandParser, tokens: list[str]) -> tuple[CommandParser, list[str]]:
    """Walk ``tokens`` down the command tree; returns the command's parser and its tokens."""
    parser, rest = root, tokens
    while parser.commands is not None:
        choices = parser.commands.choices
        if parser.runs_alone and (not rest or rest[0] not in choices):
            break  # the command's own flags (silo-gym eval --env demo)
        if parser is not root and (not rest or rest[0] == "" or (rest[0].startswith("-") and rest[0] not in (
                "-h", "--help"))):
            raise UsageError(f'Missing <command>. Run "{parser.prog} --help" '
                             f'({parser.prog} {"|".join(choices)}).')
        if rest[0] in ("-h", "--help"):
            raise HelpRequested(parser)
        child = choices.get(rest[0])
        if child is None:
            name = f"{parser.prog} {rest[0]}".removeprefix(root.prog + " ")
            raise _UnknownCommand(f'unknown command "{name}".{did_you_mean(rest[0], choices, 0.6)} '
                                  f'Run "{parser.prog} --help".')
        parser, rest = child, rest[1:]
    return parser, rest


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so a command ends its work (a run is recorded, a
    collection keeps its finished rows) before the process exits with 143 (128 + ``signum``)."""

    signum: int = signal.SIGTERM


@contextlib.contextmanager
def _termination_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` while a command runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, 1 error, 130 interrupted)."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    if tokens[:1] == ["--version"]:
        sys.stdout.write(f"silo-gym {_version()}\n")
        return 0
    if tokens[:1] == ["help"] and len(tokens) > 1:
        tokens = [*tokens[1:], "--help"]
    root = build_parser()
    if not tokens or tokens[0] in ("--help", "-h", "help"):
        sys.stdout.write(overview(root))
        return 0
    parser = root
    plain = verbose = False
    try:
        parser, rest = _resolve(root, tokens)
        args = parser.parse_tokens(rest)
        plain = bool(getattr(args, "plain_errors", False))
        verbose = bool(getattr(args, "verbose", False))
        with _termination_as_interrupt():
            code: int = args.handler(args)
        return code
    except Terminated:
        sys.stderr.write("error: terminated\n")
        return 143
    except SystemExit as exc:  # raised by code the command ran (an agent, an environment)
        sys.stderr.write(f"error: sys.exit({exc.code!r}) was called by code the command ran; "
                         "any run it was in was recorded as agent_error.\n")
        return 1
    except HelpRequested as request:
        sys.stdout.write(request.parser.format_help())
        return 0
    except _UnknownCommand as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    except SiloError as exc:
        sys.stderr.write(f"error: {exc.message}\n" if plain else f"error: {exc.code}: {exc.message}\n")
        if verbose and exc.__cause__ is not None:  # e.g. the exception a verifier raised (§4.4)
            sys.stderr.write("".join(traceback.format_exception(exc.__cause__)))
        return 1
    except FlagError as exc:
        sys.stderr.write(f"error: {exc}\n{parser.format_usage()}"
                         f'Run "{parser.prog} --help" for what each flag does and its default.\n')
        return 1
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except Exception as exc:  # anything else prints its message (silo-format §10.1)
        sys.stderr.write(f"error: {exc}\n")
        return 1
