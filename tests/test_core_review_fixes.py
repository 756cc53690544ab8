"""Faults found in review of the ending, snapshot, vector and hung-tool paths, kept as tests."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import gymnasium as gym
import numpy as np
import orjson
import pytest

from silo_gym import SiloEnv
from silo_gym.diff import diff_plain_initial, diff_state
from silo_gym.wrappers import RecordRun

NUMPY_TOOLS = '''
import numpy as np

from silo_gym import define_tool


def _bump(state, input):
    state["count"] += 1
    return {"count": state["count"]}


def _arr(state, input):
    state["rows"][0]["n"] = np.array([1, 2])   # not JSON: its == raises on comparison
    return "stored"


_OBJ = {"type": "object", "properties": {}, "additionalProperties": False}
tools = [define_tool(name="bump", description="Add one.", input_schema=_OBJ, run=_bump),
         define_tool(name="arr", description="Store an array.", input_schema=_OBJ, run=_arr)]
'''


def test_a_world_value_whose_equality_raises_still_ends_the_episode(tmp_path, make_env_dir, runs_dir):
    init = {"rows": [{"id": "a", "v": [1, 2]}]}
    parts = {k: orjson.dumps(v) for k, v in init.items()}
    final = {"rows": [{"id": "a", "v": np.array([1, 2])}]}
    assert diff_plain_initial(init, final, parts) == diff_state(init, final)
    env_dir = make_env_dir(tmp_path, "npworld", tools=NUMPY_TOOLS)
    env = RecordRun(SiloEnv("npworld", "TASK-001", path=str(env_dir)), runs_dir=runs_dir)
    env.reset()
    env.step({"tool": "bump"})
    env.step({"tool": "arr"})
    _, reward, terminated, _, info = env.step({"answer": "done"})
    assert terminated and reward == 1.0
    assert info["state_diff"]["collections"] == {"rows": {"added": [], "removed": [], "changed": ["A"]}}
    assert sorted(os.listdir(env.run_dir)) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]


def test_a_listener_that_fails_leaves_the_episode_ended_not_half_open(runs_dir):
    env = SiloEnv("orders", "TASK-001")

    def full_disk(event):
        if event["type"] == "run_end":
            raise OSError(28, "No space left on device")

    env.add_listener(full_disk)
    env.reset()
    with pytest.raises(OSError, match="No space left"):
        env.step({"answer": "x"})
    assert env.episode.done and env.episode.end is not None
    assert env.episode.end.reason == "completed" and env.episode.listeners == []
    with pytest.raises(gym.error.ResetNeeded):
        env.step({"answer": "again"})
    env.reset()  # the env goes on


VARIANT_INIT = '''
from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers


def create_state(variant=None):
    state = {"now": "2026-09-15", "count": 0, "label": "start", "rows": [{"id": "A", "n": 1}]}
    if variant is not None and variant % 2:
        state["rows"][0]["n"] = float("nan")   # a variant world whose values orjson cannot keep
        state["pair"] = (1, 2)
    return state


def bind_tools(state):
    return _bind(state, tools)
'''

VARIANT_VERIFIERS = '''
import math

from silo_gym import check, define_verifier


def _check(final, initial, context):
    n = initial["rows"][0]["n"]
    return [check("initial kept its values", isinstance(n, int) or math.isnan(n), repr(n)),
            check("pair kept", "pair" not in initial or initial["pair"] == (1, 2), repr(initial.get("pair")))]


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="Exact snapshot", check=_check)]
'''


def test_variant_worlds_are_snapshotted_exactly_whatever_the_first_world(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "mixedtypes", init=VARIANT_INIT, verifiers=VARIANT_VERIFIERS)
    env = SiloEnv("mixedtypes", "TASK-001", path=str(env_dir))
    for variant in (None, 2, 1, 3, None):  # plain worlds first, then NaN and tuples
        env.reset(options={"variant": variant})
        _, reward, *_, info = env.step({"answer": "x"})
        assert reward == 1.0, (variant, info["result"]["checks"])
    assert env.episode._snapshot.restore()["rows"][0]["n"] == 1  # the last world is the canonical one


def test_vector_resets_discard_the_auto_reset_episodes_nobody_played(tmp_path):
    runs = tmp_path / "runs"
    venv = gym.make_vec("silo/demo-TASK-004", num_envs=2, record_runs_dir=runs)
    venv.reset(seed=0)
    venv.step([{"answer": "x"}, {"tool": "get_current_date"}])
    venv.step([{"tool": "get_current_date"}, {"answer": "y"}])  # sub-env 0's new episode acted
    venv.reset(seed=1)  # sub-env 0's episode had a call: graded; sub-env 1's auto-reset one: discarded
    venv.close()        # both fresh episodes: discarded
    reasons = sorted(json.loads((d / "run.json").read_text())["terminationReason"] for d in runs.iterdir())
    assert reasons == ["agent_error", "completed", "completed"]


STUCK_TOOLS = '''
import threading

from silo_gym import define_tool

RELEASE = threading.Event()


def _stuck(state, input):
    RELEASE.wait(20)
    return "late"


tools = [define_tool(name="stuck", description="Hangs.", input_schema={"type": "object"}, run=_stuck)]
'''


def _release_stuck() -> None:
    for name, module in list(sys.modules.items()):
        if name.endswith(".tools") and hasattr(module, "RELEASE"):
            module.RELEASE.set()


def test_a_late_tool_result_never_follows_run_end_and_expire_never_blocks(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "stuckrace", tools=STUCK_TOOLS)
    env = SiloEnv("stuckrace", "TASK-001", path=str(env_dir))
    events: list[str] = []

    def listener(event):
        events.append(event["type"])
        if event["type"] == "run_end":  # the tool returns right now and tries to trace its result
            _release_stuck()
            time.sleep(0.2)

    env.add_listener(listener)
    env.reset()
    caller = threading.Thread(target=lambda: env.call_tool("stuck"), daemon=True)
    caller.start()
    try:
        while env.episode.running is None:
            time.sleep(0.005)
        expiring = threading.Thread(target=env.expire, daemon=True)
        expiring.start()
        expiring.join(2)
        assert not expiring.is_alive()  # the deadline timer does not wait for the stuck tool
        assert env.episode.limit_reason == "timeout"
        env.end_ungraded('Tool "stuck" did not return within 1 ms.')
        caller.join(5)
    finally:
        _release_stuck()
    assert events == ["run_start", "tool_call", "run_end", "episode_end"]
    with pytest.raises(ValueError, match="reason must be one of"):
        SiloEnv("stuckrace", "TASK-001", path=str(env_dir)).end_ungraded("x", reason="hung")
