"""Moved to :mod:`silo_gym.authoring.sdk` (issue 23: world authoring is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .authoring import sdk as _moved
from .authoring.sdk import (
    Environments,
    Silo,
    SiloEnvironment,
    ToolsApi,
    VerifiersApi,
)

__all__ = [
    "Environments",
    "Silo",
    "SiloEnvironment",
    "ToolsApi",
    "VerifiersApi",
]

sys.modules[__name__] = _moved
