"""Adapters for RL trainers, each imported only on use (docs/training.md).

- :mod:`silo_gym.integrations.trl`: ``trl.GRPOTrainer(environment_factory=...)`` (extra
  ``silo-gym[trl]``): the task's tools as environment methods, a reward function, the data set.
- :mod:`silo_gym.integrations.skyrl`: a ``skyrl_gym`` ``BaseTextEnv`` per silo id, registered in
  skyrl_gym's registry (extra ``silo-gym[skyrl]``).

This package imports nothing itself, so ``import silo_gym`` never pulls a trainer (or torch).
"""
