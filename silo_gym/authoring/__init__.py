"""World authoring: making, growing and checking an environment of one's own (silo-format §9, §12).

- :mod:`~silo_gym.authoring.scaffold`: new environments from templates, tool and verifier stubs
  (``silo-gym init``, ``tool add``, ``verifier add``).
- :mod:`~silo_gym.authoring.store`: an environment's task and data files, read and written safely.
- :mod:`~silo_gym.authoring.validate`: ``silo-gym env validate`` (:func:`validate`, the finding
  codes), with :mod:`~silo_gym.authoring.validate_variants` for the variant checks.
- :mod:`~silo_gym.authoring.sdk`: ``silo_gym.Silo``, the same operations from Python.

The modules' old paths (``silo_gym.scaffold``, ``silo_gym.store``, ``silo_gym.validate_env``,
``silo_gym.validate_variants``, ``silo_gym.project``) still import, as the very same modules. How a
world's hooks are judged is :mod:`silo_gym.world`, shared with ``reset``. The package itself
exports nothing (its names are the modules): ``silo_gym.validate`` and ``silo_gym.Silo`` are the
short forms.
"""
