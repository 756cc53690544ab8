"""A runs directory holding one run of every kind the viewer must show."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym
from golden import gate as g

import silo_gym
from silo_gym.wrappers import RecordRun

HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"


@dataclass
class Runs:
    root: Path
    solver: Path  # TASK-001 solved through Gymnasium
    do_nothing: Path  # TASK-003 through the runner
    tool_path: Path  # invalid actions and an unknown tool
    hostile: Path  # an agent that writes markup everywhere, with model turns
    crashed: Path  # a run that stopped mid-call: torn last line, no result


def _hostile_run(root: Path) -> Path:
    env = RecordRun(gym.make("silo/demo-TASK-002"), runs_dir=root)
    _, info = env.reset()
    log = env.get_wrapper_attr("log_model_step")
    log([{"role": "system", "content": HOSTILE}, {"role": "user", "content": "go"}],
        {"role": "assistant", "content": HOSTILE}, usage={"total_tokens": 12}, latency_ms=3.5, model=HOSTILE)
    env.step({"tool": "search_leads", "input": {"query": HOSTILE}})
    env.step({"tool": HOSTILE, "input": {"x": HOSTILE}})
    env.step({"answer": HOSTILE})
    return Path(info["run_dir"])


def make_runs(root: Path) -> Runs:
    root.mkdir(parents=True, exist_ok=True)

    def newest(before: set[Path]) -> Path:
        [made] = [p for p in root.iterdir() if p not in before]
        return made

    seen = set(root.iterdir())
    g.run_gym(g.demo_factory, g.Gate("solver", "TASK-001"), root)
    solver = newest(seen)
    seen.add(solver)
    do_nothing = Path(silo_gym.run_task("demo", "TASK-003", g.silo_agent("do-nothing"), runs_dir=root).run_dir)
    seen.add(do_nothing)
    g.run_gym(g.demo_factory, g.TOOL_PATH_GATE, root)
    tool_path = newest(seen)
    seen.add(tool_path)
    hostile = _hostile_run(root)
    seen.add(hostile)
    # A crash mid-call: the trace stops inside a tool_result, no result.json, no run.json.
    crashed = root / "run_20260101000000_zzzz"
    shutil.copytree(solver, crashed)
    for name in ("result.json", "state-diff.json", "run.json"):
        (crashed / name).unlink()
    lines = (crashed / "trace.jsonl").read_bytes().split(b"\n")
    lines[0] = lines[0].replace(solver.name.encode(), crashed.name.encode())
    (crashed / "trace.jsonl").write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][:30])
    # Not a run at all: a trace that does not start with run_start.
    broken = root / "run_20250101000000_bad0"
    broken.mkdir()
    (broken / "trace.jsonl").write_text('{"seq":1,"type":"tool_call"}\n')
    return Runs(root, solver, do_nothing, tool_path, hostile, crashed)
