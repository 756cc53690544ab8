"""Moved to :mod:`silo_gym.runs.rundir` (issue 23: the run directory is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .runs import rundir as _moved
from .runs.rundir import (
    RESULT_FILE,
    RUN_ARTIFACTS,
    RUN_FILE,
    STATE_DIFF_FILE,
    TRACE_FILE,
    RecordedCall,
    RunRecord,
    read_run,
    run_error,
)

__all__ = [
    "read_run",
    "RecordedCall",
    "RESULT_FILE",
    "RUN_ARTIFACTS",
    "run_error",
    "RUN_FILE",
    "RunRecord",
    "STATE_DIFF_FILE",
    "TRACE_FILE",
]

sys.modules[__name__] = _moved
