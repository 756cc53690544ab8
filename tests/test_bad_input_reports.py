"""Regressions from a fresh user's bad-input session: each input gets a precise error, and
nothing half-done is left behind."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import warnings
from typing import Any

import gymnasium as gym
import pytest

import silo_gym
from silo_gym import SiloEnv, SiloError
from silo_gym.cli import main as cli_main

SHARED_INIT = '''
from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers

WORLD = {"now": "2026-09-15", "count": 0, "label": "start", "rows": [{"id": "A", "n": 1}]}


def create_state():
    return WORLD


def bind_tools(state):
    return _bind(state, tools)
'''


def test_finish_refuses_a_reason_outside_silos_four_and_a_non_string_error(runs_dir: pathlib.Path) -> None:
    env = gym.make("silo/orders-TASK-001")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="reason must be one of completed, max_tool_calls, timeout, agent_error"):
        env.unwrapped.finish({"x": 1}, reason="bogus")
    with pytest.raises(TypeError, match="error must be a str or None, got int"):
        env.unwrapped.finish(None, error=123)
    with pytest.raises(TypeError, match="abort\\(error\\) needs the error message as a str, got dict"):
        env.unwrapped.abort({"a": 1})
    # The refused calls ended nothing: the episode is still open and ends normally.
    _, reward, terminated, truncated, info = env.step({"answer": "done"})
    assert terminated and not truncated and info["termination_reason"] == "completed"


def test_a_create_state_that_hands_back_the_same_world_is_refused_at_the_next_reset(
    tmp_path: pathlib.Path, make_env_dir: Any
) -> None:
    env_dir = make_env_dir(tmp_path, "leaky", init=SHARED_INIT)
    env = SiloEnv("leaky", "TASK-001", path=str(env_dir))
    env.reset(seed=0)
    env.step({"answer": ""})
    with pytest.raises(SiloError) as caught:
        env.reset(seed=1)
    assert caught.value.code == "runtime_contract_invalid"
    assert "returned objects of the previous episode's world" in caught.value.message


def test_a_create_state_sharing_one_top_level_collection_is_refused(tmp_path: pathlib.Path, make_env_dir: Any) -> None:
    init = SHARED_INIT.replace(
        "    return WORLD", '    return {"now": "2026-09-15", "count": 0, "label": "start", "rows": WORLD["rows"]}')
    env_dir = make_env_dir(tmp_path, "leakyrows", init=init)
    env = SiloEnv("leakyrows", "TASK-001", path=str(env_dir))
    env.reset(seed=0)
    with pytest.raises(SiloError, match="fresh world on every call"):
        env.reset(seed=1)


def test_max_observation_length_has_a_floor_that_fits_the_fixed_observations() -> None:
    with pytest.raises(ValueError, match="max_observation_length must be at least 256 characters"):
        SiloEnv("orders", "TASK-001", max_observation_length=100)
    env = SiloEnv("orders", "TASK-001", max_observation_length=256)
    env.reset(seed=0)
    obs, *_ = env.step({"tool": "get_order", "input": {"orderId": "O-1"}})
    assert env.observation_space.contains(obs)


def test_reset_options_of_the_wrong_type_fail_precisely_and_leave_the_running_episode_alone() -> None:
    env = SiloEnv("orders")
    env.reset(seed=0, options={"task_id": "TASK-001"})
    env.step({"tool": "get_order", "input": {"orderId": "O-1"}})
    with pytest.raises(TypeError, match=r"reset\(options=...\) takes a dict or None, got int"):
        env.reset(options=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a list of ids \\(one per sub-env\\) works only under"):
        env.reset(options={"task_id": ["TASK-001"]})
    with pytest.raises(SiloError, match='Task "NOPE" was not found in orders.'):
        env.reset(options={"task_id": "NOPE"})
    # None of those abandoned the episode in progress.
    assert env.episode is not None and not env.episode.done and env.episode.tool_calls == 1


def test_vector_step_names_the_expected_action_container() -> None:
    venv = gym.make_vec("silo/orders-TASK-001", num_envs=2)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="step\\(\\) takes a list of 2 actions, one per sub-env .* got a dict"):
        venv.step({"tool": "get_order", "input": {"orderId": "O-1"}})
    with pytest.raises(ValueError, match="got a list of 3"):
        venv.step([{"answer": ""}] * 3)
    venv.close()


def test_make_vec_given_one_id_string_says_to_pass_a_list() -> None:
    with pytest.raises(TypeError, match='make_vec takes a list of ids, one per sub-env; got the string "silo/orders-TASK-001"'):
        silo_gym.make_vec("silo/orders-TASK-001")  # type: ignore[arg-type]


def test_run_task_accepts_a_timeout_beyond_what_threading_can_wait(runs_dir: pathlib.Path) -> None:
    def agent(task: str, tools: Any, call_tool: Any, signal: Any) -> dict[str, Any]:
        call_tool("ship_order", {"orderId": "O-1", "carrier": "express"})
        return {"output": "shipped"}

    result = silo_gym.run_task("orders", "TASK-001", agent, timeout_ms=10**14, runs_dir=runs_dir)
    assert result.passed and result.run["config"]["timeoutMs"] == 10**14


def test_cli_list_shows_only_ids_that_registration_accepts(
    tmp_path: pathlib.Path, make_env_dir: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    make_env_dir(tmp_path, "versioned", tasks={"T-v2.json": {"id": "T-v2", "title": "t", "instruction": "i",
                                                                 "verifierId": "VER-001"}})
    make_env_dir(tmp_path, "notasks", tasks={})
    make_env_dir(tmp_path, "fine")
    env = {"SILO_GYM_PATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "silo_gym", "list", "--json"], capture_output=True, text=True,
                         cwd=tmp_path, env={**__import__("os").environ, **env}, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = {r["environment"]: r for r in json.loads(out.stdout)}
    assert "versioned" not in rows and "versioned" in out.stderr
    assert rows["notasks"]["gymId"] is None and rows["notasks"]["tasks"] == []
    assert rows["fine"]["gymId"] == "silo/fine"
    assert [t["gymId"] for t in rows["fine"]["tasks"]] == ["silo/fine-TASK-001"]


def test_cli_collect_resolves_env_like_every_other_command(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: pathlib.Path) -> None:
    assert cli_main(["collect", "--env", "../x", "--policy", "random", "--out", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err.startswith('error: unsafe_name: Environment name "../x" is not allowed')
    assert cli_main(["collect", "--env", "nope", "--policy", "random", "--out", str(tmp_path / "o")]) == 1
    assert 'error: environment_not_found: Environment "nope" was not found. Available: ' in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_help_flag_on_a_command_prints_the_commands_help(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, prog in ((["run", "--help"], "silo-gym run"), (["init", "-h"], "silo-gym init"),
                       (["collect", "--help"], "silo-gym collect"), (["data", "add", "x", "-h"], "silo-gym data add")):
        assert cli_main(argv) == 0
        assert capsys.readouterr().out.startswith(f"usage: {prog} [-h] ")


def test_registration_warning_points_at_nothing_the_user_wrote_but_names_the_path(tmp_path: pathlib.Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "silo.environment.json").write_text("{not json", encoding="utf-8")
    code = "import warnings\nwarnings.simplefilter('always')\nimport silo_gym\nprint('imported')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={**__import__("os").environ, "SILO_GYM_PATH": str(tmp_path)}, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "imported"
    assert str(broken) in out.stderr and "SiloRegistrationWarning" in out.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert silo_gym.list_environments()  # listing never warns


def test_register_environment_refuses_an_empty_path() -> None:
    with pytest.raises(SiloError) as caught:
        silo_gym.register_environment("")
    assert caught.value.code == "environment_not_found"
    assert "empty path" in caught.value.message
