"""What a crash says (issue 19, item 16): a tool that raises something other than a ``ToolError``
reaches the agent as ``tool_crashed`` with the exception's type, not as ``invalid_state`` with
``str(exc)`` alone; an agent that raises is reported by ``silo-gym run`` with its exception's type
and a pointer to ``--verbose``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from silo_gym import SiloEnv
from silo_gym.cli import main

#: A world whose restock tool has a typo in a key: ``state["stok"]`` raises ``KeyError('stok')``.
TYPO_TOOLS = '''
from silo_gym import define_tool


def _restock(state, input):
    state["stok"] += input.get("n", 1)
    return {"stock": state["count"]}


def _fine(state, input):
    return {"count": state["count"]}


_OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}

tools = [
    define_tool(name="restock", description="Add stock.", input_schema=_OBJ, run=_restock),
    define_tool(name="peek", description="Read the counter.", input_schema=_OBJ, run=_fine),
]
'''


@pytest.fixture
def typo_env(tmp_path: Path, make_env_dir: Any) -> SiloEnv:
    return SiloEnv("shop", "TASK-001", path=str(make_env_dir(tmp_path, "shop", tools=TYPO_TOOLS)))


def test_a_tool_crash_has_its_own_code_and_names_the_exception_type(typo_env: SiloEnv) -> None:
    typo_env.reset()
    obs, _, _, _, info = typo_env.step({"tool": "restock", "input": {"n": 2}})
    assert json.loads(obs) == {"output": {"code": "tool_crashed", "message": "KeyError: 'stok'"}, "isError": True}
    assert info["is_error"] is True and info["tool_errors"] == 1
    # a ToolError keeps its own code; a working tool is untouched
    assert json.loads(typo_env.step({"tool": "peek"})[0]) == {"output": {"count": 0}}


def test_the_runner_and_the_trace_see_the_same_crash(tmp_path: Path, make_env_dir: Any) -> None:
    import silo_gym

    make_env_dir(tmp_path / ".silo" / "environments", "typoshop", tools=TYPO_TOOLS)
    seen: list[dict[str, Any]] = []

    def agent(task: str, tools: Any, call_tool: Any, signal: Any) -> dict[str, Any]:
        seen.append(call_tool("restock", {}))
        return {"output": "done"}

    run = silo_gym.run_task("typoshop", "TASK-001", agent, cwd=tmp_path, runs_dir=tmp_path / "runs")
    assert seen == [{"output": {"code": "tool_crashed", "message": "KeyError: 'stok'"}, "isError": True}]
    trace = [json.loads(line) for line in Path(run.run_dir, "trace.jsonl").read_text().splitlines()]
    result = next(e for e in trace if e["type"] == "tool_result")
    assert result["output"] == {"code": "tool_crashed", "message": "KeyError: 'stok'"} and result["isError"] is True


@pytest.mark.parametrize(("body", "shown"), [
    ("    return {'output': {}['users']}\n", "KeyError: 'users'"),
    ("    raise ValueError('bad\\nsecond line')\n", "ValueError: bad"),  # the text's first line
    ("    raise RuntimeError()\n", "RuntimeError"),
])
def test_an_agent_crash_names_its_type_and_points_to_verbose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str], body: str,
                                                             shown: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crash.py").write_text("def agent(task, tools, call_tool, signal):\n" + body)
    code = main(["run", "--env", "orders", "--task", "TASK-001", "--agent", "crash.py"])
    out, err = capsys.readouterr()
    assert code == 1
    error_line = next(line for line in out.splitlines() if line.startswith("Error:"))
    assert error_line == "Error:       " + shown
    assert "(the agent raised this; run with --verbose for its traceback)" in out
    assert "Traceback" not in err

    code = main(["run", "--env", "orders", "--task", "TASK-001", "--agent", "crash.py", "--verbose"])
    out, err = capsys.readouterr()
    assert next(line for line in out.splitlines() if line.startswith("Error:")) == "Error:       " + shown
    assert "--verbose for its traceback" not in out  # the traceback is printed instead
    assert "Agent traceback (run_" in err and "Traceback (most recent call last)" in err


def test_an_error_that_is_not_a_raise_is_shown_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bare.py").write_text("def agent(task, tools, call_tool, signal):\n    return 'no dict'\n")
    assert main(["run", "--env", "orders", "--task", "TASK-001", "--agent", "bare.py"]) == 1
    out = capsys.readouterr().out
    assert "Error:       Agent returned a str ('no dict'); an agent must return {\"output\": <answer>}.\n" in out
    assert "--verbose" not in out
