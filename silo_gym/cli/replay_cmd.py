"""``silo-gym replay`` and ``silo-gym regrade`` (issue 15; logic in :mod:`silo_gym.replay`)."""

from __future__ import annotations

import argparse
import sys

from .parser import Commands, directory


def replay_command(args: argparse.Namespace) -> int:
    """Exit 0 when the run replays byte-identical, else print the first divergence and exit 1."""
    from ..replay import replay_run

    report = replay_run(args.run_dir, force=args.force)
    sys.stdout.write(report.summary())
    return 0 if report.identical else 1


def regrade_command(args: argparse.Namespace) -> int:
    from ..replay import regrade_run

    report = regrade_run(args.run_dir, out_dir=args.out, force=args.force)
    sys.stdout.write(report.text())
    return 0


def register(commands: Commands) -> None:
    """``silo-gym replay`` and ``silo-gym regrade``."""
    about = "re-execute a run and prove its result.json and state-diff.json byte-identical"
    p = commands.add_parser("replay", help=about, description=about)
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory")
    p.add_argument("--force", action="store_true", help="replay even when the environment's hash changed")
    p.set_defaults(handler=replay_command)

    about = "grade a run's replayed world with today's verifier and write what changed"
    p = commands.add_parser("regrade", help=about, description=about)
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory")
    p.add_argument("--out", metavar="DIR", type=directory, default=None, help="where the new files go (default RUN_DIR/regrade)")
    p.add_argument("--force", action="store_true", help="regrade even when the environment's hash changed")
    p.set_defaults(handler=regrade_command)
