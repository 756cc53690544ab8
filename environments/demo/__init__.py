"""The demo CRM environment: a small sales CRM (demo-crm.md).

Exports the three things the runtime needs: ``create_state``, ``bind_tools(state)`` and
``verifiers``; and the variant hooks (docs/variants.md): ``create_state(variant)``,
``render_instruction(task, state)``, ``task_preconditions(task, state)`` and
``world_problems(state)``.
"""

from __future__ import annotations

from typing import Any

import silo_gym

from .environment import SIMULATION_NOW, create_state
from .instructions import render_instruction
from .integrity import world_problems
from .preconditions import task_preconditions
from .state import State
from .tools import tools
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
    """Bind the 42 CRM tools, in registration order, to one episode's state."""
    return silo_gym.bind_tools(state, tools)
