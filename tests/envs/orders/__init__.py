"""A tiny state-changing test environment: ship a pending order with a carrier."""

from silo_gym import bind_tools as _bind

from .environment import create_state
from .tools import tools
from .verifiers import verifiers


def bind_tools(state):
    return _bind(state, tools)


__all__ = ["bind_tools", "create_state", "verifiers"]
