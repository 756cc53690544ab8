"""The project environment: a small engineering organisation tracking work (project-world.md).

Exports what the runtime needs (``create_state``, ``bind_tools(state)``, ``verifiers``) and the
variant contract's optional parts (``render_instruction``, ``task_preconditions``,
``world_problems``; VARIANTS_CONTRACT.md).
"""

from __future__ import annotations

from typing import Any

import silo_gym

from .environment import SIMULATION_NOW, create_state
from .state import State
from .tools import tools
from .variants import render_instruction, task_preconditions, world_problems
from .verifiers import verifiers

__all__ = [
    "SIMULATION_NOW",
    "State",
    "bind_tools",
    "create_state",
    "render_instruction",
    "task_preconditions",
    "tools",
    "verifiers",
    "world_problems",
]


def bind_tools(state: State) -> list[Any]:
    """Bind the 54 project tools, in registration order, to one episode's state."""
    return silo_gym.bind_tools(state, tools)
