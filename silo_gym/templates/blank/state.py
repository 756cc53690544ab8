"""The world's State type and the domain helpers shared by tools and verifiers."""

from __future__ import annotations

from typing import Any

__all__ = ["State"]

State = dict[str, Any]
