"""The project environment: a small engineering organisation tracking work (project-world.md).

Exports what the runtime needs (``create_state``, ``bind_tools(state)``: the 54 project tools bound
in registration order, ``verifiers``) and the variant contract's optional parts
(``render_instruction``, ``task_preconditions``, ``world_problems``; VARIANTS_CONTRACT.md).
"""

from silo_gym import kit

from .environment import SIMULATION_NOW, create_state
from .state import State
from .tools import tools
from .variants import render_instruction, task_preconditions, world_problems
from .verifiers import verifiers

bind_tools = kit.binder(tools)

__all__ = ["SIMULATION_NOW", "State", "bind_tools", "create_state", "render_instruction",
           "task_preconditions", "tools", "verifiers", "world_problems"]
