"""Vector envs for silo ids (gym-api.md, "Vectorization").

- :mod:`~silo_gym.vector.envs`: :func:`make_vector_env` (the ``vector_entry_point`` of every
  silo id), :func:`make_vec` (several task ids of one environment), and the sync and async vector
  envs they build, which check every sub-env's reset before resetting any.
- :mod:`~silo_gym.vector.infos`: infos batched across sub-envs without casting a value.

This package is the module ``silo_gym.vector`` was (issue 23: the vector modules in one folder);
its public names import from here as before.
"""

from __future__ import annotations

from .envs import PER_SUB_ENV_OPTIONS, SiloAsyncVectorEnv, SiloSyncVectorEnv, make_vec, make_vector_env
from .infos import ExactInfos

__all__ = [
    "PER_SUB_ENV_OPTIONS",
    "ExactInfos",
    "SiloAsyncVectorEnv",
    "SiloSyncVectorEnv",
    "make_vec",
    "make_vector_env",
]
