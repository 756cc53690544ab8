"""``silo-gym collect`` stopped by SIGTERM outside the local backend's own signal handler (while
the policy file loads, during a resume's checks) exits 143, as the README promises for SIGTERM,
and asks for ``--resume`` only where a collection began (issue 19, item 13)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ._helpers import ROOT

#: A policy file that, while ``slow.flag`` lies beside it, announces that it is loading and then
#: takes its time (a large model, say).
SLOW_POLICY = """
import pathlib
import time

_HERE = pathlib.Path(__file__).resolve().parent
if (_HERE / "slow.flag").exists():
    (_HERE / "loading.flag").write_text("loading")
    time.sleep(60)


def policy(observation, info):
    return {"answer": ""}
"""


def _collect(out: Path, policy: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "silo_gym", "collect", "--env", "demo", "--tasks", "TASK-001",
            "--policy", f"{policy}:policy", "--episodes-per-task", "2", "--out", str(out), *extra]


def _terminate_while_loading(cmd: list[str], marker: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the policy never started loading: " + (proc.communicate()[1] or ""))
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


@pytest.fixture
def slow_policy(tmp_path: Path) -> Path:
    policy = tmp_path / "slow_policy.py"
    policy.write_text(SLOW_POLICY)
    return policy


def test_sigterm_while_the_policy_loads_exits_143_and_writes_nothing(tmp_path: Path, slow_policy: Path) -> None:
    (tmp_path / "slow.flag").write_text("")
    out = tmp_path / "out"
    done = _terminate_while_loading(_collect(out, slow_policy), tmp_path / "loading.flag")
    assert done.returncode == 143, done.stderr
    assert "--resume" not in done.stderr
    assert f"Interrupted before the collection began; nothing was written to {out}." in done.stderr
    assert not out.exists() or list(out.iterdir()) == []


def test_sigterm_while_a_resume_loads_its_policy_exits_143_and_changes_nothing(tmp_path: Path,
                                                                              slow_policy: Path) -> None:
    out = tmp_path / "out"
    first = subprocess.run(_collect(out, slow_policy), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    # What an interruption leaves: the record not complete, the last row missing.
    record_path = out / ".collect.json"
    record = json.loads(record_path.read_text())
    assert record["complete"] is True
    record["complete"] = False
    record_path.write_text(json.dumps(record))
    rows = (out / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    assert len(rows) == 2
    (out / "episodes.jsonl").write_bytes(rows[0])
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    (tmp_path / "slow.flag").write_text("")
    done = _terminate_while_loading(_collect(out, slow_policy, "--resume"), tmp_path / "loading.flag")
    assert done.returncode == 143, done.stderr
    assert "run the same command with --resume to finish the collection." in done.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing changed on disk
