"""The hub tests that build venvs of their own (verifiers, NeMo Gym, the installed OpenEnv
package) share one silo-gym wheel per xdist worker. They are marked ``xdist_group("hub_venvs")``
to run on one worker, but note that with pytest 9.2 and pytest-xdist 3.8 the group mark has no
effect (xdist sets ``item._nodeid``; pytest 9.2 reads ``item._id``), so each worker may build
the wheel. ``SILO_GYM_HUB_VENVS=0`` skips them (each takes minutes of pip installs)."""

from __future__ import annotations

import os
import pathlib

import pytest

from .venvs import build_wheel


@pytest.fixture(scope="session")
def silo_wheel(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The silo-gym wheel of this checkout, built once per test session (per worker)."""
    if os.environ.get("SILO_GYM_HUB_VENVS") == "0":
        pytest.skip("SILO_GYM_HUB_VENVS=0: the hub tests that build venvs of their own are off")
    return build_wheel(tmp_path_factory.mktemp("silo-wheel"))
