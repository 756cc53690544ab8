"""Builds the world from ``data/``. Every call must return a brand-new world."""

from __future__ import annotations

from .state import State

__all__ = ["create_state"]


def create_state(variant: int | None = None) -> State:
    """A fresh world: read your datasets from data/ here, build new dicts and lists.

    variant makes the environment a family of worlds (docs/variants.md). None is
    your canonical world, the one the task files describe. An int k >= 0 asks for
    variant k: a world of the same shape (the same top-level keys, every id your
    tasks name) with other facts: names, amounts, dates, owners, records added or
    left out. Draw them from random.Random(variant), so the same k is the same world
    in every process (never the clock, a global random state, hash() of a string or
    the order of a set); gym.make(id, variants=True) then hands out a new world on
    every reset. Until you write that, every variant is the canonical world.

    Optional hooks, exported from __init__.py next to create_state:
    render_instruction(task, state) gives the instruction naming this world's facts
    (the task file's text on the canonical world); task_preconditions(task, state)
    says why a world cannot be handed out for a task ([] when it can);
    world_problems(state) lists references that do not resolve. silo-gym env
    validate samples variants and checks all of them.
    """
    return {}
