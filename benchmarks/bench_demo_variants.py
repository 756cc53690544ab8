"""Variant worlds (docs/variants.md): what a variant reset adds to a canonical one.

The world part, side by side in one process: the canonical ``create_state()`` (the floor: an orjson
parse of the cached seed) against ``create_state(k)`` for a new ``k`` each call, alone and with
what the Gymnasium face runs for one task at a variant reset (``task_preconditions`` and
``render_instruction``). Target: at most 5x the canonical world (issue 13).
"""

from __future__ import annotations

import itertools
from typing import Any

from silo_gym.loader import open_environment

from .common import Sizes, Table, interleaved, ratio, verdict


def bench_demo_variants(sizes: Sizes) -> Table:
    table = Table("variants: building variant k (and checking it for one task) vs the canonical world")
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
    times = interleaved(fns, max(1, sizes.loops // 4), sizes.repeats)
    table.add("canonical create_state()", times["canonical"], "us")
    table.add("create_state(k)", times["variant"], "us")
    table.add("create_state(k) / canonical", ratio(times["variant"], times["canonical"]), "x")
    worst = 0.0
    for task in demo.tasks:
        r = ratio(times[task.id], times["canonical"])
        worst = max(worst, r)
        table.add(f"{task.id}: create_state(k) + preconditions + instruction", times[task.id], "us",
                  f"{r:.2f}x canonical")
    table.add("worst task / canonical", worst, "x", verdict(worst, 5.0))
    return table
