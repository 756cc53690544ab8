"""The main job on the shipped worlds (``make demo``).

For each shipped world (``demo``, the CRM with six tasks; ``project``, the project tracker with
fifteen; ``erp``, the procure-to-pay and order-to-cash world with eighteen), runs the world's reference solver as a Gymnasium policy on every task through
``gym.make("silo/<world>-<TASK>")`` wrapped in ``RecordRun``, and a random policy
(``action_space.sample()`` for a few calls, then an empty answer) beside it; prints one table
that fits an 80-column terminal.
Then plays the project solver on one variant world per task (``gym.make(..., variants=True)``,
the variant drawn from the reset seed). Exits 0 only if the solver passes every episode.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

import silo_gym
from silo_gym.wrappers import RecordRun

HERE = Path(__file__).resolve().parent
#: world -> (its reference solver, its task ids)
WORLDS = {
    "demo": ("crm_solver.py", [f"TASK-00{n}" for n in range(1, 7)]),
    "project": ("project_solver.py", [f"TASK-{n:03d}" for n in range(1, 16)]),
    "erp": ("erp_solver.py", [f"TASK-{n:03d}" for n in range(1, 19)]),
}
RANDOM_CALLS = 3
#: Titles are cut to this many characters, so that the table fits an 80-column terminal (79 wide).
TITLE_WIDTH = 29


def shorten(text: str, width: int) -> str:
    """``text``, cut to ``width`` characters with a closing ``…`` when it is longer."""
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def load_solver(file_name: str) -> Any:
    spec = importlib.util.spec_from_file_location(file_name[:-3], HERE / "agents" / file_name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_episode(env: gym.Env[str, Any], policy: Any, seed: int) -> tuple[float, dict[str, Any]]:
    """Play one episode; returns the final reward and the last step's info, plus ``variant`` (the
    variant number the reset picked, ``None`` for the canonical world)."""
    observation, info = env.reset(seed=seed)
    variant = info.get("variant")
    while True:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        if terminated or truncated:
            return float(reward), {**info, "variant": variant}


def random_policy(env: gym.Env[str, Any], seed: int) -> Any:
    env.action_space.seed(seed)

    def policy(observation: str, info: dict[str, Any]) -> dict[str, Any]:
        if info.get("tool_calls", 0) >= RANDOM_CALLS:
            return {"answer": ""}
        return env.action_space.sample()

    return policy


def main() -> int:
    runs_dir = Path(os.environ.get("SILO_DEMO_RUNS", ".silo/runs")).resolve()
    rows = []
    for world, (solver_file, tasks) in WORLDS.items():
        solver = load_solver(solver_file)
        for i, task_id in enumerate(tasks):
            env = RecordRun(gym.make(f"silo/{world}-{task_id}"), runs_dir=runs_dir,
                            agent_path=f"examples/agents/{solver_file}")
            reward, info = run_episode(env, solver.make_policy(), seed=i)
            env.close()
            random_env = gym.make(f"silo/{world}-{task_id}")
            random_reward, _ = run_episode(random_env, random_policy(random_env, seed=i), seed=i)
            random_env.close()
            title = env.unwrapped.silo_env.task(task_id).title  # type: ignore[attr-defined]
            rows.append((world, task_id, shorten(title, TITLE_WIDTH), info["passed"], reward, info["tool_calls"],
                         random_reward, info["termination_reason"]))
    header = ("world", "task", "title", "passed", "reward", "calls", "random")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def fmt(row: tuple[Any, ...]) -> str:
        cells = [silo_gym.format_number(c) if isinstance(c, float) else str(c).lower() if isinstance(c, bool)
                 else str(c) for c in row[: len(header)]]
        return "  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True)).rstrip()

    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))
    for row in rows:
        if row[7] != "completed":
            print(f"{row[0]} {row[1]} ended early: {row[7]}")
    passed = sum(1 for r in rows if r[3])
    mean_random = sum(r[6] for r in rows) / len(rows)
    print(f"\nreference solvers: {passed}/{len(rows)} passed; random policy: mean reward "
          f"{silo_gym.to_fixed(mean_random, 2)}")
    print(f"runs recorded in {os.path.relpath(runs_dir)}")

    # One variant world per project task: new people, numbers and ids; the same solver.
    solver = load_solver(WORLDS["project"][0])
    played = []
    for i, task_id in enumerate(WORLDS["project"][1]):
        env = gym.make(f"silo/project-{task_id}", variants=True)
        reward, info = run_episode(env, solver.make_policy(), seed=i)
        env.close()
        played.append((task_id, reward, info["variant"]))
    variant_passes = sum(1 for _, reward, _ in played if reward == 1)
    print(f"project variants: {variant_passes}/{len(played)} passed, one drawn per task "
          f"(e.g. variant {played[0][2]})")
    return 0 if passed == len(rows) and variant_passes == len(played) else 1


if __name__ == "__main__":
    sys.exit(main())
