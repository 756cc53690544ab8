"""Concurrent LLM rollouts against the scripted model server (issue 11, item 6).

The server (``silo-gym mock-model``) runs in a separate process and answers every call after
``LATENCY_MS`` (200 ms). For each concurrency the six demo tasks are collected (every episode
recorded) and compared with two ceilings measured in the same run:

- the **latency-bound ideal**: concurrency / (turns per episode x latency);
- the **client floor**: the bare ``openai.AsyncOpenAI`` client sending the same requests (the
  same messages and tool lists, replayed from a recorded run) at the same concurrency, with no env.

Rows: ``sdk`` collects with :func:`~silo_gym.llm.openai_acomplete` (the SDK), ``lean`` with
``lean=True`` (the lean request path); both must give the same rows. For ``lean`` the event
loop's lag is sampled by a probe task (sleep 10 ms, measure the overshoot) and the RSS growth per
episode in flight is reported.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from silo_gym.data import collect
from silo_gym.llm import ChatPolicy, openai_acomplete

from .common import Sizes, Table, ratio, start_mock_model, verdict

LATENCY_MS = 200
TASKS = ["silo/demo"]


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


class _Probed(ChatPolicy):
    """A ChatPolicy that starts a lag probe on the loop that plays its episodes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lags: list[float] = []
        self.peak_rss = 0.0
        self._probe: asyncio.Task[None] | None = None

    async def _run_probe(self) -> None:
        loop = asyncio.get_running_loop()
        tick = 0
        while True:
            t0 = loop.time()
            await asyncio.sleep(0.01)
            self.lags.append((loop.time() - t0 - 0.01) * 1000.0)
            tick += 1
            if tick % 10 == 0:
                self.peak_rss = max(self.peak_rss, _rss_mb())

    async def arun_episode(self, env: Any, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        if self._probe is None:
            self._probe = asyncio.get_running_loop().create_task(self._run_probe())
        return await super().arun_episode(env, seed=seed, options=options)

    async def aclose(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            self._probe = None
        await super().aclose()


def _record_requests(base_url: str) -> list[list[tuple[Any, Any]]]:
    """One episode per demo task, each as its list of (messages, tools) requests."""
    inner = openai_acomplete(base_url, "m", lean=True)
    episodes: list[list[tuple[Any, Any]]] = []

    async def recording(messages: Any, tools: Any) -> Any:
        if messages[-1]["role"] == "user":
            episodes.append([])
        episodes[-1].append((messages, tools))
        return await inner(messages, tools)

    recording.aclose = inner.aclose  # type: ignore[attr-defined]
    collect(TASKS, ChatPolicy(recording, model="m"), episodes_per_task=1)
    return episodes


def _client_floor(base_url: str, recorded: list[list[tuple[Any, Any]]], concurrency: int,
                  episodes: int) -> tuple[float, float, int]:
    """(episodes/s, calls/s, failed calls) of the bare AsyncOpenAI client replaying the recorded
    requests."""
    import openai

    async def main() -> tuple[float, float, int]:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY")  # the SDK's defaults
        queue = list(range(episodes))
        calls = failures = 0

        async def worker() -> None:
            nonlocal calls, failures
            while queue:
                i = queue.pop()
                for messages, tools in recorded[i % len(recorded)]:
                    try:
                        await client.chat.completions.create(model="m", messages=messages, tools=tools)
                    except openai.APIError:  # counted; the SDK already retried it (max_retries=2)
                        failures += 1
                    calls += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - t0
        await client.close()
        return episodes / elapsed, calls / elapsed, failures

    return asyncio.run(main())


def _collect(base_url: str, concurrency: int, episodes_per_task: int, lean: bool, runs: Path) -> tuple[float, Any, Any]:
    policy = _Probed(openai_acomplete(base_url, "m", lean=lean), model="m")
    t0 = time.perf_counter()
    # No env deadline: at 1024 in flight a turn waits its place at the client (timeout_ms is from reset).
    rows = collect(TASKS, policy, episodes_per_task=episodes_per_task, concurrency=concurrency, runs_dir=runs,
                   env_kwargs={"timeout_ms": 3_600_000})
    elapsed = time.perf_counter() - t0
    bad = [r for r in rows if r["reward"] != 1.0]
    assert not bad, bad[0]["error"]
    return len(rows) / elapsed, rows, policy


def bench_llm(sizes: Sizes) -> Table:
    quick = sizes.episodes < 50
    latency = 20 if quick else LATENCY_MS
    table = Table(f"concurrent LLM rollouts: scripted server, {latency} ms per call (episodes per second)")
    try:
        import aiohttp  # noqa: F401
        import openai  # noqa: F401
    except ImportError:
        table.add("llm", "not installed", "", 'pip install "silo-gym[openai,aiohttp]"')
        return table
    levels = [1, 4] if quick else [1, 16, 64, 256, 1024]
    load = os.getloadavg()
    table.add("load average (1 min) at start", load[0], "", f"{os.cpu_count()} CPUs; figures drop under load")
    server, base_url = start_mock_model(latency)
    tmp = Path(tempfile.mkdtemp(prefix="sgllm-"))
    try:
        recorded = _record_requests(base_url)
        turns = statistics.fmean(len(e) for e in recorded)
        table.add("model calls per episode (mean of the 6 tasks)", turns, "")
        for c in levels:
            per_task = max(2, (2 * c) // 6) if not quick else 2
            episodes = per_task * 6
            ideal = c / (turns * latency / 1000.0)
            floor_eps, floor_calls, floor_failures = _client_floor(base_url, recorded, c, episodes)
            lower = min(ideal, floor_eps)
            table.add(f"c={c}: latency-bound ideal", ideal, "ep/s", f"{episodes} episodes per run")
            table.add(f"c={c}: client floor (bare AsyncOpenAI)", floor_eps, "ep/s", f"{floor_calls:.0f} calls/s"
                      + (f"; {floor_failures} calls failed after the SDK's retries" if floor_failures else ""))
            sdk_eps, sdk_rows, _ = _collect(base_url, c, per_task, False, tmp / f"sdk{c}")
            target = 0.7 if c >= 1024 else 0.9
            note = f"{ratio(sdk_eps, lower):.2f} of the lower ceiling"
            if c >= 16:
                note += f"; {verdict(ratio(sdk_eps, lower), target, lower_is_better=False)}"
            table.add(f"c={c}: collect, SDK client", sdk_eps, "ep/s", note)
            before = _rss_mb()
            lean_eps, lean_rows, probe = _collect(base_url, c, per_task, True, tmp / f"lean{c}")
            same = [{k: v for k, v in r.items() if k not in ("run_id", "retries")} for r in lean_rows] == \
                [{k: v for k, v in r.items() if k not in ("run_id", "retries")} for r in sdk_rows]
            retried = sum(r["retries"] for r in sdk_rows) + sum(r["retries"] for r in lean_rows)
            lean_calls = lean_eps * turns
            note = (f"{ratio(lean_eps, ideal):.2f} of ideal; {ratio(lean_calls, floor_calls):.2f}x the bare SDK's "
                    f"calls/s; same rows: {same}" + (f" ({retried} model calls retried)" if retried else ""))
            if c == 256:
                note += f"; {verdict(ratio(lean_calls, floor_calls), 2.0, lower_is_better=False)}"
            table.add(f"c={c}: collect, lean client", lean_eps, "ep/s", note)
            lags = sorted(probe.lags) or [0.0]
            p50 = lags[len(lags) // 2]
            p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
            table.add(f"c={c}: event-loop lag p50 / p99 (lean)", p99, "ms p99",
                      f"p50 {p50:.1f} ms" + (f"; {verdict(p99, 50.0)}" if c == 256 else ""))
            if c >= 16:
                per = max(0.0, probe.peak_rss - before) / c
                table.add(f"c={c}: RSS per episode in flight (lean)", per * 1000.0, "KB",
                          verdict(per, 1.0) + " (1 MB)")
            for line in table.render().splitlines()[-6:]:
                print(line, file=sys.stderr, flush=True)  # figures so far, while the next level runs
            shutil.rmtree(tmp / f"sdk{c}", ignore_errors=True)
            shutil.rmtree(tmp / f"lean{c}", ignore_errors=True)
        table.add("peak RSS of this process", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000.0, "MB")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    return table


__all__ = ["bench_llm"]
