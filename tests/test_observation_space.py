"""Every observation is inside ``observation_space``, for every setting a user may pass
(gym-api.md, Spaces, amended): the instruction, tool results and the ending observation."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from silo_gym import SiloEnv
from silo_gym.env import end_observation, shorten_text
from silo_gym.wrappers import RecordRun

LONG_INSTRUCTION = "Bump the counter exactly once. Context: " + "\"lorem\" \t ipsum " * 200


#: The default test tools without "slow": check_env samples actions, and a sampled sleep can be long.
FAST_TOOLS = """
from silo_gym import define_tool


def _bump(state, input):
    state["count"] += input.get("by", 1)
    return {"count": state["count"]}


def _big(state, input):
    return "x" * min(input["n"], 10**6)


tools = [
    define_tool(name="bump", description="Add to the counter.",
                input_schema={"type": "object", "properties": {"by": {"type": "integer"}},
                              "additionalProperties": False}, run=_bump),
    define_tool(name="big", description="Return a long string.",
                input_schema={"type": "object", "properties": {"n": {"type": "integer"}},
                              "required": ["n"], "additionalProperties": False}, run=_big),
]
"""


def _env_dir(tmp_path, make_env_dir, instruction=LONG_INSTRUCTION):
    task = {"id": "TASK-001", "title": "Bump once", "instruction": instruction, "verifierId": "VER-001"}
    return make_env_dir(tmp_path, "longwinded", tasks={"TASK-001.json": task}, tools=FAST_TOOLS)


@pytest.mark.parametrize("limit", [256, 257, 300, 1000, 3000])
def test_a_long_instruction_is_shortened_into_the_space(tmp_path, make_env_dir, limit):
    env_dir = _env_dir(tmp_path, make_env_dir)
    env = SiloEnv("longwinded", "TASK-001", path=str(env_dir), max_observation_length=limit)
    obs, info = env.reset()
    assert env.observation_space.contains(obs)
    assert len(obs) == limit < len(LONG_INSTRUCTION)
    assert obs.endswith(f"{len(LONG_INSTRUCTION)} characters in full]")
    assert LONG_INSTRUCTION.startswith(obs[: limit - 100])
    # The recorded task keeps the whole instruction.
    assert env.episode.task.instruction == LONG_INSTRUCTION


def test_an_instruction_that_fits_is_unchanged(tmp_path, make_env_dir):
    env_dir = _env_dir(tmp_path, make_env_dir)
    env = SiloEnv("longwinded", "TASK-001", path=str(env_dir), max_observation_length=len(LONG_INSTRUCTION))
    assert env.reset()[0] == LONG_INSTRUCTION


@pytest.mark.parametrize("error", [
    "x" * 5000,
    '"' * 3000,                      # each quote doubles when escaped
    "\x01\x02" * 2000,               # each control character becomes six
    "\ud800" * 1000 + "tail",        # lone surrogates become six
    "é" * 4000,
])
@pytest.mark.parametrize("limit", [256, 300, 1024])
def test_an_abort_error_of_any_length_fits_the_space(tmp_path, runs_dir, error, limit):
    env = RecordRun(gym.make("silo/orders-TASK-001", max_observation_length=limit), runs_dir=runs_dir)
    env.reset()
    obs, reward, terminated, truncated, info = env.unwrapped.abort(error)
    assert len(obs) <= limit and env.observation_space.contains(obs)
    parsed = json.loads(obs)
    assert parsed["terminationReason"] == "agent_error" and "characters in full]" in parsed["error"]
    # info, result.json and the trace keep the full error.
    assert info["error"] == error == info["result"]["error"]
    with open(f"{env.run_dir}/result.json", encoding="utf-8") as fh:
        assert json.load(fh)["error"] == error


def test_end_observation_and_shorten_text_rules():
    assert end_observation("completed", None, 256) == '{"terminationReason":"completed","error":null}'
    assert end_observation("agent_error", "short", 256) == '{"terminationReason":"agent_error","error":"short"}'
    assert shorten_text("abc", 3) == "abc"
    cut = shorten_text("a" * 1000, 300)
    assert len(cut) == 300 and cut.startswith("a" * 100) and cut.endswith("1000 characters in full]")


@pytest.mark.parametrize("limit", [256, 2048])
def test_check_env_and_the_passive_checker_never_warn(tmp_path, make_env_dir, limit):
    env_dir = _env_dir(tmp_path, make_env_dir)
    gym.register("silo-test/longwinded-TASK-001", entry_point="silo_gym.env:SiloEnv",
                 kwargs={"environment": "longwinded", "task_id": "TASK-001", "path": str(env_dir)})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env = gym.make("silo-test/longwinded-TASK-001", max_observation_length=limit,
                           disable_env_checker=False)
            obs, _ = env.reset(seed=0)
            env.step({"tool": "big", "input": {"n": limit * 2}})
            env.step({"tool": "bump"})
            env.unwrapped.abort("e" * (limit * 3))
            check_env(env.unwrapped, skip_render_check=True)
    finally:
        gym.registry.pop("silo-test/longwinded-TASK-001")


@pytest.mark.parametrize("env_id", ["silo/demo-TASK-001", "silo/demo", "silo/orders-TASK-001"])
def test_silo_ids_make_the_env_itself_and_the_passive_checker_stays_silent(env_id):
    """Registered ids add no wrapper to every step (SiloEnv enforces reset order itself); asking
    for Gymnasium's passive checker gets it, and it never warns."""
    assert type(gym.make(env_id)) is SiloEnv
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(env_id, disable_env_checker=False, max_observation_length=256)
        assert isinstance(env, gym.wrappers.PassiveEnvChecker)
        env.reset(seed=1)
        env.step({"tool": "nope"})
        env.step({"answer": "x" * 1000})
    with pytest.raises(gym.error.ResetNeeded, match=r"Call reset\(\) before step\(\)\."):
        gym.make(env_id).step({"answer": 1})
