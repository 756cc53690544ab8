"""Vector envs for silo ids (gym-api.md, "Vectorization"): the envs and their factories.

- ``gym.make_vec(id, num_envs=N)`` with no mode uses :func:`make_vector_env`, our
  ``vector_entry_point``: a ``SyncVectorEnv`` (the fastest safe choice for tools that compute in
  Python) with ``AutoresetMode.SAME_STEP``, so no action is ever dropped: the step that ends a
  sub-episode returns the next episode's first observation, and the ending observation and info
  are in ``info["final_obs"]`` / ``info["final_info"]``. ``vector_mode="async"`` runs sub-envs in
  worker processes (never with shared memory: observations are text; ``context=`` picks the
  start method). ``record_runs_dir=`` wraps every sub-env in ``RecordRun``.
- Infos are batched as Gymnasium does (an array per key plus a ``_key`` mask), except that a key
  whose values differ in type across sub-envs (answers of different JSON types in
  ``final_info["result"]["agentOutput"]``, a ``variant`` number beside ``None``) becomes an object array holding
  every value unchanged, where Gymnasium would cast (2.5 -> 2) or raise.
- ``silo/<env>`` under our entry point takes ``reset(options={"task_id": [t0, ..., tN-1]})``
  (one task per sub-env) or a ``str`` for all; autoresets draw the task with ``np_random``.
  ``options["variant"]`` takes a list the same way (docs/variants.md); ``variants=True`` makes
  every sub-env draw a variant world at each reset, autoresets included.
- A reset under our entry point first asks every sub-env it resets what its reset would refuse
  (``SiloEnv.check_reset``) and raises the first refusal before any sub-env is reset: a bad
  ``task_id`` or ``variant`` item, or a variant whose world fails the task's preconditions, leaves
  every running episode intact and every async worker alive (docs/variants.md).
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
import pickle
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import EnvSpec
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

from ..curriculum import Curriculum
from ..env import SiloEnv
from ..time_limit import TIME_LIMIT_REFUSED
from ..wrappers.curriculum import CurriculumTasks
from ..wrappers.record import RecordRun
from .infos import INFO_DTYPES, OBJECT_DTYPE, ExactInfos

__all__ = ["make_vec", "make_vector_env"]


#: Reset options that take a list with one item per sub-env under our entry point.
PER_SUB_ENV_OPTIONS = ("task_id", "variant")


class _TaskPerSubEnv(gym.Wrapper[str, Any, str, Any]):
    """Picks this sub-env's item when ``options["task_id"]`` or ``options["variant"]`` is a list
    (one item per sub-env)."""

    def __init__(self, env: gym.Env[str, Any], index: int, num_envs: int) -> None:
        super().__init__(env)
        self.index = index
        self.num_envs = num_envs

    def _own(self, options: dict[str, Any] | None) -> dict[str, Any] | None:
        if isinstance(options, dict) and any(isinstance(options.get(k), (list, tuple)) for k in PER_SUB_ENV_OPTIONS):
            _check_per_sub_env_lists(options, self.num_envs)
            options = {k: (v[self.index] if k in PER_SUB_ENV_OPTIONS and isinstance(v, (list, tuple)) else v)
                       for k, v in options.items()}
        return options

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        return self.env.reset(seed=seed, options=self._own(options))

    def reset_refusal(self, seeds: list[Any], options: dict[str, Any] | None,
                      portable: bool = False, mask: Any = None) -> Exception | None:
        """What this sub-env's reset (its seed in ``seeds``, its items of ``options``) would raise
        before it touches the running episode (``SiloEnv.check_reset``), or None; None at once
        when ``mask`` (the reset's ``reset_mask``) leaves this sub-env out. ``portable``: an
        error that cannot be pickled (to leave an async worker) comes back as a RuntimeError
        with its message."""
        if mask is not None and not mask[self.index]:
            return None
        try:
            self.env.get_wrapper_attr("check_reset")(seed=seeds[self.index], options=self._own(options))
        except Exception as exc:
            if portable:
                try:
                    pickle.dumps(exc)
                except Exception:
                    return RuntimeError(f"{type(exc).__name__}: {exc}")
            return exc
        return None


def _make_sub_env(index: int, num_envs: int, record_runs_dir: str | None, agent_path: str | None,
                  env_spec: EnvSpec | None, env_kwargs: dict[str, Any],
                  curriculum: Curriculum | None = None) -> gym.Env[str, Any]:
    # By spec, not by id: a spawned worker's registry holds only what is on disk, not what the
    # parent added with register_environment (the spec carries the environment's path).
    env: gym.Env[str, Any] = gym.make(env_spec, **env_kwargs) if env_spec is not None else SiloEnv(**env_kwargs)
    if record_runs_dir is not None:
        env = RecordRun(env, runs_dir=record_runs_dir, agent_path=agent_path)
    if curriculum is not None:
        env = CurriculumTasks(env, curriculum)
    return _TaskPerSubEnv(env, index, num_envs)


def _check_per_sub_env_lists(options: dict[str, Any] | None, num_envs: int) -> None:
    """Refuse a wrong-length ``task_id`` or ``variant`` list before any sub-env sees it (an async
    worker that raises is shut down, which would break the whole vector env)."""
    if not isinstance(options, dict):
        return
    for key in PER_SUB_ENV_OPTIONS:
        items = options.get(key)
        if isinstance(items, (list, tuple)) and len(items) != num_envs:
            raise ValueError(f'options["{key}"] has {len(items)} items; it needs one per sub-env ({num_envs}).')


def _reset_refusal(vector: SyncVectorEnv | AsyncVectorEnv, seed: Any, options: dict[str, Any] | None,
                   portable: bool) -> Exception | None:
    """The first error a sub-env to be reset would raise (lowest index), asked of every such sub-env
    before any is reset, so a bad per-sub-env value (a negative variant, a variant whose world fails
    the task's preconditions, an unknown task) touches no sub-env (docs/variants.md: refused
    "before the running episode is touched"), and no async worker dies of it.

    Seeds and ``options["reset_mask"]`` are read the way Gymnasium's reset reads them; ones it
    would refuse are left to it (it refuses them before resetting any sub-env).
    """
    n = vector.num_envs
    _check_per_sub_env_lists(options, n)
    if seed is None or isinstance(seed, int):
        seeds: list[Any] = [None if seed is None else seed + i for i in range(n)]
    else:
        try:
            seeds = list(seed)
        except TypeError:
            return None
        if len(seeds) != n:
            return None
    mask = None
    if isinstance(options, dict) and "reset_mask" in options:
        mask = options["reset_mask"]
        if not isinstance(mask, np.ndarray) or mask.shape != (n,) or mask.dtype != np.bool_:
            return None
        options = {k: v for k, v in options.items() if k != "reset_mask"}
    for refusal in vector.call("reset_refusal", seeds, options, portable, mask):
        if refusal is not None:
            return refusal
    return None


def _check_actions(actions: Any, num_envs: int) -> None:
    """Actions are one action per sub-env, as a list or tuple (gym-api.md, "Vectorization")."""
    if not isinstance(actions, (list, tuple)) or len(actions) != num_envs:
        got = f"a {type(actions).__name__} of {len(actions)}" if isinstance(actions, (list, tuple)) \
            else f"a {type(actions).__name__}"
        raise ValueError(
            f"step() takes a list of {num_envs} actions, one per sub-env (each a dict like "
            f'{{"tool": ..., "input": {{...}}}} or {{"answer": ...}}, or its JSON string); got {got}.'
        )


class SiloSyncVectorEnv(ExactInfos, SyncVectorEnv):
    """``SyncVectorEnv`` with exact info batching and every sub-env's reset checked before any
    sub-env is reset.

    Under ``SAME_STEP`` its ``step`` gives exactly Gymnasium's results (observations, rewards,
    flags, batched infos with masks, ``final_obs``/``final_info``) on a lean path: the sub-envs'
    infos are batched key by key in one pass when every sub-env returned the same keys with values
    of one simple type (every step that ends no episode), instead of sub-env by sub-env.
    """

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        refusal = _reset_refusal(self, seed, options, portable=False)
        if refusal is not None:
            raise refusal
        return super().reset(seed=seed, options=options)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        _check_actions(actions, self.num_envs)
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            return super().step(actions)
        envs, rewards, terms, truncs = self.envs, self._rewards, self._terminations, self._truncations
        observations = self._env_obs
        infos_in: list[dict[str, Any]] = []
        ended: list[int] = []
        for i, env in enumerate(envs):
            obs, rewards[i], terms[i], truncs[i], info = env.step(actions[i])
            if terms[i] or truncs[i]:
                ended.append(i)
                infos_in.append({"final_obs": obs, "final_info": info})  # Gymnasium adds these first
                obs, info = env.reset()
            observations[i] = obs
            infos_in.append(info)
        infos = self._batch_same_keys(infos_in) if not ended else None
        if infos is None:  # an episode ended, or keys or types differ: Gymnasium's order, exactly
            infos = {}
            k = 0
            for i in range(self.num_envs):
                if ended and i in ended:
                    infos = self._add_info(infos, infos_in[k], i)
                    k += 1
                infos = self._add_info(infos, infos_in[k], i)
                k += 1
        self._observations = tuple(observations)  # str are immutable: a fresh tuple is a copy
        self._autoreset_envs = np.logical_or(terms, truncs)
        return self._observations, np.copy(rewards), np.copy(terms), np.copy(truncs), infos

    def _batch_same_keys(self, infos: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The batched infos when every sub-env has the same keys, each holding one simple type
        (``bool``, ``int`` in int64, ``float``, ``str``, ``None``) across sub-envs; else None.

        Keys of one numeric type are built as the rows of one 2-D array, and every mask as a row
        of one array of ones: a handful of numpy allocations per step instead of two per key
        (each key still gets its own array, a distinct row).
        """
        first = infos[0]
        keys = first.keys()
        for info in infos:
            if info.keys() != keys:
                return None
        n = self.num_envs
        columns: dict[Any, list[tuple[str, list[Any]]]] = {}
        for key in first:
            values = [info[key] for info in infos]
            kind = type(values[0])
            for v in values:
                if type(v) is not kind:
                    return None
            if kind is int and not (-(2**63) <= min(values) and max(values) < 2**63):
                return None
            if kind is not bool and kind is not float and kind is not int and kind is not str and values[0] is not None:
                return None
            columns.setdefault(kind if kind in INFO_DTYPES else object, []).append((key, values))
        arrays: dict[str, Any] = {}
        for kind, group in columns.items():
            if kind is object:
                block = np.empty((len(group), n), dtype=OBJECT_DTYPE)
                for row, (_, values) in enumerate(group):
                    block[row, :] = values
            else:
                block = np.array([values for _, values in group], dtype=INFO_DTYPES[kind])
            for row, (key, _) in enumerate(group):
                arrays[key] = block[row]
        masks = np.ones((len(arrays), n), dtype=INFO_DTYPES[bool])
        out: dict[str, Any] = {}
        for row, key in enumerate(first):  # Gymnasium's order: key, _key, next key, ...
            out[key] = arrays[key]
            out[f"_{key}"] = masks[row]
        return out

