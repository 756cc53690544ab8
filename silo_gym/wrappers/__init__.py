"""Wrappers for ``SiloEnv``: :class:`RecordRun` writes Silo's four run artifacts."""

from .record import RecordRun

__all__ = ["RecordRun"]
