"""Variants of the project world (project-world.md §11; VARIANTS_CONTRACT.md)."""

from __future__ import annotations

from typing import Any

from .instructions import render
from .state import State

__all__ = ["generate", "render_instruction", "task_preconditions", "world_problems"]


def render_instruction(task: Any, state: State) -> str:
    rendered = render(task.id, state)
    return task.instruction if rendered is None else rendered


def task_preconditions(task: Any, state: State) -> list[str]:
    return []


def world_problems(state: State) -> list[str]:
    return []


def generate(variant: int) -> State:
    raise NotImplementedError
