"""A tiny answer-producing test environment: report how many units are in stock.

Its entrypoint is ./main.py (not the package __init__) to exercise that path of the loader.
"""

from silo_gym import bind_tools as _bind

from .state import create_state
from .tools import tools
from .verifiers import verifiers


def bind_tools(state):
    return _bind(state, tools)


__all__ = ["bind_tools", "create_state", "verifiers"]

__all__ = ["bind_tools", "create_state", "verifiers"]
