"""Every run silo_gym writes reads back and replays (issue 19, item 14): no single call can make a
run unprovable. An answer JSON cannot carry (``NaN``, ``±Infinity`` anywhere in it, containers nested
past the limit) is refused where it is given, before the episode ends: an invalid action for
``step``, ``invalid_input`` for MCP's ``submit_answer``, ``agent_error`` for a Silo agent. An input
nested too deeply to read back is refused and traced in a form the reader reads."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import silo_gym
from silo_gym.plain_json import MAX_NESTING
from silo_gym.replay import regrade_run, replay_run
from silo_gym.rundir import read_run
from silo_gym.wrappers import RecordRun

ID = "silo/demo-TASK-001"


def nest(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


UNRECORDABLE = [
    ("nan", math.nan, "answer", "NaN"),
    ("inf", math.inf, "answer", "Infinity"),
    ("-inf", -math.inf, "answer", "-Infinity"),
    ("nested-inf", [1.0, -math.inf], "answer[1]", "-Infinity"),
    ("nested-nan", {"x": {"y": math.nan}}, "answer.x.y", "NaN"),
    ("too-deep", nest(MAX_NESTING + 5), "answer", f"containers nested deeper than {MAX_NESTING} levels"),
]


def _proves(run_dir: str | Path) -> None:
    """The run reads back, replays byte-identical and regrades unchanged."""
    read_run(run_dir)
    report = replay_run(run_dir)
    assert report.identical, report.summary()
    assert regrade_run(run_dir).changes == []


@pytest.mark.parametrize(("what", "answer", "path", "found"), UNRECORDABLE, ids=[u[0] for u in UNRECORDABLE])
def test_step_refuses_an_answer_json_cannot_carry(tmp_path: Path, what: str, answer: Any, path: str,
                                                  found: str) -> None:
    env = RecordRun(gym.make(ID), runs_dir=tmp_path)
    _, info = env.reset(seed=0)
    obs, reward, terminated, truncated, _ = env.step({"answer": answer})
    refusal = json.loads(obs)["output"]
    assert refusal["code"] == "invalid_action" and not (terminated or truncated)
    assert refusal["message"].startswith(f'"{path}" cannot be recorded: received {found}')
    *_, end = env.step({"answer": "done"})  # the episode goes on; a real answer ends it
    assert end["result"]["agentOutput"] == "done"
    _proves(info["run_dir"])


@pytest.mark.parametrize(("what", "answer", "path", "found"), UNRECORDABLE, ids=[u[0] for u in UNRECORDABLE])
def test_a_silo_agent_returning_such_an_answer_ends_as_agent_error(tmp_path: Path, what: str, answer: Any,
                                                                   path: str, found: str) -> None:
    def agent(task, tools, call_tool, signal):
        return {"output": answer}

    result = silo_gym.run_task("demo", "TASK-001", agent, runs_dir=tmp_path)
    assert result.run["terminationReason"] == "agent_error"
    assert f'"{path.replace("answer", "output", 1)}" cannot be recorded: received {found}' in result.error
    _proves(result.run_dir)


def test_a_deep_but_recordable_answer_is_kept_and_proves(tmp_path: Path) -> None:
    env = RecordRun(gym.make(ID), runs_dir=tmp_path)
    _, info = env.reset(seed=0)
    *_, end = env.step({"answer": nest(MAX_NESTING, [1.5, None])})
    assert end["result"]["agentOutput"] == nest(MAX_NESTING, [1.5, None])
    _proves(info["run_dir"])


@pytest.mark.parametrize("depth", [MAX_NESTING + 2, 499, 501, 999, 1000, 1200, 5000])
@pytest.mark.parametrize("driver", ["step", "call_tool"])
def test_a_refused_deep_input_is_traced_readably(tmp_path: Path, depth: int, driver: str) -> None:
    deep = nest(depth)
    if driver == "step":
        env = RecordRun(gym.make(ID), runs_dir=tmp_path)
        _, info = env.reset(seed=0)
        obs, *_ = env.step({"tool": "search_leads", "input": deep})
        assert json.loads(obs)["output"]["code"] == "invalid_action"
        env.step({"answer": "x"})
        run_dir = info["run_dir"]
    else:
        def agent(task, tools, call_tool, signal):
            assert call_tool("search_leads", deep)["output"]["code"] == "invalid_action"
            return {"output": "x"}

        run_dir = silo_gym.run_task("demo", "TASK-001", agent, runs_dir=tmp_path).run_dir
    _proves(run_dir)


def test_submit_answer_over_mcp_refuses_such_an_answer(tmp_path: Path) -> None:
    # Over stdio and HTTP, JSON text with NaN or Infinity literals reaches the server as floats
    # (the SDK's parser takes them); tests/serving/test_stdio_replies.py sends such a line.
    pytest.importorskip("mcp")
    from silo_gym.serve.episodes import EpisodeSettings, ServedEpisode

    episode = ServedEpisode(EpisodeSettings("demo", "TASK-003", runs_dir=tmp_path))
    bad = episode.submit_call({"answer": [1, math.nan]})
    assert bad.is_error and bad.payload["code"] == "invalid_input"
    assert bad.payload["message"].startswith('"answer[1]" cannot be recorded: received NaN')
    assert not episode.done  # the client may answer again
    good = episode.submit_call({"answer": "Done."})
    assert not good.is_error and good.result is not None and good.result["agentOutput"] == "Done."
    _proves(episode.run_dir)


def test_env_finish_refuses_such_an_output_and_keeps_the_episode_open() -> None:
    env = gym.make(ID)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r'"output" cannot be recorded: received NaN'):
        env.unwrapped.finish(math.nan)
    assert env.unwrapped.episode is not None and not env.unwrapped.episode.done
    *_, info = env.unwrapped.finish("fine")
    assert info["result"]["agentOutput"] == "fine"
