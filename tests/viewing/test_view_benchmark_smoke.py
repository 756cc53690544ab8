"""``python -m benchmarks --quick --only view``: the viewer benchmark runs (timings not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, subprocess_env

pytest.importorskip("jinja2")


def test_the_view_benchmark_runs_on_a_few_runs(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "view", "--out", str(out)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=subprocess_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((out / "view.json").read_text())["results"]
    assert "silo-gym view over 24 runs" in proc.stdout
    for metric in ("read every run directory (floor)", "report without replay",
                   "report (default: replays for before/after)", "default, per 1,000 runs"):
        assert results[metric]["value"] > 0, metric
    assert results["default, per 1,000 runs"]["note"].startswith("target <= 10")
