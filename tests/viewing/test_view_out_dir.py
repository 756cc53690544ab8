"""``silo-gym view --out O`` deletes nothing it did not write (issue 19, item 6): an earlier report is
replaced only when it holds nothing but the viewer's own pages, and an ``--out`` that holds the runs
shown is refused, so recorded runs are never deleted."""

from __future__ import annotations

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
    runs = tmp_path_factory.mktemp("view-out")
    return Path(silo_gym.run_task("demo", "TASK-001", g.silo_agent("solver"), runs_dir=runs).run_dir)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _report(solved: Path, tmp_path: Path) -> Path:
    """An earlier report in tmp_path/report."""
    source = tmp_path / "source"
    source.mkdir()
    shutil.copytree(solved, source / solved.name)
    out = tmp_path / "report"
    build_view(source, out)
    return out


def test_runs_kept_inside_an_earlier_report_are_not_deleted(solved: Path, tmp_path: Path) -> None:
    out = _report(solved, tmp_path)
    # The user keeps recorded runs inside the report directory, then views them into it.
    inside = out / "runs" / "recorded"
    shutil.copytree(solved, inside / solved.name)
    before = _files(out)
    with pytest.raises(SiloError) as caught:
        build_view(inside, out)
    assert caught.value.code == "output_invalid"
    assert "holds the runs to show" in caught.value.message
    assert _files(out) == before
    # The same from the shell: exit 1, the runs still there.
    done = subprocess.run([sys.executable, "-m", "silo_gym", "view", str(inside), "--out", str(out)],
                          capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert done.returncode != 0 and "holds the runs to show" in done.stderr
    assert _files(out) == before


def test_runs_beside_the_pages_of_an_earlier_report_are_not_deleted(solved: Path, tmp_path: Path) -> None:
    out = _report(solved, tmp_path)
    shutil.copytree(solved, out / "runs" / solved.name)  # a run directory among the pages
    before = _files(out)
    with pytest.raises(SiloError) as caught:
        build_view(tmp_path / "source", out)
    assert "holds an earlier silo-gym view and also" in caught.value.message
    assert str(out / "runs" / solved.name) in caught.value.message
    assert _files(out) == before


@pytest.mark.parametrize("where", ["top", "runs"])
def test_a_foreign_file_in_an_earlier_report_is_kept(solved: Path, tmp_path: Path, where: str) -> None:
    out = _report(solved, tmp_path)
    foreign = (out if where == "top" else out / "runs") / "notes.txt"
    foreign.write_text("keep me")
    before = _files(out)
    with pytest.raises(SiloError) as caught:
        build_view(tmp_path / "source", out)
    assert str(foreign) in caught.value.message
    assert _files(out) == before
    assert not any(p.name.startswith(".report.") for p in tmp_path.iterdir())  # no staging left


def test_a_page_that_is_not_the_viewers_is_kept(solved: Path, tmp_path: Path) -> None:
    out = _report(solved, tmp_path)
    (out / "runs" / "mine.html").write_text("<html>my own notes</html>")
    before = _files(out)
    with pytest.raises(SiloError, match="mine.html, which the view did not write"):
        build_view(tmp_path / "source", out)
    assert _files(out) == before


def test_a_link_inside_an_earlier_report_is_kept_and_not_followed(solved: Path, tmp_path: Path) -> None:
    out = _report(solved, tmp_path)
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "data.txt").write_text("precious")
    os.symlink(target, out / "runs" / "link.html")
    with pytest.raises(SiloError, match="link.html"):
        build_view(tmp_path / "source", out)
    assert (out / "runs" / "link.html").is_symlink()
    assert (target / "data.txt").read_text() == "precious"


def test_viewing_a_directory_into_itself_is_refused(solved: Path, tmp_path: Path) -> None:
    source = tmp_path / "runs"
    shutil.copytree(solved, source / solved.name)
    before = listing(source)
    with pytest.raises(SiloError, match="holds the runs to show"):
        build_view(source, source)
    with pytest.raises(SiloError, match="holds the runs to show"):
        build_view(source / solved.name, source)  # one run, inside the out directory
    assert listing(source) == before


def test_an_earlier_report_of_the_viewers_own_pages_is_replaced(solved: Path, tmp_path: Path) -> None:
    out = _report(solved, tmp_path)
    page = next((out / "runs").iterdir())
    shutil.copy(page, out / "runs" / "run_20200101000000_gone.html")  # a page of a run since deleted
    build_view(tmp_path / "source", out)
    assert not (out / "runs" / "run_20200101000000_gone.html").exists()
    assert sorted(p.name for p in (out / "runs").iterdir()) == [page.name]
