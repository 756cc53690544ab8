"""Moved to :mod:`silo_gym.runs.provenance` (issue 23: the run directory is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .runs import provenance as _moved
from .runs.provenance import (
    __version__,
    environment_hash,
    environment_hash_of,
)

__all__ = [
    "__version__",
    "environment_hash",
    "environment_hash_of",
]

sys.modules[__name__] = _moved
