"""Moved to :mod:`silo_gym.authoring.validate` (issue 23: world authoring is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .authoring import validate as _moved
from .authoring.validate import (
    FINDING_CODES,
    format_report,
    validate,
)

__all__ = [
    "FINDING_CODES",
    "format_report",
    "validate",
]

sys.modules[__name__] = _moved
