"""The ERP environment: procure-to-pay and order-to-cash at a mid-sized distributor (erp-world.md).

Exports what the runtime needs (``create_state``, ``bind_tools(state)``, ``verifiers``, ``tools``)
and the variant hooks of docs/variants.md (erp-world.md §11): ``create_state(variant)``,
``render_instruction(task, state)``, ``task_preconditions(task, state)`` and
``world_problems(state)``.
"""

from __future__ import annotations

from typing import Any

import silo_gym

from .environment import SIMULATION_NOW, TAX_RATE, create_state
from .instructions import render_instruction
from .integrity import world_problems
from .preconditions import task_preconditions
from .state import State
from .tools import load_tools
from .verifiers import verifiers

__all__ = [
    "SIMULATION_NOW",
    "TAX_RATE",
    "State",
    "bind_tools",
    "create_state",
    "render_instruction",
    "task_preconditions",
    "tools",
    "verifiers",
    "world_problems",
]


#: The 185 tools in registration order (erp-tools.md §7.0).
tools = load_tools()


def bind_tools(state: State) -> list[Any]:
    """Bind the 185 ERP tools, in registration order, to one episode's state."""
    return silo_gym.bind_tools(state, tools)
