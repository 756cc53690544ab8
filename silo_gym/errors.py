"""Error types of silo_gym: the base SiloGymError, SiloError and its codes, ToolError, RunLimitError,
VerifierError.

Every error class that silo_gym raises on purpose derives from :class:`SiloGymError`, so
``except SiloGymError`` catches whatever the package reports deliberately (and nothing it did not
mean to raise). Classes that were a ``ValueError`` or an ``OSError`` before keep that base too.

Codes and message shapes follow silo-format §11; tool error codes follow silo-format §3.1.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

__all__ = [
    "SILO_ERROR_CODES",
    "TOOL_CRASHED",
    "TOOL_ERROR_CODES",
    "RunLimitError",
    "SiloError",
    "SiloErrorCode",
    "SiloGymError",
    "SiloRegistrationWarning",
    "ToolError",
    "ToolErrorCode",
    "VerifierError",
    "is_silo_error",
    "tool_error",
]

#: Every code a ``SiloError`` may carry (silo-format §11), as a type: a checker flags a code that is
#: not one of these.
SiloErrorCode = Literal[
    "environment_not_found",
    "environment_already_exists",
    "template_not_found",
    "entrypoint_outside_environment",
    "runtime_contract_invalid",
    "unsafe_name",
    "invalid_json",
    "data_not_found",
    "data_already_exists",
    "task_not_found",
    "task_already_exists",
    "task_invalid",
    "tool_already_exists",
    "verifier_already_exists",
    "registry_not_found",
    "already_registered",
    "state_type_not_found",
    "verifier_not_found",
    "agent_invalid",
    "verifier_failed",
    "environment_read_only",
    "variant_unsupported",
    "variant_preconditions_unmet",
    "file_invalid",
    "tool_name_reserved",
    "run_invalid",
    "environment_changed",
    "output_invalid",
    "tool_not_found",
    "not_registered",
]

#: The same codes as a tuple, in the order above (for membership tests and listings).
SILO_ERROR_CODES: tuple[SiloErrorCode, ...] = get_args(SiloErrorCode)

#: The code of a tool result whose ``run`` raised something other than a ``ToolError``, or
#: returned what cannot be cloned (our rule, docs/spec-amendments.md: a crash is not a state of
#: the world, so it does not borrow ``invalid_state``).
TOOL_CRASHED = "tool_crashed"

#: The conventional codes a tool raises with ``ToolError`` (silo-format §3.1), as a type; a tool may
#: still raise any string (``ToolError.code`` is a ``str``).
ToolErrorCode = Literal[
    "invalid_input",
    "not_found",
    "invalid_state",
    "not_allowed",
    "limit_exceeded",
    "conflict",
]

#: The same codes as a tuple, in the order above.
TOOL_ERROR_CODES: tuple[ToolErrorCode, ...] = get_args(ToolErrorCode)


class SiloGymError(Exception):
    """The base of every error silo_gym raises on purpose.

    It carries nothing itself; subclasses add their facts (``SiloError.code``, ``ToolError.code``,
    ``RunLimitError.reason``, ...). Warnings (``SiloRegistrationWarning``) are not errors and do not
    derive from it.
    """


class SiloError(SiloGymError):
    """An error of the Silo runtime, with a machine-readable ``code`` (silo-format §11).

    Attributes:
        code: one of :data:`SILO_ERROR_CODES`.
        message: the human-readable message; ``str(error)`` returns it.
        details: a dict of structured facts (keys as in the spec), or ``None``.
    """

    def __init__(self, code: SiloErrorCode, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code: SiloErrorCode = code
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep code and details across pickling (vector workers send errors back to the parent).
        return (type(self), (self.code, self.message, self.details))


class VerifierError(SiloError):
    """Grading failed: the verifier raised or returned no required check (silo-format §4.4).

    Code ``verifier_failed``; details ``{verifierId, taskId}``; the original exception is chained.
    """

    def __init__(
        self, message: str, details: dict[str, Any] | None = None, code: SiloErrorCode = "verifier_failed"
    ) -> None:
        super().__init__(code, message, details)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.details, self.code))


def is_silo_error(value: object) -> bool:
    """True when ``value`` is a :class:`SiloError` (silo-format §11)."""
    return isinstance(value, SiloError)


class ToolError(SiloGymError):
    """Raised by a tool's ``run`` to report a failure to the agent (silo-format §3.1, §3.4).

    The agent receives ``{"code", "message"}`` plus ``"details"`` when ``details`` is not ``None``.
    ``str(error)`` is the message.
    """

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"ToolError({self.code!r}, {self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message, self.details))


def tool_error(code: str, message: str, details: Any = None) -> ToolError:
    """Return a :class:`ToolError`, for ``raise tool_error(...)`` (silo-format §3.1)."""
    return ToolError(code, message, details)


class RunLimitError(SiloGymError):
    """Raised into an agent by ``call_tool`` when a run limit fired (silo-format §5.2).

    Attributes:
        reason: ``"timeout"`` or ``"max_tool_calls"``.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.message))


class SiloRegistrationWarning(UserWarning):
    """An environment on disk was skipped at registration; the message names its path and why."""
