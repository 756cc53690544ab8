"""The run directories a streamed collection created, kept beside its rows (issue 19, item 10).

A collection recording its episodes (``--runs-dir``) makes a run directory when each episode
starts, and writes the episode's row when it ends. Between the two the process may die (``kill
-9``, a power cut) and leave run directories that no row names; a resume then plays those
episodes again into new directories. So :func:`~silo_gym.data.stream.collect_jsonl` keeps
``<out>/.collect-runs``: every run directory it creates, appended as it happens, one JSON array
per line:

- ``["?", "<path>"]`` just before the directory is made (its name is new, but another process
  could make the same name first: then this line names someone else's directory);
- ``["+", "<path>"]`` once it is made, before anything is written into it: from then on it is
  surely this collection's.

:meth:`RunJournal.sweep` deletes the directories the journal lists that no kept row names: a
directory marked ``+`` whole; one marked only ``?`` only when it is empty (the process died
between the two lines, so nothing was written into it; a non-empty one is someone else's). It
deletes nothing else: never a path the journal does not list, never a symbolic link.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from ..jsonfmt import dumps_compact_bytes, loads_strict
from ..wrappers.record import write_atomic

__all__ = ["RUNS_JOURNAL", "RunJournal"]

#: The journal's file name inside ``--out``.
RUNS_JOURNAL = ".collect-runs"

_INTENDED = "?"
_MADE = "+"


class RunJournal:
    """``<out>/.collect-runs`` (module docs): :meth:`intend` and :meth:`made` append to it (open
    it first with :meth:`open`; each line is one ``os.write`` on an ``O_APPEND`` descriptor, safe
    from any thread), :meth:`entries` and :meth:`sweep` read it."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def open(self) -> None:
        """Start appending (the file is created when missing)."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def _append(self, mark: str, run_dir: Path) -> None:
        if self._fd is None:
            raise RuntimeError(f"{self.path} is not open for writing.")
        os.write(self._fd, dumps_compact_bytes([mark, os.fspath(run_dir)]) + b"\n")

    def intend(self, run_dir: Path) -> None:
        """``run_dir`` is about to be made."""
        self._append(_INTENDED, run_dir)

    def made(self, run_dir: Path) -> None:
        """``run_dir`` was made by this collection."""
        self._append(_MADE, run_dir)

    def entries(self) -> dict[str, bool]:
        """Every path the journal lists, in order: ``True`` when it was made, ``False`` when only
        intended. A line that is not a journal line (a torn last line, an edit) is skipped."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        found: dict[str, bool] = {}
        for line in data.split(b"\n"):
            try:
                entry = loads_strict(line)
            except ValueError:
                continue
            if (isinstance(entry, list) and len(entry) == 2 and entry[0] in (_INTENDED, _MADE)
                    and isinstance(entry[1], str) and entry[1]):
                found[entry[1]] = found.get(entry[1], False) or entry[0] == _MADE
        return found

    def sweep(self, keep: Iterable[str | os.PathLike[str]]) -> list[str]:
        """Delete the listed run directories not in ``keep`` (module docs), then rewrite the
        journal to list only those of ``keep`` it listed; returns the paths deleted.

        Raises:
            OSError: a directory could not be deleted, or the journal not rewritten.
        """
        kept = {os.path.abspath(p) for p in keep}
        deleted: list[str] = []
        entries = self.entries()
        for path, made in entries.items():
            if os.path.abspath(path) in kept or os.path.islink(path) or not os.path.isdir(path):
                continue
            if made:
                shutil.rmtree(path)
            else:
                try:
                    os.rmdir(path)  # only an empty one: a full one is not ours
                except OSError:
                    continue
            deleted.append(path)
        remaining = [p for p, made in entries.items() if made and os.path.abspath(p) in kept]
        if entries:
            write_atomic(self.path, b"".join(dumps_compact_bytes([_MADE, p]) + b"\n" for p in remaining))
        return deleted
