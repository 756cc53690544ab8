"""`silo-gym run` and `silo-gym list` (silo-format §10)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ENVS_DIR, subprocess_env

from silo_gym.cli import HELP, main
from silo_gym.rounding import to_fixed

ORDERS_AGENT = str(ENVS_DIR / "orders" / "agent.py")
GRP = r"grp_[0-9]{14}_[0-9a-z]{4}"
RUN = r"run_[0-9]{14}_[0-9a-z]{4}"

#: Run 1 ships express (1.00), run 2 answers at once (0.33), run 3 ships ground (0.67).
VARYING_AGENT = """
import pathlib

COUNTER = pathlib.Path(__file__).with_name("count.txt")


def agent(task, tools, call_tool, signal):
    n = int(COUNTER.read_text()) if COUNTER.exists() else 0
    COUNTER.write_text(str(n + 1))
    if n % 3 == 0:
        call_tool("ship_order", {"orderId": "O-1", "carrier": "express"})
    elif n % 3 == 2:
        call_tool("ship_order", {"orderId": "O-1", "carrier": "ground"})
    return {"output": f"run {n}"}
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _run_json(project, run_id):
    with open(project / ".silo" / "runs" / run_id / "run.json", encoding="utf-8") as fh:
        return json.load(fh)


def test_single_run_pass_report(project, capsys):
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", ORDERS_AGENT)
    assert code == 0 and err == ""
    lines = out.splitlines()
    run_id = re.fullmatch(rf"Run saved:   \.silo/runs/({RUN})", lines[-1]).group(1)
    duration = to_fixed(_run_json(project, run_id)["durationMs"] / 1000, 1)
    assert out == (
        "Task:        TASK-001 — Ship an order\n"
        "Result:      PASS\n"
        "Reward:      1.00\n"
        f"Duration:    {duration}s\n"
        "Tool calls:  2\n"
        "Successful:  2\n"
        "Errors:      0\n"
        "Checks:      3 / 3\n"
        "Required:    2 / 2\n"
        f"Run saved:   .silo/runs/{run_id}\n"
    )


def test_single_run_fail_report(project, capsys):
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", ORDERS_AGENT,
                             "--max-tool-calls", "1")
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[1:3] == ["Result:      FAIL", "Reward:      0.33"]
    assert lines[4:9] == ["Tool calls:  1", "Successful:  1", "Errors:      0", "Checks:      1 / 3",
                          "Required:    0 / 2"]
    assert lines[9:14] == [
        "Ended early: max_tool_calls",
        "Error:       Tool call limit exceeded (1).",
        "Failed:",
        "  - O-1 is shipped",
        "  - O-1 went express",
    ]
    assert re.fullmatch(rf"Run saved:   \.silo/runs/{RUN}", lines[14]) and len(lines) == 15


def test_default_agent_path(project, capsys):
    shutil.copy(ORDERS_AGENT, project / "silo.agent.py")
    code, out, _ = run_cli(capsys, "run", "--env=orders", "--task=TASK-001")
    assert code == 0
    run_id = out.splitlines()[-1].split("/")[-1]
    assert _run_json(project, run_id)["config"]["agentPath"] == "./silo.agent.py"
    os.remove(project / "silo.agent.py")
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001")
    assert code == 1 and out == ""
    assert err.startswith('error: agent_invalid: Agent "./silo.agent.py" could not be imported: FileNotFoundError: ')


def test_several_runs_summary(project, capsys):
    (project / "varying.py").write_text(VARYING_AGENT)
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", "varying.py",
                             "--runs", "3")
    assert code == 1 and err == ""  # no progress bar: stderr is not a terminal
    lines = out.splitlines()
    assert lines[0] == "Silo Runs"
    assert lines[1] == "Task:        TASK-001 — Ship an order"
    assert re.fullmatch(rf"Group:       {GRP}", lines[2])
    assert lines[3:9] == ["Rollouts:    3", "Passed:      1 / 3", "Mean reward: 0.67", "Best:        1.00",
                          "Worst:       0.33", "Mean calls:  0.7"]
    assert re.fullmatch(rf"run 1  PASS  reward 1\.00 · 1 calls · completed · {RUN}", lines[9])
    assert re.fullmatch(rf"run 2  FAIL  reward 0\.33 · 0 calls · completed · {RUN}", lines[10])
    assert re.fullmatch(rf"run 3  FAIL  reward 0\.67 · 1 calls · completed · {RUN}", lines[11])
    assert len(lines) == 12
    run_ids = [line.rsplit(" ", 1)[1] for line in lines[9:]]
    assert len(set(run_ids)) == 3
    assert sorted(os.listdir(project / ".silo" / "runs")) == sorted(run_ids)
    for run_id in run_ids:
        assert "groupId" not in _run_json(project, run_id)


