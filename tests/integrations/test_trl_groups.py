"""The TRL adapter's training signals (issue 21): group-identical starts across processes, one
reward function per component family, and a curriculum-fed prompt stream."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")
from conftest import REPO_ROOT, subprocess_env  # noqa: E402

from silo_gym.curriculum import Curriculum  # noqa: E402
from silo_gym.integrations import trl as silo_trl  # noqa: E402

from ._helpers import load_solver  # noqa: E402

#: What one rollout's reset shows, computed in a fresh Python: the row comes in as JSON on stdin.
CHILD = r"""
import hashlib, json, sys
from silo_gym.integrations import trl as silo_trl
from silo_gym.jsonfmt import dumps_compact_bytes

row = json.loads(sys.stdin.read())
env = silo_trl.environment_factory("silo/project", variants=True)()
appended = env.reset(**row)
episode = env.env.unwrapped.episode
world = dumps_compact_bytes(episode.state)
print(json.dumps({"appended": appended, "instruction": episode.task.instruction,
                  "variant": env.reset_info["variant"], "world": hashlib.sha256(world).hexdigest(),
                  "size": len(world)}))
"""

G = 3


def _rollout_start(row: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(row), capture_output=True, text=True,
                          cwd=REPO_ROOT, env=subprocess_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_every_generation_of_a_prompt_starts_from_one_world_in_any_process() -> None:
    rows = silo_trl.dataset("silo/project-TASK-003", repeats=2, seed=11, variants=True)
    assert rows.column_names == ["prompt", "task_id", "seed", "variant", "environment"]
    starts = []
    for row in rows:  # as TRL hands a row to reset: a plain dict of the row's columns
        seen = [_rollout_start(dict(row)) for _ in range(G)]
        assert all(s == seen[0] for s in seen[1:])  # byte-identical worlds, same instruction
        assert seen[0]["appended"] is None  # the prompt already holds the instruction
        assert seen[0]["instruction"] == row["prompt"][-1]["content"]
        assert seen[0]["variant"] == row["variant"] and isinstance(row["variant"], int)
        starts.append(seen[0])
    assert starts[0]["world"] != starts[1]["world"] and starts[0]["instruction"] != starts[1]["instruction"]


def test_a_reused_instance_returns_to_the_row_world() -> None:
    rows = silo_trl.dataset("silo/project-TASK-003", repeats=2, seed=11, variants=True)
    env = silo_trl.environment_factory("silo/project", variants=True)()
    worlds = []
    for row in (rows[0], rows[1], rows[0]):
        env.reset(**row)
        worlds.append(json.dumps(env.env.unwrapped.episode.state, sort_keys=True))  # type: ignore[attr-defined]
    assert worlds[0] == worlds[2] != worlds[1]
    # a row with variant null pins the canonical world, even on a variant env
    canonical = silo_trl.dataset("silo/project-TASK-003", seed=11)[0]
    assert canonical["variant"] is None
    env.reset(**canonical)
    assert env.reset_info["variant"] is None


def _play(env: Any, answer_wrong: bool = False) -> list[dict[str, Any]]:
    """Drive the demo solver through the env's methods; returns the completion TRL would hold."""
    plan = load_solver().plan(env.env.unwrapped.episode.task.instruction)
    action = next(plan)
    names = {v: k for k, v in env.tool_names.items()}
    while "answer" not in action:
        observation = getattr(env, names[action["tool"]])(**action["input"])
        action = plan.send(json.loads(observation))
    return [{"role": "assistant", "content": "nothing" if answer_wrong else action["answer"]}]


def test_one_reward_function_per_component_family() -> None:
    env_class = silo_trl.environment_factory(["silo/demo-TASK-006"])
    rows = silo_trl.dataset("silo/demo-TASK-006")
    envs = [env_class(), env_class()]
    completions = []
    for env, wrong in zip(envs, (False, True), strict=True):
        env.reset(**rows[0])
        completions.append(_play(env, answer_wrong=wrong))
    prompts = [rows[0]["prompt"]] * 2
    # any order: whichever function runs first ends the episode, the others read that end
    assert silo_trl.required_fraction(prompts, completions, envs) == [1.0, 1 / 3]
    assert silo_trl.passed(prompts, completions, environments=envs) == [1.0, 0.0]
    assert silo_trl.reward(prompts, completions, environments=envs) == [1.0, envs[1].result["reward"]]
    assert silo_trl.optional_fraction(prompts, completions, environments=envs) == [1.0, 1.0]  # both optional hold
    assert envs[1].info["reward_components"]["The answer does not name the deactivated rep"]["passed"] is True
    assert silo_trl.passed(prompts, completions, environments=[None, envs[0]]) == [None, 1.0]
    with pytest.raises(ValueError, match="needs completions and environments"):
        silo_trl.passed(prompts, completions)
    assert [f.__name__ for f in (silo_trl.reward, silo_trl.passed, silo_trl.required_fraction)] == \
        ["reward", "passed", "required_fraction"]  # the names TRL logs them under


def test_shaped_rewards_are_refused_for_trl() -> None:
    with pytest.raises(ValueError, match='reward_mode must be "fraction" or "binary" for TRL'):
        silo_trl.environment_factory("silo/demo", reward_mode="shaped")  # type: ignore[arg-type]


def test_curriculum_dataset_streams_rows_the_environments_report_on() -> None:
    c = Curriculum.from_ids("silo/demo", seed=2)
    stream = silo_trl.curriculum_dataset(c, num_rows=5)
    env_class = silo_trl.environment_factory("silo/demo", curriculum=c)
    env = env_class()
    rows = []
    for row in stream:
        rows.append(row)
        env.reset(**row)
        assert env.env.unwrapped.episode.task.instruction == row["prompt"][-1]["content"]
        completion = _play(env)
        assert silo_trl.passed([row["prompt"]], [completion], [env]) == [1.0]
    assert len(rows) == 5 and sum(s["episodes"] for s in c.stats()) == 5
    assert sum(s["draws"] for s in c.stats()) == 5
    assert all(s["pass_rate"] in (None, 1.0) for s in c.stats())
    again = [(r["task_id"], r["seed"]) for r in silo_trl.curriculum_dataset(Curriculum.from_ids("silo/demo", seed=2),
                                                                          num_rows=5)]
    first = [(r["task_id"], r["seed"]) for r in rows]
    assert again[0] == first[0]  # the same seed draws the same first prompt (later ones follow results)
    with pytest.raises(ValueError, match="one environment"):
        silo_trl.curriculum_dataset(Curriculum([("demo", "TASK-001"), ("project", "TASK-001")]))
