"""Moved to :mod:`silo_gym.authoring.scaffold` (issue 23: world authoring is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .authoring import scaffold as _moved
from .authoring.scaffold import (
    NOT_IMPLEMENTED_TOOL,
    NOT_IMPLEMENTED_VERIFIER,
    STUB_CHECK_LABEL,
    TEMPLATE_VERSION,
    TEMPLATES,
    TOOL_PACKS,
    InitResult,
    PromptAborted,
    RemovalResult,
    ScaffoldResult,
    describe_init,
    find_state_type,
    init_environment,
    interactive_init,
    module_identifier,
    register,
    remove_tool,
    remove_verifier,
    scaffold_tool,
    scaffold_verifier,
    split_list,
    template_dir,
    tool_stub,
    unregister,
    verifier_stub,
)

__all__ = [
    "NOT_IMPLEMENTED_TOOL",
    "NOT_IMPLEMENTED_VERIFIER",
    "STUB_CHECK_LABEL",
    "TEMPLATES",
    "TEMPLATE_VERSION",
    "TOOL_PACKS",
    "InitResult",
    "PromptAborted",
    "RemovalResult",
    "ScaffoldResult",
    "describe_init",
    "find_state_type",
    "init_environment",
    "interactive_init",
    "module_identifier",
    "register",
    "remove_tool",
    "remove_verifier",
    "scaffold_tool",
    "scaffold_verifier",
    "split_list",
    "template_dir",
    "tool_stub",
    "unregister",
    "verifier_stub",
]

sys.modules[__name__] = _moved
