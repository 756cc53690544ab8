"""The demo CRM environment: a small sales CRM (demo-crm.md).

Exports the three things the runtime needs: ``create_state``, ``bind_tools(state)`` (the 42 CRM
tools bound in registration order) and ``verifiers``; and the variant hooks (docs/variants.md):
``create_state(variant)``, ``render_instruction(task, state)``, ``task_preconditions(task, state)``
and ``world_problems(state)``.
"""

from silo_gym import kit

from .environment import SIMULATION_NOW, create_state
from .instructions import render_instruction
from .integrity import world_problems
from .preconditions import task_preconditions
from .state import State
from .tools import tools
from .verifiers import verifiers

bind_tools = kit.binder(tools)

__all__ = ["SIMULATION_NOW", "State", "bind_tools", "create_state", "render_instruction",
           "task_preconditions", "tools", "verifiers", "world_problems"]
