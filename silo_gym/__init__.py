"""silo_gym: Silo agent environments as Gymnasium environments.

Importing the package registers every task of every known environment as ``silo/<env>-<TASK>``
and every environment as ``silo/<env>`` (gym-api.md, "Ids and registration").
"""

from __future__ import annotations

from .env import SiloEnv
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
from .models import Manifest, Task, ValidationReport
from .project import Silo
from .registration import register_all as _register_all
from .registration import register_environment
from .rounding import js_round, percent_one_decimal, round2, to_fixed
from .runner import RunResult, run_task
from .tools import SiloTool, Tool, bind_tools, define_tool
from .validate import validate
from .verifiers import (
    SiloVerifier,
    VerifierCheck,
    VerifierContext,
    VerifierOutcome,
    check,
    define_verifier,
    optional,
)

__version__ = "0.1.0"

_register_all()

__all__ = [
    "Manifest",
    "RunLimitError",
    "RunResult",
    "SiloEnv",
    "Silo",
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
