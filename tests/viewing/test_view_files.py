"""``silo-gym view`` as files and a command: escaping, no network, output directory rules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

from conftest import subprocess_env  # noqa: E402

from silo_gym import SiloError  # noqa: E402
from silo_gym.view import build_view  # noqa: E402

from .runs import HOSTILE, Runs, make_runs  # noqa: E402


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return make_runs(tmp_path_factory.mktemp("view-files") / "runs")


def _all_html(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): p.read_text("utf-8") for p in out.rglob("*.html")}


def test_pages_escape_agent_text_and_load_nothing(runs: Runs, tmp_path: Path) -> None:
    view = build_view(runs.root, tmp_path / "out")
    pages = _all_html(view.out_dir)
    assert sorted(pages) == sorted(["index.html", *(f"runs/{p.name}.html" for p in
                                                   (runs.solver, runs.do_nothing, runs.tool_path, runs.hostile,
                                                    runs.crashed))])
    hostile = pages[f"runs/{runs.hostile.name}.html"]
    assert HOSTILE not in hostile
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x onerror=" in hostile
    for name, html in pages.items():
        assert "<script" not in html.lower(), name
        assert "default-src 'none'" in html, name  # no script, no fetch, whatever slipped through
        # Nothing is fetched: no src attributes, links only to the report's own pages.
        assert re.search(r"<[^>]*\ssrc=", html) is None, name
        for href in re.findall(r'href="([^"]*)"', html):
            assert href.endswith(".html") and "://" not in href, (name, href)


def test_the_report_replaces_an_earlier_one_and_refuses_other_directories(runs: Runs, tmp_path: Path) -> None:
    out = tmp_path / "report"
    build_view(runs.root, out)
    page = next((out / "runs").iterdir())  # a page of a run since deleted: one of the viewer's pages
    (out / "runs" / "stale.html").write_bytes(page.read_bytes())
    build_view(runs.root, out)
    assert not (out / "runs" / "stale.html").exists()

    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(SiloError) as caught:
        build_view(runs.root, precious)
    assert "is not empty and holds no earlier silo-gym view" in caught.value.message
    assert sorted(p.name for p in precious.iterdir()) == ["notes.txt"]
    assert not any(p.name.startswith(".precious") for p in tmp_path.iterdir())


def test_default_output_sits_in_the_runs_directory_and_is_not_read_as_a_run(runs: Runs, tmp_path: Path) -> None:
    copy = tmp_path / "runs"
    subprocess.run(["cp", "-r", str(runs.root), str(copy)], check=True)
    first = build_view(copy)
    assert first.out_dir == copy / "view" and first.index.is_file()
    again = build_view(copy)
    assert len(again.runs) == len(first.runs) == 6


def test_a_single_run_directory_can_be_viewed(runs: Runs, tmp_path: Path) -> None:
    view = build_view(runs.solver, tmp_path / "one")
    assert [r.run_id for r in view.runs] == [runs.solver.name]
    assert "1 run from" in (view.index).read_text()


def test_the_command_line(runs: Runs, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    done = subprocess.run([sys.executable, "-m", "silo_gym", "view", str(runs.root), "--out", str(out)],
                          capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Wrote 6 run pages (1 unreadable); open {out / 'index.html'}\n"
    missing = subprocess.run([sys.executable, "-m", "silo_gym", "view", str(tmp_path / "nope")],
                             capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert missing.returncode == 1
    assert missing.stderr == f"error: run_invalid: {tmp_path / 'nope'}: not a directory of runs (it does not exist or is not a directory).\n"


def test_an_agent_error_shows_its_traceback_and_an_ungraded_run_says_so(tmp_path: Path) -> None:
    import silo_gym
    from silo_gym.view.model import load_run

    def crashes(task: str, tools: object, call_tool: object, signal: object) -> object:
        raise ValueError("the model returned garbage")

    run = silo_gym.run_task("demo", "TASK-004", crashes, runs_dir=tmp_path / "runs")
    view = load_run(Path(run.run_dir), None)
    end = view.timeline[-1]
    assert end.kind == "end" and end.is_error and "error: the model returned garbage" in end.facts
    assert [label for label, _ in end.blocks] == ["traceback"]
    assert "ValueError: the model returned garbage" in end.blocks[0][1]

    (Path(run.run_dir) / "state-diff.json").unlink()
    (Path(run.run_dir) / "result.json").unlink()
    ungraded = load_run(Path(run.run_dir), None)
    assert "No state-diff.json: the run ended ungraded (a tool call was still running)." in ungraded.notes


def test_the_index_lists_the_newest_run_first_and_unreadable_runs_last(runs: Runs, tmp_path: Path) -> None:
    view = build_view(runs.root, tmp_path / "order")
    order = re.findall(r'<tr class="run-row[^"]*" data-run="([^"]+)"', view.index.read_text())
    started = {r.run_id: r.started_at for r in view.runs if r.problem is None}
    readable = [rid for rid in order if rid in started]
    assert readable == sorted(readable, key=lambda rid: started[rid], reverse=True)
    assert order[-1] == "run_20250101000000_bad0" and len(order) == 6


def test_a_run_with_foreign_content_is_an_unreadable_row_not_a_failed_report(runs: Runs, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    subprocess.run(["cp", "-r", str(runs.solver), str(root / runs.solver.name)], check=True)
    odd = root / "run_20260101000000_odd0"
    subprocess.run(["cp", "-r", str(runs.solver), str(odd)], check=True)
    trace = odd / "trace.jsonl"
    trace.write_text(trace.read_text().replace('"toolCalls":2', '"toolCalls":"many"'))
    view = build_view(root, tmp_path / "out")
    problems = {r.run_id: r.problem for r in view.runs}
    assert problems[runs.solver.name] is None
    problem = 'trace.jsonl line 7 (run_end): toolCalls: Input should be a valid integer (got "many").'
    assert (problems[odd.name] or "").endswith(problem)
    assert problem.replace('"', "&#34;") in view.index.read_text()


def test_a_lone_surrogate_in_an_answer_does_not_fail_the_report(tmp_path: Path) -> None:
    import os
    import stat

    import gymnasium as gym

    from silo_gym.wrappers import RecordRun

    runs_dir = tmp_path / "runs"
    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=runs_dir)
    env.reset()
    env.step({"answer": "bad \ud800 answer"})
    out = tmp_path / "report"
    build_view(runs_dir, out)
    page = next((out / "runs").glob("*.html")).read_bytes().decode("utf-8")  # valid UTF-8
    assert "bad \\ud800 answer" in page
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o755
