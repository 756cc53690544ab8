"""Progress shaping for ``reward_mode="shaped"``: a potential-based term on every step.

The potential of a world is the fraction of the task's required checks that the world passes
now, graded by the task's own verifier before any answer exists:

    Φ(world) = required checks passed / required checks.

A check that reads the answer counts as not passed until the answer. Which checks read it is
found by grading: the verifier gets the empty answer through a context whose ``agent_output``
notes that it was read. When it was, and the result holds a check label not met before, the world
is graded a second time with another probe answer (every distinct string and number of the
task's initial world, one per line: it names everything a check could look for), and each label
is classed once: a check whose verdict or detail differs between the two probes reads the
answer. The classes are kept per env and verifier, so later steps and episodes grade once. So
"the answer names X" (fails on the empty answer) and "the answer does not name X" (fails on the
probe that names everything) both count as not passed. A check that reads the answer and comes
out alike under both probes (say "the answer does not state <a figure computed from the data>")
is counted as passed: such a check depends on the answer, not on the world, so its part of Φ is
the same on every step before the answer and cancels from every shaping term.

Each step's shaping term is ``Φ(after) - Φ(before)``; on the step that ends the episode the
potential becomes 0 (the ended episode's potential is fixed, as potential-based shaping needs for
the optimal policy to stay the same: Ng, Harada and Russell, 1999), so that step's term is
``-Φ(last world)`` and the verifier's reward is added to it. Over an episode the terms sum to
``0 - Φ(initial world)``, a constant of the start world.

Cost: one verifier run per step (and at reset), a second one the first time a label of an
answer-reading verifier is met, and a copy of the initial world per reset. The default reward
modes never call this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import VerifierError
from .jsonfmt import format_number
from .verifiers import VerifierOutcome

if TYPE_CHECKING:
    from .models import Task

__all__ = ["ProgressPotential", "world_text"]


class _AnswerProbe:
    """A verifier context (``agent_output``, ``task``) that notes whether the answer was read."""

    __slots__ = ("_text", "read", "task")

    def __init__(self, text: str, task: Task) -> None:
        self._text = text
        self.task = task
        self.read = False

    @property
    def agent_output(self) -> str:
        self.read = True
        return self._text


def world_text(world: Any) -> str:
    """Every distinct string and number in ``world`` (keys included, in order of first
    appearance), one per line: the probe answer that names everything a check of that world could
    look for."""
    parts: dict[str, None] = {}
    stack = [world]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts[node] = None
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            parts[format_number(node)] = None
        elif isinstance(node, (dict, list, tuple)) and id(node) not in seen:
            seen.add(id(node))
            if isinstance(node, dict):
                for key, value in reversed(list(node.items())):
                    stack.append(value)
                    stack.append(key)
            else:
                stack.extend(reversed(node))
    return "\n".join(parts)


class ProgressPotential:
    """Φ of the worlds of one episode (module docs).

    Args:
        verifier: the task's verifier (``check(final, initial, context) -> VerifierOutcome``).
        task: the task as the episode plays it (a variant's rendered instruction included).
        initial: a copy of the episode's initial world, kept for the whole episode (the verifier
            must not change it, silo-format §4.4).
        reads_answer: check label -> whether that check reads the answer, for this verifier:
            filled in here as labels are met, and shared by the episodes of one env.
    """

    __slots__ = ("_initial", "_probe", "_reads", "_task", "_verifier", "value")

    def __init__(self, verifier: Any, task: Task, initial: Any, reads_answer: dict[str, bool] | None = None) -> None:
        self._verifier = verifier
        self._task = task
        self._initial = initial
        self._reads = reads_answer if reads_answer is not None else {}
        self._probe: str | None = None  # built on the first grading that needs it
        #: The potential of the last world graded (0.0 once the episode ended).
        self.value = 0.0

    def _grade(self, state: Any, answer: str) -> tuple[VerifierOutcome, bool]:
        context = _AnswerProbe(answer, self._task)
        outcome = self._verifier.check(state, self._initial, context)
        if not isinstance(outcome, VerifierOutcome):
            raise VerifierError(
                f'Verifier "{getattr(self._verifier, "id", "?")}" failed: check() returned '
                f"{type(outcome).__name__}, not a VerifierOutcome",
                {"verifierId": getattr(self._verifier, "id", None), "taskId": self._task.id},
            )
        return outcome, context.read

    def of(self, state: Any) -> float:
        """Φ(``state``): the fraction of required checks ``state`` passes before the answer.

        Raises:
            VerifierError: the verifier failed on this world.
        """
        outcome, read = self._grade(state, "")
        checks = outcome.checks
        required = sum(1 for c in checks if c.required)
        if not required:
            return 0.0
        if not read:
            return sum(1 for c in checks if c.required and c.passed) / required
        reads = self._reads
        if any(c.label not in reads for c in checks):
            self._classify(state, checks)
        return sum(1 for c in checks if c.required and c.passed and not reads[c.label]) / required

    def _classify(self, state: Any, checks: list[Any]) -> None:
        """Class the labels of ``checks`` (graded with the empty answer) by grading ``state`` with
        the probe that names everything: a check whose verdict or detail changes reads the
        answer (a label used twice reads it if either use does)."""
        if self._probe is None:
            self._probe = world_text(self._initial)
        other, _ = self._grade(state, self._probe)
        reads = self._reads
        if len(other.checks) != len(checks) or any(a.label != b.label for a, b in zip(checks, other.checks, strict=True)):
            for c in checks:  # the answer decides which checks there are: each of them reads it
                reads[c.label] = True
            return
        seen: dict[str, bool] = {}
        for a, b in zip(checks, other.checks, strict=True):
            seen[a.label] = seen.get(a.label, False) or a.passed != b.passed or a.detail != b.detail
        for label, value in seen.items():
            reads[label] = reads.get(label, False) or value
