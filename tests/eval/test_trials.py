"""silo_gym.eval.trials and report: a trial from its row and run, reward components carried,
damaged runs named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from silo_gym.data.stream import read_stream
from silo_gym.eval import EvalError, evaluate
from silo_gym.eval.report import build_report, task_summary
from silo_gym.eval.trials import failure_kind, trial_of


@pytest.fixture
def evaluated(tmp_path: Path) -> Path:
    out = tmp_path / "e"
    evaluate("silo/demo-TASK-002", "random", trials=2, out_dir=out)
    return out


def test_reward_components_of_the_rows_are_carried(evaluated: Path) -> None:
    rows = read_stream(evaluated / "episodes.jsonl")
    for i, row in enumerate(rows):  # as rows carry them once collect adds the column
        row["reward_components"] = {"required": 0.5 * i, "optional": 1.0}
    trials = [trial_of(row, None, evaluated / "runs") for row in rows]
    entry = task_summary(trials, 2, [None, None], {None: (0.6, False)}, None, None)
    assert entry["reward_components"] == {"required": 0.25, "optional": 1.0}
    assert entry["episodes"][1]["reward_components"] == {"required": 0.5, "optional": 1.0}
    data = build_report({"policy": "random", "trials": 2}, {"demo/TASK-002": trials}, {"demo/TASK-002": [None, None]},
                        2, {"demo/TASK-002": {None: (0.6, False)}}, None, None, {})
    assert data["overall"]["reward_components"] == {"required": 0.25, "optional": 1.0}
    # Rows without them: no key at all (eval.json as before).
    plain = [trial_of(row, None, evaluated / "runs") for row in read_stream(evaluated / "episodes.jsonl")]
    assert "reward_components" not in task_summary(plain, 2, [None, None], {None: (0.6, False)}, None, None)


def test_a_missing_or_damaged_run_is_named(evaluated: Path) -> None:
    rows = read_stream(evaluated / "episodes.jsonl")
    run = evaluated / "runs" / rows[0]["run_id"]
    (run / "trace.jsonl").write_bytes(b'{"seq":1,"type":"model_step","usage":\n')
    with pytest.raises(EvalError, match=r"trace.jsonl \(trial 0 of demo/TASK-002\)"):
        trial_of(rows[0], None, evaluated / "runs")
    shutil.rmtree(run)
    with pytest.raises(EvalError, match=r"Cannot read .*result.json \(trial 0 of demo/TASK-002\)"):
        trial_of(rows[0], None, evaluated / "runs")
    with pytest.raises(EvalError, match="has no run directory"):
        trial_of({**rows[1], "run_id": None}, None, evaluated / "runs")


def test_a_failed_row_is_a_trial_without_reward() -> None:
    row = {"environment": "demo", "task_id": "TASK-001", "episode": 3, "reward": None, "retries": 2,
           "error": "Episode failed after 3 attempt(s): HTTPError: 503"}
    trial = trial_of(row, 7, None)
    assert (trial.reward, trial.passed, trial.failure, trial.variant, trial.retries) == (None, False, "error", 7, 2)
    assert failure_kind("Episode timed out after 30 s (episode_timeout_s): ...") == "timeout"
    assert trial.summary()["failure"] == "error" and trial.summary()["reward"] is None
