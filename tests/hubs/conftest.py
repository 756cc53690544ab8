"""The hub tests that build venvs share one silo-gym wheel (they run on one xdist worker: group
``hub_venvs``)."""

from __future__ import annotations

import pathlib

import pytest

from .venvs import build_wheel


@pytest.fixture(scope="session")
def silo_wheel(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The silo-gym wheel of this checkout, built once per test session."""
    return build_wheel(tmp_path_factory.mktemp("silo-wheel"))
