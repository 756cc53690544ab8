"""What a collection leaves on disk matches its rows (issue 19, items 5 and 10).

- Collecting into an ``--out`` that already holds a data set is refused unless ``--resume``
  (finish or keep it) or ``--overwrite`` (replace the whole data set: its files, in every format,
  and the run directories of its rows).
- After ``kill -9`` and ``--resume``, and after ``iter_collect`` is closed early, every run
  directory left is named by exactly one row and every row's run directory is there.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from silo_gym.cli import main
from silo_gym.data import collect, iter_collect, read
from silo_gym.data.stream import ResumeError, collect_jsonl

from ._helpers import ROOT

PARQUET = importlib.util.find_spec("pyarrow") is not None
RUN_FILES = ["result.json", "run.json", "state-diff.json", "trace.jsonl"]


def _argv(out: Path, *extra: str) -> list[str]:
    return ["collect", "--env", "demo", "--tasks", "TASK-004,TASK-001", "--policy", "random",
            "--episodes-per-task", "2", "--out", str(out), *extra]


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def _run_dirs_match_rows(runs: Path, rows: list[dict]) -> None:
    named = sorted(r["run_id"] for r in rows if r["run_id"] is not None)
    assert sorted(p.name for p in runs.iterdir()) == named
    for name in named:
        assert sorted(p.name for p in (runs / name).iterdir()) == RUN_FILES, name


# -- item 5: a finished --out -------------------------------------------------------------------------


@pytest.mark.parametrize("again", [[], ["--seed", "7"], ["--format", "jsonl"]], ids=["same", "other-seed", "jsonl"])
def test_collecting_into_a_finished_out_is_refused_and_changes_nothing(tmp_path, capsys, again):
    out, runs = tmp_path / "out", tmp_path / "runs"
    fmt = "jsonl,parquet" if PARQUET else "jsonl"
    assert main(_argv(out, "--format", fmt, "--runs-dir", str(runs))) == 0
    capsys.readouterr()
    before = _snapshot(tmp_path)
    assert main(_argv(out, "--runs-dir", str(runs), *again)) == 1
    err = capsys.readouterr().err
    assert f"{out} already holds a data set" in err
    assert "--overwrite" in err and "--resume" in err
    assert _snapshot(tmp_path) == before


def test_a_data_set_written_by_data_write_is_not_overwritten(tmp_path):
    from silo_gym import data

    out = tmp_path / "out"
    data.write(collect(["silo/demo-TASK-001"], "random", episodes_per_task=1), out)
    before = _snapshot(out)
    with pytest.raises(ResumeError, match="already holds a data set.*episodes.jsonl"):
        collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1)
    assert _snapshot(out) == before


def test_overwrite_replaces_the_whole_data_set(tmp_path, capsys):
    out, runs = tmp_path / "out", tmp_path / "runs"
    fmt = "jsonl,parquet" if PARQUET else "jsonl"
    assert main(_argv(out, "--format", fmt, "--runs-dir", str(runs))) == 0
    old = read(out / "episodes.jsonl")
    (out / "notes.txt").write_text("mine")  # not the data set's: kept
    capsys.readouterr()
    assert main(_argv(out, "--seed", "3", "--runs-dir", str(runs), "--overwrite")) == 0
    rows = read(out / "episodes.jsonl")
    assert {r["run_id"] for r in rows}.isdisjoint(r["run_id"] for r in old)
    # Only what this collection wrote is there: no Parquet of the old one beside the new JSONL.
    assert sorted(p.name for p in out.iterdir()) == sorted([".collect.json", ".collect-runs", "episodes.jsonl",
                                                            "notes.txt", "pairs.jsonl"])
    _run_dirs_match_rows(runs, rows)


def test_overwrite_and_resume_exclude_each_other(tmp_path, capsys):
    assert main(_argv(tmp_path / "out", "--overwrite", "--resume")) == 1
    assert "--overwrite and --resume" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_overwrite_refuses_a_directory_it_did_not_write(tmp_path):
    out = tmp_path / "out"
    collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1)
    (out / "pairs").mkdir()  # where Hugging Face output goes, but not a saved data set
    (out / "pairs" / "mine.txt").write_text("mine")
    before = _snapshot(out)
    with pytest.raises(ResumeError, match=r"pairs is not a data set silo-gym wrote"):
        collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1, overwrite=True)
    assert _snapshot(out) == before


def test_an_unfinished_collection_without_rows_may_be_started_again(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".collect.json").write_text(json.dumps({"ids": ["x"], "policy": "random", "seed": 0, "episodesPerTask": 1,
                                                   "envKwargs": {}, "complete": False}))
    rows = collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1)
    assert len(rows) == 1 and read(out / "episodes.jsonl") == rows


def test_resume_with_another_runs_dir_is_refused(tmp_path):
    out = tmp_path / "out"
    collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1, runs_dir=tmp_path / "runs")
    with pytest.raises(ResumeError, match="holds another collection.*runsDir"):
        collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1, resume=True,
                      runs_dir=tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()


# -- item 10: kill -9, then --resume; iter_collect closed early ----------------------------------------

pytest.importorskip("aiohttp")
pytest.importorskip("openai")

from silo_gym.llm import ChatPolicy, openai_acomplete  # noqa: E402
from silo_gym.mock_model import MockModelServer  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with MockModelServer(latency_ms=60) as srv:
        yield srv


def _model_command(server, out, runs, *extra):
    return [sys.executable, "-m", "silo_gym", "collect", "--env", "demo", "--policy", "openai:m",
            "--base-url", server.openai_base_url, "--episodes-per-task", "6", "--concurrency", "12",
            "--out", str(out), "--runs-dir", str(runs), *extra]


def _strip(rows):
    return [{k: v for k, v in r.items() if k != "run_id"} for r in rows]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_then_resume_leaves_one_run_directory_per_row(server, tmp_path):
    out, runs = tmp_path / "out", tmp_path / "runs"
    proc = subprocess.Popen(_model_command(server, out, runs), cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    stream = out / "episodes.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if stream.exists() and stream.read_bytes().count(b"\n") >= 8:
            break
        if proc.poll() is not None:
            pytest.fail("the collection ended before it was killed: " + proc.stderr.read())
        time.sleep(0.01)
    proc.kill()
    proc.wait(60)
    proc.stderr.close()
    partial = read(stream)
    assert 8 <= len(partial) < 36
    left = {p.name for p in runs.iterdir()}
    assert left > {r["run_id"] for r in partial}  # the episodes in flight left their directories

    done = subprocess.run(_model_command(server, out, runs, "--resume"), cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    rows = read(stream)
    assert len(rows) == 36
    _run_dirs_match_rows(runs, rows)  # the orphans are gone, each row has its run
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
    whole = collect(["silo/demo"], policy, episodes_per_task=6, concurrency=12, policy_name="openai:m")
    assert _strip(rows) == _strip(whole)  # resume still equals an uninterrupted run, row for row


def test_closing_iter_collect_early_leaves_only_the_yielded_rows_runs(server, tmp_path):
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
    stream = iter_collect(["silo/demo"], policy, episodes_per_task=8, concurrency=16, runs_dir=tmp_path)
    yielded = [next(stream)]
    time.sleep(1.0)  # more episodes finish meanwhile; their rows wait, never taken
    yielded.append(next(stream))
    stream.close()
    _run_dirs_match_rows(tmp_path, yielded)
