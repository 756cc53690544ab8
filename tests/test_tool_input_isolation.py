"""A tool cannot change what was recorded as sent (issue 19, item 9): every tool receives its own
copy of the input, so a tool that writes into its ``input`` (or keeps it in the state and changes
it later) leaves the caller's action, the data rows' ``actions`` and ``messages``, and the trace in
agreement."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from authoring.helpers import TOOLS_HEAD, write_env

import silo_gym
from silo_gym import SiloEnv
from silo_gym.data import collect
from silo_gym.wrappers import RecordRun

TOOLS = TOOLS_HEAD + '''

def _scribble(state, input):
    input["id"] = "CHANGED"  # writes into its input
    input["tags"].append("added-by-tool")
    input["nested"]["seen"] = True
    state["log"].append(input)  # and keeps it, to change it again later
    return {"ok": True}


def _amend(state, input):
    for entry in state["log"]:
        entry["tags"].clear()
        entry["late"] = "changed by a later call"
    return {"entries": len(state["log"])}


ANY = {"type": "object"}
scribble = define_tool(name="scribble", description="Writes into its input.", input_schema=ANY, run=_scribble)
amend = define_tool(name="amend", description="Changes what scribble kept.", input_schema=ANY, run=_amend)
tools = [get_item, scribble, amend]
'''

SENT = {"id": "I-1", "tags": ["a"], "nested": {"k": [1, 2]}}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scribble")
    write_env(root, {"tools/__init__.py": TOOLS}, name="scribbler")
    return root


def _traced_inputs(run_dir: str) -> list:
    events = [json.loads(line) for line in Path(run_dir, "trace.jsonl").read_text().splitlines()]
    return [e["input"] for e in events if e["type"] == "tool_call"]


def test_step_leaves_the_agents_action_as_sent(world: Path, tmp_path: Path) -> None:
    env = RecordRun(SiloEnv("scribbler", "TASK-001", cwd=str(world)), runs_dir=tmp_path)
    _, info = env.reset()
    action = {"tool": "scribble", "input": copy.deepcopy(SENT)}
    env.step(action)
    env.step({"tool": "amend", "input": {}})
    assert action == {"tool": "scribble", "input": SENT}
    env.step({"answer": "done"})
    assert _traced_inputs(info["run_dir"]) == [SENT, {}]


def test_the_runners_call_tool_leaves_the_input_as_sent(world: Path, tmp_path: Path) -> None:
    sent = copy.deepcopy(SENT)

    def agent(task, tools, call_tool, signal):
        call_tool("scribble", sent)
        call_tool("amend", {})
        return {"output": "done"}

    result = silo_gym.run_task("scribbler", "TASK-001", agent, runs_dir=tmp_path, cwd=str(world))
    assert sent == SENT
    assert _traced_inputs(result.run_dir) == [SENT, {}]


def test_collected_rows_agree_with_the_trace(world: Path, tmp_path: Path) -> None:
    silo_gym.register_environment(str(world / ".silo" / "environments" / "scribbler"))
    plan = [{"tool": "scribble", "input": copy.deepcopy(SENT)}, {"tool": "amend", "input": {}}, {"answer": "x"}]

    def policy(observation, info):
        return plan.pop(0)

    [row] = collect(["silo/scribbler-TASK-001"], policy, episodes_per_task=1, runs_dir=tmp_path)
    assert row["actions"][0] == {"tool": "scribble", "input": SENT}
    traced = _traced_inputs(str(tmp_path / row["run_id"]))
    assert [a["input"] for a in row["actions"][:2]] == traced == [SENT, {}]
    call = row["messages"][2]["tool_calls"][0]["function"]
    assert json.loads(call["arguments"]) == SENT


def test_the_tool_still_sees_and_keeps_its_own_copy(world: Path) -> None:
    env = SiloEnv("scribbler", "TASK-001", cwd=str(world))
    env.reset()
    env.step({"tool": "scribble", "input": copy.deepcopy(SENT)})
    [kept] = env.unwrapped.episode.state["log"]
    assert kept["id"] == "CHANGED" and kept["tags"] == ["a", "added-by-tool"]  # the tool's writes hold, in its copy
