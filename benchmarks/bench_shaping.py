"""What ``reward_mode="shaped"`` costs per step: a shaped step against the same plain step.

A shaped step grades the world once more (twice when the task's verifier reads the answer,
``silo_gym.shaping``). Measured on a read that changes nothing, so every call sees the same world:
a write task of each shipped world (one verifier run per step) and an answer task (two runs).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

import silo_gym  # noqa: F401  (registers the ids)

from .common import Sizes, Table, interleaved, ratio

NO_LIMIT = 10**9
#: (label, id, a read that changes nothing)
CASES = (
    ("demo write task", "silo/demo-TASK-001", {"tool": "get_lead", "input": {"leadId": "LEAD-004"}}),
    ("demo answer task", "silo/demo-TASK-006", {"tool": "get_current_date", "input": {}}),
    ("project write task", "silo/project-TASK-003", {"tool": "get_current_date", "input": {}}),
)


def bench_shaping(sizes: Sizes) -> Table:
    table = Table("shaping: a step with reward_mode=\"shaped\" vs the same plain step")
    for label, env_id, action in CASES:
        envs: dict[str, Any] = {}
        for mode in ("fraction", "shaped"):
            env = gym.make(env_id, reward_mode=mode, max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT,
                           disable_env_checker=True)
            env.reset(seed=0)
            envs[mode] = env
        times = interleaved({mode: (lambda env=env, action=action: env.step(action)) for mode, env in envs.items()},
                            sizes.loops // 4 or 1, sizes.repeats)
        table.add(f"{label} plain step", times["fraction"], "us")
        table.add(f"{label} shaped step", times["shaped"], "us")
        table.add(f"{label} shaped / plain", ratio(times["shaped"], times["fraction"]), "x")
        for env in envs.values():
            env.close()
    return table
