"""Tests of the shipped ERP environment (erp-world.md, erp-tools.md). The package is loaded by
silo_gym's own loader (a fresh private package per load); the solver by path."""

from __future__ import annotations

import importlib
import importlib.util
import pathlib
import sys
from types import ModuleType
from typing import Any

from silo_gym.loader import open_environment_at

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV_DIR = ROOT / "environments" / "erp"
SOLVER_PATH = ROOT / "examples" / "agents" / "erp_solver.py"
TASK_IDS = [f"TASK-{n:03d}" for n in range(1, 19)]


def load_erp() -> ModuleType:
    """A fresh load of ``environments/erp`` (its submodules live under ``<module>.__name__``)."""
    return open_environment_at("erp", ENV_DIR, fresh=True).module


def submodule(env: ModuleType, name: str) -> ModuleType:
    """``env``'s submodule ``name`` (for example ``"state"`` or ``"tools.helpers"``)."""
    return importlib.import_module(f"{env.__name__}.{name}")


def load_solver() -> ModuleType:
    """``examples/agents/erp_solver.py``, loaded once per process."""
    name = "_erp_solver_for_tests"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SOLVER_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


class World:
    """A world (canonical, or any given state) with the given tools bound, called as an agent would."""

    def __init__(
        self, env: ModuleType, state: dict[str, Any] | None = None, tools: list[Any] | None = None
    ) -> None:
        import silo_gym

        self.state = env.create_state() if state is None else state
        bound = silo_gym.bind_tools(self.state, tools) if tools is not None else env.bind_tools(self.state)
        self.tools = {t.name: t for t in bound}

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.tools[name].execute(args)

    def ok(self, name: str, args: dict[str, Any] | None = None) -> Any:
        result = self.call(name, args)
        assert "isError" not in result, result
        return result["output"]

    def err(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, args)
        assert result.get("isError") is True, result
        return result["output"]
