"""Tests of the shipped demo environment. The package is loaded by silo_gym's own loader (a
fresh private package per load), and the solver and single files by path."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from types import ModuleType

from silo_gym.loader import open_environment_at

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV_DIR = ROOT / "environments" / "demo"
SOLVER_PATH = ROOT / "examples" / "agents" / "crm_solver.py"


def load_demo() -> ModuleType:
    """A fresh load of ``environments/demo`` (its submodules live under ``<module>.__name__``)."""
    return open_environment_at("demo", ENV_DIR, fresh=True).module


def load_file(name: str, path: pathlib.Path) -> ModuleType:
    """Import one Python file as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
