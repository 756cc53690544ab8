"""``eval.json`` and the printed table: the trials of an evaluation summed up per task and overall.

The shape of ``eval.json`` (a contract: keys are only ever added)::

    {"format": "silo-gym-eval/1", "silo_gym_version": ..., "policy": "<label>", "trials": n,
     "seed": s, "variants": "canonical" | "drawn" | "explicit", "env_ids": [...],
     "env_kwargs": {...}, "reference": "<policy spec>" | null,
     "prices_usd_per_million_tokens": {"in": p, "out": q} | null,
     "tasks": {"<environment>/<task_id>": TASK, ...},
     "overall": OVERALL,
     "timing": {"started_at": "<ISO time>", "duration_s": t, "episodes_s": t, "baselines_s": t,
                "summary_s": t}}

``TASK`` (in the order of the ids, then of the tasks)::

    {"trials": n, "successes": c, "graded": g, "mean_reward": r, "reward_ci95": [lo, hi],
     "reward_stderr": s, "pass_at_k": {"1": p, ..., "n": p}, "pass_hat_k": {"1": p, ..., "n": p},
     "termination_reasons": {"completed": x, ...}, "tool_calls_per_episode": x,
     "tool_errors_per_episode": x, "health": HEALTH, "tokens": TOKENS, "latency_ms": LATENCY,
     "cost_usd": x, "baselines": {"do_nothing": BASE, "reference": BASE | null},
     "variants": [v_0, ..., v_n-1], "episodes": [{"trial": i, "variant": v, "reward": r,
     "passed": b, "termination_reason": t, "tool_calls": x, "tool_errors": x}, ...]}

- ``trials`` counts every episode played, ``graded`` those with a ``result.json`` (a failed
  episode has none, and no reward: it counts as a trial that did not succeed and is left out of
  the means); ``successes`` are trials with ``passed: true`` in ``result.json``.
- ``mean_reward`` is the mean of the graded trials' ``result.json`` rewards (``null`` when none
  was graded); ``reward_ci95`` its Wilson 95% interval (:func:`~.metrics.wilson_interval`);
  ``reward_stderr`` the sample standard deviation over the square root of ``graded`` (``null``
  below 2).
- ``pass_at_k`` and ``pass_hat_k`` are the unbiased estimators (:mod:`.metrics`) from ``c`` of
  ``n``; ``pass_at_k["1"]`` is pass@1.
- ``termination_reasons`` counts the graded trials by ``terminationReason``.
- ``HEALTH``: ``tool_calls``, ``tool_errors``, ``malformed_calls``, ``unknown_tools``,
  ``invalid_arguments`` (:mod:`.trials`), ``model_turns``, ``turns_without_tool_call``,
  ``answer_only_episodes`` (ended with an answer and no tool call), ``answer_only_rewarded``
  (of those, scoring above the do-nothing reward of their world), ``model_failures`` (failed
  episodes: ``timeouts`` plus ``model_errors``), ``retried_model_calls``, and ``alarms``: the
  codes ``reward_without_tool_calls`` (``answer_only_rewarded > 0``), ``malformed_calls``
  (``malformed_calls > 0``) and ``model_failures`` (``model_failures > 0``).
- ``TOKENS``: ``{"in", "out", "model_calls", "calls_with_usage"}``; ``in``/``out`` are ``null``
  when no model call reported usage. ``LATENCY``: ``{"p50", "p95", "calls"}`` over the model
  calls' ``latencyMs`` (``null`` without calls). ``cost_usd``: ``(in * p + out * q) / 1e6`` with
  the prices given, else ``null`` (tokens of calls without usage are not guessed).
- ``BASE``: ``{"mean_reward", "pass_rate", "episodes"}`` of the baseline on the worlds of the
  trials (each trial's world weighted as the policy's), ``episodes`` being the distinct worlds
  it played. ``do_nothing`` answers at once with an empty answer; ``reference`` is the policy
  given as ``reference`` (``null`` without one).
- ``reward_components`` (only when the rows carry them): the mean of each component over the
  graded trials that have it.

``timing``: when the evaluation started (UTC) and the seconds it took, in all and in its three
parts: playing the trials (``episodes_s``, the same work as ``silo-gym collect``), the baselines,
and reading the runs and summing up (``summary_s``). A resumed evaluation's ``episodes_s`` counts
only the trials it played.

``OVERALL`` has the same keys where they make sense: ``tasks``, ``trials`` (all episodes),
``successes``, ``graded``, ``mean_reward`` and ``reward_ci95`` over every graded episode,
``pass_at_k`` / ``pass_hat_k`` the means over tasks of the tasks' values, the sums of
``termination_reasons``, ``health`` (its ``alarms`` as ``"<task>: <code>"``), ``tokens``,
``latency_ms`` over every call, ``cost_usd``, and the baselines' means over tasks.

Everything but ``timing``, ``latency_ms`` and ``cost_usd`` is a function of the episodes played,
so the same arguments and a deterministic policy give the same bytes (``eval.json`` holds no
run ids: ``episodes.jsonl`` maps each trial to its run).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..jsonfmt import dumps_pretty_bytes, loads_strict
from ..rounding import to_fixed
from .metrics import pass_at_k, pass_hat_k, percentile, wilson_interval
from .trials import Trial
from .worlds import EvalError

__all__ = ["EVAL_FILE", "FORMAT", "TIMING_KEYS", "EvalReport", "build_report", "load_report"]

EVAL_FILE = "eval.json"
FORMAT = "silo-gym-eval/1"
#: The keys whose values are times or costs (they differ between two runs of the same eval).
TIMING_KEYS = ("timing", "latency_ms", "cost_usd")

#: Baseline results per task: world -> (reward or None, passed or None).
BaselineWorlds = Mapping[int | None, tuple[float | None, bool | None]]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ks(n: int, fn: Any, c: int) -> dict[str, float]:
    return {str(k): fn(n, c, k) for k in range(1, n + 1)}


def _latency(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"p50": None, "p95": None, "calls": 0}
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "calls": len(values)}


def _tokens(trials: Sequence[Trial]) -> dict[str, Any]:
    with_usage = sum(t.calls_with_usage for t in trials)
    return {
        "in": sum(t.tokens_in for t in trials) if with_usage else None,
        "out": sum(t.tokens_out for t in trials) if with_usage else None,
        "model_calls": sum(t.model_turns for t in trials),
        "calls_with_usage": with_usage,
    }


def _cost(tokens: Mapping[str, Any], prices: Mapping[str, float] | None) -> float | None:
    if prices is None or tokens["in"] is None:
        return None
    return (tokens["in"] * prices["in"] + tokens["out"] * prices["out"]) / 1e6


def _baseline(trials: Sequence[Trial], worlds: BaselineWorlds | None) -> dict[str, Any] | None:
    if worlds is None:
        return None
    played = [worlds.get(t.variant, (None, None)) for t in trials]
    rewards = [r for r, _ in played if r is not None]
    return {
        "mean_reward": _mean(rewards),
        "pass_rate": _mean([1.0 if p else 0.0 for r, p in played if r is not None]),
        "episodes": len(worlds),
    }


def _health(trials: Sequence[Trial], do_nothing: BaselineWorlds) -> dict[str, Any]:
    answer_only = [t for t in trials if t.answer_only]
    rewarded = 0
    for t in answer_only:
        floor = do_nothing.get(t.variant, (None, None))[0]
        assert t.reward is not None
        if t.reward > (floor if floor is not None else 0.0):
            rewarded += 1
    failures = [t for t in trials if not t.graded]
    timeouts = sum(1 for t in failures if t.failure == "timeout")
    health: dict[str, Any] = {
        "tool_calls": sum(t.tool_calls for t in trials),
        "tool_errors": sum(t.tool_errors for t in trials),
        "malformed_calls": sum(t.malformed_calls for t in trials),
        "unknown_tools": sum(t.unknown_tools for t in trials),
        "invalid_arguments": sum(t.invalid_arguments for t in trials),
        "model_turns": sum(t.model_turns for t in trials),
        "turns_without_tool_call": sum(t.turns_without_tool_call for t in trials),
        "answer_only_episodes": len(answer_only),
        "answer_only_rewarded": rewarded,
        "model_failures": len(failures),
        "timeouts": timeouts,
        "model_errors": len(failures) - timeouts,
        "retried_model_calls": sum(t.retries for t in trials),
    }
    alarms = []
    if rewarded:
        alarms.append("reward_without_tool_calls")
    if health["malformed_calls"]:
        alarms.append("malformed_calls")
    if failures:
        alarms.append("model_failures")
    health["alarms"] = alarms
    return health


def _components(trials: Sequence[Trial]) -> dict[str, float] | None:
    sums: dict[str, list[float]] = {}
    for t in trials:
        if t.graded and t.reward_components:
            for name, value in t.reward_components.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    sums.setdefault(str(name), []).append(float(value))
    if not sums:
        return None
    return {name: sum(values) / len(values) for name, values in sums.items()}


def _reasons(trials: Sequence[Trial]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for t in trials:
        if t.graded and t.termination_reason is not None:
            counts[t.termination_reason] = counts.get(t.termination_reason, 0) + 1
    return dict(sorted(counts.items()))


def _reward_stats(rewards: Sequence[float]) -> tuple[float | None, list[float] | None, float | None]:
    mean = _mean(rewards)
    if mean is None:
        return None, None, None
    low, high = wilson_interval(min(1.0, max(0.0, mean)), len(rewards))
    stderr = None
    if len(rewards) >= 2:
        variance = sum((r - mean) ** 2 for r in rewards) / (len(rewards) - 1)
        stderr = math.sqrt(variance / len(rewards))
    return mean, [low, high], stderr


def task_summary(trials: Sequence[Trial], n: int, worlds: Sequence[int | None], do_nothing: BaselineWorlds,
                 reference: BaselineWorlds | None, prices: Mapping[str, float] | None) -> dict[str, Any]:
    """One task's entry of ``eval.json`` (module docs) from its ``n`` trials, in trial order."""
    graded = [t for t in trials if t.graded]
    rewards = [t.reward for t in graded if t.reward is not None]
    successes = sum(1 for t in trials if t.passed)
    mean, interval, stderr = _reward_stats(rewards)
    tokens = _tokens(trials)
    entry: dict[str, Any] = {
        "trials": n,
        "successes": successes,
        "graded": len(graded),
        "mean_reward": mean,
        "reward_ci95": interval,
        "reward_stderr": stderr,
        "pass_at_k": _ks(n, pass_at_k, successes),
        "pass_hat_k": _ks(n, pass_hat_k, successes),
        "termination_reasons": _reasons(trials),
        "tool_calls_per_episode": _mean([float(t.tool_calls) for t in graded]),
        "tool_errors_per_episode": _mean([float(t.tool_errors) for t in graded]),
        "health": _health(trials, do_nothing),
        "tokens": tokens,
        "latency_ms": _latency([v for t in trials for v in t.latencies_ms]),
        "cost_usd": _cost(tokens, prices),
        "baselines": {"do_nothing": _baseline(trials, do_nothing), "reference": _baseline(trials, reference)},
    }
    components = _components(trials)
    if components is not None:
        entry["reward_components"] = components
    entry["variants"] = list(worlds)
    entry["episodes"] = [t.summary() for t in trials]
    return entry


