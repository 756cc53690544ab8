"""A Silo environment: the runtime needs create_state, bind_tools and verifiers.

To make it a family of variant worlds, give create_state its variant parameter (see
environment.py) and export the optional hooks render_instruction, task_preconditions
and world_problems here too (docs/variants.md).
"""

from __future__ import annotations

from typing import Any

import silo_gym

from .environment import create_state
from .state import State
from .tools import tools
from .verifiers import verifiers

__all__ = ["State", "bind_tools", "create_state", "tools", "verifiers"]


def bind_tools(state: State) -> list[Any]:
    """Bind the registered tools, in registry order, to one episode's state."""
    return silo_gym.bind_tools(state, tools)
