"""A crash never corrupts the trace (issue 10 item 4; silo-format §6.6): short and failing writes
never leave a torn line before the last, and ``read_trace`` reports a torn last line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import gymnasium as gym
import pytest
from conftest import subprocess_env

from silo_gym.trace import TraceCorrupt, read_trace
from silo_gym.wrappers import RecordRun
from silo_gym.wrappers import record as record_mod

BIG = {"tool": "get_order", "input": {"orderId": "O-1"}}


def _lines(run_dir):
    with open(os.path.join(run_dir, "trace.jsonl"), "rb") as fh:
        return fh.read()


def test_short_writes_are_completed(monkeypatch, runs_dir):
    real_write = os.write

    def half_write(fd, data):
        data = bytes(data)
        return real_write(fd, data[: max(1, len(data) // 2)])

    monkeypatch.setattr(record_mod.os, "write", half_write)
    env = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=runs_dir)
    env.reset()
    for _ in range(3):
        env.step(BIG)
    env.step({"answer": "done"})
    trace = read_trace(os.path.join(env.run_dir, "trace.jsonl"))
    assert trace.torn is None
    assert [e["type"] for e in trace.events] == ["run_start"] + ["tool_call", "tool_result"] * 3 + [
        "agent_output", "run_end", "verifier_result"]


def test_a_write_failing_part_way_leaves_only_whole_lines(monkeypatch, runs_dir):
    env = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir=runs_dir)
    env.reset()
    env.step(BIG)
    before = _lines(env.run_dir)
    real_write = os.write
    calls = {"n": 0}

    def failing_write(fd, data):
        calls["n"] += 1
        data = bytes(data)
        if calls["n"] == 1:
            return real_write(fd, data[: len(data) // 3])  # a short write...
        raise OSError(28, "No space left on device")       # ...then the disk is full

    monkeypatch.setattr(record_mod.os, "write", failing_write)
    with pytest.raises(OSError, match="No space left"):
        env.step(BIG)
    monkeypatch.setattr(record_mod.os, "write", real_write)
    assert _lines(env.run_dir) == before  # the partial line was cut back
    trace = read_trace(os.path.join(env.run_dir, "trace.jsonl"))
    assert trace.torn is None and len(trace.events) == 3


def test_read_trace_reports_a_torn_last_line(tmp_path):
    whole = b'{"seq":1,"type":"run_start"}\n{"seq":2,"type":"tool_call"}\n'
    path = tmp_path / "trace.jsonl"
    path.write_bytes(whole + b'{"seq":3,"type":"tool_re')
    trace = read_trace(path)
    assert [e["seq"] for e in trace.events] == [1, 2]
    assert trace.torn == "the last line (line 3, 24 bytes) has no line end (the write was interrupted); it was left out"
    assert trace.torn_bytes == b'{"seq":3,"type":"tool_re'
    path.write_bytes(whole + b'{"seq":3,\n')
    trace = read_trace(path)
    assert len(trace.events) == 2 and "line 3" in trace.torn and "is not a whole JSON object" in trace.torn
    path.write_bytes(whole)
    assert read_trace(path).torn is None and len(read_trace(path).events) == 2
    path.write_bytes(b"")
    assert read_trace(path).events == [] and read_trace(path).torn is None
    path.write_bytes(b'{"seq":1}\n{broken\n{"seq":3}\n')
    with pytest.raises(TraceCorrupt, match="line 2 is not a JSON object"):
        read_trace(path)


CHILD = r'''
import os, sys
os.environ["SILO_GYM_PATH"] = sys.argv[1]
import gymnasium as gym, silo_gym
from silo_gym.wrappers import RecordRun
env = RecordRun(gym.make("silo/widgets-TASK-001", max_tool_calls=10**9), runs_dir=sys.argv[2])
env.reset()
print("ready", flush=True)
# At most 50 big steps (~150 MB of trace, under the reader's 256 MiB cap on a run file), then
# wait to be killed: a fast machine must not outgrow what read_trace accepts before the kill.
for _ in range(50):
    env.step({"tool": "big", "input": {"n": 3_000_000}})
import time
time.sleep(600)
'''


@pytest.mark.parametrize("delay", [0.05, 0.17, 0.31])
def test_a_process_killed_while_writing_large_events_leaves_a_readable_trace(tmp_path, make_env_dir, delay):
    make_env_dir(tmp_path / "envs", "widgets")
    runs = tmp_path / "runs"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "envs"), str(runs)],
                             stdout=subprocess.PIPE, env=subprocess_env())
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait()
    (run_dir,) = list(runs.iterdir())
    trace = read_trace(run_dir / "trace.jsonl")  # never raises
    assert trace.events[0]["type"] == "run_start"
    assert [e["seq"] for e in trace.events] == list(range(1, len(trace.events) + 1))
    for event in trace.events[1:]:
        assert event["type"] in ("tool_call", "tool_result")
        if event["type"] == "tool_result":
            assert len(event["output"]) == 3_000_000
    assert trace.torn is None or trace.torn.startswith("the last line")
    # Whatever was cut, what was kept is whole JSON.
    json.dumps(trace.events)
