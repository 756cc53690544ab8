"""Reward-model and trajectory data (gym-api.md, "Reward-model and trajectory data").

- :func:`collect` runs a policy over tasks and returns one row per episode, in this process
  (``backend="local"``, up to ``concurrency`` episodes at once on one event loop;
  :mod:`silo_gym.data.local_backend`) or on a Ray cluster (``backend="ray"``, the
  ``silo-gym[ray]`` extra; :mod:`silo_gym.data.ray_backend`); :func:`iter_collect` yields the
  rows as episodes finish; their settings are one :class:`CollectConfig`
  (:mod:`silo_gym.data.config`), or its fields as keyword arguments; :func:`collect_jsonl` streams them to a JSONL file and resumes an
  interrupted collection (:mod:`silo_gym.data.stream`);
- :func:`preference_pairs` turns rows into chosen/rejected pairs (TRL's conversational layout);
- :func:`sft_rows` turns successful rows into conversational SFT rows with a ``tools`` column;
- :func:`write` / :func:`read` store rows as JSONL, Parquet and a Hugging Face ``datasets.Dataset``.

``pyarrow`` and ``datasets`` (the ``silo-gym[data]`` extra) are imported only to write or read
Parquet and Hugging Face data sets.
"""

from __future__ import annotations

from .collect import (
    BACKENDS,
    EPISODE_COLUMNS,
    RandomPolicy,
    collect,
    episode_seed,
    failed_row,
    iter_collect,
    resolve_policy,
    transcript_messages,
)
from .config import CollectConfig
from .io import FORMATS, read, write
from .local_backend import CollectCounters, CollectionInterrupted
from .pairs import PAIR_COLUMNS, preference_pairs
from .sft import SFT_COLUMNS, sft_rows
from .stream import ResumeError, collect_jsonl

__all__ = [
    "BACKENDS",
    "EPISODE_COLUMNS",
    "CollectConfig",
    "CollectCounters",
    "CollectionInterrupted",
    "FORMATS",
    "PAIR_COLUMNS",
    "RandomPolicy",
    "SFT_COLUMNS",
    "ResumeError",
    "collect",
    "collect_jsonl",
    "episode_seed",
    "failed_row",
    "iter_collect",
    "preference_pairs",
    "read",
    "resolve_policy",
    "sft_rows",
    "transcript_messages",
    "write",
]