def _overall(tasks: Mapping[str, dict[str, Any]], trials: Sequence[Trial], n: int,
             prices: Mapping[str, float] | None) -> dict[str, Any]:
    entries = list(tasks.values())
    rewards = [t.reward for t in trials if t.reward is not None]
    mean, interval, stderr = _reward_stats(rewards)
    health: dict[str, Any] = {}
    for entry in entries:
        for key, value in entry["health"].items():
            if key != "alarms":
                health[key] = health.get(key, 0) + value
    health["alarms"] = [f"{key}: {code}" for key, entry in tasks.items() for code in entry["health"]["alarms"]]
    reasons: dict[str, int] = {}
    for entry in entries:
        for reason, count in entry["termination_reasons"].items():
            reasons[reason] = reasons.get(reason, 0) + count
    tokens = _tokens(trials)
    graded = [t for t in trials if t.graded]

    def base(name: str, key: str) -> float | None:
        values = [e["baselines"][name][key] for e in entries
                  if e["baselines"][name] is not None and e["baselines"][name][key] is not None]
        return _mean(values)

    baselines: dict[str, Any] = {}
    for name in ("do_nothing", "reference"):
        present = any(e["baselines"][name] is not None for e in entries)
        baselines[name] = ({"mean_reward": base(name, "mean_reward"), "pass_rate": base(name, "pass_rate")}
                           if present else None)
    overall: dict[str, Any] = {
        "tasks": len(entries),
        "trials": len(trials),
        "successes": sum(e["successes"] for e in entries),
        "graded": len(graded),
        "mean_reward": mean,
        "reward_ci95": interval,
        "reward_stderr": stderr,
        "pass_at_k": {str(k): _mean([e["pass_at_k"][str(k)] for e in entries]) for k in range(1, n + 1)},
        "pass_hat_k": {str(k): _mean([e["pass_hat_k"][str(k)] for e in entries]) for k in range(1, n + 1)},
        "termination_reasons": dict(sorted(reasons.items())),
        "tool_calls_per_episode": _mean([float(t.tool_calls) for t in graded]),
        "tool_errors_per_episode": _mean([float(t.tool_errors) for t in graded]),
        "health": health,
        "tokens": tokens,
        "latency_ms": _latency([v for t in trials for v in t.latencies_ms]),
        "cost_usd": _cost(tokens, prices),
        "baselines": baselines,
    }
    components = _components(trials)
    if components is not None:
        overall["reward_components"] = components
    return overall


