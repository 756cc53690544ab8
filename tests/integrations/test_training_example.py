"""examples/train_grpo_trl.py runs end to end (tiny sizes) and prints what it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, subprocess_env

pytest.importorskip("trl")
pytest.importorskip("torch")


pytestmark = pytest.mark.slow  # make test-fast leaves this module out (README, "Developing")

def test_the_grpo_example_prints_a_mean_reward_per_step_and_records_runs(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "train_grpo_trl.py"), "--tasks", "silo/demo-TASK-004",
         "--sft-steps", "2", "--steps", "1", "--num-generations", "2", "--max-completion-length", "256",
         "--runs-dir", str(runs),
         "--output-dir", str(tmp_path / "out")],
        cwd=tmp_path, capture_output=True, text=True, timeout=240, env=subprocess_env(TRL_EXPERIMENTAL_SILENCE="1"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "SFT warm start on 1 solver episodes of TASK-004" in out
    match = re.search(r"^step 1 mean reward (\S+) \(rewards ((?:\S+ ?)+)\)$", out, re.MULTILINE)
    assert match is not None, out
    rewards = [float(r) for r in match.group(2).split()]
    assert len(rewards) == 4 and float(match.group(1)) == pytest.approx(sum(rewards) / 4, abs=1e-3)
    assert len([p for p in runs.iterdir() if (p / "result.json").is_file()]) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "runs"]  # nothing else written
