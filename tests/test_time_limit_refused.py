"""Gymnasium's ``max_episode_steps`` (its ``TimeLimit`` wrapper) is refused wherever silo_gym builds or
wraps the stack (issue 19, item 8): ``TimeLimit`` would truncate an episode with reward 0 and leave
it open, and the next ``reset`` would grade a run nobody receives. The message names
``max_tool_calls``, the graded limit."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.wrappers import TimeLimit

import silo_gym
from silo_gym import SiloEnv
from silo_gym.data import collect
from silo_gym.wrappers import RecordRun

ID = "silo/demo-TASK-001"
MESSAGE = r"max_episode_steps.*TimeLimit.*max_tool_calls"


def test_gym_make_with_max_episode_steps_is_refused_before_anything_is_played(tmp_path):
    env = gym.make(ID, max_episode_steps=3)
    with pytest.raises(ValueError, match=MESSAGE):
        env.reset(seed=0)
    with pytest.raises(ValueError, match=MESSAGE):  # and again: no episode starts behind a TimeLimit
        env.reset(seed=1)
    assert env.unwrapped.episode is None
    with pytest.raises(ValueError, match=MESSAGE):  # recording it is refused at once
        RecordRun(env, runs_dir=tmp_path)


def test_a_hand_made_time_limit_anywhere_in_the_stack_is_refused():
    inner = gym.wrappers.RecordEpisodeStatistics(SiloEnv("demo", "TASK-001"))
    env = gym.wrappers.RecordEpisodeStatistics(TimeLimit(inner, 5))
    with pytest.raises(ValueError, match=MESSAGE):
        env.reset(seed=0)


def test_gym_make_without_it_adds_no_wrapper():
    env = gym.make(ID)
    assert type(env) is SiloEnv  # the refusal costs no wrapper on each step
    env.reset(seed=0)
    env.step({"answer": ""})
    assert type(gym.make(ID, max_episode_steps=-1)) is SiloEnv  # Gymnasium's "no TimeLimit"


def test_make_vec_with_max_episode_steps_is_refused():
    with pytest.raises(ValueError, match=MESSAGE):  # our vector entry point: at once
        gym.make_vec(ID, num_envs=2, max_episode_steps=3)
    with pytest.raises(ValueError, match=MESSAGE):
        silo_gym.make_vec([ID, "silo/demo-TASK-004"], max_episode_steps=3)
    envs = gym.make_vec(ID, num_envs=2, vectorization_mode="sync", max_episode_steps=3)  # Gymnasium's own
    with pytest.raises(ValueError, match=MESSAGE):
        envs.reset(seed=0)


def test_recording_a_time_limited_env_is_refused(tmp_path):
    with pytest.raises(ValueError, match=MESSAGE):
        RecordRun(TimeLimit(SiloEnv("demo", "TASK-001"), 3), runs_dir=tmp_path)
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


@pytest.mark.parametrize("record", [True, False])
def test_collect_refuses_it_before_playing(tmp_path, record):
    played: list = []
    with pytest.raises(ValueError, match=MESSAGE):  # never failed rows: a setup error
        collect([ID], "random", episodes_per_task=1, env_kwargs={"max_episode_steps": 2},
                runs_dir=tmp_path if record else None, progress=played.append)
    assert not any(tmp_path.iterdir()) and played == []
