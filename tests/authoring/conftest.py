"""Fixtures of the authoring tests: a project directory and an in-process command line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from silo_gym.cli import main

CliResult = tuple[int, str, str]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project directory that is also the current directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def cli(project: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run ``silo-gym <args>`` in the project; returns ``(exit code, stdout, stderr)``."""

    def run(*argv: str) -> CliResult:
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
