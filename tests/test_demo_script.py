"""``make demo``: ``examples/demo.py`` runs the reference solver on the six demo tasks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT, subprocess_env

TASK_IDS = [f"TASK-00{n}" for n in range(1, 7)]
HEADER = ["task", "title", "passed", "reward", "calls", "termination", "run directory", "random"]


def test_demo_script_runs_and_passes_every_task(tmp_path):
    runs = tmp_path / "runs"
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "examples" / "demo.py")], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120,
                          env=subprocess_env(SILO_DEMO_RUNS=str(runs)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert re.split(r"\s{2,}", lines[0].strip()) == HEADER
    rows = {}
    for line in lines:
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] in TASK_IDS:
            rows[cells[0]] = dict(zip(HEADER, cells, strict=True))
    assert sorted(rows) == TASK_IDS
    for task_id, row in rows.items():
        assert row["passed"] == "true", row
        assert row["reward"] == "1", row
        assert row["termination"] == "completed", row
        assert 0 <= float(row["random"]) <= 1, row  # the random policy's column is printed
        assert (Path(REPO_ROOT) / row["run directory"]).resolve().parent == runs.resolve(), task_id
    assert len([p for p in runs.iterdir() if (p / "result.json").is_file()]) == 6
    assert re.search(r"reference solver: 6/6 passed; random policy mean reward \d", proc.stdout)
