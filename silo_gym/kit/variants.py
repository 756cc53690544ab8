"""Variant helpers: id remapping, value pools and instruction rendering.

A variant ``k`` of a task is a world and an instruction derived only from ``k``: draw from a
``random.Random`` seeded by the task and ``k``, pick names, dates and amounts from fixed pools,
remap ids consistently, and render the instruction from a template.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

__all__ = ["Pool", "per_task", "remap_ids", "render", "variant_rng"]

T = TypeVar("T")


def variant_rng(task_id: str, k: int, salt: str = "") -> random.Random:
    """A ``random.Random`` seeded by the task, ``k`` and ``salt`` only (a string seed, which
    Python hashes the same way on every run and platform)."""
    return random.Random(f"{task_id}:{k}:{salt}")


class Pool:
    """A fixed, ordered sequence of values to draw distinct picks from."""

    def __init__(self, values: Sequence[T]) -> None:
        if not values:
            raise ValueError("a pool needs at least one value")
        self.values = tuple(values)

    def pick(self, rng: random.Random) -> Any:
        """One value."""
        return self.values[rng.randrange(len(self.values))]

    def sample(self, rng: random.Random, n: int, avoid: Sequence[Any] = ()) -> list[Any]:
        """``n`` distinct values, none of ``avoid``.

        Raises:
            ValueError: fewer than ``n`` values are left.
        """
        left = [v for v in self.values if v not in set(avoid)]
        if len(left) < n:
            raise ValueError(f"the pool has {len(left)} usable values, {n} wanted")
        return rng.sample(left, n)


def remap_ids(value: Any, mapping: Mapping[str, str]) -> Any:
    """A copy of ``value`` (JSON data) with every string equal to a key of ``mapping`` and every
    dict key equal to one replaced by its new id; everything else is kept, key order included."""
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [remap_ids(v, mapping) for v in value]
    if isinstance(value, dict):
        return {mapping.get(k, k): remap_ids(v, mapping) for k, v in value.items()}
    return value


def render(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with each ``{name}`` replaced by ``values[name]``.

    Raises:
        KeyError: a placeholder has no value (named in the message).
    """
    names = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    missing = [n for n in names if n not in values]
    if missing:
        raise KeyError(f"instruction template needs values for: {', '.join(missing)}")
    return template.format(**values)


def per_task(namespace: Mapping[str, Any], prefix: str, task_prefix: str = "TASK-") -> dict[str, Callable[..., Any]]:
    """A module's per-task functions by task id: each name of ``namespace`` that is ``prefix``
    followed by digits (``_t007``, ``_task_007``) under ``task_prefix`` and those digits
    (``TASK-007``), in task id order. For the instruction templates and precondition checks a
    world keeps one function per task: ``_CHECKS = kit.per_task(globals(), "_t")``."""
    pattern = re.compile(re.escape(prefix) + "([0-9]+)")
    found = {}
    for name, value in namespace.items():
        match = pattern.fullmatch(name)
        if match is not None and callable(value):
            found[task_prefix + match.group(1)] = value
    return dict(sorted(found.items()))