def test_several_runs_json(project, capsys):
    (project / "varying.py").write_text(VARYING_AGENT)
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", "varying.py",
                             "--runs", "3", "--json")
    assert code == 1 and err == ""
    summary = json.loads(out)
    assert out.endswith("}\n") and out.startswith('{\n  "groupId": "grp_')
    assert list(summary) == ["groupId", "taskId", "runs", "passed", "total", "meanReward", "bestReward",
                             "worstReward", "meanToolCalls"]
    assert re.fullmatch(GRP, summary["groupId"]) and summary["taskId"] == "TASK-001"
    assert (summary["passed"], summary["total"]) == (1, 3)
    assert summary["meanReward"] == (1 + 0.33 + 0.67) / 3
    assert (summary["bestReward"], summary["worstReward"]) == (1, 0.33)
    assert summary["meanToolCalls"] == 2 / 3
    assert '\n  "bestReward": 1,\n' in out
    for run, (passed, reward, calls) in zip(summary["runs"], [(True, 1, 1), (False, 0.33, 0), (False, 0.67, 1)],
                                            strict=True):
        assert list(run) == ["runId", "runDir", "passed", "reward", "toolCalls", "toolErrors", "terminationReason",
                             "error"]
        assert (run["passed"], run["reward"], run["toolCalls"]) == (passed, reward, calls)
        assert run["toolErrors"] == 0 and run["terminationReason"] == "completed" and run["error"] is None
        assert os.path.isdir(run["runDir"]) and run["runDir"].endswith(run["runId"])


def test_single_run_json(project, capsys):
    code, out, _ = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", ORDERS_AGENT,
                           "--json")
    assert code == 0
    summary = json.loads(out)
    assert (summary["passed"], summary["total"], summary["meanReward"]) == (1, 1, 1)
    assert len(summary["runs"]) == 1


