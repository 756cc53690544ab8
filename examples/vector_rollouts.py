"""Batched rollouts over the six demo tasks: a random policy against the reference solver.

One vector env holds one sub-env per demo task (``silo_gym.make_vec``), so each vector step
advances all six tasks at once. Under the default autoreset (``SAME_STEP``) the step that ends an
episode already returns the next episode's instruction; the ending observation and info are in
``info["final_obs"]`` / ``info["final_info"]``, so no action is ever dropped.

Gymnasium batches infos as one array per key with a ``_key`` mask saying which sub-envs have it;
``sub_info`` turns that back into one ``info`` dict per sub-env for the per-env policies.

    python examples/vector_rollouts.py [--episodes N] [--async] [--seed S]

Prints the mean reward per task and overall for both policies; exits 0 when the solver gets 1.0
everywhere and beats the random policy.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

import silo_gym

HERE = Path(__file__).resolve().parent
TASKS = [f"TASK-00{n}" for n in range(1, 7)]
IDS = [f"silo/demo-{t}" for t in TASKS]
RANDOM_CALLS = 3  # the random policy makes this many sampled tool calls, then answers ""

Policy = Callable[[str, dict[str, Any]], dict[str, Any]]


def load_solver() -> Any:
    """``examples/agents/crm_solver.py`` as a module (examples are not a package)."""
    spec = importlib.util.spec_from_file_location("crm_solver", HERE / "agents" / "crm_solver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sub_info(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Sub-env ``i``'s info out of Gymnasium's batched info dict."""
    out: dict[str, Any] = {}
    for key, value in infos.items():
        if key.startswith("_") or not infos[f"_{key}"][i]:
            continue
        out[key] = sub_info(value, i) if isinstance(value, dict) else value[i]
    return out


def random_policy(space: gym.Space[Any]) -> Policy:
    """``RANDOM_CALLS`` tool calls drawn from the action space (schema-valid inputs), then ``""``."""

    def policy(observation: str, info: dict[str, Any]) -> dict[str, Any]:
        if info.get("tool_calls", 0) >= RANDOM_CALLS:
            return {"answer": ""}
        return space.sample()

    return policy


def rollout(envs: gym.vector.VectorEnv[Any, Any, Any], policies: list[Policy], episodes: int, seed: int,
            label: str) -> dict[str, list[float]]:
    """Step all sub-envs together until each has finished ``episodes`` episodes.

    Returns the rewards of the first ``episodes`` episodes of each task. A sub-env that is done
    keeps playing (every sub-env steps every time); its extra episodes are not counted.
    """
    observations, infos = envs.reset(seed=seed)
    tasks = list(infos["task_id"])
    rewards: dict[str, list[float]] = {t: [] for t in tasks}
    with tqdm(total=envs.num_envs * episodes, desc=label, unit="ep", leave=False) as bar:
        while any(len(rewards[t]) < episodes for t in tasks):
            actions = [policy(observations[i], sub_info(infos, i)) for i, policy in enumerate(policies)]
            observations, reward, terminated, truncated, infos = envs.step(actions)
            for i in range(envs.num_envs):
                if (terminated[i] or truncated[i]) and len(rewards[tasks[i]]) < episodes:
                    rewards[tasks[i]].append(float(reward[i]))
                    bar.update(1)
    return rewards


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20, help="episodes per task and policy (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--async", dest="use_async", action="store_true", help="run the sub-envs in worker processes")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")

    solver = load_solver()
    envs = silo_gym.make_vec(IDS, vectorization_mode="async" if args.use_async else "sync")
    try:
        space = envs.single_action_space
        space.seed(args.seed)
        results = {
            "random": rollout(envs, [random_policy(space) for _ in IDS], args.episodes, args.seed, "random"),
            "solver": rollout(envs, [solver.make_policy() for _ in IDS], args.episodes, args.seed, "solver"),
        }
    finally:
        envs.close()

    print(f"{args.episodes} episodes per task, {len(IDS)} sub-envs ({'async' if args.use_async else 'sync'})")
    print("policy  " + "  ".join(TASKS) + "  mean")
    means = {}
    for name, rewards in results.items():
        per_task = [mean(rewards[t]) for t in TASKS]
        means[name] = mean(per_task)
        print(f"{name:<6}  " + "  ".join(f"{m:<8.3f}" for m in per_task) + f"  {means[name]:.3f}")
    for name, value in means.items():
        print(f"{name} mean reward: {value:.3f}")
    return 0 if means["solver"] == 1.0 and means["random"] < means["solver"] else 1


if __name__ == "__main__":
    sys.exit(main())
