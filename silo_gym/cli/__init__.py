"""The ``silo-gym`` command line (silo-format §10): a thin shell over the library.

Each command group lives in its own module and registers a handler in :data:`COMMANDS`:
``handler(args) -> exit code``. Errors are printed here, once, in the spec's format.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..errors import SiloError
from .args import Args, UsageError, parse_args

__all__ = ["COMMANDS", "HELP", "main"]

HELP = """silo-gym: Silo environments as Gymnasium environments

Usage:
  silo-gym list [--env E] [--json]                  environments, tasks and their Gymnasium ids
  silo-gym run --env E --task T [--agent path.py[:name]] [--runs N]
               [--max-tool-calls 100] [--timeout-ms 120000] [--json]
  silo-gym init <name> [--template blank|crm] [--tools a,b] [--json]
  silo-gym env validate --env E [--json]
  silo-gym data list|show|add|update|remove ... --env E
  silo-gym task list|show|add|update|remove ... --env E
  silo-gym tool list|add ... --env E
  silo-gym verifier list|add ... --env E
  silo-gym collect --env E --policy random|path.py[:name] --out DIR [--tasks T1,T2]
               [--episodes-per-task N] [--format jsonl,parquet,hf] [--seed S] [--runs-dir D]
               [--backend local|ray] [--num-workers N] [--ray-address ADDR] [--max-retries N]
  silo-gym help

Gymnasium ids: silo/<env>-<TASK> for one task, silo/<env> for the whole environment.
"""

Handler = Callable[[Args], int]
#: command name -> (handler, whether SiloErrors print without their code, as ``init`` does)
COMMANDS: dict[str, tuple[Handler, bool]] = {}


def command(name: str, plain_errors: bool = False) -> Callable[[Handler], Handler]:
    """Register a command handler under ``name``."""

    def wrap(fn: Handler) -> Handler:
        COMMANDS[name] = (fn, plain_errors)
        return fn

    return wrap


def _load_commands() -> None:
    # Importing the modules registers their commands.
    from . import run_cmd  # noqa: F401

    for optional_module in ("authoring", "collect_cmd"):
        try:
            __import__(f"{__name__}.{optional_module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{optional_module}":
                raise


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, 1 error)."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    if not tokens or tokens[0] in ("--help", "-h", "help") or "--help" in tokens or "-h" in tokens:
        sys.stdout.write(HELP)
        return 0
    _load_commands()
    name = tokens[0]
    entry = COMMANDS.get(name)
    if entry is None:
        sys.stderr.write(f'error: unknown command "{name}". Run "silo-gym --help".\n')
        return 1
    handler, plain = entry
    try:
        return handler(parse_args(tokens[1:]))
    except SiloError as exc:
        sys.stderr.write(f"error: {exc.message}\n" if plain else f"error: {exc.code}: {exc.message}\n")
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
