"""``silo-gym eval`` and ``silo-gym eval compare`` from the command line, and silo_gym.eval.compare."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from silo_gym.cli import main
from silo_gym.cli.eval_cmd import variants_argument
from silo_gym.cli.parser import UsageError
from silo_gym.eval import EvalReport, compare, fisher_exact, load_report, permutation_test, read_variants_file

ROOT = Path(__file__).resolve().parents[2]
SOLVER = f"{ROOT / 'examples' / 'agents' / 'crm_solver.py'}:make_policy"


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def two_evals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("evals")
    assert main(["eval", "--env", "demo", "--tasks", "TASK-002,TASK-004", "--policy", "random", "--trials", "4",
                 "--out", str(root / "random"), "--variants", "draw"]) == 0
    assert main(["eval", "--env", "demo", "--tasks", "TASK-002,TASK-004", "--policy", SOLVER, "--out",
                 str(root / "solver"), "--variants", str(root / "random" / "eval.json"), "--trials", "4"]) == 0
    return root / "random", root / "solver"


def test_eval_prints_the_table_and_writes_the_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "e"
    code, text, err = run_cli(capsys, "eval", "--env", "demo", "--tasks", "TASK-004", "--policy", "random",
                              "--trials", "2", "--out", str(out), "--reference", SOLVER, "--seed", "3")
    assert (code, err) == (0, "")
    lines = text.splitlines()
    assert lines[0] == "Evaluation of random: 1 task x 2 trials (seed 3, canonical worlds)"
    assert lines[1].split() == ["task", "pass", "mean", "reward", "[95%", "CI]", "pass@1", "pass@2", "pass^2",
                                "calls/ep", "errors/ep", "do-nothing", "reference", "alarms"]
    assert lines[2].startswith("demo/TASK-004") and lines[2].split()[-2:] == ["1.00", "-"]
    assert lines[3].startswith("overall")
    assert sorted(p.name for p in out.iterdir()) == [".collect-runs", ".collect.json", "episodes.jsonl", "eval.json", "runs"]
    data = json.loads((out / "eval.json").read_text())
    assert data["seed"] == 3 and data["reference"] == SOLVER and data["env_ids"] == ["silo/demo-TASK-004"]
    assert len(list((out / "runs").iterdir())) == 2
    # The same command again is refused (the earlier evaluation is kept); --resume reads it back.
    code, _, err = run_cli(capsys, "eval", "--env", "demo", "--tasks", "TASK-004", "--policy", "random",
                           "--trials", "2", "--out", str(out), "--seed", "3")
    assert code == 1 and "already holds an evaluation" in err
    code, again, _ = run_cli(capsys, "eval", "--env", "demo", "--tasks", "TASK-004", "--policy", "random",
                             "--trials", "2", "--out", str(out), "--seed", "3", "--resume", "--reference", SOLVER)
    assert code == 0 and again.splitlines()[2] == lines[2]


def test_eval_flags_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["eval", "--env", "demo", "--policy", "random", "--out", str(tmp_path / "x")]
    assert run_cli(capsys, "eval", "--policy", "random") == (1, "", "error: Missing --env.\n")
    code, _, err = run_cli(capsys, *base)
    assert code == 1 and "trials is required" in err
    code, _, err = run_cli(capsys, *base, "--trials", "2", "--variants", "nowhere.txt")
    assert code == 1 and '"nowhere.txt" is none of these (no such file)' in err
    code, _, err = run_cli(capsys, *base, "--trials", "2", "--variants", "draw:0")
    assert code == 1 and "draw:M needs a number of worlds M of at least 1" in err
    code, _, err = run_cli(capsys, *base, "--trials", "0")
    assert code == 1 and "--trials must be at least 1" in err
    code, _, err = run_cli(capsys, *base, "--trials", "1", "--price-in", "1")
    assert code == 1 and "both prices" in err
    code, _, err = run_cli(capsys, *base, "--trials", "1", "--tasks", "TASK-999")
    assert code == 1 and 'Unknown task "TASK-999"' in err
    code, _, err = run_cli(capsys, *base, "--trials", "1", "--base-url", "http://x")
    assert code == 1 and "--base-url applies to --policy openai:<model>" in err
    assert not (tmp_path / "x").exists()


def test_eval_help_and_the_overview(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "eval", "--help")
    assert code == 0 and out.startswith("usage: silo-gym eval [-h] --env E --policy POLICY --out DIR")
    assert "compare" in out and "--variants SPEC" in out
    code, out, _ = run_cli(capsys, "eval", "compare", "--help")
    assert code == 0 and out.startswith("usage: silo-gym eval compare [-h]")
    code, out, _ = run_cli(capsys, "--help")
    assert "  silo-gym eval --env E --policy POLICY --out DIR" in out and "  silo-gym eval compare" in out


def test_variants_argument_forms(tmp_path: Path) -> None:
    assert variants_argument("draw") is True
    assert variants_argument("draw:3") == 3
    assert variants_argument("5,6,7") == [5, 6, 7]
    assert variants_argument("100-103,7") == [100, 101, 102, 103, 7]
    assert variants_argument("9") == [9]
    text = tmp_path / "held-out.txt"
    text.write_text("# not allowed\n")
    with pytest.raises(UsageError, match="variants"):
        variants_argument(str(text))
    text.write_text("10 11\n12-13\n")
    assert variants_argument(str(text)) == [10, 11, 12, 13]
    as_json = tmp_path / "v.json"
    as_json.write_text('{"demo/TASK-001": [1, null]}')
    assert variants_argument(str(as_json)) == {"demo/TASK-001": [1, None]}
    as_json.write_text("[1, 2.5]")
    with pytest.raises(UsageError, match="holds 2.5"):
        variants_argument(str(as_json))
    with pytest.raises(UsageError, match="runs backwards"):
        variants_argument("9-3")


def test_the_worlds_of_another_evaluation_are_reused(two_evals: tuple[Path, Path]) -> None:
    random_dir, solver_dir = two_evals
    a, b = load_report(random_dir), load_report(solver_dir)
    assert b.data["variants"] == "explicit" and a.data["variants"] == "drawn"
    for key in a.tasks:
        assert a.tasks[key]["variants"] == b.tasks[key]["variants"]
    assert read_variants_file(random_dir / "eval.json") == {k: t["variants"] for k, t in a.tasks.items()}


def test_compare_tests_each_task_and_lists_regressions_first(two_evals: tuple[Path, Path]) -> None:
    random_dir, solver_dir = two_evals
    a, b = load_report(random_dir), load_report(solver_dir)
    result = compare(b, a)  # the random policy against the solver: worse everywhere
    assert [t.verdict for t in result.tasks] == ["regression", "regression"]
    first = result.tasks[0]
    assert (first.a_successes, first.a_trials, first.b_successes) == (4, 4, 0)
    assert first.pass_p == pytest.approx(fisher_exact(4, 0, 0, 4)) == pytest.approx(2 / 70)
    rewards_a = [e["reward"] for e in b.tasks[first.task]["episodes"]]
    rewards_b = [e["reward"] for e in a.tasks[first.task]["episodes"]]
    assert first.reward_p == pytest.approx(permutation_test(rewards_a, rewards_b))
    assert first.same_worlds and result.only_a == [] and result.only_b == []
    assert compare(a, b).improvements == compare(a, b).tasks
    same = compare(a, a)
    assert [t.verdict for t in same.tasks] == ["same", "same"] and same.tasks[0].pass_p == 1.0


def _edited(report: EvalReport, task: str, **changes: Any) -> EvalReport:
    data = copy.deepcopy(report.data)
    data["tasks"][task].update(changes)
    return EvalReport(data)


def test_compare_orders_verdicts_and_flags_other_worlds(two_evals: tuple[Path, Path]) -> None:
    _, solver_dir = two_evals
    base = load_report(solver_dir)
    keys = list(base.tasks)
    worse = _edited(base, keys[1], successes=0, variants=[1, 2, 3, 4],
                    episodes=[{"reward": 0.0} for _ in range(4)], mean_reward=0.0)
    result = compare(base, worse)
    assert [(t.task, t.verdict) for t in result.tasks] == [(keys[1], "regression"), (keys[0], "same")]
    assert result.tasks[0].same_worlds is False and result.tasks[1].same_worlds is True
    assert "DIFFER" in result.table() and "1 regression(s), 0 improvement(s)" in result.table()
    fewer = EvalReport({**base.data, "tasks": {keys[0]: base.tasks[keys[0]]}})
    partial = compare(base, fewer)
    assert partial.only_a == [keys[1]] and len(partial.tasks) == 1
    with pytest.raises(ValueError):
        compare(base, base, alpha=1.5)


def test_compare_command_and_fail_on_regression(two_evals: tuple[Path, Path],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    random_dir, solver_dir = two_evals
    code, out, err = run_cli(capsys, "eval", "compare", str(solver_dir), str(random_dir))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"A: {SOLVER} ({solver_dir / 'eval.json'})"
    assert lines[1] == f"B: random ({random_dir / 'eval.json'})"
    assert lines[2].split()[:4] == ["task", "verdict", "A", "pass"]
    assert lines[3].split()[1] == "regression" and lines[-1].startswith("2 regression(s), 0 improvement(s)")
    code, _, _ = run_cli(capsys, "eval", "compare", str(solver_dir), str(random_dir), "--fail-on-regression")
    assert code == 1
    code, _, _ = run_cli(capsys, "eval", "compare", str(random_dir), str(solver_dir), "--fail-on-regression")
    assert code == 0
    code, out, _ = run_cli(capsys, "eval", "compare", str(solver_dir / "eval.json"), str(random_dir), "--json")
    data = json.loads(out)
    assert code == 0 and data["regressions"] == 2 and data["tasks"][0]["pass_p"] == pytest.approx(2 / 70)
    code, _, err = run_cli(capsys, "eval", "compare", str(solver_dir), str(solver_dir / "nothing"))
    assert code == 1 and "Cannot read" in err
    code, _, err = run_cli(capsys, "eval", "compare", str(solver_dir), str(random_dir), "--alpha", "2")
    assert code == 1 and "--alpha must be a number between 0 and 1" in err
