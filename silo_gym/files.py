"""Moved to :mod:`silo_gym.runs.files` (issue 23: the run directory is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .runs import files as _moved
from .runs.files import (
    MAX_RUN_FILE_BYTES,
    NotARegularFile,
    RunFileTooLarge,
    read_run_file,
)

__all__ = [
    "MAX_RUN_FILE_BYTES",
    "NotARegularFile",
    "read_run_file",
    "RunFileTooLarge",
]

sys.modules[__name__] = _moved
