"""Hub packages tested in venvs of their own: a hub whose package cannot share ``make test``'s
venv (verifiers pins ``mcp==2.0.0``; the mcp extra needs ``>=2.3``) gets a fresh venv holding
only the exported package, its declared dependencies (silo-gym from a wheel built here) and what
the hub's own runner needs. Everything lives under pytest's temporary directories."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(out: Path) -> Path:
    """The silo-gym wheel, built from a copy of the repository (setuptools writes into its source)."""
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".silo", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", ".hypothesis", "results"))
    wheels = out / "wheels"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"building the silo-gym wheel failed:\n{done.stdout}\n{done.stderr}")
    shutil.rmtree(source)
    (wheel,) = wheels.glob("silo_gym-*.whl")
    return wheel


def make_venv(path: Path, requirements: Sequence[str], find_links: Path, timeout: float = 1500,
              first: Sequence[str] = ()) -> Path:
    """A venv at ``path`` with ``requirements`` installed (``--find-links find_links``), after
    ``first`` (one more ``pip install`` argument list, when given); returns its bin/."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300)
    bin_dir = path / "bin"
    for args in ([*first], [*requirements]):
        if not args:
            continue
        done = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "--find-links", str(find_links), *args], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"pip install {' '.join(args)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return bin_dir


def venv_env(bin_dir: Path, **extra: str) -> dict[str, str]:
    """The environment for the venv's programs: its bin/ first on PATH, no bytecode."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


@contextmanager
def mock_model(log: Path) -> Iterator[str]:
    """``silo-gym mock-model`` (this venv's) on 127.0.0.1, a free port; yields its OpenAI base URL."""
    with log.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "silo_gym", "mock-model", "--port", "0"],
                                stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"OpenAI base URL (http://\S+/v1)", log.read_text())
            if found:
                yield found.group(1).rstrip(",")
                return
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"the mock model did not start:\n{log.read_text()}")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
