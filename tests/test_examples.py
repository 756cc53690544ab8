"""The runnable examples: each runs in a child Python and prints the numbers it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT, subprocess_env

EXAMPLES = REPO_ROOT / "examples"
TASK_IDS = [f"TASK-00{n}" for n in range(1, 7)]


def run_example(name: str, *args: str, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=subprocess_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def number(pattern: str, text: str) -> float:
    match = re.search(pattern, text, re.MULTILINE)
    assert match is not None, f"{pattern!r} not in:\n{text}"
    return float(match.group(1))


def test_quickstart_gets_reward_one(tmp_path: Path) -> None:
    out = run_example("quickstart.py", cwd=tmp_path)
    assert "probability-weighted" in out.splitlines()[0]
    assert number(r"^reward: (\S+) passed: True terminated: True$", out) == 1.0


def test_vector_rollouts_solver_beats_random(tmp_path: Path) -> None:
    out = run_example("vector_rollouts.py", "--episodes", "3", cwd=tmp_path)
    assert out.splitlines()[0] == "3 episodes per task, 6 sub-envs (sync)"
    lines = out.splitlines()
    assert lines[1].split() == ["policy", *TASK_IDS, "mean"]
    rows = {cells[0]: cells[1:] for cells in map(str.split, lines[2:4])}
    assert sorted(rows) == ["random", "solver"]
    assert rows["solver"] == ["1.000"] * 7  # every task, and the mean
    random_per_task = [float(x) for x in rows["random"][:6]]
    assert all(0.0 <= r < 1.0 for r in random_per_task)
    solver_mean = number(r"^solver mean reward: (\S+)$", out)
    random_mean = number(r"^random mean reward: (\S+)$", out)
    assert solver_mean == 1.0 > random_mean
    assert random_mean == round(sum(random_per_task) / 6, 3)


def test_vector_rollouts_async_matches_sync(tmp_path: Path) -> None:
    sync = run_example("vector_rollouts.py", "--episodes", "2", "--seed", "5", cwd=tmp_path)
    asyn = run_example("vector_rollouts.py", "--episodes", "2", "--seed", "5", "--async", cwd=tmp_path)
    assert asyn.splitlines()[0].endswith("(async)")
    assert sync.splitlines()[1:] == asyn.splitlines()[1:]


def test_train_loop_learns_from_the_reward(tmp_path: Path) -> None:
    args = ("--envs-per-task", "3", "--iterations", "15", "--seed", "0")
    out = run_example("train_loop.py", *args, cwd=tmp_path)
    curve = [float(x) for x in re.findall(r"^iteration +\d+ +mean reward (\S+)", out, re.MULTILINE)]
    assert len(curve) == 15
    initial = number(r"^initial mean reward: (\S+)$", out)
    final = number(r"^final mean reward: (\S+)$", out)
    assert (initial, final) == (curve[0], curve[-1])
    assert initial < 0.8  # a uniform choice among the plans is far from solved
    assert final > initial and final >= 0.9
    assert sum(curve[-5:]) / 5 > sum(curve[:5]) / 5 + 0.2  # the whole curve rises, not one lucky batch
    for task in TASK_IDS:
        assert re.search(rf"^{task}: most likely plan '(reference|wrong person)'", out, re.MULTILINE), out
    assert run_example("train_loop.py", *args, cwd=tmp_path) == out  # deterministic with --seed


def test_concurrent_collect_against_the_scripted_server(tmp_path: Path) -> None:
    out = run_example("concurrent_collect.py", cwd=tmp_path)
    first = out.splitlines()[0]
    assert first.startswith("120 episodes in "), out
    assert "mean reward 1.00, 1 model calls retried, 1 failed" in first  # the 429, then the hung call
    assert "Episode timed out after 10 s (episode_timeout_s)" in out


def test_curriculum_spends_episodes_where_the_pass_rate_is_in_the_middle(tmp_path: Path) -> None:
    out = run_example("curriculum.py", cwd=tmp_path)
    assert out.splitlines()[0] == "450 episodes over the 15 tasks of silo/project, 3 sub-envs, 3 seeds"
    uniform_middle = number(r"^uniform mean: episodes on 0.1<p<0.9 (\S+),", out)
    curriculum_middle = number(r"^curriculum mean: episodes on 0.1<p<0.9 (\S+),", out)
    uniform_p = number(r"^uniform mean: .*mean p at the end (\S+)$", out)
    curriculum_p = number(r"^curriculum mean: .*mean p at the end (\S+)$", out)
    assert curriculum_middle > uniform_middle + 0.1  # 0.48 against 0.31
    assert curriculum_p > uniform_p  # and the learner ends better: 0.58 against 0.51
    assert len([line for line in out.splitlines() if line.split()[:1] in (["0"], ["1"], ["2"])]) == 6
