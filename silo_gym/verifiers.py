"""Verifiers: ``check``, ``optional``, ``define_verifier`` and scoring (silo-format §4)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import VerifierError
from .rounding import round2

if TYPE_CHECKING:
    from .models import Task

__all__ = [
    "SiloVerifier",
    "VerifierCheck",
    "VerifierContext",
    "VerifierOutcome",
    "check",
    "define_verifier",
    "find_verifier",
    "optional",
    "score_checks",
]


@dataclass(frozen=True, slots=True)
class VerifierCheck:
    """One graded condition. JSON form: ``{label, passed, detail, required}`` (silo-format §4.1)."""

    label: str
    passed: bool
    detail: str = ""
    required: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "passed": self.passed, "detail": self.detail, "required": self.required}


def check(label: str, passed: Any, detail: str = "") -> VerifierCheck:
    """A required check; ``passed`` is stored as ``bool(passed)`` (silo-format §4.1)."""
    return VerifierCheck(label, bool(passed), detail, True)


def optional(label: str, passed: Any, detail: str = "") -> VerifierCheck:
    """An optional check: it counts toward the reward but not toward ``passed`` (§4.2)."""
    return VerifierCheck(label, bool(passed), detail, False)


@dataclass(frozen=True, slots=True)
class VerifierContext:
    """What a verifier knows besides the two states: the agent's text output and the task."""

    agent_output: str
    task: Task


@dataclass(frozen=True, slots=True)
class VerifierOutcome:
    """A scored verifier result (silo-format §4.1–4.2). ``reward`` is a fraction in [0, 1]."""

    verifier_id: str
    task_id: str
    passed: bool
    reward: float
    required_passed: int
    required_total: int
    failed_required: list[str] = field(default_factory=list)
    checks: list[VerifierCheck] = field(default_factory=list)

    @property
    def checks_passed(self) -> int:
        return sum(1 for c in self.checks if c.passed)

    @property
    def checks_failed(self) -> int:
        return sum(1 for c in self.checks if not c.passed)


def score_checks(verifier_id: str, task_id: str, checks: Sequence[VerifierCheck]) -> VerifierOutcome:
    """Score a list of checks (silo-format §4.2).

    Raises:
        ValueError: when there is no required check (the message is the spec's).
    """
    required = [c for c in checks if c.required]
    if not required:
        raise ValueError(
            f'Verifier "{verifier_id}" returned no required checks; '
            "a task cannot be graded on optional checks alone."
        )
    failed = [c.label for c in required if not c.passed]
    passed_count = sum(1 for c in checks if c.passed)
    return VerifierOutcome(
        verifier_id=verifier_id,
        task_id=task_id,
        passed=not failed,
        reward=round2(passed_count / len(checks)),
        required_passed=len(required) - len(failed),
        required_total=len(required),
        failed_required=failed,
        checks=list(checks),
    )


CheckFn = Callable[[Any, Any, VerifierContext], list[VerifierCheck]]


@dataclass(frozen=True, slots=True)
class SiloVerifier:
    """A verifier made with :func:`define_verifier`. ``check_fn`` is the author's function."""

    id: str
    task_id: str
    name: str
    check_fn: CheckFn

    def check(self, final_state: Any, initial_state: Any, context: VerifierContext) -> VerifierOutcome:
        """Run the check function and score its list (silo-format §4.1–4.2).

        Raises:
            VerifierError: (code ``verifier_failed``) when the function raises, returns something
                other than a list of ``VerifierCheck``, or returns no required check; the cause is
                chained and the message is ``Verifier "<id>" failed: <underlying message>``.
        """
        details = {"verifierId": self.id, "taskId": context.task.id}
        try:
            checks = self.check_fn(final_state, initial_state, context)
            if not isinstance(checks, list) or not all(isinstance(c, VerifierCheck) for c in checks):
                raise TypeError("check() must return a list of checks made with check() or optional()")
            return score_checks(self.id, self.task_id, checks)
        except Exception as exc:  # any grading failure becomes one VerifierError (§4.4)
            message = str(exc) or type(exc).__name__
            raise VerifierError(f'Verifier "{self.id}" failed: {message}', details) from exc


def define_verifier(*, id: str, task_id: str, name: str, check: CheckFn) -> SiloVerifier:
    """Package a verifier (silo-format §4.1).

    Args:
        id: the verifier id tasks name in ``verifierId``.
        task_id: the task it grades (read only by validation, §9).
        name: a human-readable name, recorded as ``verifierName`` in ``run.json``.
        check: ``check(final_state, initial_state, context) -> list[VerifierCheck]``.
    """
    return SiloVerifier(id=id, task_id=task_id, name=name, check_fn=check)


def find_verifier(verifiers: Sequence[Any], verifier_id: str) -> Any | None:
    """The first verifier whose ``id`` equals ``verifier_id`` (silo-format §4.3), or ``None``."""
    for v in verifiers:
        if getattr(v, "id", None) == verifier_id:
            return v
    return None
