"""``silo-gym view`` over run directories that cannot be read: one bad run is one row, never a
failed report; an ``--out`` that is a link or empty is refused before anything is written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

from conftest import listing, subprocess_env  # noqa: E402
from golden import gate as g  # noqa: E402

import silo_gym  # noqa: E402
from silo_gym import SiloError  # noqa: E402
from silo_gym.view import build_view  # noqa: E402


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("view-robust")
    return Path(silo_gym.run_task("demo", "TASK-001", g.silo_agent("solver"), runs_dir=runs).run_dir)


def _copy(run: Path, root: Path, name: str) -> Path:
    target = root / name
    shutil.copytree(run, target)
    return target


def _as_directory(run: Path, name: str) -> None:
    (run / name).unlink()
    (run / name).mkdir()


def test_every_unreadable_run_is_a_row_saying_why(solved: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    good = _copy(solved, root, "run_20260101000000_good")
    expected: dict[str, str] = {}
    for i, name in enumerate(("result.json", "trace.jsonl", "run.json", "state-diff.json")):
        run = _copy(solved, root, f"run_20260101000000_dir{i}")
        _as_directory(run, name)
        expected[run.name] = f"{name} cannot be read (Is a directory)"
    both = root / "run_20260101000000_both"  # no readable file at all: still a run directory
    both.mkdir()
    (both / "trace.jsonl").mkdir()
    (both / "run.json").mkdir()
    expected[both.name] = "trace.jsonl cannot be read (Is a directory)"
    undecodable = _copy(solved, root, "run_20260101000000_utf8")
    (undecodable / "run.json").write_bytes(b"\xff\xfe{}")
    expected[undecodable.name] = "run.json is not valid JSON at line 1, column 1: Invalid UTF-8 byte 0xff"
    edited = _copy(solved, root, "run_20260101000000_edit")
    result = json.loads((edited / "result.json").read_text())
    result["checks"] = "abc"
    (edited / "result.json").write_text(json.dumps(result))
    expected[edited.name] = "result.json is not a valid result.json: checks: Input should be a valid list"
    mismatch = _copy(solved, root, "run_20260101000000_task")
    run_json = json.loads((mismatch / "run.json").read_text())
    run_json["taskId"] = "TASK-002"
    (mismatch / "run.json").write_text(json.dumps(run_json))
    expected[mismatch.name] = "run.json and trace.jsonl disagree on taskId"

    view = build_view(root, tmp_path / "out")
    problems = {r.run_dir.rsplit("/", 1)[-1]: r.problem for r in view.runs}
    assert problems.pop(good.name) is None
    assert set(problems) == set(expected)
    for name, part in expected.items():
        assert part in (problems[name] or ""), (name, problems[name])
        assert "Errno" not in (problems[name] or "")
    index = view.index.read_text()
    assert "cannot be read (Is a directory)" in index and "disagree on taskId" in index
    assert view.text() == f"Wrote {len(expected) + 1} run pages ({len(expected)} unreadable); open {view.index}\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_run_directory_that_cannot_be_listed_is_a_row(solved: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    _copy(solved, root, "run_20260101000000_good")
    locked = _copy(solved, root, "run_20260101000000_lock")
    locked.chmod(0)
    try:
        view = build_view(root, tmp_path / "out")
    finally:
        locked.chmod(0o755)
    problems = {r.run_dir.rsplit("/", 1)[-1]: r.problem for r in view.runs}
    assert problems["run_20260101000000_good"] is None
    assert "Permission denied" in (problems[locked.name] or "")


def test_an_out_that_is_a_link_to_an_earlier_report_is_refused(solved: Path, tmp_path: Path) -> None:
    real = tmp_path / "report"
    build_view(solved, real)
    before = {p: p.read_bytes() for p in real.rglob("*") if p.is_file()}
    link = tmp_path / "latest"
    link.symlink_to(real)
    with pytest.raises(SiloError) as caught:
        build_view(solved, link)
    assert caught.value.code == "output_invalid"
    assert caught.value.message == (
        f"--out {link} is a symbolic link (to {real}); the report replaces its --out directory whole, so "
        "give the directory itself, or remove the link.")
    assert link.is_symlink() and {p: p.read_bytes() for p in real.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest", "report"]  # no staging left behind

    done = subprocess.run([sys.executable, "-m", "silo_gym", "view", str(solved), "--out", str(link)],
                          capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert done.returncode == 1 and done.stderr.startswith(f"error: output_invalid: --out {link} is a symbolic link")
    assert "rmtree" not in done.stderr


def test_an_empty_out_is_refused(solved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SiloError) as caught:
        build_view(solved, "")
    assert caught.value.code == "output_invalid" and "empty path" in caught.value.message
    assert listing(tmp_path) == []
