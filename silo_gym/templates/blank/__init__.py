"""A Silo environment: the runtime needs create_state, bind_tools and verifiers."""

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
