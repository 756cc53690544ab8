"""What ``create_state`` returns must be a world: a JSON object (a dict of top-level keys,
silo-format §1.2, §13; docs/variants.md §1.1) that can be copied for the episode's snapshot
(§5.1 step 6). ``reset`` refuses anything else with ``runtime_contract_invalid`` naming the
environment and the hook, before the running episode is touched, and ``env validate`` reports the
same as ``create_state_failed``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import silo_gym
from silo_gym import SiloError, validate
from silo_gym.vector import make_vector_env

#: Variant k of this world is no world for k in 1..5 (and a sound one otherwise).
WORLDS = '''
from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers


def _nested(levels):
    top = []
    node = top
    for _ in range(levels):
        node.append([])
        node = node[0]
    return top


def create_state(variant=None):
    world = {"now": "2026-09-15", "count": 0, "label": "start", "rows": [{"id": "A", "n": 1}]}
    if variant == 1:
        return None
    if variant == 2:
        return [world]
    if variant == 3:
        return "a world"
    if variant == 4:
        world["deep"] = _nested(100_000)
    if variant == 5:
        world["hook"] = lambda: 0
    return world


def bind_tools(state):
    return _bind(state, tools)
'''

NOT_A_WORLD = "not a world: it must return the world as a JSON object (a dict of its top-level keys, silo-format §1.2)"
REFUSED = {
    1: f"returned None, {NOT_A_WORLD}",
    2: f"returned a list, {NOT_A_WORLD}",
    3: f"returned a str, {NOT_A_WORLD}",
    4: "returned a world nested 100002 levels deep, too deep to copy (Python's recursion limit is ",
    5: "returned a world that cannot be copied (",
}


def _project(tmp_path: Path, make_env_dir: Any, init: str, name: str = "worlds") -> Path:
    make_env_dir(tmp_path / ".silo" / "environments", name, init=init)
    return tmp_path


@pytest.mark.parametrize("variant", sorted(REFUSED))
def test_reset_refuses_a_variant_that_is_no_world_and_the_episode_goes_on(
        tmp_path: Path, make_env_dir: Any, variant: int) -> None:
    root = _project(tmp_path, make_env_dir, WORLDS)
    env = silo_gym.SiloEnv("worlds", "TASK-001", cwd=root)
    env.reset(options={"variant": 0})
    env.step({"tool": "bump", "input": {}})
    with pytest.raises(SiloError) as err:
        env.reset(options={"variant": variant})
    assert err.value.code == "runtime_contract_invalid"
    assert str(err.value).startswith(f'create_state({variant}) of environment "worlds" {REFUSED[variant]}')
    assert err.value.details == {"environment": "worlds", "missing": "create_state"}
    assert not isinstance(err.value.__context__, RecursionError)  # a clear error, not the raw one
    # the running episode was not touched: it goes on and ends as it would have
    episode = env.unwrapped.episode
    assert episode is not None and not episode.done and episode.tool_calls == 1
    _, reward, terminated, _, info = env.step({"answer": "done"})
    assert terminated and reward == 1.0 and info["tool_calls"] == 1


@pytest.mark.parametrize(("body", "refusal"), [
    ("return [world]", REFUSED[2]),
    ('world["deep"] = _nested(100_000)\n    return world', REFUSED[4]),
])
def test_reset_refuses_a_canonical_world_that_is_no_world(
        tmp_path: Path, make_env_dir: Any, body: str, refusal: str) -> None:
    init = WORLDS.replace("    if variant == 1:\n        return None", f"    {body}\n    if variant == 1:\n        return None")
    root = _project(tmp_path, make_env_dir, init, "canon")
    env = silo_gym.SiloEnv("canon", "TASK-001", cwd=root)
    with pytest.raises(SiloError) as err:
        env.reset()
    assert err.value.code == "runtime_contract_invalid"
    assert str(err.value).startswith(f'create_state() of environment "canon" {refusal}')
    assert env.unwrapped.episode is None


def test_a_vector_reset_to_a_variant_that_is_no_world_touches_no_sub_env(tmp_path: Path, make_env_dir: Any) -> None:
    root = _project(tmp_path, make_env_dir, WORLDS)
    envs = make_vector_env(2, environment="worlds", task_id="TASK-001", cwd=root)
    try:
        envs.reset(options={"variant": [0, 0]})
        envs.step([{"tool": "bump", "input": {}}] * 2)
        with pytest.raises(SiloError, match=r'create_state\(4\) of environment "worlds" returned a world nested'):
            envs.reset(options={"variant": [0, 4]})
        _, rewards, terminated, _, infos = envs.step([{"answer": "done"}] * 2)
        assert rewards.tolist() == [1.0, 1.0] and terminated.tolist() == [True, True]
        assert infos["final_info"]["tool_calls"].tolist() == [1, 1]
    finally:
        envs.close()


def _create_state_findings(root: Path, name: str) -> list[str]:
    report = validate(name, cwd=root)
    return [f.message for f in report.findings if f.code == "create_state_failed"]


def test_validate_reports_every_sampled_variant_that_is_no_world(tmp_path: Path, make_env_dir: Any) -> None:
    root = _project(tmp_path, make_env_dir, WORLDS)
    messages = _create_state_findings(root, "worlds")
    assert messages[0] == "create_state(1) returned None; it must return a world."
    for variant in (2, 3, 4, 5):
        line = next(m for m in messages if m.startswith(f"create_state({variant}) "))
        assert line.startswith(f"create_state({variant}) {REFUSED[variant]}")
    assert len(messages) == 5  # the sound variants are not reported
    assert not validate("worlds", cwd=root).ok


@pytest.mark.parametrize(("body", "refusal"), [
    ("return [world]", REFUSED[2]),
    ('world["deep"] = _nested(100_000)\n    return world', REFUSED[4]),
])
def test_validate_reports_a_canonical_world_that_is_no_world(
        tmp_path: Path, make_env_dir: Any, body: str, refusal: str) -> None:
    init = WORLDS.replace("def create_state(variant=None):", "def create_state():").replace(
        "    if variant == 1:\n        return None", f"    {body}\n    if False:\n        return None")
    root = _project(tmp_path, make_env_dir, init, "canon")
    report = validate("canon", cwd=root)
    messages = [f.message for f in report.findings if f.code == "create_state_failed"]
    assert len(messages) == 1 and messages[0].startswith(f"create_state() {refusal}")
    assert not report.ok
