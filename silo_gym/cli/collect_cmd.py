"""``silo-gym collect``: episodes and preference pairs as a data set (gym-api.md,
"Reward-model and trajectory data").

::

    silo-gym collect --env demo [--tasks TASK-001,TASK-002] --policy random|path.py[:name]
                     --episodes-per-task N --out DIR [--format jsonl,parquet,hf] [--seed S]
                     [--runs-dir D] [--max-tool-calls N] [--timeout-ms N] [--max-pairs-per-task N]
                     [--backend local|ray] [--num-workers N] [--ray-address ADDR] [--worker-cpus X]
                     [--max-retries N]

Writes ``episodes.<fmt>`` and ``pairs.<fmt>`` into ``--out`` and prints a summary (rows, pairs,
mean reward per task over the episodes that did not fail, failed episodes, files written). A
progress bar goes to stderr when it is a terminal. ``--backend ray`` plays the episodes on Ray
actors (``pip install "silo-gym[ray]"``; see :mod:`silo_gym.data.ray_backend`): ``--num-workers``
defaults to the cluster's CPUs divided by ``--worker-cpus`` (the CPUs each worker reserves,
default 1; use a fraction such as 0.25 for policies that mostly wait on a model server),
``--ray-address`` joins a running cluster (else ``RAY_ADDRESS``, else a local cluster is started
for the run). ``--max-retries`` (default 2) applies to both backends.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ..data import BACKENDS, collect, preference_pairs, write
from ..data.io import FORMATS
from ..loader import find_environment
from ..rounding import to_fixed
from . import command
from .args import Args, UsageError

__all__ = ["collect_command"]


def _list_flag(args: Args, name: str) -> list[str]:
    value = args.flag(name)
    if value is None:
        return []
    return [part.strip() for part in value.split(",") if part.strip()]


@command("collect")
def collect_command(args: Args) -> int:
    # --env resolves through the known environments like every other command (silo-format §10.1).
    env_name = find_environment(args.require("env")).name
    policy = args.require("policy")
    out = args.require("out")
    tasks = _list_flag(args, "tasks")
    formats = _list_flag(args, "format") or ["jsonl"]
    for fmt in formats:
        if fmt not in FORMATS:
            raise UsageError(f'--format must be a comma-separated list of {", ".join(FORMATS)}; got "{fmt}".')
    episodes = args.integer("episodes-per-task", 1)
    if episodes < 1:
        raise UsageError("--episodes-per-task must be at least 1.")
    seed = args.integer("seed", 0)
    max_pairs = args.integer("max-pairs-per-task", -1)
    env_kwargs: dict[str, Any] = {}
    if "max-tool-calls" in args.flags:
        env_kwargs["max_tool_calls"] = args.integer("max-tool-calls", 100)
    if "timeout-ms" in args.flags:
        env_kwargs["timeout_ms"] = args.integer("timeout-ms", 120000)
    runs_dir = args.flag("runs-dir")
    backend = args.flag("backend") or "local"
    if backend not in BACKENDS:
        raise UsageError(f'--backend must be local or ray; got "{backend}".')
    max_retries = args.integer("max-retries", 2)
    if max_retries < 0:
        raise UsageError("--max-retries must be at least 0.")
    num_workers: int | None = None
    if "num-workers" in args.flags:
        num_workers = args.integer("num-workers", 1)
        if num_workers < 1:
            raise UsageError("--num-workers must be at least 1.")
    ray_address = args.flag("ray-address")
    actor_options: dict[str, Any] | None = None
    if "worker-cpus" in args.flags:
        text = args.flag("worker-cpus") or ""
        try:
            cpus = float(text)
        except ValueError:
            cpus = -1.0
        if not cpus > 0 or cpus == float("inf"):
            raise UsageError("--worker-cpus must be a number above 0.")
        actor_options = {"num_cpus": cpus}
    if backend == "local" and (ray_address is not None or (num_workers or 1) > 1 or actor_options):
        raise UsageError("--num-workers, --ray-address and --worker-cpus need --backend ray.")
    if backend == "ray":
        from ..data.ray_backend import require_ray

        try:
            require_ray()
        except ImportError as exc:
            raise UsageError(str(exc)) from None
    ids = [f"silo/{env_name}-{t}" for t in tasks] if tasks else [f"silo/{env_name}"]
    if tasks:
        import gymnasium as gym

        for env_id in ids:
            if env_id not in gym.registry:
                raise UsageError(f'Unknown task "{env_id[len("silo/" + env_name) + 1:]}" for environment '
                                 f'"{env_name}" (no Gymnasium id {env_id}).')

    progress_bar = None
    if sys.stderr.isatty():
        import gymnasium as gym
        from tqdm import tqdm

        task_count = len(ids) if tasks else sum(
            1 for spec in gym.registry.values()
            if spec.kwargs.get("environment") == env_name.lower() and spec.kwargs.get("task_id") is not None
        )
        total = episodes * task_count or None
        progress_bar = tqdm(total=total, desc=f"collect {env_name}", file=sys.stderr, unit="ep")

    def tick(row: dict[str, Any]) -> None:
        if progress_bar is not None:
            progress_bar.update(1)
            reward = "failed" if row["reward"] is None else f"reward {to_fixed(row['reward'], 2)}"
            progress_bar.set_postfix_str(f"{row['task_id']} ep {row['episode']} {reward}")

    try:
        rows = collect(ids, policy, episodes_per_task=episodes, seed=seed, runs_dir=runs_dir,
                       env_kwargs=env_kwargs or None, progress=tick, backend=backend,
                       num_workers=num_workers if backend == "ray" else None,
                       ray_address=ray_address, max_retries=max_retries, ray_actor_options=actor_options)
    finally:
        if progress_bar is not None:
            progress_bar.close()
    pairs = preference_pairs(rows, None if max_pairs < 0 else max_pairs)
    files = write(rows, out, formats, name="episodes") + write(pairs, out, formats, name="pairs")

    by_task: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_task.setdefault(row["task_id"], []).append(row)
    policy_label = rows[0]["policy"] if rows else policy
    lines = [f"Collected {len(rows)} episodes from {env_name} with policy {policy_label} (seed {seed})."]
    for task_id, task_rows in by_task.items():
        rewards = [r["reward"] for r in task_rows if r["reward"] is not None]
        passed = sum(1 for r in task_rows if r["passed"])
        mean = to_fixed(sum(rewards) / len(rewards), 2) if rewards else "-"
        failed_here = len(task_rows) - len(rewards)
        lines.append(f"  {task_id}  mean reward {mean}  passed {passed}/{len(task_rows)}"
                     + (f"  failed {failed_here}" if failed_here else ""))
    failed = sum(1 for r in rows if r["reward"] is None)
    if failed:
        lines.append(f"Failed episodes (every attempt failed; reward null): {failed}")
    lines.append(f"Preference pairs: {len(pairs)}")
    lines.append("Wrote:")
    lines += [f"  {os.path.relpath(f) if not os.path.isabs(out) else f}" for f in files]
    sys.stdout.write("\n".join(lines) + "\n")
    return 1 if rows and failed == len(rows) else 0
