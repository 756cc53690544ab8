"""``make demo``: ``examples/demo.py`` runs the reference solvers on every task of the three shipped worlds
(six CRM tasks, fifteen project tasks, eighteen ERP tasks) and on one project variant per task."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import REPO_ROOT, subprocess_env

TASK_IDS = {
    "demo": [f"TASK-00{n}" for n in range(1, 7)],
    "project": [f"TASK-{n:03d}" for n in range(1, 16)],
    "erp": [f"TASK-{n:03d}" for n in range(1, 19)],
}
HEADER = ["world", "task", "title", "passed", "reward", "calls", "random"]


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
    for row in rows.values():
        assert row["passed"] == "true", row
        assert row["reward"] == "1", row
        assert 0 <= float(row["random"]) <= 1, row  # the random policy's column is printed
        assert 0 < len(row["title"]) <= 29, row
    assert "ended early" not in proc.stdout  # every solver episode completed
    assert len([p for p in runs.iterdir() if (p / "result.json").is_file()]) == 39
    assert re.search(r"reference solvers: 39/39 passed; random policy: mean reward \d", proc.stdout)
    assert f"runs recorded in {os.path.relpath(runs, REPO_ROOT)}\n" in proc.stdout
    assert re.search(r"project variants: 15/15 passed, one drawn per task \(e\.g\. variant \d+\)", proc.stdout)
    # `make demo` fits an 80-column terminal (issue 19, item 4): only the runs path may be longer
    wide = [line for line in lines if len(line) > 79 and not line.startswith("runs recorded in ")]
    assert wide == []
