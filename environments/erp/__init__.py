"""The ERP environment: procure-to-pay and order-to-cash at a mid-sized distributor (erp-world.md).

Exports what the runtime needs (``create_state``, ``bind_tools(state)``, ``verifiers``, ``tools``).
``integrity.world_problems`` checks a world's integrity (erp-world.md §11.6); it becomes a variant
hook once the §11 generator exists (``env validate`` warns about a hook without variants).
"""

from __future__ import annotations

from typing import Any

import silo_gym

from .environment import SIMULATION_NOW, TAX_RATE, create_state
from .state import State
from .tools import load_tools
from .verifiers import verifiers

__all__ = [
    "SIMULATION_NOW",
    "TAX_RATE",
    "State",
    "bind_tools",
    "create_state",
    "tools",
    "verifiers",
]


#: The 185 tools in registration order (erp-tools.md §7.0).
tools = load_tools()


def bind_tools(state: State) -> list[Any]:
    """Bind the 185 ERP tools, in registration order, to one episode's state."""
    return silo_gym.bind_tools(state, tools)
