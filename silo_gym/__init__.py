"""silo_gym: Silo agent environments as Gymnasium environments.

Importing the package registers every task of every known environment as ``silo/<env>-<TASK>``
and every environment as ``silo/<env>`` (gym-api.md, "Ids and registration"). Registration reads
only manifests and task files; the heavier parts of the package (the env, pydantic models, the
runner, authoring) are imported on first use, so ``import silo_gym`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    RunLimitError,
    SiloError,
    SiloRegistrationWarning,
    ToolError,
    VerifierError,
    is_silo_error,
    tool_error,
)
from .jsonfmt import canonical, dumps_compact, dumps_pretty, format_number, js_number
from .loader import list_environments, open_environment
from .registration import register_all as _register_all
from .registration import register_environment
from .rounding import js_round, percent_one_decimal, round2, to_fixed
from .tools import SiloTool, Tool, bind_tools, define_tool
from .verifiers import (
    SiloVerifier,
    VerifierCheck,
    VerifierContext,
    VerifierOutcome,
    check,
    define_verifier,
    optional,
)
from .version import __version__ as __version__

if TYPE_CHECKING:
    from .authoring.sdk import Silo
    from .authoring.validate import validate
    from .env import SiloEnv
    from .models import Manifest, Task, ValidationReport
    from .runner import RunResult, run_task
    from .vector import make_vec


#: Public names imported on first access (PEP 562), by module.
_LAZY = {
    "SiloEnv": "env",
    "Manifest": "models",
    "Task": "models",
    "ValidationReport": "models",
    "Silo": "authoring.sdk",
    "RunResult": "runner",
    "run_task": "runner",
    "validate": "authoring.validate",
    "make_vec": "vector",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'silo_gym' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


_register_all()

__all__ = [
    "Manifest",
    "RunLimitError",
    "RunResult",
    "Silo",
    "SiloEnv",
    "SiloError",
    "SiloRegistrationWarning",
    "SiloTool",
    "SiloVerifier",
    "Task",
    "Tool",
    "ToolError",
    "ValidationReport",
    "VerifierCheck",
    "VerifierContext",
    "VerifierError",
    "VerifierOutcome",
    "bind_tools",
    "canonical",
    "check",
    "define_tool",
    "define_verifier",
    "dumps_compact",
    "dumps_pretty",
    "format_number",
    "is_silo_error",
    "js_number",
    "js_round",
    "list_environments",
    "make_vec",
    "open_environment",
    "optional",
    "percent_one_decimal",
    "register_environment",
    "round2",
    "run_task",
    "to_fixed",
    "tool_error",
    "validate",
]
