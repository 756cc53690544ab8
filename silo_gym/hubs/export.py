"""``silo-gym export <hub>``: one description of a silo environment written as each hub's package.

Every exporter takes the same :class:`~silo_gym.hubs.description.HubDescription` (read once by
:func:`~silo_gym.hubs.description.describe`) and returns the package's files; a world that is
not shipped in silo-gym is copied into the package beside them. :func:`export` writes the
package with :func:`~silo_gym.hubs.package.write_package` (all or nothing, only under ``out``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .description import HubDescription, describe
from .nemo_gym_package import nemo_gym_bundle, nemo_gym_files
from .openenv_package import openenv_files
from .package import BUNDLE_DIR, write_package
from .verifiers_package import verifiers_bundle, verifiers_files

__all__ = ["HUBS", "Exported", "export", "package_files"]


def _openenv_bundle(desc: HubDescription) -> str:
    return f"{BUNDLE_DIR}/{desc.environment}"


#: hub name -> (files of the package, where a bundled world goes in it)
HUBS: dict[str, tuple[Callable[[HubDescription], dict[str, str]], Callable[[HubDescription], str]]] = {
    "openenv": (openenv_files, _openenv_bundle),
    "verifiers": (verifiers_files, verifiers_bundle),
    "nemo-gym": (nemo_gym_files, nemo_gym_bundle),
}


@dataclass(frozen=True)
class Exported:
    """A written package: the ``hub``, its ``path`` and its files (relative, sorted; a bundled
    world counts as its directory)."""

    hub: str
    path: Path
    files: tuple[str, ...]
    description: HubDescription


def package_files(hub: str, desc: HubDescription) -> tuple[dict[str, str], dict[str, Path]]:
    """The files of ``hub``'s package for ``desc`` and the bundled world (``{}`` when shipped).

    Raises:
        ValueError: an unknown hub (the message lists the known ones).
    """
    if hub not in HUBS:
        raise ValueError(f"Unknown hub {hub!r}; export writes one of: {', '.join(HUBS)}.")
    files_of, bundle_at = HUBS[hub]
    bundles = {} if desc.shipped else {bundle_at(desc): desc.path}
    return files_of(desc), bundles


def export(hub: str, environment: str, out: str | os.PathLike[str], *, cwd: str | os.PathLike[str] | None = None,
           max_tool_calls: int = 100, timeout_ms: int = 120000) -> Exported:
    """Write ``hub``'s package of ``environment`` (resolved from ``cwd``) into the new directory ``out``.

    Raises:
        ValueError: an unknown hub.
        SiloError: the environment's loading errors; ``tool_name_reserved``.
        ExportError: ``out`` exists and is not empty, or its parent is missing.
    """
    desc = describe(environment, cwd=cwd, max_tool_calls=max_tool_calls, timeout_ms=timeout_ms)
    files, bundles = package_files(hub, desc)
    path = write_package(out, files, bundles=bundles)
    return Exported(hub, path, tuple(sorted([*files, *bundles])), desc)
