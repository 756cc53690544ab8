"""The trainer recipes of docs/training.md, run as the docs print them: each test execs the first
Python block under a recipe's heading."""

from __future__ import annotations

import re
from typing import Any

from ._helpers import ROOT

DOC = ROOT / "docs" / "training.md"


def recipe(heading: str) -> dict[str, Any]:
    """Exec the first ```python block after the line ``heading`` of docs/training.md; returns
    its namespace."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    block = re.search(r"```python\n(.*?)```", text[start:], re.DOTALL)
    assert block is not None, f"no python block under {heading!r}"
    namespace: dict[str, Any] = {"__name__": f"recipe_{re.sub(r'[^a-z]', '_', heading.lower())}"}
    exec(compile(block.group(1), f"{DOC}:{heading}", "exec"), namespace)  # noqa: S102
    return namespace


def rows() -> list[dict[str, Any]]:
    """The rows of the proxy-trainers section (its first block)."""
    return recipe("## Trainers with their own proxy (ART, AReaL, rLLM, Agent Lightning)")["rows"]
