"""A vector reset that one sub-env would refuse is refused whole, before any sub-env is touched
(docs/variants.md: a refused variant is refused "before the running episode is touched"), in
sync and async modes; the vector env stays usable and the running episodes are intact.

``variety`` (tests/envs): TASK-001's preconditions fail in every third variant (k % 3 == 0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import Error as GymnasiumError

from silo_gym import SiloError

MODES = ["sync", "async"]


def _results(runs: Path) -> list[dict[str, Any]]:
    return [json.loads((d / "result.json").read_text()) for d in sorted(runs.iterdir())
            if (d / "result.json").exists()]


def _playing(env_id: str, mode: str, runs: Path, **kwargs: Any) -> gym.vector.VectorEnv:
    """Two sub-envs, each one tool call into an episode of the canonical world."""
    envs = gym.make_vec(env_id, num_envs=2, vector_mode=mode, record_runs_dir=str(runs), **kwargs)
    envs.reset(seed=0)
    obs, *_ = envs.step([{"tool": "get_item", "input": {"itemId": "I-2"}}] * 2)
    assert all(json.loads(o)["output"]["id"] == "I-2" for o in obs)
    return envs


def _assert_intact(envs: gym.vector.VectorEnv, runs: Path) -> None:
    """Nothing ended, nothing new recorded; both episodes go on in their canonical worlds."""
    assert _results(runs) == []
    assert len(list(runs.iterdir())) == 2  # no run directory was started for a new episode
    _, rewards, terminated, _, infos = envs.step([{"answer": "It costs 40."}] * 2)
    assert rewards.tolist() == [1.0, 1.0]  # the canonical lamp costs 40 in both worlds
    assert terminated.tolist() == [True, True]
    final = infos["final_info"]
    assert final["tool_calls"].tolist() == [1, 1]  # the call made before the refused reset
    results = _results(runs)
    assert [(r["terminationReason"], r["toolCalls"], r["reward"]) for r in results] == [("completed", 1, 1)] * 2


REFUSED: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"variant": [1, -3]}, TypeError, r'options\["variant"\] must be a variant number.* got -3'),
    ({"variant": [1, "2"]}, TypeError, r"got '2'"),
    ({"variant": [True, 1]}, TypeError, r"got True"),
    ({"variant": [1, 2.0]}, TypeError, r"got 2\.0"),
    ({"variant": [1, 3]}, SiloError, r'Variant 3 of environment "variety" does not meet the preconditions'),
    ({"variant": [6, 1]}, SiloError, r"Variant 6 .* item I-1 is missing"),
    ({"task_id": ["TASK-001", "TASK-002"]}, ValueError, r'This env is bound to task "TASK-001"'),
    ({"task_id": ["TASK-001", 7]}, TypeError, r'options\["task_id"\] must be a task id \(str\), got int'),
]


@pytest.mark.parametrize("mode", MODES)
def test_a_bad_per_sub_env_value_touches_no_sub_env(mode: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    envs = _playing("silo/variety-TASK-001", mode, runs)
    try:
        for options, error, message in REFUSED:
            with pytest.raises(error, match=message):
                envs.reset(options=options)
        with pytest.raises(GymnasiumError, match="Seed must be greater or equal to zero"):
            envs.reset(seed=[0, -1])
        _assert_intact(envs, runs)
        # still usable: a good per-sub-env reset after the refusals
        _, infos = envs.reset(options={"variant": [1, 2]})
        assert infos["variant"].tolist() == [1, 2]
    finally:
        envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_the_reported_repro_on_the_demo(mode: str, tmp_path: Path) -> None:
    """make_vec("silo/demo-TASK-004", num_envs=2, record_runs_dir=D), reset, one tool call, then
    reset(options={"variant": [1, -3]}): it used to reset sub-env 0 (sync) or kill the workers
    (async)."""
    runs = tmp_path / "runs"
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=2, vector_mode=mode, record_runs_dir=str(runs))
    try:
        envs.reset(seed=0)
        envs.step([{"tool": "get_current_date", "input": {}}] * 2)
        with pytest.raises(TypeError, match="got -3"):
            envs.reset(options={"variant": [1, -3]})
        assert _results(runs) == []
        _, rewards, terminated, _, infos = envs.step([{"answer": "0"}] * 2)
        assert terminated.tolist() == [True, True]
        assert rewards[0] == rewards[1]  # one world, the canonical one, in both sub-envs
        assert infos["final_info"]["tool_calls"].tolist() == [1, 1]
        assert [r["terminationReason"] for r in _results(runs)] == ["completed", "completed"]
    finally:
        envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_drawn_task_is_checked_against_its_variant_before_anything_resets(mode: str, tmp_path: Path) -> None:
    """The per-environment env draws its task at reset: the check draws the same one, so a
    variant whose world fails the drawn task's preconditions is refused up front, and a reset
    that passes the check never fails half-way."""
    single = gym.make("silo/variety")
    drawn = {seed: single.reset(seed=seed)[1]["task_id"] for seed in range(12)}
    single.close()
    runs = tmp_path / "runs"
    envs = _playing("silo/variety", mode, runs)
    try:
        refused = accepted = 0
        for seed in range(0, 11, 2):
            # sub-env i is reset with seed + i; variant 3 fails TASK-001 only
            expect_refusal = "TASK-001" in (drawn[seed], drawn[seed + 1])
            if expect_refusal:
                with pytest.raises(SiloError) as err:
                    envs.reset(seed=seed, options={"variant": [3, 3]})
                assert err.value.code == "variant_preconditions_unmet"
                refused += 1
            else:
                _, infos = envs.reset(seed=seed, options={"variant": [3, 3]})
                assert infos["task_id"].tolist() == ["TASK-002", "TASK-002"]
                assert infos["variant"].tolist() == [3, 3]
                accepted += 1
                envs.reset(seed=0, options={"task_id": ["TASK-001", "TASK-001"]})
                envs.step([{"tool": "get_item", "input": {"itemId": "I-2"}}] * 2)
        assert refused and accepted  # both branches ran
    finally:
        envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_only_the_sub_envs_a_reset_mask_resets_are_checked(mode: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    envs = _playing("silo/variety-TASK-001", mode, runs)
    try:
        with pytest.raises(SiloError, match="Variant 3"):
            envs.reset(options={"variant": [1, 3], "reset_mask": np.array([False, True])})
        assert _results(runs) == []
        # sub-env 1 is left alone, so its value is not used
        _, infos = envs.reset(options={"variant": [1, 3], "reset_mask": np.array([True, False])})
        assert infos["variant"][0] == 1 and not infos["_variant"][1]
        results = _results(runs)
        assert [(r["terminationReason"], r["toolCalls"]) for r in results] == [("agent_error", 1)]
    finally:
        envs.close()


@pytest.mark.parametrize("variants", [False, True])
def test_a_checked_vector_reset_builds_each_world_once(monkeypatch, variants):
    # check_reset keeps what it prepared for the reset that follows; sub-envs the reset_mask
    # leaves out are neither checked nor reset.
    from silo_gym.env import SiloEnv

    built: list[int] = []
    real = SiloEnv._prepare
    monkeypatch.setattr(SiloEnv, "_prepare", lambda self, *a: built.append(id(self)) or real(self, *a))
    envs = gym.make_vec("silo/variety-TASK-002", num_envs=4, variants=variants)
    try:
        envs.reset(seed=3)
        assert len(built) == 4 and len(set(built)) == 4
        built.clear()
        envs.reset(options={"reset_mask": np.array([False, True, False, False])})
        assert len(built) == 1
    finally:
        envs.close()


def test_a_checked_reset_leaves_the_generator_as_a_plain_reset_does():
    # The same seed gives the same world with or without the check, and the generator then goes
    # on from the same state (the next unseeded reset draws the same variant).
    checked = gym.make("silo/variety-TASK-002", variants=True).unwrapped
    plain = gym.make("silo/variety-TASK-002", variants=True).unwrapped
    for seed in (7, None, None):
        checked.check_reset(seed=seed)
        a = checked.reset(seed=seed)
        b = plain.reset(seed=seed)
        assert a[0] == b[0] and a[1]["variant"] == b[1]["variant"]
        assert checked.episode.state == plain.episode.state
    checked.check_reset(seed=1)  # a check whose reset never comes (another sub-env refused)
    assert checked.reset(seed=2)[1]["variant"] == plain.reset(seed=2)[1]["variant"]
    checked.close()
    plain.close()
