"""One hostile file in a run directory never stops or hangs ``view``, ``replay`` or ``regrade``
(issue 19, item 15): only regular files are read, each with a bound, and anything else makes that
run a row (view) or a ``run_invalid`` (replay, regrade) saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import subprocess_env
from golden import gate as g

import silo_gym
from silo_gym import SiloError, files
from silo_gym.replay import regrade_run, replay_run

NAMES = ("trace.jsonl", "result.json", "state-diff.json", "run.json")

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("hostile")
    return Path(silo_gym.run_task("demo", "TASK-001", g.silo_agent("solver"), runs_dir=runs).run_dir)


def _copy(solved: Path, root: Path, name: str) -> Path:
    target = root / name
    shutil.copytree(solved, target)
    return target


def _fifo(run: Path, name: str) -> None:
    (run / name).unlink()
    os.mkfifo(run / name)


def _zero(run: Path, name: str) -> None:
    (run / name).unlink()
    os.symlink("/dev/zero", run / name)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", NAMES)
def test_a_fifo_is_refused_at_once(solved: Path, tmp_path: Path, name: str) -> None:
    run = _copy(solved, tmp_path, "run_fifo")
    _fifo(run, name)
    for call in (replay_run, regrade_run):
        with pytest.raises(SiloError) as caught:
            call(run)
        assert caught.value.code == "run_invalid"
        assert f"{name} cannot be read (it is a FIFO, not a regular file)" in caught.value.message


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", NAMES)
def test_a_link_to_dev_zero_is_refused_at_once(solved: Path, tmp_path: Path, name: str) -> None:
    run = _copy(solved, tmp_path, "run_zero")
    _zero(run, name)
    with pytest.raises(SiloError) as caught:
        replay_run(run)
    assert f"{name} cannot be read (it is a character device, not a regular file)" in caught.value.message


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", NAMES)
def test_a_file_past_the_bound_is_refused(solved: Path, tmp_path: Path, name: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    run = _copy(solved, tmp_path, "run_big")
    bound = max((run / n).stat().st_size for n in NAMES)  # every other file fits
    with open(run / name, "ab") as fh:
        fh.write(b" " * bound)  # an endless file, as far as the bound can tell
    monkeypatch.setattr(files, "MAX_RUN_FILE_BYTES", bound)
    with pytest.raises(SiloError) as caught:
        replay_run(run)
    assert (f"{name} cannot be read (it holds more than {bound} bytes, the most silo_gym reads of a run "
            "file)") in caught.value.message


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_the_bound_holds_whatever_size_the_file_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    # A /proc file says it is empty (st_size 0) and is as long as it is: the bound counts bytes read.
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    assert b"Pid:" in files.read_run_file(status)
    monkeypatch.setattr(files, "MAX_RUN_FILE_BYTES", 16)
    with pytest.raises(OSError, match="more than 16 bytes"):
        files.read_run_file(status)


@pytest.mark.timeout(120)
def test_view_makes_each_hostile_run_a_row(solved: Path, tmp_path: Path) -> None:
    pytest.importorskip("jinja2")
    from silo_gym.view import build_view

    root = tmp_path / "runs"
    root.mkdir()
    _copy(solved, root, "run_20260101000000_good")
    _fifo(_copy(solved, root, "run_20260101000000_fifo"), "trace.jsonl")
    _zero(_copy(solved, root, "run_20260101000000_zero"), "result.json")
    view = build_view(root, tmp_path / "out")
    problems = {Path(r.run_dir).name: r.problem for r in view.runs}
    assert problems["run_20260101000000_good"] is None
    assert "trace.jsonl cannot be read (it is a FIFO, not a regular file)" in (problems["run_20260101000000_fifo"] or "")
    assert "result.json cannot be read (it is a character device" in (problems["run_20260101000000_zero"] or "")
    index = (tmp_path / "out" / "index.html").read_text("utf-8")
    assert "it is a FIFO, not a regular file" in index


@pytest.mark.timeout(120)
def test_the_commands_say_why_and_do_not_hang(solved: Path, tmp_path: Path) -> None:
    run = _copy(solved, tmp_path, "run_fifo")
    _fifo(run, "trace.jsonl")
    for command in ("replay", "regrade"):
        done = subprocess.run([sys.executable, "-m", "silo_gym", command, str(run)], capture_output=True,
                              text=True, env=subprocess_env(), timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 1, done.stderr
        assert "trace.jsonl cannot be read (it is a FIFO, not a regular file)" in done.stderr


@pytest.mark.timeout(60)
def test_a_fifo_named_regrade_json_in_the_out_directory_does_not_block(solved: Path, tmp_path: Path) -> None:
    run = _copy(solved, tmp_path, "run_ok")
    out = tmp_path / "regraded"
    out.mkdir()
    os.mkfifo(out / "regrade.json")
    (out / "result.json").write_text("{}")
    with pytest.raises(SiloError) as caught:
        regrade_run(run, out_dir=out)
    assert caught.value.code == "output_invalid" and "holds run artifacts (result.json)" in caught.value.message
