"""Writing an exported hub package: all of it or nothing, only under ``--out``.

The files are written into a fresh staging directory beside ``out`` and moved into place with one
rename, so a failed export leaves nothing behind, and ``out`` itself is created only if it does
not exist (an existing empty directory is accepted and replaced; anything else is refused).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..errors import SiloGymError

__all__ = ["BUNDLE_DIR", "ExportError", "bundle_ignore", "write_package"]

#: Where a bundled (not shipped) environment goes inside a package: ``<package>/environment/<name>/``.
BUNDLE_DIR = "environment"


class ExportError(SiloGymError):
    """An export that cannot be written (the message says what was wrong and what is accepted)."""


def bundle_ignore(directory: str, names: list[str]) -> set[str]:
    """What is not copied from an environment directory: caches, compiled files, run data."""
    return {n for n in names if n in ("__pycache__", ".silo", ".pytest_cache", ".mypy_cache") or n.endswith(".pyc")}


def write_package(out: str | os.PathLike[str], files: Mapping[str, str | bytes], *,
                  bundles: Mapping[str, Path] | None = None) -> Path:
    """Write ``files`` (relative POSIX path -> text or bytes) and copy each directory of ``bundles``
    (relative path -> source directory) into the new directory ``out``; returns its absolute path.

    Raises:
        ExportError: ``out`` exists and is not an empty directory; its parent does not exist;
            a relative path leaves the package.
        OSError: writing failed (nothing is left behind).
    """
    target = Path(os.path.abspath(out))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ExportError(f"--out {target} already exists and is not an empty directory; export writes a new "
                          "package: give a directory that does not exist yet (or an empty one).")
    if not target.parent.is_dir():
        raise ExportError(f"--out {target}: its parent directory {target.parent} does not exist; create it first.")
    for rel in (*files, *(bundles or {})):
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts or not parts:
            raise ExportError(f"package path {rel!r} must be relative and stay inside the package.")
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.export-", dir=target.parent))
    try:
        for rel, content in sorted(files.items()):
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode("utf-8") if isinstance(content, str) else content
            path.write_bytes(data)
        for rel, source in sorted((bundles or {}).items()):
            shutil.copytree(source, staging / rel, ignore=bundle_ignore)
        os.chmod(staging, 0o755)  # mkdtemp makes it private; a package directory is not
        if target.exists():
            target.rmdir()  # empty, checked above
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
