"""Shared set-up of the tests of the ERP tool modules §7.2-§7.11 (test_tools_a_*.py): the ten
domain modules loaded on their own, bound to a fresh canonical state."""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any

from silo_gym import canonical

from . import World, submodule

MODULES = (
    "clock",
    "vendors",
    "customers",
    "products",
    "inventory",
    "requisitions",
    "approvals",
    "rfqs",
    "quotations",
    "purchase_orders",
)
COUNTS = (3, 8, 8, 8, 14, 12, 7, 9, 9, 15)


def a_tools(env: ModuleType) -> list[Any]:
    """The 93 tools of the ten modules, in registration order."""
    out: list[Any] = []
    for name in MODULES:
        out.extend(submodule(env, f"tools.{name}").TOOLS)
    return out


def world(env: ModuleType, state: dict[str, Any] | None = None) -> World:
    """A world with the ten modules' tools bound."""
    return World(env, state=state, tools=a_tools(env))


def assert_read_only(env: ModuleType, name: str, args: dict[str, Any]) -> Any:
    """Call a read tool on a fresh world; it succeeds and leaves the state byte-identical."""
    w = world(env)
    before = canonical(copy.deepcopy(w.state))
    out = w.ok(name, args)
    assert canonical(w.state) == before, name
    return out
