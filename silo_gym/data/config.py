"""How a collection plays its episodes, in one object: :class:`CollectConfig`.

:func:`~silo_gym.data.collect`, :func:`~silo_gym.data.iter_collect`,
:func:`~silo_gym.data.collect_jsonl` and both backends (:mod:`silo_gym.data.local_backend`,
:mod:`silo_gym.data.ray_backend`) take one. The public functions also take its fields as keyword
arguments, as they always did::

    collect(ids, policy, episodes_per_task=4, seed=1)
    collect(ids, policy, CollectConfig(episodes_per_task=4, seed=1))
    collect(ids, policy, config, seed=2)  # the config with seed replaced

:class:`CollectOptions` is the same set of names as a ``TypedDict``, so that a type checker
checks those keyword arguments.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any, TypedDict

from ..time_limit import TIME_LIMIT_REFUSED
from ..wrappers.record import RunDirJournal
from .episodes import BACKENDS, check_episode_variants, check_group_size

__all__ = ["CollectConfig", "CollectOptions", "collect_config"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class CollectConfig:
    """The settings of one collection (:func:`silo_gym.data.collect` documents the behaviour).

    Attributes:
        episodes_per_task: episodes per task (``>= 0``); the only one without a default.
        seed: the base seed; episode seeds come from :func:`~silo_gym.seeds.episode_seed`.
        runs_dir: record every episode there (``run_id`` set); ``None``: nothing is written.
        env_kwargs: passed to ``gym.make`` (``max_tool_calls``, ``timeout_ms``, ``reward_mode``...).
        variants: every episode's reset seed draws its variant world (docs/variants.md).
        policy_name: overrides the ``policy`` column.
        progress: called with each row as soon as it is made (in completion order).
        backend: ``"local"`` (this process) or ``"ray"``.
        num_workers: Ray actors (``None``: the cluster's CPUs / the CPUs per actor); local: ``None`` or 1.
        ray_address: the Ray cluster to connect to (``None``: ``RAY_ADDRESS``, or a local one).
        max_retries: extra attempts of an episode whose attempt failed (``>= 0``).
        ray_actor_options: each Ray actor's ``.options()`` (default ``{"num_cpus": 1}``).
        concurrency: episodes in flight at once on one event loop (per Ray worker with Ray), ``>= 1``.
        episode_timeout_s: seconds one attempt may take (``arun_episode`` policies); ``None``: no limit.
        skip: ``(environment, task_id, episode)`` keys of episodes not to play (a resume).
        counters: a :class:`~silo_gym.data.local_backend.CollectCounters` for live counts.
        episode_variants: the world of each episode by ``"<environment>/<task_id>"``
            (:func:`~silo_gym.data.episodes.check_episode_variants`).
        group_size: episodes of a task played in groups of this many from one world; divides
            ``episodes_per_task``.
        curriculum: a :class:`~silo_gym.curriculum.Curriculum` the tasks and variants are drawn
            from (local backend only; not with ``skip``).
        run_journal: told of every run directory before and after it is created
            (:class:`~silo_gym.wrappers.record.RunDirJournal`).
    """

    episodes_per_task: int
    seed: int = 0
    runs_dir: str | os.PathLike[str] | None = None
    env_kwargs: dict[str, Any] | None = None
    variants: bool = False
    policy_name: str | None = None
    progress: Callable[[dict[str, Any]], None] | None = None
    backend: str = "local"
    num_workers: int | None = None
    ray_address: str | None = None
    max_retries: int = 2
    ray_actor_options: dict[str, Any] | None = None
    concurrency: int = 1
    episode_timeout_s: float | None = None
    skip: Container[tuple[str, str, int]] | None = None
    counters: Any = None
    episode_variants: Mapping[str, Sequence[int | None]] | None = None
    group_size: int = 1
    curriculum: Any = None
    run_journal: RunDirJournal | None = None

    def replace(self, **changes: Any) -> CollectConfig:
        """This config with ``changes`` (field names) replaced.

        Raises:
            TypeError: a name that is not a field.
        """
        return dataclasses.replace(self, **changes)

    def make_kwargs(self) -> dict[str, Any] | None:
        """``env_kwargs`` with ``variants=True`` when :attr:`variants` asks for it: each episode's
        reset seed then draws its variant world (docs/variants.md), so the same ``seed`` gives the
        same variants."""
        if not self.variants:
            return self.env_kwargs
        return {**(self.env_kwargs or {}), "variants": True}

    def check(self) -> dict[str, list[int | None]] | None:
        """Check the settings that do not depend on the backend's setup, in a fixed order; returns
        ``episode_variants`` checked and copied (None when not given).

        Raises:
            ValueError: a setting out of range, or two that exclude each other.
            TypeError: a ``curriculum`` that is not a ``Curriculum``.
        """
        if self.backend not in BACKENDS:
            raise ValueError(f'backend must be "local" or "ray", got {self.backend!r}.')
        env_kwargs = self.make_kwargs()
        if env_kwargs and "max_episode_steps" in env_kwargs:
            raise ValueError(TIME_LIMIT_REFUSED)
        if self.episodes_per_task < 0:
            raise ValueError("episodes_per_task must be >= 0")
        check_group_size(self.group_size, self.episodes_per_task)
        if self.curriculum is not None:
            from ..curriculum import Curriculum

            if not isinstance(self.curriculum, Curriculum):
                raise TypeError("curriculum must be a silo_gym.curriculum.Curriculum, got "
                                f"{type(self.curriculum).__name__}.")
            if self.backend != "local":
                raise ValueError('curriculum= needs backend="local": the sampler is told each result in this process.')
            if self.skip is not None:
                raise ValueError("A collection drawn from a curriculum cannot skip episodes (or be resumed): its plan "
                                 "depends on the results.")
        retries, workers, concurrency, timeout = (self.max_retries, self.num_workers, self.concurrency,
                                                  self.episode_timeout_s)
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {retries!r}.")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"num_workers must be an int >= 1 or None, got {workers!r}.")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be an int >= 1, got {concurrency!r}.")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not 0 < timeout < float("inf")):
            raise ValueError(f"episode_timeout_s must be a number of seconds above 0 or None, got {timeout!r}.")
        return check_episode_variants(self.episode_variants, self.episodes_per_task)


class CollectOptions(TypedDict, total=False):
    """The fields of :class:`CollectConfig` as keyword arguments (for type checkers; every one
    optional here, since a ``config`` may give them: without one, ``episodes_per_task`` is
    required, which :func:`collect_config` checks)."""

    episodes_per_task: int
    seed: int
    runs_dir: str | os.PathLike[str] | None
    env_kwargs: dict[str, Any] | None
    variants: bool
    policy_name: str | None
    progress: Callable[[dict[str, Any]], None] | None
    backend: str
    num_workers: int | None
    ray_address: str | None
    max_retries: int
    ray_actor_options: dict[str, Any] | None
    concurrency: int
    episode_timeout_s: float | None
    skip: Container[tuple[str, str, int]] | None
    counters: Any
    episode_variants: Mapping[str, Sequence[int | None]] | None
    group_size: int
    curriculum: Any
    run_journal: RunDirJournal | None


def collect_config(config: CollectConfig | None, options: Mapping[str, Any], caller: str) -> CollectConfig:
    """``config`` with ``options`` (keyword arguments of ``caller``) replacing its fields, or a new
    config from ``options`` alone.

    Raises:
        TypeError: ``config`` is not a :class:`CollectConfig`; an option that is no field (named
            as ``caller``'s unexpected keyword argument); no ``config`` and no ``episodes_per_task``.
    """
    if config is not None and not isinstance(config, CollectConfig):
        raise TypeError(f"{caller}() takes a CollectConfig as config, got {type(config).__name__}.")
    unknown = [name for name in options if name not in _FIELDS]
    if unknown:
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    if config is None:
        if "episodes_per_task" not in options:
            raise TypeError(f"{caller}() missing 1 required keyword-only argument: 'episodes_per_task'")
        return CollectConfig(**options)
    return dataclasses.replace(config, **options) if options else config


_FIELDS = frozenset(f.name for f in dataclasses.fields(CollectConfig))
