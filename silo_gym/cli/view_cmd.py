"""``silo-gym view``: a static HTML report of runs (issue 15; logic in :mod:`silo_gym.view`)."""

from __future__ import annotations

import argparse
import sys

from .parser import Commands, directory


def view_command(args: argparse.Namespace) -> int:
    from ..view import build_view  # Jinja2 is imported only when viewing

    result = build_view(args.runs_dir, args.out, open_browser=args.open)
    sys.stdout.write(result.text())
    return 0


def register(commands: Commands) -> None:
    """``silo-gym view``."""
    about = "write a static HTML report of runs: index, rewards, timelines, checks, diffs"
    p = commands.add_parser("view", help=about, description=about)
    p.add_argument("runs_dir", metavar="RUNS_DIR", help="a directory of run directories, or one run directory")
    p.add_argument("--out", metavar="DIR", type=directory, default=None, help="where the report goes (default RUNS_DIR/view)")
    p.add_argument("--open", action="store_true", help="open the report in a browser")
    p.set_defaults(handler=view_command)
