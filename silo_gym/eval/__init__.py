"""Evaluation: measure a policy on silo tasks with one call (``silo-gym eval``).

:func:`evaluate` plays every task ``trials`` times on a fixed, recorded table of worlds
(:mod:`.worlds`) through :mod:`silo_gym.data`'s collection, reads each trial's ``result.json``
and trace (:mod:`.trials`) and returns an :class:`EvalReport`, the object of ``eval.json``
(:mod:`.report`): per task and overall, successes, mean reward with a 95% interval, unbiased
pass@k and pass^k (:mod:`.metrics`), termination reasons, tool-call health with its alarms,
tokens, latency and cost, and the do-nothing and reference baselines. :func:`compare` tells
how one evaluation differs from another, with tests suited to a few trials per task.

    from silo_gym.eval import evaluate
    report = evaluate("silo/demo", "random", trials=4, out_dir="evals/random")
    report.overall["pass_hat_k"]["4"], report.tasks["demo/TASK-001"]["health"]["alarms"]
"""

from __future__ import annotations

from .compare import Comparison, TaskComparison, compare
from .evaluate import do_nothing, evaluate
from .metrics import fisher_exact, pass_at_k, pass_hat_k, permutation_test, wilson_interval
from .report import EVAL_FILE, EvalReport, load_report
from .worlds import EvalError, Worlds, parse_variants, read_variants_file, resolve_worlds

__all__ = [
    "EVAL_FILE",
    "Comparison",
    "EvalError",
    "EvalReport",
    "TaskComparison",
    "Worlds",
    "compare",
    "do_nothing",
    "evaluate",
    "fisher_exact",
    "load_report",
    "parse_variants",
    "pass_at_k",
    "pass_hat_k",
    "permutation_test",
    "read_variants_file",
    "resolve_worlds",
    "wilson_interval",
]
