"""``silo-gym eval compare A B``: how evaluation B differs from evaluation A, task by task.

For every task both evaluated:

- the pass rates ``c_A / n_A`` and ``c_B / n_B`` and their difference, with the two-sided p-value
  of Fisher's exact test on the 2x2 table of successes and failures (exact at any count, so
  right for a handful of trials per task);
- the mean rewards (graded trials) and their difference, with the two-sided p-value of a
  permutation test on the trials' rewards (every split counted up to 50,000 splits, a seeded
  sample past that);
- a verdict: ``regression`` when B is worse on either measure with ``p < alpha``,
  ``improvement`` when B is better on either with ``p < alpha`` (and worse on neither), else
  ``same``.

The tests treat the trials as independent samples. Two evaluations are comparable trial by trial
only when they played the same worlds: a task whose ``variants`` differ is flagged
(``same_worlds: false``) and still compared. Tasks are listed regressions first, then
improvements, then the rest, each group in A's task order; tasks only one side evaluated are
listed apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..rounding import to_fixed
from .metrics import fisher_exact, permutation_test
from .report import EvalReport

__all__ = ["Comparison", "TaskComparison", "compare"]

#: The significance level of a verdict, unless told otherwise.
ALPHA = 0.05


@dataclass(frozen=True)
class TaskComparison:
    """One task in both evaluations (``a_*`` for A, ``b_*`` for B)."""

    task: str
    a_successes: int
    a_trials: int
    b_successes: int
    b_trials: int
    pass_p: float
    a_mean_reward: float | None
    b_mean_reward: float | None
    reward_p: float
    verdict: str
    same_worlds: bool

    @property
    def pass_difference(self) -> float:
        return self.b_successes / self.b_trials - self.a_successes / self.a_trials

    @property
    def reward_difference(self) -> float | None:
        if self.a_mean_reward is None or self.b_mean_reward is None:
            return None
        return self.b_mean_reward - self.a_mean_reward

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "verdict": self.verdict, "a_pass": [self.a_successes, self.a_trials],
                "b_pass": [self.b_successes, self.b_trials], "pass_difference": self.pass_difference,
                "pass_p": self.pass_p, "a_mean_reward": self.a_mean_reward, "b_mean_reward": self.b_mean_reward,
                "reward_difference": self.reward_difference, "reward_p": self.reward_p,
                "same_worlds": self.same_worlds}


@dataclass
class Comparison:
    """The result of :func:`compare`: the tasks in report order (regressions, improvements,
    the rest), the tasks only A or only B has, and the significance level used."""

    a: EvalReport
    b: EvalReport
    alpha: float
    tasks: list[TaskComparison]
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[TaskComparison]:
        return [t for t in self.tasks if t.verdict == "regression"]

    @property
    def improvements(self) -> list[TaskComparison]:
        return [t for t in self.tasks if t.verdict == "improvement"]

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a.policy, "b": self.b.policy, "alpha": self.alpha,
                "regressions": len(self.regressions), "improvements": len(self.improvements),
                "tasks": [t.to_dict() for t in self.tasks], "only_a": self.only_a, "only_b": self.only_b}

    def table(self) -> str:
        """The comparison as text: one line per task, then a line of counts."""
        def num(value: float | None, signed: bool = False) -> str:
            if value is None:
                return "-"
            text = to_fixed(value, 2)
            return ("+" + text) if signed and not text.startswith("-") else text

        def p(value: float) -> str:
            return "<0.001" if value < 0.001 else to_fixed(value, 3)

        rows = [["task", "verdict", "A pass", "B pass", "diff", "p", "A reward", "B reward", "diff", "p", "worlds"]]
        for t in self.tasks:
            rows.append([t.task, t.verdict, f"{t.a_successes}/{t.a_trials}", f"{t.b_successes}/{t.b_trials}",
                         num(t.pass_difference, True), p(t.pass_p), num(t.a_mean_reward), num(t.b_mean_reward),
                         num(t.reward_difference, True), p(t.reward_p), "same" if t.same_worlds else "DIFFER"])
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [f"A: {self.a.policy} ({self.a.path or 'in memory'})", f"B: {self.b.policy} ({self.b.path or 'in memory'})"]
        lines += ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                  .rstrip() for r in rows]
        for name, only in (("A", self.only_a), ("B", self.only_b)):
            if only:
                lines.append(f"Only in {name}: {', '.join(only)}")
        if any(not t.same_worlds for t in self.tasks):
            lines.append("Some tasks played other worlds in A and B: their differences mix policy and world.")
        lines.append(f"{len(self.regressions)} regression(s), {len(self.improvements)} improvement(s) at "
                     f"alpha {self.alpha:g} (Fisher's exact test on passes, a permutation test on rewards).")
        return "\n".join(lines) + "\n"


def _rewards(task: dict[str, Any]) -> list[float]:
    return [float(e["reward"]) for e in task.get("episodes", []) if isinstance(e, dict)
            and isinstance(e.get("reward"), (int, float))]


def compare(a: EvalReport, b: EvalReport, alpha: float = ALPHA) -> Comparison:
    """Compare evaluation ``b`` with evaluation ``a`` (module docs).

    Raises:
        ValueError: ``alpha`` not in ``(0, 1)``.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}.")
    results: list[TaskComparison] = []
    for key, ta in a.tasks.items():
        tb = b.tasks.get(key)
        if tb is None:
            continue
        ca, na, cb, nb = int(ta["successes"]), int(ta["trials"]), int(tb["successes"]), int(tb["trials"])
        pass_p = fisher_exact(ca, na - ca, cb, nb - cb)
        ra, rb = _rewards(ta), _rewards(tb)
        reward_p = permutation_test(ra, rb)
        ma, mb = ta.get("mean_reward"), tb.get("mean_reward")
        pass_diff = cb / nb - ca / na
        reward_diff = (mb - ma) if ma is not None and mb is not None else 0.0
        worse = (pass_diff < 0 and pass_p < alpha) or (reward_diff < 0 and reward_p < alpha)
        better = (pass_diff > 0 and pass_p < alpha) or (reward_diff > 0 and reward_p < alpha)
        verdict = "regression" if worse else "improvement" if better else "same"
        results.append(TaskComparison(key, ca, na, cb, nb, pass_p, ma, mb, reward_p, verdict,
                                      ta.get("variants") == tb.get("variants")))
    rank = {"regression": 0, "improvement": 1, "same": 2}
    results.sort(key=lambda t: rank[t.verdict])  # stable: A's order within each group
    return Comparison(a, b, alpha, results, [k for k in a.tasks if k not in b.tasks],
                      [k for k in b.tasks if k not in a.tasks])
