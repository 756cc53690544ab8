"""`silo-gym run` and `silo-gym list` (silo-format §10)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ENVS_DIR, subprocess_env

from silo_gym.cli import HELP, build_parser, main
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


def test_one_run_by_default(project, capsys):
    code, out, _ = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", ORDERS_AGENT,
                           "--runs=1")
    assert code == 0 and out.startswith("Task:        TASK-001")
    assert len(os.listdir(project / ".silo" / "runs")) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--task", "TASK-001"], "error: Missing --env.\n"),
        (["run", "--env", "orders"], "error: Missing --task.\n"),
        (["run", "--env=", "--task", "TASK-001"], "error: Missing --env.\n"),
        (["run", "--env", "orders", "--task", "TASK-404", "--agent", ORDERS_AGENT],
         'error: task_not_found: Task "TASK-404" was not found in orders. Available: TASK-001.\n'),
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


RUN_USAGE = ("usage: silo-gym run [-h] --env E --task T [--agent PATH] [--runs N] [--max-tool-calls N]\n"
             "                    [--timeout-ms MS] [--variant K] [--verbose] [--json]\n"
             'Run "silo-gym run --help" for what each flag does and its default.\n')


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--runs", "0"], "--runs must be at least 1; got 0."),
        (["--runs=-4"], "--runs must be at least 1; got -4."),
        (["--runs", "-4"], "--runs must be at least 1; got -4."),
        (["--max-tool-calls", "-1"], "--max-tool-calls must be at least 0; got -1."),
        (["--timeout-ms", "-5"], "--timeout-ms must be at least 0; got -5."),
        (["--runs", "abc"], "--runs must be a whole number."),
        (["--runs", "2.5"], "--runs must be a whole number."),
        (["--runs", "1_0"], "--runs must be a whole number."),
        (["--runs", "３"], "--runs must be a whole number."),
        (["--runs="], "--runs must be a whole number."),
        (["--max-tool-calls", "x"], "--max-tool-calls must be a whole number."),
        (["--timeout-ms", "1e3"], "--timeout-ms must be a whole number."),
        (["--runs"], "--runs needs a value."),
        (["--agent", "--runs", "2"], "--agent needs a value."),
        (["--rnus", "2"], 'Unknown flag --rnus for silo-gym run. Did you mean "--runs"?'),
        (["--run", "2"], 'Unknown flag --run for silo-gym run. Did you mean "--runs"?'),  # no prefix matching
        (["--verbos"], 'Unknown flag --verbos for silo-gym run. Did you mean "--verbose"?'),
        (["--json=yes"], '--json is a switch: give it alone or as --json=true / --json=false; got "yes".'),
        (["extra"], 'Unexpected argument "extra" for silo-gym run.'),
        (["-x"], 'Unexpected argument "-x" for silo-gym run.'),
    ],
)
def test_flags_it_does_not_understand_are_refused_with_the_accepted_flags(project, capsys, flags, message):
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", ORDERS_AGENT,
                             *flags)
    assert (code, out, err) == (1, "", f"error: {message}\n{RUN_USAGE}")
    assert not (project / ".silo").exists()


def test_a_flag_without_its_value_is_refused_even_when_required(project, capsys):
    code, out, err = run_cli(capsys, "run", "--env", "--task", "TASK-001")
    assert (code, out) == (1, "")
    assert err == f"error: --env needs a value.\n{RUN_USAGE}"


@pytest.mark.parametrize("value", ["-h", "--help=x", "-", "-x y"])
def test_a_value_that_looks_like_a_flag_is_the_value(project, capsys, value):
    # silo-format §10.1: the next token is the value unless it starts with "--"; "--k=v" takes anything.
    flag = ["--agent", value] if not value.startswith("--") else [f"--agent={value}"]
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", *flag)
    assert (code, out) == (1, "")
    assert err.startswith(f'error: agent_invalid: Agent "{value}" could not be imported')


def test_switch_values(project, capsys):
    base = ["run", "--env", "orders", "--task", "TASK-001", "--agent", ORDERS_AGENT]
    for switch in (["--json"], ["--json=true"], ["--json", "true"]):
        code, out, _ = run_cli(capsys, *base, *switch)
        assert code == 0 and out.startswith('{\n  "groupId": '), switch
    for switch in (["--json=false"], ["--json", "false"], ["--json", "--json=false"]):
        code, out, _ = run_cli(capsys, *base, *switch)
        assert code == 0 and out.startswith("Task:        TASK-001"), switch


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


def _leaves(parser):
    if parser.commands is None:
        yield parser
        return
    for child in parser.commands.choices.values():
        yield from _leaves(child)


def test_every_command_has_help_with_every_flag_and_its_default(capsys):
    root = build_parser()
    leaves = list(_leaves(root))
    assert {p.prog for p in leaves} >= {"silo-gym run", "silo-gym list", "silo-gym init", "silo-gym env validate",
                                         "silo-gym data add", "silo-gym task update", "silo-gym tool add",
                                         "silo-gym verifier add", "silo-gym collect"}
    for parser in leaves:
        words = parser.prog.split()[1:]
        code, out, err = run_cli(capsys, *words, "--help")
        assert (code, err) == (0, "")
        assert out.startswith(f"usage: {parser.prog} [-h]")
        assert run_cli(capsys, "help", *words) == (0, out, "")
        flat = " ".join(out.split())  # help text wraps
        for action in parser.declared:
            for option in action.option_strings:
                assert option in out, (parser.prog, option)
            if action.required and action.option_strings:
                assert f"{action.help.split(' (required)')[0]} (required)" in flat
            elif action.default not in (None, False, argparse.SUPPRESS):
                assert f"(default: {action.default})" in flat, (parser.prog, action.dest)
    code, out, _ = run_cli(capsys, "run", "--help")
    flat = " ".join(out.split())
    for text in ("--env E environment name (required)", "--agent PATH", "(default: ./silo.agent.py)",
                 "--runs N", "(default: 1)", "--max-tool-calls N", "(default: 100)", "--timeout-ms MS",
                 "(default: 120000)", "--json"):
        assert text in flat


def test_group_help_and_unknown_or_missing_subcommands(capsys):
    code, out, _ = run_cli(capsys, "data", "--help")
    assert code == 0 and out.startswith("usage: silo-gym data [-h] <command> ...")
    for sub in ("list", "show", "add", "update", "remove"):
        assert f"    {sub} " in out
    assert run_cli(capsys, "data", "frobnicate", "--env", "demo") == (
        1, "", 'error: unknown command "data frobnicate". Run "silo-gym data --help".\n')
    assert run_cli(capsys, "data") == (
        1, "", 'error: Missing <command>. Run "silo-gym data --help" (silo-gym data list|show|add|update|remove).\n')
    assert run_cli(capsys, "env", "--env", "demo")[2].startswith("error: Missing <command>.")


def test_version(capsys):
    from silo_gym import __version__

    assert run_cli(capsys, "--version") == (0, f"silo-gym {__version__}\n", "")
    assert "silo-gym --version" in HELP


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


def test_verbose_prints_the_agent_traceback(project, capsys):
    (project / "broken.py").write_text(
        "def deep():\n    raise KeyError('no such order')\n\n\ndef agent(task, tools, call_tool, signal):\n    deep()\n")
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", "broken.py",
                             "--verbose")
    assert code == 1
    assert "Error:       KeyError: 'no such order'\n" in out  # the type, not only str(exc)
    assert "Agent traceback (run_" in err and "in deep" in err and "KeyError: 'no such order'" in err
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", "broken.py")
    assert "Traceback" not in err


def test_run_plays_a_variant(project, capsys):
    (project / "price.py").write_text(
        "def agent(task, tools, call_tool, signal):\n"
        "    item = call_tool('get_item', {'itemId': 'I-1'})['output']\n"
        "    return {'output': str(item['price'])}\n")
    code, out, err = run_cli(capsys, "run", "--env", "variety", "--task", "TASK-001", "--agent", "price.py",
                             "--variant", "4", "--json")
    assert code == 0, err
    summary = json.loads(out)
    run = json.loads((Path(summary["runs"][0]["runDir"]) / "run.json").read_text())
    assert run["config"]["variant"] == 4
    code, out, err = run_cli(capsys, "run", "--env", "variety", "--task", "TASK-001", "--agent", "price.py",
                             "--variant", "4")
    assert code == 0 and "Variant:     4\n" in out
    code, out, err = run_cli(capsys, "run", "--env", "variety", "--task", "TASK-001", "--agent", "price.py",
                             "--variant", "3")
    assert code == 1 and "error: variant_preconditions_unmet: Variant 3" in err


def test_verbose_prints_the_traceback_of_a_tool_and_of_a_verifier_that_raised(project, capsys, make_env_dir):
    # A tool's unexpected exception reaches the agent as tool_crashed with its type and message
    # (silo-format §3.4, amended); a verifier's is chained under verifier_failed (§4.4). --verbose shows both.
    (project / "explode.py").write_text(
        "def agent(task, tools, call_tool, signal):\n"
        "    out = call_tool('explode', {})\n"
        "    return {'output': out['output']['code']}\n")
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", "explode.py",
                             "--verbose")
    assert 'Tool "explode" raised (the agent gets tool_crashed)\nTraceback' in err
    assert "in _explode" in err and "RuntimeError: the warehouse is on fire" in err
    code, out, err = run_cli(capsys, "run", "--env", "orders", "--task", "TASK-001", "--agent", "explode.py")
    assert "Traceback" not in err  # quiet without --verbose

    make_env_dir(project / ".silo" / "environments", "shelves", verifiers="""
        from silo_gym import define_verifier


        def _check(final, initial, context):
            return final["shelf"]


        verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="Reads a shelf", check=_check)]
        """)
    (project / "idle.py").write_text("def agent(task, tools, call_tool, signal):\n    return {'output': ''}\n")
    code, out, err = run_cli(capsys, "run", "--env", "shelves", "--task", "TASK-001", "--agent", "idle.py",
                             "--verbose")
    assert code == 1
    assert err.startswith("error: verifier_failed: Verifier \"VER-001\" failed: 'shelf'\nTraceback")
    assert "in _check" in err and "KeyError: 'shelf'" in err
    code, out, err = run_cli(capsys, "run", "--env", "shelves", "--task", "TASK-001", "--agent", "idle.py")
    assert err == "error: verifier_failed: Verifier \"VER-001\" failed: 'shelf'\n"
