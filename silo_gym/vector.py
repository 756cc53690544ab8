"""Vector envs for silo ids (gym-api.md, "Vectorization")."""

from __future__ import annotations

import functools
import os
from typing import Any

import gymnasium as gym
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from .env import SiloEnv
from .wrappers.record import RecordRun

__all__ = ["make_vector_env"]


def _make_one(record_runs_dir: str | os.PathLike[str] | None, agent_path: str | None, **env_kwargs: Any) -> gym.Env[Any, Any]:
    env: gym.Env[Any, Any] = SiloEnv(**env_kwargs)
    if record_runs_dir is not None:
        env = RecordRun(env, runs_dir=record_runs_dir, agent_path=agent_path)
    return env


def make_vector_env(
    num_envs: int = 1,
    *,
    record_runs_dir: str | os.PathLike[str] | None = None,
    agent_path: str | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    **env_kwargs: Any,
) -> gym.vector.VectorEnv[Any, Any, Any]:
    """Our ``vector_entry_point``: ``num_envs`` sub-envs in one process, autoreset ``SAME_STEP``
    (no action is ever dropped; the ending step's observation and info are in
    ``info["final_obs"]`` / ``info["final_info"]``). ``record_runs_dir`` wraps each sub-env in
    :class:`RecordRun`. Other kwargs go to :class:`SiloEnv`."""
    fns = [functools.partial(_make_one, record_runs_dir, agent_path, **env_kwargs) for _ in range(num_envs)]
    return SyncVectorEnv(fns, autoreset_mode=AutoresetMode(autoreset_mode))
