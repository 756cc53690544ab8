"""The 18 ERP verifiers, registered in id order (erp-world.md §9)."""

from __future__ import annotations

from typing import Any

__all__ = ["verifiers"]

verifiers: list[Any] = []
