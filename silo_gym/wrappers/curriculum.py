"""``CurriculumTasks``: a curriculum picks the task (and variant) of every reset.

The vector entry point wraps every sub-env in it when given ``curriculum=`` (``gym.make_vec(
"silo/<env>", num_envs=N, curriculum=c)``); it works on one env as well.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from ..curriculum import Curriculum, CurriculumItem

__all__ = ["CurriculumTasks"]


class CurriculumTasks(gym.Wrapper[str, Any, str, Any]):
    """Draw each episode's task and variant from a :class:`~silo_gym.curriculum.Curriculum` and
    report each episode's ``passed`` back to it.

    A ``reset`` whose ``options`` name neither ``task_id`` nor ``variant`` (autoresets included)
    plays the next item drawn: ``options["task_id"]`` and ``options["variant"]`` (``None``: the
    canonical world) are set from it, and the step that ends that episode reports ``passed`` to
    the curriculum. A reset that names either plays what it names and reports nothing; so does an
    episode ended other than by ``step`` (``abort``, an abandoning ``reset``).

    ``check_reset`` (what a vector reset asks first) draws the item and keeps it for the reset
    that follows, so the world checked is the world played.

    Args:
        env: a silo env (``silo/<env>``, or a per-task id whose task the items name).
        curriculum: the sampler; every item must be a task this env plays.

    Raises:
        ValueError: an item of another environment, or a task this env does not play.
    """

    def __init__(self, env: gym.Env[str, Any], curriculum: Curriculum) -> None:
        super().__init__(env)
        if not isinstance(curriculum, Curriculum):
            raise TypeError(f"curriculum must be a silo_gym.curriculum.Curriculum, got {type(curriculum).__name__}.")
        unwrapped: Any = env.unwrapped
        name = unwrapped.environment_name
        tasks = {t.id for t in unwrapped.tasks}
        strays = [tuple(i) for i in curriculum.items if i.environment != name or i.task_id not in tasks]
        if strays:
            raise ValueError(f'The curriculum has items this env ("{name}", tasks {", ".join(sorted(tasks))}) does not '
                             f"play: {', '.join(map(str, strays[:3]))}{' ...' if len(strays) > 3 else ''}.")
        self.curriculum = curriculum
        self._pending: CurriculumItem | None = None  # drawn by check_reset, for the next reset
        self._item: CurriculumItem | None = None  # the running episode's item, until it is reported

    def _options(self, options: dict[str, Any] | None) -> tuple[dict[str, Any] | None, CurriculumItem | None]:
        if isinstance(options, dict) and ("task_id" in options or "variant" in options):
            return options, None
        item = self._pending if self._pending is not None else self.curriculum.sample()
        self._pending = None
        return {**(options or {}), "task_id": item.task_id, "variant": item.variant}, item

    def check_reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """The env's ``check_reset`` for the item the next reset will play (drawn now, kept)."""
        chosen, item = self._options(options)
        self._pending = item
        self.env.get_wrapper_attr("check_reset")(seed=seed, options=chosen)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        chosen, item = self._options(options)
        self._item = None
        obs, info = self.env.reset(seed=seed, options=chosen)
        self._item = item
        return obs, info

    def step(self, action: Any) -> tuple[str, Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and self._item is not None:
            item, self._item = self._item, None
            self.curriculum.update(item, bool(info["passed"]))
        return obs, reward, terminated, truncated, info
