"""``silo_gym.curriculum`` (issue 21): weights from running pass rates, a floor, determinism for a
seed, and its use by the vector entry point and by ``collect``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from silo_gym import data
from silo_gym.curriculum import Curriculum, CurriculumItem
from silo_gym.wrappers import CurriculumTasks

ITEMS = [("demo", "TASK-001"), ("demo", "TASK-002"), ("demo", "TASK-003")]


def _feed(c: Curriculum, results: dict[str, list[bool]]) -> None:
    for task, scores in results.items():
        for s in scores:
            c.update(("demo", task), s)


def test_weights_favour_a_middle_pass_rate_with_a_floor() -> None:
    c = Curriculum(ITEMS, floor=0.3, window=8)
    assert np.allclose(c.probabilities(), 1 / 3)  # nothing known: even
    _feed(c, {"TASK-001": [True] * 8, "TASK-002": [True, False] * 4, "TASK-003": [False] * 8})
    p = c.probabilities()
    assert p.sum() == pytest.approx(1.0)
    assert p[1] > 2.5 * p[0] and p[0] == pytest.approx(p[2])  # 0 and 1 alike, the middle most
    q = 8.5 / 9
    w_edge, w_mid = q * (1 - q), 0.25
    assert p[0] == pytest.approx(0.1 + 0.7 * w_edge / (2 * w_edge + w_mid))  # the documented formula
    assert min(p) >= 0.3 / 3  # the floor
    assert c.pass_rate(("demo", "TASK-002")) == 0.5 and c.pass_rate(("demo", "TASK-003")) == 0.0
    assert np.allclose(Curriculum(ITEMS, floor=1.0).probabilities(), 1 / 3)


def test_the_window_keeps_the_latest_results() -> None:
    c = Curriculum(ITEMS, window=4)
    _feed(c, {"TASK-001": [False] * 10 + [True] * 4})
    assert c.pass_rate(("demo", "TASK-001")) == 1.0
    assert c.stats()[0] == {"environment": "demo", "task_id": "TASK-001", "variant": None, "draws": 0,
                            "episodes": 14, "pass_rate": 1.0, "probability": pytest.approx(c.probabilities()[0])}
    c.update(("demo", "TASK-001"), 0.25)  # a reward in [0, 1] counts as a score too
    assert c.pass_rate(("demo", "TASK-001")) == 0.8125


def _draws(seed: int, n: int = 60) -> list[CurriculumItem]:
    c = Curriculum(ITEMS, seed=seed)
    out = []
    for i in range(n):
        item = c.sample()
        out.append(item)
        c.update(item, item.task_id == "TASK-002" and i % 2 == 0)
    return out


def test_draws_are_deterministic_for_a_seed() -> None:
    assert _draws(3) == _draws(3)
    assert _draws(3) != _draws(4)
    drawn = _draws(5, 300)
    assert max(ITEMS, key=lambda t: sum(1 for i in drawn if i.task_id == t[1]))[1] == "TASK-002"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Curriculum([])
    with pytest.raises(ValueError, match=r"\('demo', 'TASK-001', None\) is listed twice"):
        Curriculum([("demo", "TASK-001"), ("demo", "TASK-001", None)])
    with pytest.raises(ValueError, match="floor must be a number with 0 <= x <= 1, got 1.5"):
        Curriculum(ITEMS, floor=1.5)
    with pytest.raises(ValueError, match="window must be an int >= 1"):
        Curriculum(ITEMS, window=0)
    with pytest.raises(ValueError, match="variant: int >= 0 or None"):
        Curriculum([("demo", "TASK-001", -1)])
    c = Curriculum(ITEMS)
    with pytest.raises(KeyError, match="not an item"):
        c.update(("demo", "TASK-009"), True)
    with pytest.raises(ValueError, match="score must be a number with 0 <= x <= 1, got 2"):
        c.update(("demo", "TASK-001"), 2)
    assert ("demo", "TASK-001") in c and ("demo", "TASK-009") not in c and "junk" not in c


def test_from_ids_lists_tasks_and_the_variants_collect_plays() -> None:
    c = Curriculum.from_ids(["silo/demo", "silo/demo-TASK-002"])
    assert c.items == tuple(CurriculumItem("demo", f"TASK-00{n}") for n in range(1, 7))
    v = Curriculum.from_ids("silo/demo-TASK-001", variants_per_task=3, variant_seed=7)
    rows = data.collect("silo/demo-TASK-001", "random", episodes_per_task=3, variants=True, seed=7)
    assert [i.variant for i in v.items] == [r["variant"] for r in rows]
    assert all(isinstance(i.variant, int) for i in v.items)


def _vector_run(seed: int, steps: int = 40) -> tuple[list[list[str]], list[dict[str, Any]]]:
    c = Curriculum.from_ids("silo/demo", seed=seed)
    vec = gym.make_vec("silo/demo", num_envs=3, curriculum=c)
    _, info = vec.reset(seed=0)
    tasks = [list(info["task_id"])]
    ended = 0
    for t in range(steps):
        actions = [{"answer": ""} if (t + i) % 2 else {"tool": "get_current_date"} for i in range(3)]
        _, _, term, trunc, info = vec.step(actions)
        ended += int(np.sum(term | trunc))
        assert list(info.get("_task_id", [False] * 3)) == list(term | trunc)  # a task only where one began
        tasks.append([t for t, fresh in zip(info.get("task_id", []), info.get("_task_id", []), strict=True) if fresh])
    vec.close()
    stats = c.stats()
    assert sum(s["episodes"] for s in stats) == ended  # every ended episode was reported
    assert sum(s["draws"] for s in stats) == ended + 3  # plus the three running ones
    return tasks, stats


def test_the_vector_entry_point_draws_every_reset_from_the_curriculum() -> None:
    first, stats = _vector_run(1)
    again, stats_again = _vector_run(1)
    assert first == again and stats == stats_again
    other, _ = _vector_run(2)
    assert other != first
    assert len({t for row in first for t in row}) == 6


def test_a_reset_that_names_its_task_is_played_and_not_reported() -> None:
    c = Curriculum([("demo", "TASK-004")])
    env = CurriculumTasks(gym.make("silo/demo", disable_env_checker=True), c)
    _, info = env.reset(seed=0, options={"task_id": "TASK-001"})
    assert info["task_id"] == "TASK-001"
    env.step({"answer": ""})
    assert c.stats()[0]["episodes"] == 0
    _, info = env.reset(seed=0)
    assert info["task_id"] == "TASK-004" and info["variant"] is None
    env.step({"answer": ""})
    assert c.stats()[0]["episodes"] == 1 and c.pass_rate(("demo", "TASK-004")) == 0.0


def test_curriculum_misuse_in_vectors_is_refused() -> None:
    c = Curriculum([("project", "TASK-001")])
    with pytest.raises(ValueError, match="does not play"):
        gym.make_vec("silo/demo", num_envs=1, curriculum=c)
    with pytest.raises(ValueError, match='needs vector_mode="sync"'):
        gym.make_vec("silo/demo", num_envs=1, curriculum=Curriculum(ITEMS), vector_mode="async")


def test_collect_spends_the_same_budget_where_the_curriculum_says() -> None:
    solver = "examples/agents/crm_solver.py:make_policy"
    c = Curriculum.from_ids("silo/demo", variants_per_task=2, seed=5)
    rows = data.collect("silo/demo", solver, episodes_per_task=2, curriculum=c)
    assert len(rows) == 12 and all(r["passed"] for r in rows)
    assert sum(s["episodes"] for s in c.stats()) == 12
    for row in rows:
        assert CurriculumItem("demo", row["task_id"], row["variant"]) in c.items
    by_task: dict[str, list[int]] = {}
    for row in rows:
        by_task.setdefault(row["task_id"], []).append(row["episode"])
    assert all(eps == list(range(len(eps))) for eps in by_task.values())
    again = data.collect("silo/demo", solver, episodes_per_task=2,
                         curriculum=Curriculum.from_ids("silo/demo", variants_per_task=2, seed=5))
    assert [(r["task_id"], r["variant"]) for r in again] == [(r["task_id"], r["variant"]) for r in rows]
    grouped = data.collect("silo/demo", "random", episodes_per_task=2, group_size=2,
                           curriculum=Curriculum.from_ids("silo/demo", seed=5))
    assert len(grouped) == 12 and all(r["group"] == r["episode"] // 2 for r in grouped)


def test_collect_refuses_curricula_it_cannot_follow() -> None:
    with pytest.raises(ValueError, match="items no id of this collection plays"):
        data.collect("silo/demo-TASK-001", "random", episodes_per_task=1, curriculum=Curriculum(ITEMS))
    with pytest.raises(ValueError, match='needs backend="local"'):
        data.collect("silo/demo", "random", episodes_per_task=1, curriculum=Curriculum(ITEMS), backend="ray")
    with pytest.raises(ValueError, match="cannot skip"):
        data.collect("silo/demo", "random", episodes_per_task=1, curriculum=Curriculum(ITEMS), skip=set())