def build_report(meta: Mapping[str, Any], trials: Mapping[str, Sequence[Trial]],
                 worlds: Mapping[str, Sequence[int | None]], n: int, do_nothing: Mapping[str, BaselineWorlds],
                 reference: Mapping[str, BaselineWorlds] | None, prices: Mapping[str, float] | None,
                 timing: Mapping[str, Any]) -> dict[str, Any]:
    """The whole ``eval.json`` object: ``meta`` (format, version, policy, trials, seed, variants,
    ids, env kwargs, reference, prices) first, then ``tasks``, ``overall`` and ``timing``."""
    tasks = {key: task_summary(trials[key], n, worlds[key], do_nothing[key],
                               reference[key] if reference is not None else None, prices)
             for key in trials}
    everything = [t for key in trials for t in trials[key]]
    return {**meta, "tasks": tasks, "overall": _overall(tasks, everything, n, prices), "timing": dict(timing)}


# -- the report object ----------------------------------------------------------------------------


def _fixed(value: Any, digits: int = 2) -> str:
    return "-" if value is None else to_fixed(float(value), digits)


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width)
                      in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]


@dataclass
class EvalReport:
    """An evaluation's results: :attr:`data` is the ``eval.json`` object (module docs), and
    :attr:`path` the file it was written to (``None`` when the evaluation kept no directory).

    ``report.tasks["demo/TASK-001"]["pass_hat_k"]["4"]``, ``report.overall["mean_reward"]``...
    """

    data: dict[str, Any]
    path: Path | None = None

    @property
    def tasks(self) -> dict[str, Any]:
        tasks: dict[str, Any] = self.data["tasks"]
        return tasks

    @property
    def overall(self) -> dict[str, Any]:
        overall: dict[str, Any] = self.data["overall"]
        return overall

    @property
    def policy(self) -> str:
        return str(self.data["policy"])

    @property
    def trials(self) -> int:
        return int(self.data["trials"])

    def to_json_bytes(self) -> bytes:
        """``eval.json``'s bytes: pretty JSON (2-space indent, one trailing newline)."""
        return dumps_pretty_bytes(self.data)

    def table(self) -> str:
        """The report as text: one line per task and an overall line (mean reward with its 95%
        interval, pass@1, pass@n, pass^n, tool calls and errors per episode, the baselines'
        mean rewards and the alarms), then health, tokens, latency and cost."""
        n = self.trials
        header = ["task", "pass", "mean reward [95% CI]", "pass@1", f"pass@{n}", f"pass^{n}", "calls/ep",
                  "errors/ep", "do-nothing", "reference", "alarms"]
        rows = [header]

        def line(name: str, entry: dict[str, Any], alarms: str) -> list[str]:
            interval = entry["reward_ci95"]
            reward = _fixed(entry["mean_reward"]) + (f" [{_fixed(interval[0])}, {_fixed(interval[1])}]"
                                                     if interval else "")
            bases = entry["baselines"]
            return [name, f"{entry['successes']}/{entry['trials']}", reward, _fixed(entry["pass_at_k"]["1"]),
                    _fixed(entry["pass_at_k"][str(n)]), _fixed(entry["pass_hat_k"][str(n)]),
                    _fixed(entry["tool_calls_per_episode"], 1), _fixed(entry["tool_errors_per_episode"], 1),
                    _fixed(bases["do_nothing"]["mean_reward"]) if bases["do_nothing"] else "-",
                    _fixed(bases["reference"]["mean_reward"]) if bases["reference"] else "-", alarms]

        for key, entry in self.tasks.items():
            rows.append(line(key, entry, ", ".join(entry["health"]["alarms"]) or "-"))
        overall = self.overall
        alarm_count = len(overall["health"]["alarms"])
        rows.append(line("overall", overall, f"{alarm_count} alarm{'s' if alarm_count != 1 else ''}"
                         if alarm_count else "-"))
        worlds = {"canonical": "canonical worlds", "drawn": "variant worlds drawn from the seed",
                  "explicit": "the variant worlds given"}.get(str(self.data.get("variants")), "")
        title = (f"Evaluation of {self.policy}: {overall['tasks']} task{'s' if overall['tasks'] != 1 else ''} x "
                 f"{n} trial{'s' if n != 1 else ''} (seed {self.data.get('seed')}, {worlds})")
        h = overall["health"]
        tokens = overall["tokens"]
        latency = overall["latency_ms"]
        lines = [title, *_columns(rows), ""]
        lines.append(f"Tool-call health: {h['tool_calls']} calls, {h['tool_errors']} errors; malformed "
                     f"{h['malformed_calls']}, unknown tools {h['unknown_tools']}, invalid arguments "
                     f"{h['invalid_arguments']}; model turns {h['model_turns']}, without a tool call "
                     f"{h['turns_without_tool_call']}; answer-only episodes {h['answer_only_episodes']} (rewarded "
                     f"above do-nothing: {h['answer_only_rewarded']}); failed for the model {h['model_failures']} "
                     f"(timeouts {h['timeouts']}, errors {h['model_errors']}); retried model calls "
                     f"{h['retried_model_calls']}.")
        if tokens["model_calls"]:
            usage = (f"tokens in {tokens['in']}, out {tokens['out']}" if tokens["in"] is not None
                     else "no usage reported")
            if tokens["in"] is not None and tokens["calls_with_usage"] < tokens["model_calls"]:
                usage += f" (usage reported by {tokens['calls_with_usage']} of {tokens['model_calls']} calls)"
            lat = (f"; latency per model call p50 {_fixed(latency['p50'], 0)} ms, p95 {_fixed(latency['p95'], 0)} ms"
                   if latency["calls"] else "")
            cost = f"; cost ${overall['cost_usd']:.4f}" if overall["cost_usd"] is not None else ""
            lines.append(f"Model: {tokens['model_calls']} calls, {usage}{lat}{cost}.")
        for alarm in h["alarms"]:
            lines.append(f"ALARM {alarm}")
        if self.path is not None:
            lines.append(f"Wrote {self.path}")
        return "\n".join(lines) + "\n"


def load_report(path: str | os.PathLike[str]) -> EvalReport:
    """Read an ``eval.json`` (or the ``eval.json`` of a directory).

    Raises:
        EvalError: the file cannot be read, is not JSON, or lacks ``tasks``, ``overall``,
            ``policy`` or ``trials``.
    """
    file = Path(path)
    if file.is_dir():
        file = file / EVAL_FILE
    try:
        data = loads_strict(file.read_bytes())
    except OSError as exc:
        raise EvalError(f"Cannot read {file}: {exc.strerror or exc}.") from None
    except ValueError as exc:
        raise EvalError(f"{file} is not JSON: {exc}.") from None
    missing = [k for k in ("tasks", "overall", "policy", "trials") if not isinstance(data, dict) or k not in data]
    if missing:
        raise EvalError(f"{file} is not an eval.json (it lacks {', '.join(missing)}); write one with silo-gym eval.")
    if not isinstance(data["tasks"], dict) or not isinstance(data["trials"], int):
        raise EvalError(f"{file} is not an eval.json (tasks is not an object or trials not a number).")
    return EvalReport(data, file)
