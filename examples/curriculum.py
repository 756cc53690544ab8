"""A curriculum spends a learner's episodes where its pass rate is neither 0 nor 1.

The learner is scripted but learns. For each of the project world's 15 tasks it holds one logit
``theta[task]``; in an episode it follows the reference plan (``examples/agents/project_solver.py``,
which passes) with probability ``p = sigmoid(theta[task])``, else it answers ``""`` at once (which
fails). After each episode it takes a REINFORCE step on that task with the task's own ``p`` as
baseline:

    theta[task] += lr * (followed - p) * (passed - p)

Its expected size is ``lr * p * (1 - p)``: a task the learner always solves, or never does, teaches
it almost nothing, as a GRPO group whose completions all score alike gives no gradient. The start
has five tasks solved (p = 0.993), five out of reach (p = 0.0003) and five hard but within reach
(p = 0.12).

The same budget of episodes is played twice through ``gym.make_vec("silo/project", num_envs=N,
curriculum=c)``, the vector entry point drawing every sub-env's task at each reset and reporting
each ended episode back: once with ``floor=1.0`` (uniform draws, a fixed task mix) and once with
the default curriculum (``floor=0.1``), from the same learner start. For each it prints the share
of episodes spent on tasks whose pass probability was between 0.1 and 0.9 when drawn, and the
mean pass probability over the 15 tasks at the end, per seed and averaged over ``--runs`` seeds.

    python examples/curriculum.py [--episodes N] [--runs N] [--envs N] [--lr LR] [--seed S]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import silo_gym  # noqa: F401  (registers the silo ids)
from silo_gym.curriculum import Curriculum

HERE = Path(__file__).resolve().parent
ENV_ID = "silo/project"


def load_solver() -> Any:
    """``examples/agents/project_solver.py`` as a module (examples are not a package)."""
    spec = importlib.util.spec_from_file_location("project_solver", HERE / "agents" / "project_solver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


solver = load_solver()


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


class Learner:
    """One logit per task (module docs); ``rng`` decides whether an episode follows the plan."""

    def __init__(self, tasks: list[str], seed: int, lr: float) -> None:
        starts = [5.0] * 5 + [-8.0] * 5 + [-2.0] * 5  # solved, out of reach, hard but within reach
        order = np.random.default_rng(seed).permutation(len(tasks))
        self.theta = {tasks[int(i)]: starts[k] for k, i in enumerate(order)}
        self.rng = np.random.default_rng(seed + 1)
        self.lr = lr

    def p(self, task: str) -> float:
        return sigmoid(self.theta[task])

    def learn(self, task: str, followed: bool, passed: bool, p: float) -> None:
        self.theta[task] += self.lr * (float(followed) - p) * (float(passed) - p)


def run(curriculum: Curriculum, episodes: int, envs: int, seed: int, lr: float) -> dict[str, float]:
    """Play ``episodes`` episodes of ``ENV_ID`` with the learner; returns the shares and means."""
    tasks = [item.task_id for item in curriculum.items]
    learner = Learner(tasks, seed, lr)
    vec = gym.make_vec(ENV_ID, num_envs=envs, curriculum=curriculum)
    plans: list[Any] = [None] * envs
    running: list[tuple[str, bool, float]] = [("", False, 0.0)] * envs  # task, followed, p when drawn
    played = in_middle = 0

    def start(i: int, instruction: str, task: str) -> dict[str, Any]:
        p = learner.p(task)
        followed = bool(learner.rng.random() < p)
        running[i] = (task, followed, p)
        if not followed:
            plans[i] = None
            return {"answer": ""}
        plans[i] = solver.plan(instruction)
        return dict(next(plans[i]))

    observations, info = vec.reset(seed=seed)
    actions = [start(i, observations[i], info["task_id"][i]) for i in range(envs)]
    while played < episodes:
        observations, _, terminated, truncated, info = vec.step(actions)
        for i in range(envs):
            if terminated[i] or truncated[i]:
                task, followed, p = running[i]
                learner.learn(task, followed, bool(info["final_info"]["passed"][i]), p)
                played += 1
                in_middle += 0.1 < p < 0.9
                actions[i] = start(i, observations[i], info["task_id"][i])
            else:
                actions[i] = dict(plans[i].send(json.loads(observations[i])))
    vec.close()
    return {"middle": in_middle / played, "mean_p": float(np.mean([learner.p(t) for t in tasks]))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=450, help="episodes per run")
    parser.add_argument("--runs", type=int, default=3, help="seeds to run (seed, seed + 1, ...)")
    parser.add_argument("--envs", type=int, default=3, help="sub-envs of the vector env")
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    samplers = (("uniform", 1.0), ("curriculum", 0.1))
    results: dict[str, list[dict[str, float]]] = {name: [] for name, _ in samplers}
    print(f"{args.episodes} episodes over the 15 tasks of {ENV_ID}, {args.envs} sub-envs, {args.runs} seeds")
    print(f"{'seed':<6} {'sampler':<12} {'episodes on 0.1<p<0.9':>22} {'mean p at the end':>18}")
    for seed in range(args.seed, args.seed + args.runs):
        for name, floor in samplers:
            curriculum = Curriculum.from_ids(ENV_ID, seed=seed, floor=floor)
            r = run(curriculum, args.episodes, args.envs, seed, args.lr)
            results[name].append(r)
            print(f"{seed:<6} {name:<12} {r['middle']:>22.3f} {r['mean_p']:>18.3f}")
    for name, _ in samplers:
        middle = float(np.mean([r["middle"] for r in results[name]]))
        mean_p = float(np.mean([r["mean_p"] for r in results[name]]))
        print(f"{name} mean: episodes on 0.1<p<0.9 {middle:.3f}, mean p at the end {mean_p:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
