"""Tool registry: a tool exists only when it is listed in ``tools``."""

from __future__ import annotations

tools: list = []
