"""What the trainer adapters share: the episodes a data set names, the env that plays one, and
reading trainer configs (omegaconf or plain).

- :func:`task_rows`: one :class:`TaskRow` per episode of a data set (tasks in id order,
  ``repeats`` each, seeds drawn as :func:`silo_gym.data.episode_seed` draws them), with the
  instruction and tools ``reset`` shows for that seed;
- :func:`open_env` / :func:`start_episode`: a silo env (in ``RecordRun`` with ``runs_dir``) reset
  to the episode a row's spec (``task_id``, ``seed``, ``variant``) names;
- :func:`config_value` / :func:`plain`: a key of a trainer config and omegaconf values as plain
  Python.

Imports no trainer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import gymnasium as gym

from ..data.collect import episode_seed, plan_envs
from ..wrappers.record import RecordRun

__all__ = ["TaskRow", "config_value", "open_env", "plain", "start_episode", "task_rows"]


class TaskRow(NamedTuple):
    """One episode of a data set: ``env_id`` is ``silo/<environment>``; ``instruction`` and
    ``tools`` (``info["tools"]``) are what ``reset`` shows for ``seed``; ``variant`` is the variant
    world that reset played (``None``: the canonical one; drawn from the seed with
    ``variants=True``); ``position`` counts rows."""

    env_id: str
    environment: str
    task_id: str
    seed: int
    instruction: str
    tools: list[dict[str, Any]]
    variant: int | None
    position: int


def task_rows(env_ids: str | Iterable[str], *, repeats: int = 1, seed: int = 0,
              env_kwargs: Mapping[str, Any] | None = None) -> Iterator[TaskRow]:
    """The episodes of a data set over silo ids (``silo/<env>`` for all its tasks, or
    ``silo/<env>-<TASK>``): tasks in id order, ``repeats`` rows each; repeat ``i`` of a task has
    seed ``episode_seed(seed, environment, task_id, i)``.

    Raises:
        ValueError: ``repeats`` < 1.
        gymnasium.error.Error: an unknown id.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}.")
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    kwargs = dict(env_kwargs or {})
    index = 0
    for plan in plan_envs(ids, kwargs):
        env_id = f"silo/{plan.environment}"
        env = gym.make(env_id, disable_env_checker=True, **kwargs)
        try:
            for task_id in plan.task_ids:
                for i in range(repeats):
                    s = episode_seed(seed, plan.environment, task_id, i)
                    instruction, info = env.reset(seed=s, options={"task_id": task_id})
                    yield TaskRow(env_id, plan.environment, task_id, s, instruction, info["tools"],
                                  info.get("variant"), index)
                    index += 1
        finally:
            env.close()


def open_env(env_id: str, runs_dir: str | None = None, **env_kwargs: Any) -> gym.Env[Any, Any]:
    """``gym.make(env_id, **env_kwargs)`` without Gymnasium's checker, in ``RecordRun`` when
    ``runs_dir`` is given."""
    env = gym.make(env_id, disable_env_checker=True, **env_kwargs)
    return RecordRun(env, runs_dir=runs_dir) if runs_dir is not None else env


def start_episode(env: gym.Env[Any, Any], spec: Mapping[str, Any], where: str) -> tuple[str, str, dict[str, Any]]:
    """Reset ``env`` to the episode ``spec`` names: ``task_id`` (needed unless the env is bound
    to a task), ``seed`` (an int or ``None``), ``variant`` (optional). Returns ``(task_id,
    instruction, info)``.

    Raises:
        ValueError: no ``task_id`` for an env that serves every task; ``where`` says where the
            task id belongs (``'the row's extra_info'``).
    """
    unwrapped: Any = env.unwrapped
    task_id = spec.get("task_id") or unwrapped.task_id
    if not task_id:
        raise ValueError(f'{unwrapped.spec.id if unwrapped.spec else "The env"} serves every task of its '
                         f'environment: {where} must carry "task_id".')
    options: dict[str, Any] = {"task_id": task_id}
    if spec.get("variant") is not None:
        options["variant"] = spec["variant"]
    seed = spec.get("seed")
    instruction, info = env.reset(seed=None if seed is None else int(seed), options=options)
    return str(task_id), instruction, info


def config_value(config: Any, key: str, default: Any = None) -> Any:
    """``config[key]`` for a dict, an omegaconf ``DictConfig`` or an object with attributes."""
    if config is None:
        return default
    if isinstance(config, Mapping):
        return config.get(key, default)
    getter = getattr(config, "get", None)
    if callable(getter):
        return getter(key, default)
    return getattr(config, key, default)


def plain(value: Any) -> Any:
    """An omegaconf container as plain Python (other values, and everything without omegaconf
    installed, unchanged)."""
    try:
        from omegaconf import OmegaConf
    except ImportError:
        return value
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value