class SiloAsyncVectorEnv(ExactInfos, AsyncVectorEnv):
    """``AsyncVectorEnv`` (no shared memory) with exact info batching and every sub-env's reset
    checked before any sub-env is reset (a worker whose reset raises is lost, and the vector env
    with it)."""

    def reset_async(self, seed: int | list[int | None] | None = None,
                    options: dict[str, Any] | None = None) -> None:
        refusal = _reset_refusal(self, seed, options, portable=True)
        if refusal is not None:
            raise refusal
        super().reset_async(seed=seed, options=options)

    def step_async(self, actions: Any) -> None:
        _check_actions(actions, self.num_envs)
        super().step_async(actions)


def _build(fns: list[Any], vector_mode: str, autoreset_mode: AutoresetMode | str,
           context: str | None) -> VectorEnv[Any, Any, Any]:
    mode = AutoresetMode(autoreset_mode)
    if vector_mode == "sync":
        return SiloSyncVectorEnv(fns, autoreset_mode=mode)
    if vector_mode == "async":
        return SiloAsyncVectorEnv(fns, shared_memory=False, autoreset_mode=mode, context=context)
    raise ValueError(f'vector_mode must be "sync" or "async", got {vector_mode!r}.')


def make_vector_env(
    num_envs: int = 1,
    *,
    record_runs_dir: str | os.PathLike[str] | None = None,
    agent_path: str | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    vector_mode: Literal["sync", "async"] = "sync",
    context: str | None = None,
    curriculum: Curriculum | None = None,
    **env_kwargs: Any,
) -> VectorEnv[Any, Any, Any]:
    """Our ``vector_entry_point`` (``gym.make_vec(id, num_envs=N)`` with no mode).

    Args:
        num_envs: number of sub-envs.
        record_runs_dir: when given, each sub-env is wrapped in ``RecordRun(runs_dir=...)``.
        agent_path: recorded as ``config.agentPath`` in the runs.
        autoreset_mode: ``SAME_STEP`` by default (never drops an action).
        vector_mode: ``"sync"`` (default) or ``"async"`` (worker processes, no shared memory).
        context: the ``multiprocessing`` start method of the async workers (``"fork"``,
            ``"spawn"``, ``"forkserver"``; ``None``: the platform's default).
        curriculum: a :class:`~silo_gym.curriculum.Curriculum` that draws each sub-env's task and
            variant at every reset it does not name them in (autoresets included) and hears every
            ended episode's ``passed`` (:class:`~silo_gym.wrappers.CurriculumTasks`); sync only,
            the sampler being an object of this process.
        **env_kwargs: ``SiloEnv`` arguments (the registered ``environment``, ``task_id``, ``path``
            plus any of ``max_tool_calls``, ``timeout_ms``, ``reward_mode``, ...).

    Raises:
        ValueError: ``num_envs`` below 1, an unknown ``vector_mode`` or ``autoreset_mode``, a
            curriculum with ``vector_mode="async"`` or with items the env does not play,
            ``max_episode_steps`` (:mod:`silo_gym.time_limit`).

    Returns a ``VectorEnv`` whose observations are tuples of ``str`` and whose actions are a list
    (or tuple) of action dicts.
    """
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a whole number of at least 1, got {num_envs!r}.")
    if curriculum is not None and vector_mode != "sync":
        raise ValueError('curriculum= needs vector_mode="sync": the sampler lives in this process, and async '
                         "workers would each draw from a copy of it.")
    if "max_episode_steps" in env_kwargs:
        raise ValueError(TIME_LIMIT_REFUSED)
    runs = os.fspath(os.path.abspath(record_runs_dir)) if record_runs_dir is not None else None
    fns = [functools.partial(_make_sub_env, i, num_envs, runs, agent_path, None, dict(env_kwargs), curriculum)
           for i in range(num_envs)]
    return _build(fns, vector_mode, autoreset_mode, context)


