"""``silo-gym eval``: measure a policy on an environment's tasks (logic in :mod:`silo_gym.eval`).

::

    silo-gym eval --env demo [--tasks T1,T2] --policy random|path.py[:name]|openai:<m>|anthropic:<m>
                  --trials N --out DIR [--seed S] [--variants draw|draw:M|5,6,7|100-119|FILE]
                  [--reference path.py[:name]] [--price-in USD --price-out USD] [--no-runs]
                  [--concurrency N] [--episode-timeout S] [--max-retries N] [--resume]
                  [--max-tool-calls N] [--timeout-ms MS] [model flags as for collect]
    silo-gym eval compare A B [--alpha 0.05] [--fail-on-regression] [--json]

``eval`` plays every task ``--trials`` times, prints the table (per task and overall: passes,
mean reward with its 95% interval, pass@1, pass@n, pass^n, tool calls and errors per episode,
the baselines, the alarms; then tool-call health, tokens, latency and cost) and writes
``DIR/eval.json``, ``DIR/episodes.jsonl`` and ``DIR/runs/``. ``--variants``: ``draw`` plays a
variant drawn from each trial's seed, ``draw:M`` M drawn worlds in turn, a list or ranges of
numbers (``5,6,7``, ``100-119``) those worlds in turn, and a file a list (JSON array or text),
a JSON object per task, or another evaluation's ``eval.json`` (to play its worlds). Without
``--trials``, a list sets the trial count. A progress bar goes to stderr when it is a terminal;
Ctrl-C or SIGTERM keeps every finished trial and ``--resume`` plays the rest.

``eval compare A B`` (directories or ``eval.json`` files) lists per task B's difference from A
in pass rate (Fisher's exact test) and mean reward (a permutation test), regressions first;
with ``--fail-on-regression`` it exits 1 when any task regressed.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..data.local_backend import CollectCounters
from ..data.stream import STREAM_FILE, ResumeError
from ..jsonfmt import dumps_pretty
from ..loader import find_environment
from .model_policy import add_model_flags, check_model_server, is_model_spec, model_policy_factory
from .parser import (
    Commands,
    UsageError,
    add_command_with_subcommands,
    at_least_zero,
    count,
    non_negative,
    number_above_zero,
    whole_number,
)
from .progress import CollectProgress, report_interruption

__all__ = ["compare_command", "eval_command", "register", "variants_argument"]


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise ValueError("must be a number between 0 and 1.")
    return value


def variants_argument(text: str) -> Any:
    """``--variants``: ``draw`` -> ``True``; ``draw:M`` -> ``M``; numbers and ranges -> a list;
    anything else is read as a file (:func:`silo_gym.eval.read_variants_file`).

    Raises:
        UsageError: ``draw:`` without a count of at least 1, a file that does not exist, or a
            file :func:`~silo_gym.eval.read_variants_file` refuses.
    """
    from ..eval import EvalError, parse_variants, read_variants_file

    value = text.strip()
    if value == "draw":
        return True
    if value.startswith("draw:"):
        try:
            return count(value[len("draw:"):])
        except ValueError:
            raise UsageError(f'--variants draw:M needs a number of worlds M of at least 1; got "{text}".') from None
    if value and value.replace(",", "").replace("-", "").replace(" ", "").isdigit():
        try:
            return parse_variants(value)
        except EvalError as exc:
            raise UsageError(f"--variants: {exc}") from None
    if not os.path.isfile(value):
        raise UsageError(f'--variants takes draw, draw:M, variant numbers such as 5,6,7 or 100-119, or a file; '
                         f'"{text}" is none of these (no such file).')
    try:
        return read_variants_file(value)
    except EvalError as exc:
        raise UsageError(f"--variants: {exc}") from None


def _list_flag(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def eval_command(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from ..eval import EvalError, evaluate

    env_name = find_environment(args.env).name
    tasks = _list_flag(args.tasks)
    ids = [f"silo/{env_name}-{t}" for t in tasks] if tasks else [f"silo/{env_name}"]
    for env_id in ids:
        if tasks and env_id not in gym.registry:
            raise UsageError(f'Unknown task "{env_id[len("silo/" + env_name) + 1:]}" for environment '
                             f'"{env_name}" (no Gymnasium id {env_id}).')
    variants = variants_argument(args.variants) if args.variants is not None else None
    env_kwargs: dict[str, Any] = {}
    if args.max_tool_calls is not None:
        env_kwargs["max_tool_calls"] = args.max_tool_calls
    if args.timeout_ms is not None:
        env_kwargs["timeout_ms"] = args.timeout_ms
    policy: str = args.policy
    policy_object: Any = policy
    model_flags = [f for f in ("base_url", "api", "temperature", "max_tokens", "client") if getattr(args, f) is not None]
    if is_model_spec(policy):
        policy_object = model_policy_factory(policy, base_url=args.base_url, api=args.api,
                                             temperature=args.temperature, max_tokens=args.max_tokens,
                                             client=args.client)
        check_model_server(policy, args.base_url)
    elif model_flags:
        raise UsageError(f"--{model_flags[0].replace('_', '-')} applies to --policy openai:<model> or anthropic:<model>.")
    trials: int | None = args.trials
    counters = CollectCounters()
    progress_bar = None
    if sys.stderr.isatty():
        task_count = len(ids) if tasks else sum(
            1 for spec in gym.registry.values()
            if spec.kwargs.get("environment") == env_name.lower() and spec.kwargs.get("task_id") is not None)
        total = (trials or (len(variants) if isinstance(variants, list) else 0)) * task_count
        progress_bar = CollectProgress(f"eval {env_name}", total or None, counters)
    try:
        report = evaluate(ids, policy_object, trials=trials, out_dir=args.out, seed=args.seed, variants=variants,
                          reference=args.reference, price_in=args.price_in, price_out=args.price_out,
                          keep_runs=not args.no_runs, resume=args.resume, env_kwargs=env_kwargs or None,
                          policy_name=policy if policy_object is not policy else None, policy_spec=policy,
                          concurrency=args.concurrency, episode_timeout_s=args.episode_timeout,
                          max_retries=args.max_retries, progress=progress_bar, counters=counters)
    except (EvalError, ResumeError) as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt as exc:
        return report_interruption(exc, progress_bar, os.path.join(args.out, STREAM_FILE), "trials", "evaluation")
    finally:
        if progress_bar is not None:
            progress_bar.close()
    sys.stdout.write(report.table())
    overall = report.overall
    return 1 if overall["trials"] and overall["graded"] == 0 else 0


def compare_command(args: argparse.Namespace) -> int:
    from ..eval import EvalError, compare, load_report

    try:
        a, b = load_report(args.a), load_report(args.b)
    except EvalError as exc:
        raise UsageError(str(exc)) from None
    result = compare(a, b, alpha=args.alpha)
    sys.stdout.write(dumps_pretty(result.to_dict()) if args.json else result.table())
    return 1 if args.fail_on_regression and result.regressions else 0


def register(commands: Commands) -> None:
    """``silo-gym eval`` and ``silo-gym eval compare``."""
    about = "evaluate a policy: pass@k, pass^k, reward, tool-call health, cost, baselines"
    p, sub = add_command_with_subcommands(commands, "eval", about)
    p.add_argument("--env", metavar="E", required=True, help="environment name")
    p.add_argument("--policy", metavar="POLICY", required=True,
                   help="random, path.py[:name] (a policy, an agent, or a factory of one), or a served model: "
                        "openai:<model> or anthropic:<model>")
    p.add_argument("--out", metavar="DIR", required=True,
                   help="directory for eval.json, episodes.jsonl and the runs")
    p.add_argument("--trials", metavar="N", type=count,
                   help="episodes per task (default: the length of a --variants list)")
    p.add_argument("--tasks", metavar="T1,T2", help="task ids, comma-separated (default: every task)")
    p.add_argument("--seed", metavar="S", type=whole_number, default=0, help="seed of the episodes and drawn variants")
    p.add_argument("--variants", metavar="SPEC",
                   help="the worlds: draw (one drawn per trial), draw:M, numbers such as 5,6,7 or 100-119, or a file "
                        "(default: the canonical worlds)")
    p.add_argument("--reference", metavar="path.py[:name]",
                   help="a reference policy played on every world as a baseline (such as the reference solver)")
    p.add_argument("--price-in", metavar="USD", type=at_least_zero, help="price of a million input tokens, for the cost")
    p.add_argument("--price-out", metavar="USD", type=at_least_zero, help="price of a million output tokens, for the cost")
    p.add_argument("--no-runs", action="store_true", help="remove the run directories once eval.json is written")
    p.add_argument("--max-tool-calls", metavar="N", type=non_negative,
                   help="tool calls allowed per episode (default: the environment's, 100)")
    p.add_argument("--timeout-ms", metavar="MS", type=non_negative,
                   help="time allowed per episode in milliseconds (default: the environment's, 120000)")
    p.add_argument("--concurrency", metavar="N", type=count, default=1,
                   help="episodes in flight at once on one event loop, for model policies")
    p.add_argument("--episode-timeout", metavar="S", type=number_above_zero,
                   help="seconds an episode may take before it counts as failed (default: no limit)")
    p.add_argument("--max-retries", metavar="N", type=non_negative, default=2, help="attempts after a failed episode")
    p.add_argument("--resume", action="store_true", help="finish the interrupted evaluation in --out")
    add_model_flags(p)
    p.set_defaults(handler=eval_command)

    about = "compare two evaluations task by task, with significance tests"
    c = sub.add_parser("compare", help=about, description=about)
    c.add_argument("a", metavar="A", help="the baseline evaluation: a directory or its eval.json")
    c.add_argument("b", metavar="B", help="the evaluation compared with it")
    c.add_argument("--alpha", metavar="P", type=_alpha, default=0.05, help="significance level of a verdict")
    c.add_argument("--fail-on-regression", action="store_true", help="exit 1 when any task regressed")
    c.add_argument("--json", action="store_true", help="print the comparison as JSON")
    c.set_defaults(handler=compare_command)
