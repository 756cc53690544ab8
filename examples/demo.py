"""The main job on the shipped demo environment (``make demo``).

Runs the reference solver's Gymnasium policy on all six demo tasks through
``gym.make("silo/demo-TASK-00N")`` wrapped in ``RecordRun``, prints a table, then runs a random
policy (``action_space.sample()`` for a few calls, then an empty answer) on each task and prints
its reward beside the solver's. Exits 0 only if the solver passes every task.
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
TASKS = [f"TASK-00{n}" for n in range(1, 7)]
RANDOM_CALLS = 3


def load_solver() -> Any:
    spec = importlib.util.spec_from_file_location("crm_solver", HERE / "agents" / "crm_solver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_episode(env: gym.Env[str, Any], policy: Any, seed: int) -> tuple[float, dict[str, Any]]:
    observation, info = env.reset(seed=seed)
    while True:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        if terminated or truncated:
            return float(reward), info


def random_policy(env: gym.Env[str, Any], seed: int) -> Any:
    env.action_space.seed(seed)

    def policy(observation: str, info: dict[str, Any]) -> dict[str, Any]:
        if info.get("tool_calls", 0) >= RANDOM_CALLS:
            return {"answer": ""}
        return env.action_space.sample()

    return policy


def main() -> int:
    runs_dir = Path(os.environ.get("SILO_DEMO_RUNS", ".silo/runs")).resolve()
    solver = load_solver()
    rows = []
    for i, task_id in enumerate(TASKS):
        env = RecordRun(gym.make(f"silo/demo-{task_id}"), runs_dir=runs_dir, agent_path="examples/agents/crm_solver.py")
        reward, info = run_episode(env, solver.make_policy(), seed=i)
        env.close()
        random_env = gym.make(f"silo/demo-{task_id}")
        random_reward, _ = run_episode(random_env, random_policy(random_env, seed=i), seed=i)
        random_env.close()
        title = env.unwrapped.silo_env.task(task_id).title  # type: ignore[attr-defined]
        rows.append((task_id, title, info["passed"], reward, info["tool_calls"], info["termination_reason"],
                     os.path.relpath(info["run_dir"]), random_reward))
    header = ("task", "title", "passed", "reward", "calls", "termination", "run directory", "random")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    def fmt(row: tuple[Any, ...]) -> str:
        cells = [silo_gym.format_number(c) if isinstance(c, float) else str(c).lower() if isinstance(c, bool) else str(c)
                 for c in row]
        return "  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True))
    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))
    passed = sum(1 for r in rows if r[2])
    mean_random = sum(r[7] for r in rows) / len(rows)
    print(f"\nreference solver: {passed}/{len(rows)} passed; random policy mean reward "
          f"{silo_gym.to_fixed(mean_random, 2)}; runs in {os.path.relpath(runs_dir)}")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
