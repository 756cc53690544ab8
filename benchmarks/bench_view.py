"""The run viewer over many runs: reading the run directories (the floor), the report without
replay, and the default report (which replays each run that changed records for its before and
after). Issue 15's target: 1,000 runs in under 10 s."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import gymnasium as gym

from silo_gym.rundir import read_run
from silo_gym.view import build_view
from silo_gym.view.render import find_run_dirs
from silo_gym.wrappers import RecordRun

from .bench_core import _load_solver
from .common import Sizes, Table, ratio, verdict

TASKS = [f"TASK-00{n}" for n in range(1, 7)]


def _record_templates(root: Path) -> list[Path]:
    """One solver run and one do-nothing run per demo task (half the runs change the world)."""
    solver = _load_solver()
    for task_id in TASKS:
        for policy in (solver.make_policy(), None):
            env = RecordRun(gym.make(f"silo/demo-{task_id}"), runs_dir=root)
            obs, info = env.reset(seed=0)
            while True:
                action = policy(obs, info) if policy is not None else {"answer": ""}
                obs, _, terminated, truncated, info = env.step(action)
                if terminated or truncated:
                    break
            env.close()
    return sorted(root.iterdir())


def _fill(runs: Path, templates: list[Path], count: int) -> None:
    """``count`` run directories copied from the templates, each under its own run id."""
    for i in range(count):
        template = templates[i % len(templates)]
        run_id = f"run_20260101{i // 3600:02d}{i // 60 % 60:02d}{i % 60:02d}_{i % 10000:04d}"
        target = runs / run_id
        shutil.copytree(template, target)
        for name in ("trace.jsonl", "run.json"):
            path = target / name
            path.write_bytes(path.read_bytes().replace(template.name.encode(), run_id.encode()))


def bench_view(sizes: Sizes) -> Table:
    count = sizes.view_runs
    table = Table(f"view: silo-gym view over {count} runs (half change the world) vs reading them")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        templates = _record_templates(root / "templates")
        runs = root / "runs"
        runs.mkdir()
        _fill(runs, templates, count)

        t0 = time.perf_counter()
        for run_dir in find_run_dirs(runs):
            read_run(run_dir)
        floor = time.perf_counter() - t0

        t0 = time.perf_counter()
        plain = build_view(runs, root / "plain", replay=False)
        no_replay = time.perf_counter() - t0

        t0 = time.perf_counter()
        full = build_view(runs, root / "full")
        default = time.perf_counter() - t0
        assert len(plain.runs) == len(full.runs) == count

    table.add("read every run directory (floor)", floor, "s")
    table.add("report without replay", no_replay, "s")
    per_thousand = default * 1000 / count
    table.add("report (default: replays for before/after)", default, "s")
    table.add("default, per 1,000 runs", per_thousand, "s", verdict(per_thousand, 10.0))
    table.add("without replay / floor", ratio(no_replay, floor), "x")
    table.add("default / floor", ratio(default, floor), "x")
    return table
