"""The demo CRM environment: a small sales CRM (demo-crm.md).

Exports the three things the runtime needs: ``create_state``, ``bind_tools(state)`` and
``verifiers``.
"""

from __future__ import annotations

from typing import Any

import silo_gym

from .environment import SIMULATION_NOW, create_state
from .state import State
from .tools import tools
from .verifiers import verifiers

__all__ = ["SIMULATION_NOW", "State", "bind_tools", "create_state", "tools", "verifiers"]


def bind_tools(state: State) -> list[Any]:
    """Bind the 42 CRM tools, in registration order, to one episode's state."""
    return silo_gym.bind_tools(state, tools)
