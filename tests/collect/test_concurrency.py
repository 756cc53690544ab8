"""Concurrent collection against the scripted model server (issue 11): the same rows as one at a
time, hung model calls that time out, and policies that cannot share the loop refused."""

from __future__ import annotations

import asyncio
import time

import pytest

from silo_gym.data import EPISODE_COLUMNS, collect, iter_collect
from silo_gym.llm import ChatPolicy, RetryPolicy, openai_acomplete

pytest.importorskip("aiohttp")
pytest.importorskip("openai")

from silo_gym.mock_model import MockModelServer  # noqa: E402

from ._helpers import plan_chat  # noqa: E402

TIMINGS = ("run_id",)


def _strip(rows):
    return [{k: v for k, v in r.items() if k not in TIMINGS} for r in rows]


@pytest.fixture(scope="module")
def server():
    with MockModelServer(latency_ms=20) as srv:
        yield srv


def test_concurrency_64_gives_the_rows_of_concurrency_1(server, tmp_path):
    lean = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
    serial = collect(["silo/demo"], lean, episodes_per_task=11, seed=5)
    sdk = ChatPolicy(openai_acomplete(server.openai_base_url, "m"), model="m")
    runs = tmp_path / "runs"
    wide = collect(["silo/demo"], sdk, episodes_per_task=11, seed=5, concurrency=64, runs_dir=runs)
    assert len(wide) == 66 and all(tuple(r) == EPISODE_COLUMNS for r in wide)
    assert all(r["reward"] == 1.0 and r["retries"] == 0 for r in wide)
    assert _strip(wide) == _strip(serial)  # row for row, SDK and lean client alike
    # every episode recorded once, completely
    assert sorted(p.name for p in runs.iterdir()) == sorted(r["run_id"] for r in wide)
    for r in wide:
        assert sorted(p.name for p in (runs / r["run_id"]).iterdir()) == \
            ["result.json", "run.json", "state-diff.json", "trace.jsonl"]


def test_iter_collect_yields_in_completion_order_with_episode_indices(server):
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
    streamed = list(iter_collect(["silo/demo"], policy, episodes_per_task=4, concurrency=16))
    ordered = collect(["silo/demo"], policy, episodes_per_task=4, concurrency=16)
    key = lambda r: (r["task_id"], r["episode"])  # noqa: E731
    assert sorted(map(key, streamed)) == [key(r) for r in ordered]
    assert streamed != ordered  # TASK-004..006 take 2 turns, TASK-001..003 more: they finish first
    assert _strip(sorted(streamed, key=key)) == _strip(ordered)


def test_a_hung_model_call_becomes_a_failed_row_in_time(tmp_path):
    timeout = 1.5
    with MockModelServer(latency_ms=20, faults=["hang@5"]) as srv:
        policy = ChatPolicy(openai_acomplete(srv.openai_base_url, "m", lean=True), model="m")
        t0 = time.perf_counter()
        arrivals = []
        rows = []
        for row in iter_collect(["silo/demo"], policy, episodes_per_task=2, concurrency=12,
                                episode_timeout_s=timeout, runs_dir=tmp_path / "runs"):
            arrivals.append(time.perf_counter() - t0)
            rows.append(row)
    failed = [(r, t) for r, t in zip(rows, arrivals, strict=True) if r["reward"] is None]
    assert len(failed) == 1 and len(rows) == 12
    row, arrived = failed[0]
    # request 5 is the first turn of an episode started at once: it fails within timeout + 1 s
    assert arrived <= timeout + 1.0
    assert row["error"] == ("Episode timed out after 1.5 s (episode_timeout_s): "
                            "the model call of turn 1 did not return.")
    assert row["run_id"] is None and row["messages"] is None and row["retries"] == 0
    good = [r for r in rows if r["reward"] is not None]
    assert all(r["reward"] == 1.0 for r in good)
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == sorted(r["run_id"] for r in good)


def test_transient_errors_are_counted_in_rows():
    with MockModelServer(latency_ms=1, faults=["429@1", "500@2"], retry_after_s=0.05) as srv:
        policy = ChatPolicy(openai_acomplete(srv.openai_base_url, "m", lean=True), model="m",
                            retry=RetryPolicy(initial_delay_s=0.01))
        rows = collect(["silo/demo-TASK-004"], policy, episodes_per_task=1)
    assert rows[0]["reward"] == 1.0 and rows[0]["retries"] == 2


def test_an_episode_failing_twice_sums_its_retries():
    with MockModelServer(latency_ms=1, faults=["429@1", "400@2"], retry_after_s=0.01) as srv:
        policy = ChatPolicy(openai_acomplete(srv.openai_base_url, "m", lean=True), model="m",
                            retry=RetryPolicy(initial_delay_s=0.01))
        rows = collect(["silo/demo-TASK-004"], policy, episodes_per_task=1, max_retries=0)
    assert rows[0]["reward"] is None and rows[0]["retries"] == 1
    assert rows[0]["error"].startswith("Episode failed after 1 attempt(s): ModelHTTPError: HTTP 400")


def test_sync_complete_functions_overlap_too():
    def slow_plan(messages, tools):  # a plain function: run in worker threads by arun_episode
        time.sleep(0.2)
        return plan_chat(messages, tools)

    policy = ChatPolicy(slow_plan, model="m")
    t0 = time.perf_counter()
    rows = collect(["silo/demo-TASK-004", "silo/demo-TASK-005"], policy, episodes_per_task=4, concurrency=8)
    elapsed = time.perf_counter() - t0
    assert [r["reward"] for r in rows] == [1.0] * 8
    assert elapsed < 8 * 2 * 0.2 * 0.75  # under the serial 3.2 s: the episodes overlapped


@pytest.mark.parametrize("policy", ["random", lambda observation, info: {"answer": ""}])
def test_policies_that_cannot_share_the_loop_are_refused(policy):
    with pytest.raises(ValueError, match="concurrency=4 needs a policy that awaits its model"):
        collect(["silo/demo-TASK-004"], policy, episodes_per_task=1, concurrency=4)
    with pytest.raises(ValueError, match="episode_timeout_s applies to policies that await their model"):
        collect(["silo/demo-TASK-004"], policy, episodes_per_task=1, episode_timeout_s=3)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"concurrency": 0}, "concurrency must be an int >= 1"),
    ({"concurrency": 2.5}, "concurrency must be an int >= 1"),
    ({"episode_timeout_s": 0}, "episode_timeout_s must be a number of seconds above 0"),
    ({"episode_timeout_s": float("nan")}, "episode_timeout_s must be a number of seconds above 0"),
])
def test_bad_concurrency_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        collect(["silo/demo-TASK-004"], ChatPolicy(plan_chat), episodes_per_task=1, **kwargs)


def test_collect_works_inside_a_running_event_loop(server):
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")

    async def notebook_cell():  # as in Jupyter, where a loop is already running
        return collect(["silo/demo-TASK-004"], policy, episodes_per_task=2, concurrency=2)

    rows = asyncio.run(notebook_cell())
    assert [r["reward"] for r in rows] == [1.0, 1.0]


def test_closing_the_stream_early_throws_in_flight_episodes_away(server, tmp_path):
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
    stream = iter_collect(["silo/demo"], policy, episodes_per_task=8, concurrency=16, runs_dir=tmp_path)
    first = next(stream)
    stream.close()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert first["run_id"] in left
    for name in left:  # finished runs only, each complete
        assert sorted(p.name for p in (tmp_path / name).iterdir()) == \
            ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
