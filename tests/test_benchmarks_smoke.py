"""``python -m benchmarks --quick``: the benchmark runner works and writes its JSON results.

Timings are not asserted (they depend on the machine); only that each benchmark ran and wrote
well-formed results.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, subprocess_env

BENCHES = ["step", "reset", "record", "episodes", "variants", "demo_variants", "llm"]


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
def test_quick_benchmarks_write_their_results(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", ",".join(BENCHES), "--out", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=subprocess_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("machine: ")
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.json" for name in BENCHES)
    for name in BENCHES:
        path = out / f"{name}.json"
        assert f"-> {path}" in proc.stdout
        payload = json.loads(path.read_text(encoding="utf-8"))
        assert set(payload) == {"title", "machine", "results"}, name
        assert isinstance(payload["title"], str) and f"== {payload['title']} ==" in proc.stdout
        assert {"python", "machine", "cpus", "system"} <= set(payload["machine"])
        assert payload["results"], name
        for metric, row in payload["results"].items():
            assert set(row) == {"value", "unit", "note"}, (name, metric)
            assert isinstance(row["unit"], str) and isinstance(row["note"], str)
            if isinstance(row["value"], float | int):
                assert not math.isnan(row["value"]), (name, metric)
            else:
                assert isinstance(row["value"], str), (name, metric)


def test_unknown_benchmark_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "nope", "--out", str(tmp_path)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, env=subprocess_env())
    assert proc.returncode == 2
    assert "unknown benchmark(s): nope" in proc.stderr
    assert not any(tmp_path.iterdir())
