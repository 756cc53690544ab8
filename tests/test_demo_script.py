"""``make demo``: ``examples/demo.py`` runs the reference solvers on every task of both shipped worlds
(six CRM tasks, fifteen project tasks) and on one project variant per task."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT, subprocess_env

TASK_IDS = {"demo": [f"TASK-00{n}" for n in range(1, 7)], "project": [f"TASK-{n:03d}" for n in range(1, 16)]}
HEADER = ["world", "task", "title", "passed", "reward", "calls", "termination", "run directory", "random"]


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
            rows[(cells[0], cells[1])] = dict(zip(HEADER, cells, strict=True))
    assert sorted(rows) == sorted((w, t) for w, tasks in TASK_IDS.items() for t in tasks)
    for task_id, row in rows.items():
        assert row["passed"] == "true", row
        assert row["reward"] == "1", row
        assert row["termination"] == "completed", row
        assert 0 <= float(row["random"]) <= 1, row  # the random policy's column is printed
        assert (Path(REPO_ROOT) / row["run directory"]).resolve().parent == runs.resolve(), task_id
    assert len([p for p in runs.iterdir() if (p / "result.json").is_file()]) == 21
    assert re.search(r"reference solvers: 21/21 passed; random policy mean reward \d", proc.stdout)
    assert re.search(r"project variants: 15/15 passed, one drawn variant per task \(variants \d+, \d+, \d+, \.\.\.\)",
                     proc.stdout)
