"""Moved to :mod:`silo_gym.authoring.store` (issue 23: world authoring is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .authoring import store as _moved
from .authoring.store import (
    DataStore,
    EnvironmentRef,
    TaskStore,
    atomic_write,
    check_writable,
    resolve_environment,
)

__all__ = [
    "DataStore",
    "EnvironmentRef",
    "TaskStore",
    "atomic_write",
    "check_writable",
    "resolve_environment",
]

sys.modules[__name__] = _moved
