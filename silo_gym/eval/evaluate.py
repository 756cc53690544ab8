""":func:`evaluate`: play every task ``trials`` times with a policy, on a fixed table of worlds,
and sum the trials up in an :class:`~.report.EvalReport` (``eval.json``).

The episodes are played by :func:`silo_gym.data.collect_jsonl` (one path for every episode of
silo_gym: the same policies, concurrency, retries, timeouts, interruption and ``resume``), with
every episode recorded under ``<out_dir>/runs``; the trial rows stream into
``<out_dir>/episodes.jsonl`` as in ``silo-gym collect``. The world of each trial is fixed first
(:mod:`.worlds`) and handed to collect as ``episode_variants``. Then the two baselines are played
the same way on the same worlds (one episode per distinct world of each task): the do-nothing
agent (:func:`do_nothing`) and, when given, the ``reference`` policy. Last, each trial's
``result.json`` and trace are read (:mod:`.trials`) and ``eval.json`` is written (:mod:`.report`).
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..data.collect import EnvPlan, collect, plan_envs
from ..data.stream import MANIFEST, STREAM_FILE, ResumeError, collect_jsonl
from ..version import __version__
from ..wrappers.record import write_atomic
from .report import EVAL_FILE, FORMAT, BaselineWorlds, EvalReport, build_report, load_report
from .trials import Trial, trial_of
from .worlds import EvalError, Worlds, resolve_worlds

__all__ = ["RUNS_DIR", "do_nothing", "evaluate"]

#: Where the runs of an evaluation go, inside its directory.
RUNS_DIR = "runs"


def do_nothing(observation: Any, info: dict[str, Any]) -> dict[str, Any]:
    """The do-nothing baseline, a Gymnasium policy: it answers at once, with an empty answer."""
    return {"answer": ""}


def _trial_count(trials: int | None, variants: Any) -> int:
    if trials is None:
        lengths: set[int] = set()
        if isinstance(variants, Mapping):
            lengths = {len(v) for v in variants.values() if isinstance(v, Sequence)}
        elif isinstance(variants, Sequence) and not isinstance(variants, (str, bytes)):
            lengths = {len(variants)}
        if len(lengths) != 1:
            raise EvalError("trials is required (the number of episodes per task), unless the variants given "
                            "are one list, which then sets it.")
        trials = lengths.pop()
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise EvalError(f"trials must be a whole number of at least 1, got {trials!r}.")
    return trials


def _prices(price_in: float | None, price_out: float | None) -> dict[str, float] | None:
    if price_in is None and price_out is None:
        return None
    if price_in is None or price_out is None:
        raise EvalError("Give both prices (in and out, USD per million tokens) or neither.")
    for name, value in (("price_in", price_in), ("price_out", price_out)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            raise EvalError(f"{name} must be a number of USD per million tokens, >= 0; got {value!r}.")
    return {"in": float(price_in), "out": float(price_out)}


def _keys(plans: Sequence[EnvPlan]) -> list[str]:
    keys: list[str] = []
    seen: set[str] = set()
    for plan in plans:
        for task_id in plan.task_ids:
            key = f"{plan.environment}/{task_id}"
            if key in seen:
                raise EvalError(f"The task {key} is named twice by the ids; name each task once.")
            seen.add(key)
            keys.append(key)
    return keys


def _check_fresh(out: Path) -> None:
    """Refuse to start an evaluation over an earlier one (its runs would mix with the new)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise EvalError(f"{out} is not a directory; evaluate into a directory (it is created when missing).")
    there = [name for name in (EVAL_FILE, STREAM_FILE, MANIFEST, RUNS_DIR) if (out / name).exists()]
    if there:
        raise EvalError(f"{out} already holds an evaluation ({', '.join(there)}); write to another directory, or "
                        "pass resume=True (--resume) to finish an interrupted one.")


def _label(policy: Any, policy_name: str | None) -> str:
    if policy_name is not None:
        return policy_name
    if isinstance(policy, (str, os.PathLike)):
        return os.fspath(policy)
    return str(getattr(policy, "name", None) or getattr(policy, "__qualname__", None) or type(policy).__name__)


