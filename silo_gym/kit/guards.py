"""Lookups and guards with one set of codes: not found, not allowed (an invalid transition or a
forbidden act), conflict, invalid state. Every helper returns a ``ToolError`` to ``raise``."""

from __future__ import annotations

from typing import Any, Final, Literal

from ..errors import ToolError

__all__ = [
    "CONFLICT",
    "INVALID_INPUT",
    "INVALID_STATE",
    "LIMIT_EXCEEDED",
    "NOT_ALLOWED",
    "NOT_FOUND",
    "ToolCode",
    "conflict",
    "invalid_state",
    "invalid_transition",
    "not_allowed",
    "not_found",
]

#: The codes a kit tool raises (silo-format §3.1).
ToolCode = Literal["invalid_input", "not_found", "invalid_state", "not_allowed", "limit_exceeded", "conflict"]

INVALID_INPUT: Final = "invalid_input"
NOT_FOUND: Final = "not_found"
INVALID_STATE: Final = "invalid_state"
NOT_ALLOWED: Final = "not_allowed"
LIMIT_EXCEEDED: Final = "limit_exceeded"
CONFLICT: Final = "conflict"

#: The default not-found message: ``{label}`` is the record kind ("Account"), ``{id}`` the id.
NOT_FOUND_MESSAGE = '{label} "{id}" was not found.'


def not_found(label: str, record_id: Any, message: str = NOT_FOUND_MESSAGE, details: Any = None) -> ToolError:
    """``not_found``: ``Account "ACC-999" was not found.`` by default."""
    return ToolError(NOT_FOUND, message.format(label=label, id=record_id), details)


def not_allowed(message: str, details: Any = None) -> ToolError:
    """``not_allowed``: the act is forbidden to this actor or in this record's situation."""
    return ToolError(NOT_ALLOWED, message, details)


def invalid_transition(message: str, details: Any = None) -> ToolError:
    """An invalid transition (a closed deal moved, a done item reopened): ``not_allowed``."""
    return ToolError(NOT_ALLOWED, message, details)


def conflict(message: str, details: Any = None) -> ToolError:
    """``conflict``: the change clashes with what the world already holds (a duplicate)."""
    return ToolError(CONFLICT, message, details)


def invalid_state(message: str, details: Any = None) -> ToolError:
    """``invalid_state``: the world is not in a state the tool can work from."""
    return ToolError(INVALID_STATE, message, details)
