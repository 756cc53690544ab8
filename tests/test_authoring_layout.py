"""World authoring lives in ``silo_gym.authoring`` (issue 23); the modules' old import paths
still give the very same modules, so a name read or patched at an old path is the moved one."""

from __future__ import annotations

import importlib

import pytest

import silo_gym

OLD_PATHS = {
    "silo_gym.validate_env": "silo_gym.authoring.validate",
    "silo_gym.validate_variants": "silo_gym.authoring.validate_variants",
    "silo_gym.scaffold": "silo_gym.authoring.scaffold",
    "silo_gym.store": "silo_gym.authoring.store",
    "silo_gym.project": "silo_gym.authoring.sdk",
}


@pytest.mark.parametrize(("old", "new"), sorted(OLD_PATHS.items()))
def test_old_import_paths_give_the_moved_modules(old: str, new: str) -> None:
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    assert old_module is new_module
    assert old_module.__name__ == new
    assert old_module.__all__
    for name in old_module.__all__:
        assert getattr(old_module, name) is getattr(new_module, name), (old, name)


def test_the_names_users_import_today_still_import() -> None:
    from silo_gym.project import Silo
    from silo_gym.scaffold import template_dir
    from silo_gym.store import TaskStore
    from silo_gym.validate_env import FINDING_CODES, validate
    from silo_gym.validate_variants import check_variants

    assert Silo is silo_gym.Silo and validate is silo_gym.validate
    assert "variant_integrity" in FINDING_CODES and callable(check_variants)
    assert TaskStore.__module__ == "silo_gym.authoring.store"
    assert (template_dir("blank") / "environment.py").is_file()  # the templates did not move


def test_the_vector_folder_keeps_its_import_path() -> None:
    import gymnasium as gym

    from silo_gym import vector
    from silo_gym.vector import envs, infos

    assert vector.make_vector_env is envs.make_vector_env and vector.ExactInfos is infos.ExactInfos
    assert silo_gym.make_vec is envs.make_vec
    spec = gym.spec("silo/demo-TASK-001")
    module, _, name = str(spec.vector_entry_point).partition(":")
    assert getattr(importlib.import_module(module), name) is envs.make_vector_env
