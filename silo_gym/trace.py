"""Moved to :mod:`silo_gym.runs.trace` (issue 23: the run directory is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .runs import trace as _moved
from .runs.trace import (
    Trace,
    TraceCorrupt,
    read_trace,
)

__all__ = [
    "read_trace",
    "Trace",
    "TraceCorrupt",
]

sys.modules[__name__] = _moved
