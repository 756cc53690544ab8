"""Shared by the trainer-integration tests: the demo reference solver, loaded from its file."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLVER_PATH = ROOT / "examples" / "agents" / "crm_solver.py"


def load_solver() -> Any:
    """``examples/agents/crm_solver.py`` as a module (plans for the six demo tasks)."""
    name = "_crm_solver_for_integration_tests"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SOLVER_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def load_training_example() -> Any:
    """``examples/train_grpo_trl.py`` as a module: the tiny model, tokenizer and chat template."""
    name = "_train_grpo_trl_example"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "train_grpo_trl.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
