"""``python -m benchmarks --quick --only eval``: the eval-over-collect row runs and writes its figures
(timings are not asserted: they depend on the machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT, subprocess_env


def test_quick_eval_benchmark_writes_its_rows(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "eval", "--out", str(out)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, env=subprocess_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((out / "eval.json").read_text())["results"]
    ratios = [name for name in results if name.endswith("eval / collect")]
    shares = [name for name in results if name.endswith("eval's own work / its episodes")]
    assert len(ratios) == 2 and len(shares) == 2  # the random policy and the scripted model
    for name in ratios + shares:
        assert isinstance(results[name]["value"], float) and results[name]["value"] > 0
        assert results[name]["note"].startswith("target <= ")