def _baseline_worlds(policy: Any, label: str, ids: list[str], keys: list[str], worlds: Worlds, seed: int,
                     env_kwargs: dict[str, Any]) -> dict[str, dict[int | None, tuple[float | None, bool | None]]]:
    """Play ``policy`` once on each distinct world of each task; per task, world -> (reward, passed)."""
    distinct = {key: worlds.distinct(key) for key in keys}
    count = max(len(d) for d in distinct.values())
    padded = {key: [d[i % len(d)] for i in range(count)] for key, d in distinct.items()}
    rows = collect(ids, policy, episodes_per_task=count, seed=seed, env_kwargs=env_kwargs or None,
                   policy_name=label, episode_variants=padded if worlds.mode != "canonical" else None)
    out: dict[str, dict[int | None, tuple[float | None, bool | None]]] = {key: {} for key in keys}
    for row in rows:
        key = f"{row['environment']}/{row['task_id']}"
        world = padded[key][row["episode"]]
        out[key].setdefault(world, (row["reward"], row["passed"]))
    return out


def evaluate(
    env_ids: str | Iterable[str],
    policy: Any,
    *,
    trials: int | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    seed: int = 0,
    variants: Any = None,
    reference: Any = None,
    price_in: float | None = None,
    price_out: float | None = None,
    keep_runs: bool = True,
    resume: bool = False,
    env_kwargs: dict[str, Any] | None = None,
    policy_name: str | None = None,
    policy_spec: str | None = None,
    concurrency: int = 1,
    episode_timeout_s: float | None = None,
    max_retries: int = 2,
    progress: Callable[[dict[str, Any]], None] | None = None,
    counters: Any = None,
    **collect_options: Any,
) -> EvalReport:
    """Evaluate ``policy``: ``trials`` episodes of every task of ``env_ids``, on a fixed table of
    worlds, with the baselines beside it; returns the :class:`~.report.EvalReport` written to
    ``<out_dir>/eval.json`` (module docs; :mod:`.report` for every figure).

    Args:
        env_ids: Gymnasium ids, as for :func:`~silo_gym.data.collect`: ``silo/<env>-<TASK>``,
            ``silo/<env>`` or ``<env>`` (every task); each task at most once.
        policy: any policy :func:`~silo_gym.data.collect` accepts: ``"random"``,
            ``path.py[:name]``, a Gymnasium policy, a Silo agent, a ``ChatPolicy`` /
            ``TextProtocolPolicy`` (an ``openai:``/``anthropic:`` model), or a factory of one.
        trials: episodes per task (``n``: pass@k and pass^k for ``k = 1..n``). May be left out
            when ``variants`` is one list (mapping values of one length): its length.
        out_dir: the evaluation's directory: ``episodes.jsonl`` (the trial rows, with their run
            ids), ``runs/`` (every trial's run directory) and ``eval.json``. ``None``: a
            temporary directory, removed at the end (``report.path`` is then ``None``).
        seed: the base seed of the episodes (``silo_gym.data.episode_seed``) and of drawn variants.
        variants: the worlds (:mod:`.worlds`): ``None`` canonical; ``True`` one drawn per trial;
            an int, that many drawn worlds; a list of variant numbers; or a mapping of
            ``"<environment>/<task_id>"`` to lists.
        reference: a policy (as ``policy``) played once per distinct world of each task as the
            ``reference`` baseline, such as the environment's reference solver; ``None``: none.
        price_in, price_out: USD per million input and output tokens, for ``cost_usd``.
        keep_runs: ``False`` removes ``runs/`` once ``eval.json`` is written.
        resume: finish the interrupted evaluation in ``out_dir`` (the same arguments), playing
            only the trials missing; a complete one is read back.
        env_kwargs: passed to ``gym.make`` (``max_tool_calls``, ``timeout_ms``...; not ``variants``).
        policy_name: the policy's label in the rows and ``eval.json``.
        policy_spec: how the policy is named in the resume record (as for ``collect_jsonl``).
        concurrency, episode_timeout_s, max_retries, progress, counters: as for
            :func:`~silo_gym.data.collect`.
        **collect_options: more :func:`~silo_gym.data.collect` arguments (``backend="ray"``,
            ``num_workers``...).

    Raises:
        EvalError: a bad argument (trials, prices, variants, a task named twice, an ``out_dir``
            that holds an earlier evaluation without ``resume``), variants that fail their
            task's preconditions, or a trial's run that cannot be read.
        ResumeError: ``resume`` was refused (``silo_gym.data.stream``).
        KeyboardInterrupt: the evaluation was interrupted; ``resume=True`` finishes it.
        SiloError, gymnasium.error.Error: as :func:`~silo_gym.data.collect` raises them.
    """
    started = time.time()
    clock = time.perf_counter()
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    kwargs = dict(env_kwargs or {})
    if "variants" in kwargs:
        raise EvalError('Choose the worlds with variants=..., not env_kwargs["variants"].')
    n = _trial_count(trials, variants)
    prices = _prices(price_in, price_out)
    plans = plan_envs(ids, kwargs)
    keys = _keys(plans)
    if not keys:
        raise EvalError(f"The ids {ids} name no task.")
    worlds = resolve_worlds(plans, n, seed, variants, kwargs)
    temporary = out_dir is None
    if temporary and resume:
        raise EvalError("resume needs the out_dir of the evaluation to finish.")
    out = Path(tempfile.mkdtemp(prefix="silo-gym-eval-")) if temporary else Path(out_dir)  # type: ignore[arg-type]
    try:
        if not resume:
            _check_fresh(out)
        elif (out / EVAL_FILE).is_file() and not (out / RUNS_DIR).exists():
            # A complete evaluation whose runs were not kept: its eval.json is the result.
            report = load_report(out / EVAL_FILE)
            if (report.trials != n or list(report.tasks) != keys or report.data.get("seed") != seed
                    or any(report.tasks[key].get("variants") != worlds.variants[key] for key in keys)):
                raise ResumeError(f"{out} holds another evaluation ({report.trials} trials of {len(report.tasks)} "
                                  f"tasks, seed {report.data.get('seed')}, its own worlds); resume with its arguments.")
            return report
        runs_dir = out / RUNS_DIR
        label = _label(policy, policy_name)
        fixed = worlds.variants if worlds.mode != "canonical" else None
        playing = time.perf_counter()
        rows = collect_jsonl(out, ids, policy, episodes_per_task=n, seed=seed, resume=resume,
                             policy_spec=policy_spec, env_kwargs=kwargs or None, runs_dir=runs_dir,
                             episode_variants=fixed, policy_name=policy_name, progress=progress,
                             concurrency=concurrency, episode_timeout_s=episode_timeout_s, max_retries=max_retries,
                             counters=counters, **collect_options)
        played = time.perf_counter()
        if rows:
            label = str(rows[0]["policy"])
        plain = {k: v for k, v in kwargs.items() if k != "reward_mode"}  # baselines: the verifier's reward
        floor = _baseline_worlds(do_nothing, "do-nothing", ids, keys, worlds, seed, plain)
        ref = (_baseline_worlds(reference, "reference", ids, keys, worlds, seed, plain)
               if reference is not None else None)
        based = time.perf_counter()
        by_task: dict[str, list[Trial]] = {key: [] for key in keys}
        for row in rows:
            key = f"{row['environment']}/{row['task_id']}"
            by_task[key].append(trial_of(row, worlds.variants[key][row["episode"]], runs_dir))
        meta = {
            "format": FORMAT,
            "silo_gym_version": __version__,
            "policy": label,
            "trials": n,
            "seed": seed,
            "variants": worlds.mode,
            "env_ids": ids,
            "env_kwargs": kwargs,
            "reference": _label(reference, None) if reference is not None else None,
            "prices_usd_per_million_tokens": prices,
        }
        timing: dict[str, Any] = {"started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))}
        floor_worlds: dict[str, BaselineWorlds] = dict(floor)
        ref_worlds: dict[str, BaselineWorlds] | None = dict(ref) if ref is not None else None
        data = build_report(meta, by_task, worlds.variants, n, floor_worlds, ref_worlds, prices, timing)
        now = time.perf_counter()
        data["timing"].update(duration_s=now - clock, episodes_s=played - playing, baselines_s=based - played,
                              summary_s=now - based)
        report = EvalReport(data, None if temporary else out / EVAL_FILE)
        if not temporary:
            write_atomic(out / EVAL_FILE, report.to_json_bytes())
            if not keep_runs:
                shutil.rmtree(runs_dir, ignore_errors=True)
        return report
    finally:
        if temporary:
            shutil.rmtree(out, ignore_errors=True)
