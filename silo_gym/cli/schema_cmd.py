"""``silo-gym schema <format>``: the JSON Schema of a Silo file format, for authors' editors."""

from __future__ import annotations

import argparse
import sys

from ..jsonfmt import dumps_pretty
from .parser import Commands, UsageError

__all__ = ["FORMATS", "register", "schema_command"]

#: The formats, in the order of the help text (silo_gym.models.SCHEMA_FORMATS holds the models).
FORMATS = ("manifest", "task", "result", "run", "report", "state-diff")


def schema_command(args: argparse.Namespace) -> int:
    from ..models import json_schema  # pydantic, on use only

    if args.format not in FORMATS:
        raise UsageError(f'Unknown format "{args.format}". Available: {", ".join(FORMATS)}.')
    sys.stdout.write(dumps_pretty(json_schema(args.format)))
    return 0


def register(commands: Commands) -> None:
    """``silo-gym schema``."""
    about = "print the JSON Schema (Draft 2020-12) of a Silo file format, for editors"
    p = commands.add_parser("schema", help=about, description=about + (
        ': manifest (silo.environment.json), task (tasks/<id>.json), result (result.json), run (run.json), '
        'report (env validate --json), state-diff (state-diff.json).'))
    p.add_argument("format", help=f"{', '.join(FORMATS)}")
    p.set_defaults(handler=schema_command)