def make_vec(
    ids: Sequence[str],
    *,
    vectorization_mode: Literal["sync", "async"] = "sync",
    record_runs_dir: str | os.PathLike[str] | None = None,
    agent_path: str | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    context: str | None = None,
    **kwargs: Any,
) -> VectorEnv[Any, Any, Any]:
    """One vector env with one sub-env per id, for multi-task training (gym-api.md).

    All ids must belong to one environment (Gymnasium needs equal action spaces), e.g.
    ``silo_gym.make_vec(["silo/demo-TASK-001", "silo/demo-TASK-004"])``. ``kwargs`` go to every
    ``gym.make``; ``vectorization_mode``, ``record_runs_dir``, ``agent_path``, ``autoreset_mode``
    and ``context`` mean what they do for :func:`make_vector_env`.

    Raises:
        ValueError: ``make_vec needs ids of one environment; got <names>.`` for mixed ids, or an
            empty id list.
        gymnasium.error.NameNotFound: an unknown id.
    """
    if isinstance(ids, str):
        raise TypeError(f'make_vec takes a list of ids, one per sub-env; got the string "{ids}". '
                        f'For several copies of one id use gym.make_vec("{ids}", num_envs=N).')
    ids = list(ids)
    if not ids:
        raise ValueError("make_vec needs at least one id.")
    if "max_episode_steps" in kwargs:
        raise ValueError(TIME_LIMIT_REFUSED)
    names = []
    specs = []
    for env_id in ids:
        spec = gym.spec(env_id)
        specs.append(spec)
        name = spec.kwargs.get("environment")
        if not isinstance(name, str):
            raise ValueError(f'"{env_id}" is not a silo_gym id.')
        if name not in names:
            names.append(name)
    if len(names) != 1:
        raise ValueError(f"make_vec needs ids of one environment; got {', '.join(sorted(names))}.")
    runs = os.fspath(os.path.abspath(record_runs_dir)) if record_runs_dir is not None else None
    fns = [functools.partial(_make_sub_env, i, len(ids), runs, agent_path, spec, dict(kwargs))
           for i, spec in enumerate(specs)]
    return _build(fns, vectorization_mode, autoreset_mode, context)
