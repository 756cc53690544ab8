"""silo_gym: Silo agent environments as Gymnasium environments.

Importing the package registers every task of every known environment as ``silo/<env>-<TASK>``
and every environment as ``silo/<env>`` (gym-api.md, "Ids and registration").
"""

from __future__ import annotations

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
from .models import Manifest, Task, ValidationReport
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

__version__ = "0.1.0"

__all__ = [
    "Manifest",
    "RunLimitError",
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
    "optional",
    "percent_one_decimal",
    "round2",
    "to_fixed",
    "tool_error",
]
