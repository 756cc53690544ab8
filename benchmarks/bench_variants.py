"""What a variant world costs: generating it, checking a task's preconditions, and a reset that
plays it, side by side with the canonical world of the same environment (the project world)."""

from __future__ import annotations

import itertools
from typing import Any

from silo_gym import SiloEnv

from .common import Sizes, Table, interleaved, per_call_us, ratio

WORLD = "project"
TASK = "TASK-003"


def _end(env: SiloEnv) -> None:
    env.step({"answer": ""})  # end the episode so the next reset abandons nothing


def bench_variants(sizes: Sizes) -> Table:
    table = Table(f"variants: the {WORLD} world's variant generator and a variant reset vs the canonical world")
    env = SiloEnv(WORLD, TASK)
    module = env.silo_env.module
    task = env.silo_env.task(TASK)
    fresh = itertools.count(10**6)  # numbers no one asked for before: nothing cached
    loops = max(1, sizes.loops // 10)
    state = module.create_state(1)
    times = interleaved({
        "canonical": lambda: module.create_state(),
        "cached": lambda: module.create_state(1),
        "generate": lambda: module.create_state(next(fresh)),
        "preconditions": lambda: module.task_preconditions(task, state),
        "render": lambda: module.render_instruction(task, state),
        "integrity": lambda: module.world_problems(state),
    }, loops, sizes.repeats)

    def reset_canonical() -> None:
        env.reset(options={"variant": None})
        _end(env)

    def reset_variant() -> None:
        env.reset(options={"variant": next(fresh)})
        _end(env)

    resets: dict[str, Any] = {
        "canonical": per_call_us(reset_canonical, loops, sizes.repeats),
        "variant": per_call_us(reset_variant, loops, sizes.repeats),
    }
    table.add("create_state() (canonical world)", times["canonical"], "us")
    table.add("create_state(k), k new (generated)", times["generate"], "us")
    table.add("create_state(k), k recent (cached bytes)", times["cached"], "us")
    table.add("generated / canonical", ratio(times["generate"], times["canonical"]), "x")
    table.add(f"task_preconditions ({TASK})", times["preconditions"], "us")
    table.add(f"render_instruction ({TASK})", times["render"], "us")
    table.add("world_problems (validation only)", times["integrity"], "us")
    table.add("reset + answer, canonical world", resets["canonical"], "us")
    table.add("reset + answer, new variant world", resets["variant"], "us")
    table.add("variant / canonical episode overhead", ratio(resets["variant"], resets["canonical"]), "x")
    return table
