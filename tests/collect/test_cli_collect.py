"""``silo-gym collect`` end to end."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from silo_gym.cli import main
from silo_gym.data import EPISODE_COLUMNS, read

from ._helpers import ROOT, SOLVER_PATH


def test_collect_random_and_reference(tmp_path, capsys):
    parquet = importlib.util.find_spec("pyarrow") is not None
    out = tmp_path / "ds"
    code = main(["collect", "--env", "demo", "--tasks", "TASK-001,TASK-004", "--policy", "random",
                 "--episodes-per-task", "2", "--out", str(out), "--format", "jsonl,parquet" if parquet else "jsonl",
                 "--seed", "3", "--runs-dir", str(tmp_path / "runs")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Collected 4 episodes from demo with policy random (seed 3)." in captured.out
    assert "TASK-001  mean reward" in captured.out and "TASK-004  mean reward" in captured.out
    assert "Preference pairs: " in captured.out
    assert str(out / "episodes.jsonl") in captured.out
    for name in ("episodes.jsonl", "pairs.jsonl") + (("episodes.parquet", "pairs.parquet") if parquet else ()):
        assert (out / name).is_file()
    rows = read(out / "episodes.jsonl")
    assert len(rows) == 4 and all(tuple(r) == EPISODE_COLUMNS for r in rows)
    if parquet:
        assert read(out / "episodes.parquet") == rows
    assert len(list((tmp_path / "runs").iterdir())) == 4
    assert captured.err == ""  # no progress bar when stderr is not a terminal

    ref = tmp_path / "ref"
    code = main(["collect", "--env", "demo", "--tasks", "TASK-004", "--policy", f"{SOLVER_PATH}:make_policy",
                 "--episodes-per-task", "1", "--out", str(ref)])
    assert code == 0
    assert read(ref / "episodes.jsonl")[0]["reward"] == 1.0


def test_collect_subprocess_with_pairs(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SILO_GYM_PATH"}
    out = tmp_path / "out"
    agent = os.path.relpath(SOLVER_PATH, ROOT)
    cmd = [sys.executable, "-m", "silo_gym", "collect", "--env", "demo", "--tasks", "TASK-005", "--policy",
           "random", "--episodes-per-task", "3", "--out", str(out)]
    first = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    cmd2 = [sys.executable, "-m", "silo_gym", "collect", "--env", "demo", "--tasks", "TASK-005", "--policy",
            agent, "--episodes-per-task", "1", "--out", str(tmp_path / "ref")]
    second = subprocess.run(cmd2, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    rows = read(out / "episodes.jsonl") + read(tmp_path / "ref" / "episodes.jsonl")
    assert rows[-1]["policy"] == agent and rows[-1]["reward"] == 1.0
    lines = (out / "pairs.jsonl").read_text().splitlines()
    assert all(json.loads(line)["task_id"] == "TASK-005" for line in lines)


@pytest.mark.parametrize(("argv", "message"), [
    (["--policy", "random", "--out", "x"], "Missing --env."),
    (["--env", "demo", "--out", "x"], "Missing --policy."),
    (["--env", "demo", "--policy", "random"], "Missing --out."),
    (["--env", "demo", "--policy", "random", "--out", "x", "--format", "csv"], "--format must be"),
    (["--env", "demo", "--policy", "random", "--out", "x", "--tasks", "TASK-999"], 'Unknown task "TASK-999"'),
    (["--env", "demo", "--policy", "random", "--out", "x", "--episodes-per-task", "0"], "at least 1"),
    (["--env", "demo", "--policy", "random", "--out", "x", "--episodes-per-task", "-2"],
     "error: --episodes-per-task must be at least 1; got -2.\nusage: silo-gym collect [-h] --env E"),
    (["--env", "demo", "--policy", "random", "--out", "x", "--max-pairs-per-task", "-1"],
     "--max-pairs-per-task must be at least 0; got -1."),
    (["--env", "demo", "--policy", "random", "--out", "x", "--seed", "x"], "--seed must be a whole number."),
    (["--env", "demo", "--policy", "random", "--out", "x", "--episodes", "3"], "Unknown flag --episodes"),
    (["--env", "demo", "--policy", "random", "--out"], "--out needs a value."),
    (["--env", "demo", "--policy", "missing.py", "--out", "x"], "agent_invalid"),
])
def test_collect_usage_errors(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(["collect", *argv]) == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("fmt", "missing", "message"), [
    ("jsonl,parquet", "pyarrow", 'Parquet and Hugging Face output need pyarrow: pip install "silo-gym[data]"'),
    ("hf", "datasets", 'Hugging Face output needs datasets: pip install "silo-gym[data]"'),
])
def test_a_missing_format_library_is_refused_before_any_episode(tmp_path, capsys, monkeypatch, fmt, missing,
                                                                 message):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == missing else real(name, *a))
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "runs"
    assert main(["collect", "--env", "demo", "--policy", "random", "--out", "out", "--format", fmt,
                 "--runs-dir", str(runs)]) == 1
    assert message in capsys.readouterr().err
    assert not runs.exists() and not (tmp_path / "out").exists()  # nothing played, nothing written


def test_two_collections_never_write_into_one_directory_at_once(tmp_path, capsys, monkeypatch):
    import fcntl
    import threading

    from silo_gym.data.stream import ResumeError, collect_jsonl

    out, runs = tmp_path / "out", tmp_path / "runs"
    started, release = threading.Event(), threading.Event()

    def slow(observation, info):  # the first collection's policy: waits inside its first episode
        started.set()
        release.wait(30)
        return {"answer": ""}

    first: dict = {}
    worker = threading.Thread(target=lambda: first.update(rows=collect_jsonl(
        out, ["silo/demo-TASK-001"], slow, episodes_per_task=1, runs_dir=runs / "a")))
    worker.start()
    try:
        assert started.wait(30)
        with pytest.raises(ResumeError, match=r"Another collection is writing to .*out now"):
            collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1, runs_dir=runs / "b")
        with pytest.raises(ResumeError, match="Another collection is writing"):  # --resume is no way round it
            collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1, resume=True)
        monkeypatch.chdir(tmp_path)
        assert main(["collect", "--env", "demo", "--tasks", "TASK-001", "--policy", "random", "--out", "out"]) == 1
        assert "Another collection is writing to out now" in capsys.readouterr().err
    finally:
        release.set()
        worker.join(30)
    assert [r["reward"] for r in first["rows"]] == [0.0]  # the first one finished undisturbed
    assert not (runs / "b").exists()  # the refused ones played nothing
    # no lock file; .collect-runs lists the run directories of the collection (issue 19, item 10)
    assert sorted(p.name for p in out.iterdir()) == [".collect-runs", ".collect.json", "episodes.jsonl"]
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the lock was released
    finally:
        os.close(fd)


def test_a_collection_that_appears_while_another_starts_is_not_overwritten(tmp_path, monkeypatch):
    # The checks of a new directory run before it exists; if another collection creates it and
    # writes there in that window, this one refuses instead of truncating its rows.
    from silo_gym.data import stream as stream_module
    from silo_gym.data.stream import ResumeError, collect_jsonl

    out = tmp_path / "out"
    real = stream_module._lock

    def lock_after_a_rival_wrote(path):
        (path / "episodes.jsonl").write_text('{"rival": 1}\n')
        return real(path)

    monkeypatch.setattr(stream_module, "_lock", lock_after_a_rival_wrote)
    with pytest.raises(ResumeError, match="Another collection started writing to .*out while this one"):
        collect_jsonl(out, ["silo/demo-TASK-001"], "random", episodes_per_task=1)
    assert (out / "episodes.jsonl").read_text() == '{"rival": 1}\n'
    assert sorted(p.name for p in out.iterdir()) == ["episodes.jsonl"]
