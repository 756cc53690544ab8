"""Data collection throughput: the local backend vs Ray with 1 and 2 workers.

Two workloads over the six demo tasks, every episode recorded (``runs_dir``):

- **solver**: the reference solver (``examples/agents/crm_solver.py:make_policy``), CPU-bound:
  an episode takes about a millisecond, so this measures the backend's own cost per episode;
- **latency**: the same solver waiting 20 ms before each action, like a policy that calls a
  model server: the case Ray is for, where workers overlap their waiting.

For each Ray run two rates are given: end to end (one ``collect`` call, worker start-up
included: Ray starts a fresh process per worker and imports silo_gym there) and steady (from
the first row to the last, with ``iter_collect``). The local cluster is started once, with its
files in a temporary directory and its token in ``RAY_AUTH_TOKEN`` (nothing under ``~/.ray``);
its start-up time is reported on its own. Ray missing: the table says so.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from silo_gym.data import collect, iter_collect

from .common import Sizes, Table, ratio

ROOT = Path(__file__).resolve().parents[1]
SOLVER = ROOT / "examples" / "agents" / "crm_solver.py"
LATENCY_MS = 20

_SLOW_POLICY = '''
import importlib.util
import time

_spec = importlib.util.spec_from_file_location("_bench_ray_solver", {solver!r})
_solver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_solver)


def make_policy():
    inner = _solver.make_policy()

    def policy(observation, info):
        time.sleep({seconds!r})  # a model server's latency
        return inner(observation, info)

    return policy
'''


def _local(policy: str, episodes_per_task: int, runs: Path) -> float:
    t0 = time.perf_counter()
    rows = collect(["silo/demo"], policy, episodes_per_task=episodes_per_task, runs_dir=runs)
    elapsed = time.perf_counter() - t0
    assert all(r["reward"] == 1.0 for r in rows), "the solver failed an episode"
    return len(rows) / elapsed


def _ray(policy: str, episodes_per_task: int, runs: Path, workers: int) -> tuple[float, float]:
    """(end-to-end ep/s, steady ep/s)."""
    t0 = time.perf_counter()
    first = None
    count = 0
    for row in iter_collect(["silo/demo"], policy, episodes_per_task=episodes_per_task, runs_dir=runs,
                            backend="ray", num_workers=workers):
        assert row["reward"] == 1.0, row["error"]
        count += 1
        if first is None:
            first = time.perf_counter()
    end = time.perf_counter()
    assert first is not None
    steady = (count - 1) / (end - first) if count > 1 and end > first else float("nan")
    return count / (end - t0), steady


def bench_ray(sizes: Sizes) -> Table:
    table = Table("data collection: local backend vs Ray (episodes per second, recorded)")
    try:
        import ray
    except ImportError:
        table.add("ray", "not installed", "", 'pip install "silo-gym[ray]"')
        return table
    tmp = Path(tempfile.mkdtemp(prefix="sgbench-"))  # short: Ray's socket paths must stay < 108 bytes
    saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "TMPDIR", "RAY_AUTH_TOKEN", "RAY_ADDRESS")}
    os.environ.update(RAY_TMPDIR=str(tmp), TMPDIR=str(tmp), RAY_AUTH_TOKEN=secrets.token_hex(16))
    os.environ.pop("RAY_ADDRESS", None)
    cpus = max(2, os.cpu_count() or 2)
    try:
        t0 = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, _temp_dir=str(tmp), log_to_driver=False,
                 object_store_memory=100 * 1024 * 1024)
        table.add("Ray local cluster start-up", time.perf_counter() - t0, "s", f"num_cpus={cpus}")
        slow = tmp / "slow_policy.py"
        slow.write_text(textwrap.dedent(_SLOW_POLICY).format(solver=str(SOLVER), seconds=LATENCY_MS / 1000))
        workloads = [
            ("solver", f"{SOLVER}:make_policy", max(1, sizes.episodes // 6)),
            (f"latency {LATENCY_MS} ms/action", f"{slow}:make_policy", max(1, sizes.episodes // 30)),
        ]
        run = 0
        for name, policy, per_task in workloads:
            episodes = per_task * 6
            run += 1
            local = _local(policy, per_task, tmp / f"runs{run}")
            table.add(f"{name}: local", local, "ep/s", f"{episodes} episodes")
            for workers in (1, 2):
                run += 1
                end_to_end, steady = _ray(policy, per_task, tmp / f"runs{run}", workers)
                table.add(f"{name}: ray {workers} worker{'s' if workers > 1 else ''}", end_to_end, "ep/s",
                          f"{ratio(end_to_end, local):.2f}x local, worker start-up included")
                table.add(f"{name}: ray {workers} worker{'s' if workers > 1 else ''} (steady)", steady, "ep/s",
                          f"{ratio(steady, local):.2f}x local, first row to last")
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(tmp, ignore_errors=True)
    return table


__all__ = ["bench_ray"]


def _main(argv: Any = None) -> None:  # python -m benchmarks.bench_ray [--quick]
    import sys

    sizes = Sizes.quick() if "--quick" in (argv or sys.argv[1:]) else Sizes()
    table = bench_ray(sizes)
    print(table.render())
    print(f"  -> {table.write('ray')}")


if __name__ == "__main__":
    _main()
