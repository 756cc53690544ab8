"""``silo-gym collect``: episodes and preference pairs as a data set (gym-api.md,
"Reward-model and trajectory data").

::

    silo-gym collect --env demo [--tasks TASK-001,TASK-002] --policy random|path.py[:name]
                     --episodes-per-task N --out DIR [--format jsonl,parquet,hf] [--seed S]
                     [--runs-dir D] [--max-tool-calls N] [--timeout-ms N] [--max-pairs-per-task N]
                     [--backend local|ray] [--num-workers N] [--ray-address ADDR] [--worker-cpus X]
                     [--max-retries N] [--concurrency N] [--episode-timeout S] [--resume | --overwrite]
                     [--group-size G]
    --policy openai:<model>|anthropic:<model> [--base-url URL] [--api chat|responses|text]
             [--temperature T] [--max-tokens N] [--client lean|sdk]

Writes ``episodes.<fmt>`` and ``pairs.<fmt>`` into ``--out`` and prints a summary (rows, pairs,
mean reward per task over the episodes that did not fail, failed episodes, files written). A
progress bar goes to stderr when it is a terminal. ``--backend ray`` plays the episodes on Ray
actors (``pip install "silo-gym[ray]"``; see :mod:`silo_gym.data.ray_backend`): ``--num-workers``
defaults to the cluster's CPUs divided by ``--worker-cpus`` (the CPUs each worker reserves,
default 1; use a fraction such as 0.25 for policies that mostly wait on a model server),
``--ray-address`` joins a running cluster (else ``RAY_ADDRESS``, else a local cluster is started
for the run). ``--max-retries`` (default 2) applies to both backends.

``--concurrency N`` keeps N episodes in flight on one event loop (per Ray worker with Ray), for
model policies; ``--episode-timeout S`` turns an episode that takes longer than S seconds into a
failed row. Rows stream into ``--out``'s ``episodes.jsonl`` as episodes finish; after Ctrl-C or
SIGTERM (exit 130 / 143) the file holds every finished row and ``--resume`` plays the rest
(:mod:`silo_gym.data.stream`). ``--resume`` keeps only rows of the collection asked for: a row
that is not an episode row, is outside the plan or is repeated, or a damaged ``.collect.json``,
is refused (exit 1) with the file, the line and what to do, and nothing is changed; only a last
line cut short by a crash is dropped (its episode is played again). ``--group-size G`` plays each task's episodes in groups of G that start from one world (one
variant, one instruction; the ``group`` column), and pairs episodes only within their group
(:func:`silo_gym.data.collect`, "Groups"); ``--episodes-per-task`` must be a multiple of G.
``--policy openai:<model>`` /
``anthropic:<model>`` asks a served model (:mod:`silo_gym.cli.model_policy`); ``--client sdk``
sends its requests through the official SDK instead of the lean HTTP path.

An ``--out`` that already holds a data set (a collection, or any ``episodes.*`` / ``pairs.*``) is
refused unless ``--resume`` keeps it or ``--overwrite`` replaces it whole: its files in every
format and the run directories its collection made (other files there are kept).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..data import BACKENDS, preference_pairs, write
from ..data.io import FORMATS, check_format_libraries
from ..data.local_backend import CollectCounters
from ..data.stream import STREAM_FILE, ResumeError, collect_jsonl
from ..loader import TASK_ID_CUTOFF, find_environment
from ..rounding import to_fixed
from ..suggest import did_you_mean
from .model_policy import add_model_flags, check_model_server, is_model_spec, model_policy_factory
from .parser import Commands, UsageError, count, non_negative, number_above_zero, whole_number
from .progress import CollectProgress, report_interruption

__all__ = ["collect_command", "register"]


def _list_flag(value: str | None) -> list[str]:
    if value is None:
        return []
    return [part.strip() for part in value.split(",") if part.strip()]


def collect_command(args: argparse.Namespace) -> int:
    # --env resolves through the known environments like every other command (silo-format §10.1).
    env_name = find_environment(args.env).name
    policy: str = args.policy
    out: str = args.out
    tasks = _list_flag(args.tasks)
    formats = _list_flag(args.format) or ["jsonl"]
    for fmt in formats:
        if fmt not in FORMATS:
            raise UsageError(f'--format must be a comma-separated list of {", ".join(FORMATS)}; got "{fmt}".')
    try:
        check_format_libraries(formats)  # before any episode: a model run is not thrown away at the end
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    episodes: int = args.episodes_per_task
    group_size: int = args.group_size
    if episodes % group_size:
        raise UsageError(f"--episodes-per-task ({episodes}) must be a multiple of --group-size ({group_size}): "
                         "every group plays that many episodes of one world.")
    seed: int = args.seed
    max_pairs: int | None = args.max_pairs_per_task
    env_kwargs: dict[str, Any] = {}
    if args.max_tool_calls is not None:
        env_kwargs["max_tool_calls"] = args.max_tool_calls
    if args.timeout_ms is not None:
        env_kwargs["timeout_ms"] = args.timeout_ms
    if args.variants:  # each episode's seed draws its variant world (docs/variants.md)
        env_kwargs["variants"] = True
    runs_dir: str | None = args.runs_dir
    backend: str = args.backend or "local"
    if backend not in BACKENDS:
        raise UsageError(f'--backend must be local or ray; got "{backend}".')
    max_retries: int = args.max_retries
    num_workers: int | None = args.num_workers
    ray_address: str | None = args.ray_address
    actor_options: dict[str, Any] | None = None
    if args.worker_cpus is not None:
        actor_options = {"num_cpus": args.worker_cpus}
    if backend == "local" and (ray_address is not None or (num_workers or 1) > 1 or actor_options):
        raise UsageError("--num-workers, --ray-address and --worker-cpus need --backend ray.")
    if backend == "ray":
        from ..data.ray_backend import require_ray

        try:
            require_ray()
        except ImportError as exc:
            raise UsageError(str(exc)) from None
    if args.overwrite and args.resume:
        raise UsageError("--overwrite and --resume exclude each other: --resume finishes the collection in --out, "
                         "--overwrite replaces it.")
    concurrency: int = args.concurrency
    episode_timeout_s: float | None = args.episode_timeout
    model_flags = [f for f in ("base_url", "api", "temperature", "max_tokens", "client")
                   if getattr(args, f) is not None]
    policy_object: Any = policy
    if is_model_spec(policy):
        policy_object = model_policy_factory(policy, base_url=args.base_url, api=args.api,
                                             temperature=args.temperature, max_tokens=args.max_tokens,
                                             client=args.client)
        if backend == "local":  # Ray workers may sit on other hosts, with other routes
            check_model_server(policy, args.base_url)
    elif model_flags:
        flag = "--" + model_flags[0].replace("_", "-")
        raise UsageError(f"{flag} applies to --policy openai:<model> or anthropic:<model>.")
    ids = [f"silo/{env_name}-{t}" for t in tasks] if tasks else [f"silo/{env_name}"]
    if tasks:
        import gymnasium as gym

        for env_id in ids:
            if env_id not in gym.registry:
                asked = env_id[len("silo/" + env_name) + 1:]
                known = [spec.kwargs["task_id"] for spec in gym.registry.values()
                         if spec.kwargs.get("environment") == env_name.lower() and spec.kwargs.get("task_id")]
                raise UsageError(f'Unknown task "{asked}" for environment "{env_name}" (no Gymnasium id {env_id}).'
                                 + did_you_mean(asked, known, TASK_ID_CUTOFF))

    counters = CollectCounters()
    progress_bar = None
    if sys.stderr.isatty():
        import gymnasium as gym

        task_count = len(ids) if tasks else sum(
            1 for spec in gym.registry.values()
            if spec.kwargs.get("environment") == env_name.lower() and spec.kwargs.get("task_id") is not None
        )
        progress_bar = CollectProgress(f"collect {env_name}", episodes * task_count or None, counters)

    try:
        rows = collect_jsonl(out, ids, policy_object, episodes_per_task=episodes, seed=seed, resume=args.resume,
                             overwrite=args.overwrite, policy_spec=policy, runs_dir=runs_dir, env_kwargs=env_kwargs or None,
                             progress=progress_bar, backend=backend,
                             num_workers=num_workers if backend == "ray" else None,
                             ray_address=ray_address, max_retries=max_retries, ray_actor_options=actor_options,
                             concurrency=concurrency, episode_timeout_s=episode_timeout_s, counters=counters,
                             policy_name=policy if policy_object is not policy else None,
                             group_size=group_size)
    except ResumeError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt as exc:
        return report_interruption(exc, progress_bar, os.path.join(out, STREAM_FILE), "episodes", "collection")
    finally:
        if progress_bar is not None:
            progress_bar.close()
    pairs = preference_pairs(rows, max_pairs)
    files = [os.path.join(out, STREAM_FILE)] if "jsonl" in formats else []  # written by the stream
    files += write(rows, out, [f for f in formats if f != "jsonl"], name="episodes")
    files += write(pairs, out, formats, name="pairs")

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


def register(commands: Commands) -> None:
    """``silo-gym collect``."""
    about = "play episodes with a policy and write them, with preference pairs, as a data set"
    p = commands.add_parser("collect", help=about, description=about)
    p.add_argument("--env", metavar="E", required=True, help="environment name")
    p.add_argument("--policy", metavar="POLICY", required=True,
                   help="random, path.py[:name] (a policy, or a factory of one), or a served model: "
                        "openai:<model> or anthropic:<model>")
    p.add_argument("--out", metavar="DIR", required=True, help="directory to write the data set into")
    p.add_argument("--tasks", metavar="T1,T2", help="task ids, comma-separated (default: every task)")
    p.add_argument("--episodes-per-task", metavar="N", type=count, default=1, help="episodes per task")
    p.add_argument("--format", metavar="F1,F2", default="jsonl",
                   help=f"file formats, comma-separated: {', '.join(FORMATS)}")
    p.add_argument("--seed", metavar="S", type=whole_number, default=0, help="seed of the first episode")
    p.add_argument("--variants", action="store_true",
                   help="play variant worlds, drawn from each episode's seed (the variant column)")
    p.add_argument("--runs-dir", metavar="DIR", help="where run directories go (default: none are written)")
    p.add_argument("--max-tool-calls", metavar="N", type=non_negative,
                   help="tool calls allowed per episode (default: the environment's, 100)")
    p.add_argument("--timeout-ms", metavar="MS", type=non_negative,
                   help="time allowed per episode in milliseconds (default: the environment's, 120000)")
    p.add_argument("--max-pairs-per-task", metavar="N", type=non_negative,
                   help="preference pairs kept per task (default: all)")
    p.add_argument("--backend", metavar="B", default="local", help="local or ray")
    p.add_argument("--num-workers", metavar="N", type=count,
                   help="Ray workers (default: the cluster's CPUs / --worker-cpus)")
    p.add_argument("--ray-address", metavar="ADDR", help="join this Ray cluster (default: RAY_ADDRESS, else local)")
    p.add_argument("--worker-cpus", metavar="X", type=number_above_zero,
                   help="CPUs each Ray worker reserves (default: 1)")
    p.add_argument("--max-retries", metavar="N", type=non_negative, default=2,
                   help="attempts after a failed episode")
    p.add_argument("--concurrency", metavar="N", type=count, default=1,
                   help="episodes in flight at once on one event loop (per Ray worker), for model policies")
    p.add_argument("--episode-timeout", metavar="S", type=number_above_zero,
                   help="seconds an episode may take before it becomes a failed row (default: no limit)")
    p.add_argument("--group-size", metavar="G", type=count, default=1,
                   help="play each task's episodes in groups of G that start from one world (GRPO groups)")
    p.add_argument("--resume", action="store_true",
                   help="finish the interrupted collection in --out, playing only the episodes missing")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the data set already in --out (its files in every format, and its run directories)")
    add_model_flags(p)
    p.set_defaults(handler=collect_command)
