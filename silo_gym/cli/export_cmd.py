"""``silo-gym export openenv | verifiers | nemo-gym``: a silo environment as a hub package
(issue 25; logic in :mod:`silo_gym.hubs`; docs/hubs.md)."""

from __future__ import annotations

import argparse
import sys

from .parser import Commands, UsageError, add_group, directory, non_negative

_HELP = {
    "openenv": "write an installable OpenEnv package (server, client, openenv.yaml, Dockerfile)",
    "verifiers": "write a verifiers v1 taskset package for the Environments Hub",
    "nemo-gym": "write a NeMo Gym resources server (app, config, example rows, manifest)",
}


def export_command(args: argparse.Namespace) -> int:
    from ..hubs.export import export
    from ..hubs.package import ExportError

    try:
        done = export(args.hub, args.env, args.out, max_tool_calls=args.max_tool_calls, timeout_ms=args.timeout_ms)
    except ExportError as exc:
        raise UsageError(str(exc)) from None
    desc = done.description
    where = "shipped with silo-gym" if desc.shipped else "bundled into the package"
    sys.stdout.write(f"Wrote the {args.hub} package of {desc.environment} ({len(desc.tasks)} tasks, {where}) "
                     f"to {done.path}: {len(done.files)} files. See its README.md.\n")
    return 0


def register(commands: Commands) -> None:
    """``silo-gym export <hub>``."""
    group = add_group(commands, "export", "write a silo environment as a package for a hub trainers pick from")
    for hub, about in _HELP.items():
        p = group.add_parser(hub, help=about, description=about)
        p.add_argument("--env", metavar="E", required=True, help="environment name")
        p.add_argument("--out", metavar="DIR", type=directory, required=True,
                       help="the package directory to create (must not exist, or be empty)")
        p.add_argument("--max-tool-calls", metavar="N", type=non_negative, default=100,
                       help="tool calls allowed per episode")
        p.add_argument("--timeout-ms", metavar="MS", type=non_negative, default=120000,
                       help="time allowed per episode, from its reset")
        p.set_defaults(handler=export_command, hub=hub)
