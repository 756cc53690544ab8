"""Reward-model and trajectory data (gym-api.md, "Reward-model and trajectory data").

- :func:`collect` runs a policy over tasks and returns one row per episode;
- :func:`preference_pairs` turns rows into chosen/rejected pairs (TRL's conversational layout);
- :func:`write` / :func:`read` store rows as JSONL, Parquet and a Hugging Face ``datasets.Dataset``.

``pyarrow`` and ``datasets`` (the ``silo-gym[data]`` extra) are imported only to write or read
Parquet and Hugging Face data sets.
"""

from __future__ import annotations

from .collect import EPISODE_COLUMNS, RandomPolicy, collect, episode_seed, resolve_policy, transcript_messages
from .io import FORMATS, read, write
from .pairs import PAIR_COLUMNS, preference_pairs

__all__ = [
    "EPISODE_COLUMNS",
    "FORMATS",
    "PAIR_COLUMNS",
    "RandomPolicy",
    "collect",
    "episode_seed",
    "preference_pairs",
    "read",
    "resolve_policy",
    "transcript_messages",
    "write",
]