@pytest.mark.parametrize("runs", ["0", "-4", "1"])
def test_runs_below_one_count_as_one(project, capsys, runs):
    code, out, _ = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", ORDERS_AGENT,
                           f"--runs={runs}")
    assert code == 0 and out.startswith("Task:        TASK-001")
    assert len(os.listdir(project / ".silo" / "runs")) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--task", "TASK-001"], "error: Missing --env.\n"),
        (["run", "--env", "orders"], "error: Missing --task.\n"),
        (["run", "--env", "--task", "TASK-001"], "error: Missing --env.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--runs", "abc"], "error: --runs must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--runs", "2.5"], "error: --runs must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--runs"], "error: --runs must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--runs", "1_0"], "error: --runs must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--runs", "３"], "error: --runs must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--runs="], "error: --runs must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--max-tool-calls", "x"],
         "error: --max-tool-calls must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-001", "--timeout-ms", "1e3"],
         "error: --timeout-ms must be a whole number.\n"),
        (["run", "--env", "orders", "--task", "TASK-404", "--agent", ORDERS_AGENT],
         'error: task_not_found: Task "TASK-404" was not found in orders.\n'),
        (["run", "--env", "../orders", "--task", "TASK-001"],
         'error: unsafe_name: Environment name "../orders" is not allowed: use letters, digits, ".", "_" and "-", '
         "starting with a letter or digit.\n"),
        (["frobnicate"], 'error: unknown command "frobnicate". Run "silo-gym --help".\n'),
    ],
)
def test_errors(project, capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert (code, out, err) == (1, "", message)
    assert not (project / ".silo").exists()


def test_unknown_environment_message(project, capsys):
    code, out, err = run_cli(capsys, "run", "--env", "nope", "--task", "TASK-001")
    assert code == 1 and out == ""
    assert err.startswith('error: environment_not_found: Environment "nope" was not found. Available: ')
    assert "inventory, orders" in err


def test_grading_failure_exits_1_without_summary(project, capsys, make_env_dir):
    verifiers = '''
from silo_gym import define_verifier


def _check(final, initial, context):
    raise ValueError("cannot grade")


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="n", check=_check)]
'''
    make_env_dir(project / ".silo" / "environments", "gradefail", verifiers=verifiers)
    (project / "a.py").write_text("def agent(*a):\n    return {'output': 1}\n")
    code, out, err = run_cli(capsys, "run", "--env", "gradefail", "--task", "TASK-001", "--agent", "a.py",
                             "--runs", "2")
    assert (code, out) == (1, "")
    assert err == 'error: verifier_failed: Verifier "VER-001" failed: cannot grade\n'
    (run_id,) = os.listdir(project / ".silo" / "runs")
    assert sorted(os.listdir(project / ".silo" / "runs" / run_id)) == ["run.json", "state-diff.json",
                                                                        "trace.jsonl"]


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"], ["help"]])
def test_help(capsys, argv):
    code, out, err = run_cli(capsys, *argv)
    assert (code, out, err) == (0, HELP, "")
    assert "silo-gym run --env E --task T" in out


def test_list_text(project, capsys):
    code, out, err = run_cli(capsys, "list")
    assert code == 0 and err == ""
    lines = out.splitlines()
    i = lines.index(f"orders\tsilo/orders\t{(ENVS_DIR / 'orders').resolve()}")
    assert lines[i + 1] == "  TASK-001\tsilo/orders-TASK-001\tShip an order"
    j = lines.index(f"inventory\tsilo/inventory\t{(ENVS_DIR / 'inventory').resolve()}")
    assert lines[j + 1] == "  TASK-001\tsilo/inventory-TASK-001\tCount the stock"
    envs = [line.split("\t")[0] for line in lines if not line.startswith("  ")]
    assert envs == sorted(envs)
    code, out, _ = run_cli(capsys, "list", "--env", "ORDERS")
    assert out == (f"orders\tsilo/orders\t{(ENVS_DIR / 'orders').resolve()}\n"
                   "  TASK-001\tsilo/orders-TASK-001\tShip an order\n")


def test_list_json(project, capsys):
    code, out, _ = run_cli(capsys, "list", "--json", "--env", "inventory")
    assert code == 0
    assert json.loads(out) == [{
        "environment": "inventory",
        "gymId": "silo/inventory",
        "path": str((ENVS_DIR / "inventory").resolve()),
        "tasks": [{"taskId": "TASK-001", "title": "Count the stock", "difficulty": "easy",
                   "gymId": "silo/inventory-TASK-001"}],
    }]
    assert out.startswith('[\n  {\n    "environment": "inventory",\n') and out.endswith("]\n")
    code, out, _ = run_cli(capsys, "list", "--json")
    rows = json.loads(out)
    assert [list(r) for r in rows] == [["environment", "gymId", "path", "tasks"]] * len(rows)
    assert {"orders", "inventory"} <= {r["environment"] for r in rows}


def test_list_unknown_env(project, capsys):
    code, out, err = run_cli(capsys, "list", "--env", "nope")
    assert code == 1 and out == "" and err.startswith('error: environment_not_found: Environment "nope"')


def test_module_entry_point_in_subprocess(tmp_path):
    out = subprocess.run([sys.executable, "-m", "silo_gym", "run", "--env", "orders", "--task", "TASK-001",
                          "--agent", ORDERS_AGENT], cwd=tmp_path, capture_output=True, text=True,
                         env=subprocess_env(SILO_GYM_PATH=str(ENVS_DIR)), timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Task:        TASK-001 — Ship an order\nResult:      PASS\n")
    out = subprocess.run([sys.executable, "-m", "silo_gym", "bogus"], capture_output=True, text=True,
                         env=subprocess_env(), timeout=60)
    assert (out.returncode, out.stderr) == (1, 'error: unknown command "bogus". Run "silo-gym --help".\n')
