"""Regressions from a review of the runtime: each was demonstrated failing before its fix."""

from __future__ import annotations

import enum
import json
import os
import pathlib
import threading
import time
import warnings
from typing import Any

import gymnasium as gym
import pytest

import silo_gym
from silo_gym import RunLimitError, SiloEnv
from silo_gym.jsonfmt import canonical, dumps_compact
from silo_gym.tools import clone_output, define_tool, error_payload
from silo_gym.wrappers import RecordRun


def _files(run_dir: str | pathlib.Path) -> list[str]:
    return sorted(p.name for p in pathlib.Path(run_dir).iterdir())


def test_an_agent_raising_its_own_run_limit_error_ends_as_agent_error_with_every_artifact(runs_dir: pathlib.Path) -> None:
    def agent(task: str, tools: Any, call_tool: Any, signal: Any) -> Any:
        raise RunLimitError("budget", "my own stop")

    result = silo_gym.run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    assert result.result["terminationReason"] == "agent_error"
    assert result.error == "my own stop"
    assert _files(result.run_dir) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]


def test_an_agent_raising_a_base_exception_is_recorded_in_full_before_it_propagates(runs_dir: pathlib.Path) -> None:
    def agent(task: str, tools: Any, call_tool: Any, signal: Any) -> Any:
        call_tool("get_order", {"orderId": "O-1"})
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        silo_gym.run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    (run_dir,) = list(runs_dir.iterdir())
    assert _files(run_dir) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["terminationReason"], result["error"], result["toolCalls"]) == ("agent_error", "3", 1)


def test_the_agents_tool_list_is_a_fresh_copy_that_cannot_change_later_runs(runs_dir: pathlib.Path) -> None:
    def vandal(task: str, tools: list[dict[str, Any]], call_tool: Any, signal: Any) -> Any:
        tools[0]["inputSchema"]["properties"]["orderId"]["type"] = "integer"
        return {"output": ""}

    seen: list[Any] = []

    def spy(task: str, tools: list[dict[str, Any]], call_tool: Any, signal: Any) -> Any:
        seen.append(tools[0]["inputSchema"]["properties"]["orderId"])
        return {"output": ""}

    silo_gym.run_task("orders", "TASK-001", vandal, runs_dir=runs_dir)
    silo_gym.run_task("orders", "TASK-001", spy, runs_dir=runs_dir)
    assert seen == [{"type": "string"}]


def test_run_result_trace_is_a_snapshot_not_the_agents_live_objects(runs_dir: pathlib.Path) -> None:
    def agent(task: str, tools: Any, call_tool: Any, signal: Any) -> Any:
        args = {"orderId": "O-1"}
        result = call_tool("get_order", args)
        args["orderId"] = "O-2"
        result["output"]["status"] = "MUTATED"
        call_tool("get_order", args)
        return {"output": ""}

    run = silo_gym.run_task("orders", "TASK-001", agent, runs_dir=runs_dir)
    on_disk = [json.loads(line) for line in (pathlib.Path(run.run_dir) / "trace.jsonl").read_text().splitlines()]
    in_memory = [{k: v for k, v in e.items()} for e in run.trace]
    assert [e.get("input") for e in in_memory if e["type"] == "tool_call"] == [{"orderId": "O-1"}, {"orderId": "O-2"}]
    assert [e.get("input") for e in on_disk if e["type"] == "tool_call"] == [{"orderId": "O-1"}, {"orderId": "O-2"}]
    assert in_memory[2]["output"]["status"] == "pending"


class _Stage(str, enum.Enum):  # noqa: UP042 - the pattern whose str() is not its value
    WON = "won"


def test_clone_of_str_and_int_subclasses_gives_the_canonical_writers_values() -> None:
    value = {"stage": _Stage.WON, _Stage.WON: 1}
    clone = clone_output(value)
    assert json.dumps(clone) == '{"stage": "won", "won": 1}'
    assert dumps_compact(clone) == canonical(value).decode()


def test_an_exception_that_cannot_print_itself_still_gives_an_error_result() -> None:
    class Mute(Exception):
        def __str__(self) -> str:
            raise RuntimeError("cannot format")

    assert error_payload(Mute()) == {"code": "tool_crashed", "message": "Mute"}

    def run(state: Any, input: Any) -> Any:
        raise Mute()

    tool = silo_gym.bind_tools({}, [define_tool(name="t", description="d", input_schema={"type": "object"}, run=run)])[0]
    assert tool.execute({}) == {"output": {"code": "tool_crashed", "message": "Mute"}, "isError": True}


def test_a_failed_reset_in_a_wrapper_below_record_run_leaves_no_stale_listener(runs_dir: pathlib.Path) -> None:
    class Refuse(gym.Wrapper):  # type: ignore[type-arg]
        fail = True

        def reset(self, **kwargs: Any) -> Any:
            if Refuse.fail:
                Refuse.fail = False
                raise RuntimeError("bad option")
            return self.env.reset(**kwargs)

    env = RecordRun(Refuse(SiloEnv("orders", "TASK-001")), runs_dir=runs_dir)
    with pytest.raises(RuntimeError, match="bad option"):
        env.reset()
    _, info = env.reset()
    env.step({"answer": "x"})
    (run_dir,) = list(runs_dir.iterdir())
    assert run_dir.name == info["run_id"]
    assert _files(run_dir) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
    first = json.loads((run_dir / "trace.jsonl").read_text().splitlines()[0])
    assert first["runId"] == info["run_id"]


def test_the_deadline_sets_the_stop_signal_even_while_a_tool_call_runs() -> None:
    env = SiloEnv("orders", "TASK-001")
    env.reset()
    episode = env.episode
    assert episode is not None
    with episode.lock:  # a tool call in progress holds the lock
        timer = threading.Timer(0.05, episode.expire)
        timer.start()
        time.sleep(0.3)
        assert episode.signal.is_set()
    timer.join()
    assert episode.limit_reason == "timeout"


def test_the_empty_diff_fast_path_never_hides_a_change_orjson_writes_like_the_seed(
    tmp_path: pathlib.Path, make_env_dir: Any
) -> None:
    tools = '''
import datetime
from silo_gym import define_tool

def _stamp(state, input):
    state["rows"][0]["n"] = datetime.date(2026, 1, 1)
    return {"ok": True}

tools = [define_tool(name="stamp", description="d", input_schema={"type": "object"}, run=_stamp)]
'''
    env_dir = make_env_dir(tmp_path, "stamps", tools=tools)
    env = SiloEnv("stamps", "TASK-001", path=str(env_dir))
    env.reset()
    env.step({"tool": "stamp", "input": {}})
    *_, info = env.step({"answer": ""})
    assert info["state_diff"]["collections"] == {"rows": {"added": [], "removed": [], "changed": ["A"]}}


def test_pycache_in_an_environments_directory_is_skipped_quietly(tmp_path: pathlib.Path) -> None:
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "CON").mkdir()
    old = os.environ.get("SILO_GYM_PATH")
    os.environ["SILO_GYM_PATH"] = str(tmp_path)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            silo_gym.registration.register_all()
    finally:
        if old is None:
            del os.environ["SILO_GYM_PATH"]
        else:
            os.environ["SILO_GYM_PATH"] = old
    messages = [str(w.message) for w in caught]
    assert not any("__pycache__" in m for m in messages)
    assert any(str(tmp_path / "CON") in m for m in messages)
