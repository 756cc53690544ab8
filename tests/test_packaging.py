"""The wheel carries the shipped environments: after a (non-editable) install, gym.make of a demo
id works from any directory (gym-api.md, "Ids and registration")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # make test-fast leaves this module out (README, "Developing")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Build from a copy: setuptools writes build/ and *.egg-info into the source tree.
    source = tmp_path_factory.mktemp("source") / "silo-gym"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".silo", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", ".hypothesis", "results"))
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    if build.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{build.stdout}\n{build.stderr}")
    wheels = list(out.glob("silo_gym-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contains_the_shipped_environments_and_templates(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "silo_gym/environments/demo/silo.environment.json",
        "silo_gym/environments/demo/__init__.py",
        "silo_gym/environments/demo/data/opportunities.json",
        "silo_gym/environments/demo/tasks/TASK-006.json",
        "silo_gym/environments/demo/tools/__init__.py",
        "silo_gym/environments/demo/verifiers/__init__.py",
        "silo_gym/environments/project/silo.environment.json",
        "silo_gym/environments/project/__init__.py",
        "silo_gym/environments/project/generator.py",
        "silo_gym/environments/project/variants.py",
        "silo_gym/environments/project/data/workItems.json",
        "silo_gym/environments/project/tasks/TASK-015.json",
        "silo_gym/environments/project/tools/time.py",
        "silo_gym/environments/project/verifiers/ver_015.py",
        "silo_gym/templates/blank/__init__.py",
        "silo_gym/templates/blank/tasks/.gitkeep",
        "silo_gym/mock_model/demo_plan.py",  # the scripted model server's default plan
        "silo_gym/py.typed",
    ):
        assert required in names, required
    assert not any("__pycache__" in n for n in names)
    assert not any(n.startswith(("tests/", "environments/", "benchmarks/")) for n in names)


def test_installed_wheel_makes_demo_envs_from_any_directory(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=600,
    )
    assert install.returncode == 0, install.stderr
    installed = sorted(p.relative_to(target) for p in target.rglob("*"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import gymnasium as gym, silo_gym, json\n"
        "print(silo_gym.__file__)\n"
        "env = gym.make('silo/demo-TASK-004')\n"
        "obs, info = env.reset(seed=0)\n"
        "obs_0 = obs\n"
        "obs, *_ = env.step({'tool': 'forecast_report', 'input': {}})\n"
        "amount = json.loads(obs)['output']['weightedAmount']['amount']\n"
        "obs, reward, terminated, truncated, info = env.step({'answer': f'${amount}'})\n"
        "print(reward, info['passed'], env.unwrapped.silo_env.path)\n"
        "project = gym.make('silo/project-TASK-014', variants=True)\n"
        "obs, info = project.reset(options={'variant': 7})\n"
        "print(info['variant'], 'Backlog state right now' in obs)\n"
        "from silo_gym.mock_model import DEFAULT_PLAN, load_plan\n"
        "assert DEFAULT_PLAN.name == 'demo_plan.py', DEFAULT_PLAN\n"
        "assert next(load_plan()(obs_0)) == {'tool': 'forecast_report', 'input': {}}\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target), "SILO_GYM_PATH": ""}
    run = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    first, second, third = run.stdout.strip().splitlines()
    assert third == "7 True"
    assert first.startswith(str(target)), first
    reward, passed, path = second.split(" ", 2)
    assert (reward, passed) == ("1.0", "True")
    assert path.startswith(str(target / "silo_gym" / "environments" / "demo")), path
    # Running an installed environment writes nothing into the installed package.
    assert sorted(p.relative_to(target) for p in target.rglob("*")) == installed


def test_an_editable_build_runs_the_build_hook_cleanly(tmp_path: Path) -> None:
    # `make setup` installs with -e: the hook must not copy into a build directory that an
    # editable build leaves without silo_gym/ (setuptools then printed a traceback and a warning).
    source = tmp_path / "silo-gym"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".silo", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", ".hypothesis", "results", "tests"))
    out = tmp_path / "out"
    out.mkdir()
    # The build requirements in a directory of their own, as pip's isolated build has them (the
    # test venv's own setuptools may be older than pyproject.toml asks for).
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    backend = tmp_path / "backend"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                              "--target", str(backend), *requires], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    build = subprocess.run(
        [sys.executable, "-c", f"import setuptools.build_meta as b; print(b.build_editable({str(out)!r}))"],
        cwd=source, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(backend)},
    )
    assert build.returncode == 0, build.stderr
    assert "Traceback" not in build.stderr + build.stdout
    assert "Customization incompatible with editable install" not in build.stderr
    # No install noise (issue 19, item 4): setuptools warned twice per install about the
    # `license = {text = ...}` table.
    assert "deprecated" not in build.stderr.lower(), build.stderr
    assert "Warning" not in build.stderr, build.stderr
    assert len(list(out.glob("silo_gym-*.whl"))) == 1
