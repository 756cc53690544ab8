"""What the repository promises about itself: installs, test hygiene, dependency bounds."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib

import pytest
from conftest import REPO_ROOT, TESTS_DIR
from hypothesis import settings

pytest_plugins = ["pytester"]


def test_hypothesis_keeps_no_example_database():
    assert settings.default.database is None


def test_hypothesis_storage_lives_outside_the_repository():
    from hypothesis.configuration import storage_directory

    where = storage_directory("constants").path.resolve()
    assert REPO_ROOT.resolve() not in where.parents


def _dry_run(target: str, tmp_path) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    out = subprocess.run(["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"], cwd=REPO_ROOT,
                         capture_output=True, text=True, check=True)
    return out.stdout


def test_make_demo_installs_only_the_core(tmp_path):
    plan = _dry_run("demo", tmp_path)
    installs = [line for line in plan.splitlines() if " install " in line and "--upgrade pip" not in line]
    assert installs and all(line.rstrip().endswith("-e .") for line in installs), installs
    assert "examples/demo.py" in plan


def test_make_test_installs_the_extras_and_requires_them(tmp_path):
    plan = _dry_run("test", tmp_path)
    assert '-e ".[dev,' in plan
    assert "SILO_GYM_REQUIRE_EXTRAS=1" in plan and "pytest" in plan


def test_gymnasium_is_bounded_below_the_next_major():
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    gym_req = [d for d in project["dependencies"] if d.startswith("gymnasium")]
    assert gym_req == ["gymnasium>=1.2,<2"]


MISSING = 'import pytest\n\ndef test_needs_extra():\n    pytest.importorskip("silo_gym_no_such_extra")\n'


@pytest.mark.parametrize("required, outcome", [("1", {"failed": 1}), ("", {"skipped": 1})])
def test_a_missing_extra_fails_under_make_test(pytester, monkeypatch, required, outcome):
    pytester.makeconftest((TESTS_DIR / "conftest.py").read_text())
    pytester.makepyfile(test_extra=MISSING)
    monkeypatch.setenv("SILO_GYM_REQUIRE_EXTRAS", required)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(**outcome)
    if required:
        assert "an optional extra is missing" in result.stdout.str()
    assert not os.path.exists(pytester.path / ".hypothesis")
