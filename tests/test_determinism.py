"""Determinism and isolation: fresh worlds, byte-stable artifacts (silo-format §1.2; gym-api.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import gymnasium as gym
from conftest import ENVS_DIR, subprocess_env

from silo_gym import SiloEnv
from silo_gym.wrappers import RecordRun

ACTIONS = [
    {"tool": "get_order", "input": {"orderId": "O-2"}},
    {"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "ground", "express": True}},
    "not an action",
    {"tool": "explode"},
    {"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "express"}},
    {"answer": {"summary": "shipped", "total": 42.5, "ratio": 2 / 3, "n": 1.0}},
]

EPISODE_SCRIPT = """
import json, sys
import silo_gym
import gymnasium as gym
from silo_gym.wrappers import RecordRun

actions = json.loads(sys.argv[2])
env = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=sys.argv[1])
obs, info = env.reset(seed=7)
observations = [obs]
rewards = []
for action in actions:
    obs, reward, terminated, truncated, step_info = env.step(action)
    observations.append(obs)
    rewards.append(reward)
print(json.dumps({"run_dir": info["run_dir"], "observations": observations, "rewards": rewards}))
"""


def _artifacts(run_dir) -> tuple[bytes, bytes]:
    with open(os.path.join(run_dir, "result.json"), "rb") as a, open(os.path.join(run_dir, "state-diff.json"),
                                                                     "rb") as b:
        return a.read(), b.read()


def _play(env, actions, seed=7):
    obs, info = env.reset(seed=seed)
    out = [obs]
    for action in actions:
        obs, reward, *_ = env.step(action)
        out.append((obs, reward))
    return info, out


def test_episodes_never_share_state():
    env = SiloEnv("orders", "TASK-001")
    env.reset()
    first = env.episode.state
    env.step({"tool": "ship_order", "input": {"orderId": "O-1", "carrier": "ground"}})
    assert first["orders"]["O-1"]["status"] == "shipped"
    env.step({"answer": "x"})
    env.reset()
    second = env.episode.state
    assert second["orders"]["O-1"]["status"] == "pending" and second["shipments"] == []
    obs, *_ = env.step({"tool": "get_order", "input": {"orderId": "O-1"}})
    assert json.loads(obs)["output"]["status"] == "pending"

    def containers(value, acc):
        if isinstance(value, (dict, list)):
            acc.add(id(value))
            for v in value.values() if isinstance(value, dict) else value:
                containers(v, acc)
        return acc

    assert containers(first, set()).isdisjoint(containers(second, set()))
    # Tools are bound to the episode's own world.
    assert all(t.state is second for t in env.episode.tools)


def test_interleaved_envs_match_solo_runs(tmp_path):
    solo = []
    for i in range(2):
        env = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=tmp_path / f"solo{i}")
        info, _ = _play(env, ACTIONS)
        solo.append(_artifacts(info["run_dir"]))
    assert solo[0] == solo[1]

    a = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=tmp_path / "a")
    b = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=tmp_path / "b")
    _, ia = a.reset(seed=7)
    _, ib = b.reset(seed=7)
    for action in ACTIONS:
        a.step(action)
        b.step(json.loads(json.dumps(action)))
    assert _artifacts(ia["run_dir"]) == _artifacts(ib["run_dir"]) == solo[0]


def test_same_actions_same_bytes_across_processes(tmp_path):
    outputs = []
    for i in range(2):
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(EPISODE_SCRIPT), str(tmp_path / f"p{i}"),
                               json.dumps(ACTIONS)], capture_output=True, text=True,
                              env=subprocess_env(SILO_GYM_PATH=str(ENVS_DIR), PYTHONHASHSEED=str(i + 1)), timeout=60)
        assert proc.returncode == 0, proc.stderr
        outputs.append(json.loads(proc.stdout))
    env = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=tmp_path / "here")
    info, here = _play(env, ACTIONS)
    assert outputs[0]["observations"] == outputs[1]["observations"] == [here[0]] + [o for o, _ in here[1:]]
    assert outputs[0]["rewards"] == outputs[1]["rewards"] == [r for _, r in here[1:]]
    result, diff = _artifacts(outputs[0]["run_dir"])
    assert (result, diff) == _artifacts(outputs[1]["run_dir"]) == _artifacts(info["run_dir"])
    text = result.decode("utf-8")
    assert '"reward": 0.67,' in text  # shipped with ground: 2 of 3 checks
    assert '"total": 42.5,' in text and '"ratio": 0.6666666666666666,' in text and '"n": 1\n' in text
    assert '"toolCalls": 5,' in text and '"toolErrors": 3,' in text
    assert diff.decode("utf-8") == textwrap.dedent("""\
        {
          "scalars": [],
          "collections": {
            "orders": {
              "added": [],
              "removed": [],
              "changed": [
                "O-1"
              ]
            },
            "shipments": {
              "added": [
                "SHP-1"
              ],
              "removed": [],
              "changed": []
            },
            "sequences": {
              "added": [],
              "removed": [],
              "changed": [
                "SHP"
              ]
            }
          }
        }
        """)


def test_artifacts_hold_no_clock_or_run_id(tmp_path):
    env = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=tmp_path)
    info, _ = _play(env, ACTIONS)
    result, diff = _artifacts(info["run_dir"])
    for blob in (result, diff):
        assert info["run_id"].encode() not in blob
        assert b"startedAt" not in blob and b"durationMs" not in blob and b"T0" not in blob


def test_seeded_per_environment_env_is_reproducible(tmp_path, make_env_dir):
    tasks = {f"{i}.json": {"id": f"T-{i}", "title": "t", "instruction": f"Task {i}", "verifierId": "VER-001"}
             for i in range(6)}
    env_dir = make_env_dir(tmp_path, "many", tasks=tasks)
    runs = []
    for _ in range(2):
        env = SiloEnv("many", path=str(env_dir))
        seq = [env.reset(seed=11)[0]] + [env.reset()[0] for _ in range(10)]
        runs.append(seq)
    assert runs[0] == runs[1]
    assert len(set(runs[0])) > 1
