"""The demo CRM world's variants (docs/variants.md): a variant reset against a canonical one.

Two measures, each side by side in one process:

- the reset: ``SiloEnv(..., variants=True).reset()`` against the canonical ``SiloEnv.reset()``,
  per task (issue 13's target: at most 5x);
- the world alone: the canonical ``create_state()`` (an orjson parse of the cached seed) against
  ``create_state(k)`` for a new ``k`` each call, plus what a variant reset runs for one task
  (``task_preconditions`` and ``render_instruction``); the stricter measure, also held to 5x.

Both report the best of the repeats (timeit's convention: on a shared machine the least disturbed
run is the one that measures the code), each repeat alternating the contenders.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from silo_gym import SiloEnv
from silo_gym.loader import open_environment

from .common import Sizes, Table, ratio, verdict


def _best_us(fns: dict[str, Any], loops: int, repeats: int) -> dict[str, float]:
    """Best over ``repeats`` of the mean µs per call of each function, measured in alternation."""
    best = {name: float("inf") for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(loops):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t0) / loops * 1e6)
    return best


def _resets_us(envs: dict[str, SiloEnv], loops: int, repeats: int) -> dict[str, float]:
    """Best µs of ``reset`` alone per env, measured in alternation, each reset after an episode
    that ended (as in a training loop)."""
    samples: dict[str, list[float]] = {name: [] for name in envs}
    answer = {"answer": ""}
    for _ in range(repeats):
        for name, env in envs.items():
            total = 0.0
            for _ in range(loops):
                t0 = time.perf_counter()
                env.reset()
                total += time.perf_counter() - t0
                env.step(answer)  # untimed: end the episode
            samples[name].append(total / loops * 1e6)
    return {name: min(values) for name, values in samples.items()}


def bench_demo_variants(sizes: Sizes) -> Table:
    table = Table("demo variants: a variant reset, and the variant world alone, vs the canonical ones")
    demo = open_environment("demo", fresh=False)
    module = demo.module
    create_state = module.create_state
    numbers = itertools.count(1)
    create_state(0)  # load the generator before timing

    def variant_world() -> Any:
        return create_state(next(numbers))

    fns = {"canonical": create_state, "variant": variant_world}
    for task in demo.tasks:
        def reset_world(task: Any = task) -> None:
            state = create_state(next(numbers))
            module.task_preconditions(task, state)
            module.render_instruction(task, state)

        fns[task.id] = reset_world
    loops = max(1, sizes.loops // 4)
    worst_reset = 0.0
    for task in demo.tasks:
        envs = {"canonical": SiloEnv("demo", task.id), "variants": SiloEnv("demo", task.id, variants=True)}
        envs["variants"].reset(seed=0)
        resets = _resets_us(envs, loops, sizes.repeats)
        r = ratio(resets["variants"], resets["canonical"])
        worst_reset = max(worst_reset, r)
        table.add(f"{task.id}: canonical reset", resets["canonical"], "us")
        table.add(f"{task.id}: variants=True reset", resets["variants"], "us", f"{r:.2f}x canonical")
    table.add("worst variant reset / canonical reset", worst_reset, "x", verdict(worst_reset, 5.0))

    times = _best_us(fns, loops, sizes.repeats)
    table.add("canonical create_state()", times["canonical"], "us")
    table.add("create_state(k)", times["variant"], "us")
    table.add("create_state(k) / canonical", ratio(times["variant"], times["canonical"]), "x")
    worst = 0.0
    for task in demo.tasks:
        r = ratio(times[task.id], times["canonical"])
        worst = max(worst, r)
        table.add(f"{task.id}: create_state(k) + preconditions + instruction", times[task.id], "us",
                  f"{r:.2f}x canonical")
    table.add("worst world / canonical world", worst, "x", verdict(worst, 5.0))
    return table
