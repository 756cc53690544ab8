"""Silo environments published to the hubs trainers pick environments from (docs/hubs.md).

One description of a silo environment (:mod:`~silo_gym.hubs.description`) is turned into each
hub's package format by :mod:`~silo_gym.hubs.export` (``silo-gym export openenv | verifiers |
nemo-gym``), and every hub plays its episodes through one session class
(:mod:`~silo_gym.hubs.session`), so each gives the same rewards and the same run directories as
``gym.make``. The hubs' own adapters live in :mod:`silo_gym.integrations` (``openenv``,
``verifiers_v1``, ``nemo_gym``) behind the extras of the same names.

Nothing in this package imports a hub's library.
"""
