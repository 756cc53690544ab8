"""Run directories (silo-format §6): what one recorded episode leaves on disk, in one folder.

- :mod:`~silo_gym.runs.files`: :data:`RUN_FILES`, the one list of a run's files, and reading one
  of them safely (regular files only, bounded in size).
- :mod:`~silo_gym.runs.trace`: reading ``trace.jsonl``, tolerating a torn last line.
- :mod:`~silo_gym.runs.rundir`: reading and checking a whole run directory (:func:`read_run`).
- :mod:`~silo_gym.runs.provenance`: what a run was made from (package version, environment hash).

Writing a run is :class:`silo_gym.wrappers.RecordRun`. The modules' old paths
(``silo_gym.rundir``, ``silo_gym.trace``, ``silo_gym.files``, ``silo_gym.provenance``) still import.
"""

from __future__ import annotations

from .files import MAX_RUN_FILE_BYTES, RUN_FILES, NotARegularFile, RunFileTooLarge, read_run_file
from .provenance import environment_hash, environment_hash_of
from .rundir import RecordedCall, RunRecord, read_run, run_error
from .trace import Trace, TraceCorrupt, read_trace

__all__ = [
    "MAX_RUN_FILE_BYTES",
    "RUN_FILES",
    "NotARegularFile",
    "RecordedCall",
    "RunFileTooLarge",
    "RunRecord",
    "Trace",
    "TraceCorrupt",
    "environment_hash",
    "environment_hash_of",
    "read_run",
    "read_run_file",
    "read_trace",
    "run_error",
]
