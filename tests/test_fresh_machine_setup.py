"""Set-up on a fresh machine (issue 19, items 1 and 2): ``make test`` installs the browser the viewer's
tests need (Debian's ``chromium`` and ``chromium-driver``) where the machine allows it, or stops
in its first seconds with the command to run; ``.ci/run`` runs the README's commands and nothing
else.

``scripts/ensure_browser.sh`` is run here on a ``PATH`` of stand-ins (``id``, ``apt-get``,
``sudo``) that record what they were asked, so every machine it meets is played on this one.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "ensure_browser.sh"
SH = "/bin/sh"
INSTALL_COMMAND = "sudo apt-get update && sudo apt-get install -y chromium chromium-driver"


def _program(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class Machine:
    """A ``bin/`` of stand-ins and where the two browser programs go."""

    def __init__(self, root: Path) -> None:
        self.bin = root / "bin"
        self.bin.mkdir()
        self.log = root / "calls.log"
        self.chromium = root / "usr" / "bin" / "chromium"
        self.driver = root / "usr" / "bin" / "chromedriver"
        self.chromium.parent.mkdir(parents=True)

    def user(self, uid: int) -> None:
        _program(self.bin / "id", f'[ "$1" = -u ] && echo {uid}\n')

    def apt_get(self, works: bool = True) -> None:
        """An apt-get that logs its arguments (and whether DEBIAN_FRONTEND was set); ``install``
        puts both programs in place, or fails."""
        install = (f'  : > "{self.chromium}"; /bin/chmod +x "{self.chromium}"\n'
                   f'  : > "{self.driver}"; /bin/chmod +x "{self.driver}"\n') if works else "  exit 100\n"
        _program(self.bin / "apt-get",
                 f'echo "apt-get $* frontend=${{DEBIAN_FRONTEND:-}} uid=$(id -u)" >> "{self.log}"\n'
                 f'if [ "$1" = install ]; then\n{install}fi\n')

    def sudo(self, passwordless: bool) -> None:
        """A sudo that runs its command as root (``id -u`` gives 0 inside), ``VAR=value`` first."""
        _program(self.bin / "sudo",
                 f'echo "sudo $*" >> "{self.log}"\n'
                 + ('[ "$1" = -n ] && exit 1\n' if not passwordless else '[ "$1" = -n ] && shift\n')
                 + 'while [ $# -gt 0 ]; do case "$1" in *=*) export "$1"; shift;; *) break;; esac; done\n'
                 + f'_program_dir="{self.bin}"\n'
                 + 'PATH="$_program_dir/root:$PATH" exec "$@"\n')
        root_bin = self.bin / "root"
        root_bin.mkdir(exist_ok=True)
        _program(root_bin / "id", '[ "$1" = -u ] && echo 0\n')
        _program(self.bin / "true", "exit 0\n")  # what `sudo -n true` runs

    def install_browser(self) -> None:
        for program in (self.chromium, self.driver):
            _program(program, "exit 0\n")

    def run(self) -> subprocess.CompletedProcess[str]:
        env = {"PATH": str(self.bin), "SILO_GYM_CHROMIUM": str(self.chromium),
               "SILO_GYM_CHROMEDRIVER": str(self.driver)}
        return subprocess.run([SH, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


def test_a_machine_with_the_browser_is_left_alone(machine: Machine) -> None:
    machine.install_browser()
    machine.user(1000)
    machine.apt_get()
    done = machine.run()
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    assert machine.calls() == []


def test_as_root_it_installs_both_packages(machine: Machine) -> None:
    machine.user(0)
    machine.apt_get()
    done = machine.run()
    assert done.returncode == 0, done.stderr
    assert machine.calls() == [
        "apt-get update -qq frontend=noninteractive uid=0",
        "apt-get install -y -qq chromium chromium-driver frontend=noninteractive uid=0",
    ]
    assert "installing chromium chromium-driver" in done.stdout
    assert os.access(machine.chromium, os.X_OK) and os.access(machine.driver, os.X_OK)


def test_with_passwordless_sudo_it_installs_through_sudo(machine: Machine) -> None:
    machine.user(1000)
    machine.apt_get()
    machine.sudo(passwordless=True)
    done = machine.run()
    assert done.returncode == 0, done.stderr
    calls = machine.calls()
    assert "apt-get update -qq frontend=noninteractive uid=0" in calls
    assert "apt-get install -y -qq chromium chromium-driver frontend=noninteractive uid=0" in calls
    assert "sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver" in calls


@pytest.mark.parametrize("has_sudo", [False, True])
def test_without_root_it_stops_at_once_with_the_command(machine: Machine, has_sudo: bool) -> None:
    machine.user(1000)
    machine.apt_get()
    if has_sudo:
        machine.sudo(passwordless=False)  # sudo asks for a password: not ours to type
    started = time.monotonic()
    done = machine.run()
    assert done.returncode == 1
    assert time.monotonic() - started < 10
    assert f"    {INSTALL_COMMAND}\n" in done.stderr
    assert f"missing: {machine.chromium} {machine.driver}." in done.stderr
    assert not any(call.startswith("apt-get") for call in machine.calls())  # nothing was tried


def test_a_failed_install_names_the_command(machine: Machine) -> None:
    machine.user(0)
    machine.apt_get(works=False)
    done = machine.run()
    assert done.returncode == 1
    assert "apt-get could not install chromium chromium-driver" in done.stderr
    assert "    apt-get update && apt-get install -y chromium chromium-driver\n" in done.stderr


def test_without_apt_get_it_names_the_two_variables(machine: Machine) -> None:
    machine.user(1000)
    machine.install_browser()
    machine.driver.unlink()
    done = machine.run()
    assert done.returncode == 1
    assert f"missing: {machine.driver}." in done.stderr
    assert "SILO_GYM_CHROMIUM=/path/to/chromium SILO_GYM_CHROMEDRIVER=/path/to/chromedriver" in done.stderr


def _make_dry_run(target: str) -> list[str]:
    done = subprocess.run(["make", "-n", "-C", str(ROOT), target], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MAKEFLAGS": ""})
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line.strip() and not line.startswith("make")]


def test_make_test_checks_the_browser_before_anything_else() -> None:
    for target in ("test", "setup-dev"):
        lines = _make_dry_run(target)
        assert "scripts/ensure_browser.sh" in lines[0], (target, lines[:3])


def test_lint_and_typecheck_do_not_need_a_browser() -> None:
    for target in ("lint", "typecheck"):
        assert not any("ensure_browser" in line for line in _make_dry_run(target)), target


def test_ci_runs_the_readme_commands_and_nothing_else() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start"):]
    block = quick[quick.index("```bash") + len("```bash"):quick.index("```", quick.index("```bash") + 7)]
    readme_commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert readme_commands == ["make demo", "make test"]
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line.strip() for line in script.splitlines()
                if line.strip() and not line.strip().startswith("#")
                and not re.fullmatch(r"set -\w+( \w+)?|cd .*", line.strip())]
    assert commands == readme_commands


# --- torch: what the pin is, and how to stay on CPU (issue 19, item 2) ------------------------------


def _torch_line(*variables: str) -> str:
    done = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), "setup-dev", *variables], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "MAKEFLAGS": ""})
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if '"torch==' in line]
    return line


def test_torch_comes_from_pypi_unless_an_index_is_named() -> None:
    assert _torch_line().rstrip().endswith('install --progress-bar off "torch==2.13.0"')
    cpu = "https://download.pytorch.org/whl/cpu"
    assert _torch_line(f"TORCH_INDEX_URL={cpu}").rstrip().endswith(f'"torch==2.13.0" --index-url {cpu}')


def test_the_readme_says_what_the_torch_pin_installs_and_how_to_stay_on_cpu() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for text in (readme, makefile):
        assert "the CPU build;" not in text and "pinned to the CPU build" not in text
    assert "`torch==2.13.0` from PyPI is the CUDA build" in readme
    assert "make setup-dev TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu" in readme
