"""A curriculum sampler: which (task, variant) to play next, from each one's running pass rate.

A fixed task mix spends episodes on tasks a policy always solves or never solves; neither teaches
it much. :class:`Curriculum` draws the next item (an environment's task, on the canonical world or
on one variant) with weights that favour items whose pass rate is neither 0 nor 1, and keeps a
floor so that no item starves:

- each item keeps its last ``window`` scores (1 for a passed episode, 0 for a failed one, or any
  number in ``[0, 1]`` the caller reports); its *pass rate* is their mean (``None`` before the
  first);
- its weight is ``q * (1 - q)`` with ``q = (sum of scores + 0.5) / (count + 1)``, the pass rate
  with half a pass and half a failure added (so an item never seen weighs most, and an item
  passed once is not taken for solved, but a few equal results in a row tell);
- its probability is ``floor / n + (1 - floor) * weight / total weight`` over the ``n`` items:
  a share ``floor`` of the draws is spread evenly, so every item is drawn with probability at
  least ``floor / n``.

Draws come from the sampler's own ``numpy`` generator, seeded at construction, so the same seed
with the same reports in the same order gives the same draws, in any process.

Where it plugs in (docs/training.md, "Curriculum"):

- the vector entry point: ``gym.make_vec("silo/<env>", num_envs=N, curriculum=c)`` draws the task
  (and variant) of every sub-env at each reset, autoresets included, and reports each ended
  episode's ``passed`` (sync vector envs only: the sampler lives in this process);
- ``silo_gym.data.collect(..., curriculum=c)``: the same number of episodes as the plain plan,
  each one's task drawn from ``c`` and reported back when it ends;
- TRL: ``silo_gym.integrations.trl.curriculum_dataset(c)`` is a ``datasets.IterableDataset`` of
  prompts drawn from ``c``; the environment class of ``environment_factory(..., curriculum=c)``
  reports every rollout's result.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .seeds import episode_seed

__all__ = ["Curriculum", "CurriculumItem"]


class CurriculumItem(NamedTuple):
    """One thing a curriculum can draw: a task of an environment, on variant ``variant`` of its
    world (``None``: the canonical world)."""

    environment: str
    task_id: str
    variant: int | None = None


def _check_fraction(name: str, value: Any, *, upper_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1 \
            or (upper_open and value == 1):
        accepted = "0 <= x < 1" if upper_open else "0 <= x <= 1"
        raise ValueError(f"{name} must be a number with {accepted}, got {value!r}.")
    return float(value)


class Curriculum:
    """A sampler over (environment, task, variant) items (module docs for the weights).

    Args:
        items: what to draw from: :class:`CurriculumItem` or ``(environment, task_id[, variant])``
            tuples, in a fixed order (the order of :meth:`stats`); duplicates are refused.
        seed: the seed of the sampler's own generator.
        floor: the share of draws spread evenly over all items (``0 <= floor <= 1``; 1 draws
            uniformly).
        window: how many of an item's latest scores make its pass rate (>= 1).

    Raises:
        ValueError: no items, a duplicate item, a malformed item, ``floor`` or ``window``.
    """

    def __init__(self, items: Iterable[CurriculumItem | Sequence[Any]], *, seed: int = 0, floor: float = 0.1,
                 window: int = 16) -> None:
        parsed = [self._item(i) for i in items]
        if not parsed:
            raise ValueError("A curriculum needs at least one (environment, task_id, variant) item.")
        seen: set[CurriculumItem] = set()
        for item in parsed:
            if item in seen:
                raise ValueError(f"The item {tuple(item)} is listed twice; list each (environment, task, variant) once.")
            seen.add(item)
        self.floor = _check_fraction("floor", floor)
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be an int >= 1, got {window!r}.")
        self.window = window
        self.seed = seed
        self.items: tuple[CurriculumItem, ...] = tuple(parsed)
        self._index = {item: i for i, item in enumerate(self.items)}
        self._scores: list[deque[float]] = [deque(maxlen=window) for _ in self.items]
        self._episodes = [0] * len(self.items)
        self._draws = [0] * len(self.items)
        self._rng = np.random.default_rng(seed)

    @staticmethod
    def _item(value: Any) -> CurriculumItem:
        if isinstance(value, CurriculumItem):
            item = value
        elif isinstance(value, (tuple, list)) and len(value) in (2, 3):
            item = CurriculumItem(*value)
        else:
            raise ValueError(f"A curriculum item is (environment, task_id) or (environment, task_id, variant); "
                             f"got {value!r}.")
        variant = item.variant
        if not isinstance(item.environment, str) or not isinstance(item.task_id, str) or not (
                variant is None or (isinstance(variant, int) and not isinstance(variant, bool) and variant >= 0)):
            raise ValueError(f"A curriculum item is (environment: str, task_id: str, variant: int >= 0 or None); "
                             f"got {tuple(item)!r}.")
        return item

    @classmethod
    def from_ids(cls, env_ids: str | Iterable[str], *, variants_per_task: int = 0, variant_seed: int = 0,
                 seed: int = 0, floor: float = 0.1, window: int = 16, **env_kwargs: Any) -> Curriculum:
        """The items of Gymnasium ids: every task of each ``silo/<env>`` (or ``<env>``) and each
        ``silo/<env>-<TASK>``, in id order, on the canonical world, or on ``variants_per_task``
        variant worlds each: the variants ``silo_gym.data.collect(..., variants=True,
        seed=variant_seed)`` plays as that task's episodes 0, 1, ... (each one meets the task's
        preconditions).

        Raises:
            ValueError: a negative ``variants_per_task``, and the constructor's errors.
            gymnasium.error.Error: an unknown id.
            SiloError: ``variant_unsupported`` for variants of a world that has none.
        """
        import gymnasium as gym

        if isinstance(variants_per_task, bool) or not isinstance(variants_per_task, int) or variants_per_task < 0:
            raise ValueError(f"variants_per_task must be an int >= 0, got {variants_per_task!r}.")
        ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
        items: list[CurriculumItem] = []
        for env_id in ids:
            full = env_id if "/" in env_id else f"silo/{env_id}"
            kwargs = {**env_kwargs, "variants": True} if variants_per_task else dict(env_kwargs)
            env = gym.make(full, disable_env_checker=True, **kwargs)
            try:
                unwrapped: Any = env.unwrapped
                bound = unwrapped.task_id is not None
                for task in unwrapped.tasks:
                    if not variants_per_task:
                        items.append(CurriculumItem(unwrapped.environment_name, task.id, None))
                        continue
                    for i in range(variants_per_task):
                        s = episode_seed(variant_seed, unwrapped.environment_name, task.id, i)
                        _, info = env.reset(seed=s, options=None if bound else {"task_id": task.id})
                        item = CurriculumItem(unwrapped.environment_name, task.id, info["variant"])
                        if item not in items:
                            items.append(item)
            finally:
                env.close()
        items = list(dict.fromkeys(items))  # an id listed twice, or a task under both its ids
        return cls(items, seed=seed, floor=floor, window=window)

    # -- drawing --------------------------------------------------------------------------------

    def probabilities(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Each item's probability of being drawn next, in item order (sums to 1)."""
        n = len(self.items)
        weights = np.empty(n, dtype=np.float64)
        for i, scores in enumerate(self._scores):
            q = (sum(scores) + 0.5) / (len(scores) + 1.0)
            weights[i] = q * (1.0 - q)
        total = float(weights.sum())
        spread = np.full(n, 1.0 / n)
        if total <= 0.0:
            return spread
        return self.floor * spread + (1.0 - self.floor) * (weights / total)

    def sample(self) -> CurriculumItem:
        """Draw the next item (module docs)."""
        p = self.probabilities()
        i = int(self._rng.choice(len(self.items), p=p))
        self._draws[i] += 1
        return self.items[i]

    def __contains__(self, item: object) -> bool:
        """Whether ``item`` (a :class:`CurriculumItem` or a tuple) is one of this curriculum's."""
        try:
            return self._item(item) in self._index
        except ValueError:
            return False

    def __iter__(self) -> Curriculum:
        return self

    def __next__(self) -> CurriculumItem:
        return self.sample()

    # -- reports --------------------------------------------------------------------------------

    def update(self, item: CurriculumItem | Sequence[Any], score: Any) -> None:
        """Report one ended episode of ``item``: ``score`` is its ``passed`` (a bool) or a number
        in ``[0, 1]`` (a reward).

        Raises:
            KeyError: ``item`` is not one of this curriculum's items.
            ValueError: ``score`` is neither a bool nor a number in ``[0, 1]``.
        """
        key = self._item(item)
        index = self._index.get(key)
        if index is None:
            raise KeyError(f"{tuple(key)} is not an item of this curriculum.")
        value = float(score) if isinstance(score, bool) else _check_fraction("score", score)
        self._scores[index].append(value)
        self._episodes[index] += 1

    def pass_rate(self, item: CurriculumItem | Sequence[Any]) -> float | None:
        """The mean of the item's last ``window`` scores, ``None`` before its first report.

        Raises:
            KeyError: not an item of this curriculum.
        """
        key = self._item(item)
        index = self._index.get(key)
        if index is None:
            raise KeyError(f"{tuple(key)} is not an item of this curriculum.")
        scores = self._scores[index]
        return sum(scores) / len(scores) if scores else None

    def stats(self) -> list[dict[str, Any]]:
        """Per item, in order: ``environment``, ``task_id``, ``variant``, ``draws`` (times drawn),
        ``episodes`` (reports received), ``pass_rate`` (or ``None``) and ``probability`` (of the
        next draw)."""
        p = self.probabilities()
        return [
            {**item._asdict(), "draws": self._draws[i], "episodes": self._episodes[i],
             "pass_rate": (sum(self._scores[i]) / len(self._scores[i])) if self._scores[i] else None,
             "probability": float(p[i])}
            for i, item in enumerate(self.items)
        ]

    def __repr__(self) -> str:
        return f"Curriculum({len(self.items)} items, seed={self.seed!r}, floor={self.floor}, window={self.window})"
