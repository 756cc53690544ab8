"""Vector envs for silo ids (gym-api.md, "Vectorization").

- ``gym.make_vec(id, num_envs=N)`` with no mode uses :func:`make_vector_env`, our
  ``vector_entry_point``: a ``SyncVectorEnv`` (the fastest safe choice for tools that compute in
  Python) with ``AutoresetMode.SAME_STEP``, so no action is ever dropped: the step that ends a
  sub-episode returns the next episode's first observation, and the ending observation and info
  are in ``info["final_obs"]`` / ``info["final_info"]``. ``vector_mode="async"`` runs sub-envs in
  worker processes (never with shared memory: observations are text). ``record_runs_dir=`` wraps
  every sub-env in ``RecordRun``.
- ``silo/<env>`` under our entry point takes ``reset(options={"task_id": [t0, ..., tN-1]})``
  (one task per sub-env) or a ``str`` for all; autoresets draw the task with ``np_random``.
- :func:`make_vec` builds one vector env over several task ids of one environment.
- Stock modes work too: ``vectorization_mode="sync"`` (Gymnasium's default autoreset is
  ``NEXT_STEP``, which ignores the action sent to a finished sub-env: pass
  ``vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}``), and
  ``vectorization_mode="async"`` with ``vector_kwargs={"shared_memory": False}``; record with
  ``wrappers=[functools.partial(RecordRun, runs_dir=...)]``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

from .env import SiloEnv
from .wrappers.record import RecordRun

__all__ = ["make_vec", "make_vector_env"]


class _TaskPerSubEnv(gym.Wrapper[str, Any, str, Any]):
    """Picks this sub-env's item when ``options["task_id"]`` is a list (one task per sub-env)."""

    def __init__(self, env: gym.Env[str, Any], index: int, num_envs: int) -> None:
        super().__init__(env)
        self.index = index
        self.num_envs = num_envs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        if options is not None and isinstance(options.get("task_id"), (list, tuple)):
            ids = options["task_id"]
            if len(ids) != self.num_envs:
                raise ValueError(
                    f'options["task_id"] has {len(ids)} items; it needs one per sub-env ({self.num_envs}).'
                )
            options = {**options, "task_id": ids[self.index]}
        return self.env.reset(seed=seed, options=options)


def _make_sub_env(index: int, num_envs: int, record_runs_dir: str | None, agent_path: str | None,
                  env_id: str | None, env_kwargs: dict[str, Any]) -> gym.Env[str, Any]:
    env: gym.Env[str, Any] = gym.make(env_id, **env_kwargs) if env_id is not None else SiloEnv(**env_kwargs)
    if record_runs_dir is not None:
        env = RecordRun(env, runs_dir=record_runs_dir, agent_path=agent_path)
    return _TaskPerSubEnv(env, index, num_envs)


def _build(fns: list[Any], vector_mode: str, autoreset_mode: AutoresetMode | str) -> VectorEnv[Any, Any, Any]:
    mode = AutoresetMode(autoreset_mode)
    if vector_mode == "sync":
        return SyncVectorEnv(fns, autoreset_mode=mode)
    if vector_mode == "async":
        return AsyncVectorEnv(fns, shared_memory=False, autoreset_mode=mode)
    raise ValueError(f'vector_mode must be "sync" or "async", got {vector_mode!r}.')


def make_vector_env(
    num_envs: int = 1,
    *,
    record_runs_dir: str | os.PathLike[str] | None = None,
    agent_path: str | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    vector_mode: Literal["sync", "async"] = "sync",
    **env_kwargs: Any,
) -> VectorEnv[Any, Any, Any]:
    """Our ``vector_entry_point`` (``gym.make_vec(id, num_envs=N)`` with no mode).

    Args:
        num_envs: number of sub-envs.
        record_runs_dir: when given, each sub-env is wrapped in ``RecordRun(runs_dir=...)``.
        agent_path: recorded as ``config.agentPath`` in the runs.
        autoreset_mode: ``SAME_STEP`` by default (never drops an action).
        vector_mode: ``"sync"`` (default) or ``"async"`` (worker processes, no shared memory).
        **env_kwargs: ``SiloEnv`` arguments (the registered ``environment``, ``task_id``, ``path``
            plus any of ``max_tool_calls``, ``timeout_ms``, ``reward_mode``, ...).

    Returns a ``VectorEnv`` whose observations are tuples of ``str`` and whose actions are a list
    (or tuple) of action dicts.
    """
    runs = os.fspath(os.path.abspath(record_runs_dir)) if record_runs_dir is not None else None
    fns = [functools.partial(_make_sub_env, i, num_envs, runs, agent_path, None, dict(env_kwargs))
           for i in range(num_envs)]
    return _build(fns, vector_mode, autoreset_mode)


def make_vec(
    ids: Sequence[str],
    *,
    vectorization_mode: Literal["sync", "async"] = "sync",
    record_runs_dir: str | os.PathLike[str] | None = None,
    agent_path: str | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    **kwargs: Any,
) -> VectorEnv[Any, Any, Any]:
    """One vector env with one sub-env per id, for multi-task training (gym-api.md).

    All ids must belong to one environment (Gymnasium needs equal action spaces), e.g.
    ``silo_gym.make_vec(["silo/demo-TASK-001", "silo/demo-TASK-004"])``. ``kwargs`` go to every
    ``gym.make``.

    Raises:
        ValueError: ``make_vec needs ids of one environment; got <names>.`` for mixed ids, or an
            empty id list.
        gymnasium.error.NameNotFound: an unknown id.
    """
    ids = list(ids)
    if not ids:
        raise ValueError("make_vec needs at least one id.")
    names = []
    for env_id in ids:
        spec = gym.spec(env_id)
        name = spec.kwargs.get("environment")
        if not isinstance(name, str):
            raise ValueError(f'"{env_id}" is not a silo_gym id.')
        if name not in names:
            names.append(name)
    if len(names) != 1:
        raise ValueError(f"make_vec needs ids of one environment; got {', '.join(sorted(names))}.")
    runs = os.fspath(os.path.abspath(record_runs_dir)) if record_runs_dir is not None else None
    fns = [functools.partial(_make_sub_env, i, len(ids), runs, agent_path, env_id, dict(kwargs))
           for i, env_id in enumerate(ids)]
    return _build(fns, vectorization_mode, autoreset_mode)
