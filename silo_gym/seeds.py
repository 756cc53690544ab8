"""Reset seeds derived from a base seed: the same episode gets the same seed in every process.

``silo_gym.data.collect``, the trainer integrations' data sets and ``silo_gym.curriculum`` all
derive episode seeds here, so the worlds one of them plays are the worlds the others play.
"""

from __future__ import annotations

import hashlib

__all__ = ["episode_seed", "group_reset_seed"]


def episode_seed(seed: int, environment: str, task_id: str, episode: int) -> int:
    """The reset seed of one episode: the first 4 bytes of
    ``sha256("silo-gym/collect\\0<seed>\\0<environment>\\0<task_id>\\0<episode>")``, big-endian
    (an int in ``[0, 2**32)``)."""
    text = f"silo-gym/collect\x00{seed}\x00{environment}\x00{task_id}\x00{episode}"
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def group_reset_seed(seed: int, environment: str, task_id: str, episode: int, group_size: int) -> int:
    """The reset seed of episode ``episode`` collected in groups of ``group_size``: the seed of its
    group's first episode, ``episode_seed(seed, environment, task_id, episode // group_size *
    group_size)``, so every episode of a group starts from one world; the episode's own seed when
    ``group_size`` is 1."""
    return episode_seed(seed, environment, task_id, episode // group_size * group_size)
