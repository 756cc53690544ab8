"""Wrappers for ``SiloEnv``: :class:`RecordRun` writes Silo's four run artifacts;
:class:`CurriculumTasks` lets a curriculum pick each reset's task."""

from .curriculum import CurriculumTasks
from .record import RecordRun

__all__ = ["CurriculumTasks", "RecordRun"]
