"""Hubs: the demo tasks played by 64 OpenEnv sessions at once on one server (issue 25), against
the same plans played natively (``gym.make`` + ``RecordRun``), both recorded.

The OpenEnv server runs in its own process (``create_silo_app`` under uvicorn on 127.0.0.1);
the 64 clients are openenv-core WebSocket clients in this process, each playing the demo
reference solver's plan. A step is one tool call or the final answer. Both sides alternate
rounds; the machine's two cores are shared by the server, the clients and anything else
running (the load average is printed at the start).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import Sizes, Table, ratio

SESSIONS = 64
_TASKS = tuple(f"TASK-00{i}" for i in range(1, 7))
_SOLVER = Path(__file__).resolve().parents[1] / "examples" / "agents" / "crm_solver.py"


def _solver() -> Any:
    spec = importlib.util.spec_from_file_location("_bench_hubs_solver", _SOLVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _native_round(solver: Any, runs: Path, episodes: int) -> tuple[int, float]:
    import gymnasium as gym

    from silo_gym.wrappers.record import RecordRun

    env = RecordRun(gym.make("silo/demo", disable_env_checker=True), runs_dir=runs)
    steps = 0
    t0 = time.perf_counter()
    try:
        for i in range(episodes):
            instruction, _ = env.reset(seed=0, options={"task_id": _TASKS[i % len(_TASKS)]})
            plan = solver.plan(instruction)
            action = next(plan)
            while True:
                obs, _, terminated, truncated, _ = env.step(action)
                steps += 1
                if terminated or truncated:
                    break
                action = plan.send(json.loads(obs))
    finally:
        env.close()
    return steps, time.perf_counter() - t0


async def _hub_round(solver: Any, url: str, episodes: int) -> tuple[int, float]:
    from silo_gym.integrations.openenv import SiloEnvClient

    per = [episodes // SESSIONS + (1 if i < episodes % SESSIONS else 0) for i in range(SESSIONS)]
    clients = [SiloEnvClient(base_url=url, message_timeout_s=600) for _ in range(SESSIONS)]
    await asyncio.gather(*(c.connect() for c in clients))
    counts = [0] * SESSIONS

    async def play(k: int) -> None:
        client = clients[k]
        for j in range(per[k]):
            start = await client.reset(task_id=_TASKS[(k + j) % len(_TASKS)], seed=0)
            plan = solver.plan(start.observation.instruction)
            action = next(plan)
            while "answer" not in action:
                step = await client.call_tool(action["tool"], action["input"])
                counts[k] += 1
                if step.done:
                    break
                result = {"output": step.observation.result}
                if step.observation.is_error:
                    result["isError"] = True
                action = plan.send(result)
            else:
                await client.submit_answer(action["answer"])
                counts[k] += 1

    t0 = time.perf_counter()
    try:
        await asyncio.gather(*(play(k) for k in range(SESSIONS)))
    finally:
        await asyncio.gather(*(c.close() for c in clients))
    return sum(counts), time.perf_counter() - t0


_SERVER = f"""
import sys, uvicorn
from silo_gym.integrations.openenv import create_silo_app
app = create_silo_app("demo", runs_dir=sys.argv[2], max_concurrent_envs={SESSIONS})
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="critical")
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_server(runs: Path) -> tuple[subprocess.Popen[bytes], str]:
    import urllib.request

    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(port), str(runs)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/health", timeout=2).read()
            return proc, url
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the OpenEnv server did not start")


def bench_hubs(sizes: Sizes) -> Table:
    table = Table(f"hubs: {SESSIONS} OpenEnv sessions at once on one server vs the native env (demo tasks, recorded)")
    try:
        import openenv.core  # noqa: F401
    except ImportError:
        table.add("skipped", "openenv-core", "", 'not installed: pip install "silo-gym[openenv]"')
        return table
    solver = _solver()
    episodes = max(SESSIONS, sizes.episodes)
    rounds = max(2, sizes.repeats // 2)
    with tempfile.TemporaryDirectory(prefix="silo-bench-hubs-") as tmp:
        proc, url = _start_server(Path(tmp) / "hub")
        try:
            native: list[float] = []
            hub: list[float] = []
            for r in range(rounds):  # alternate the two sides
                steps, seconds = _native_round(solver, Path(tmp) / f"native{r}", episodes)
                native.append(steps / seconds)
                steps, seconds = asyncio.run(_hub_round(solver, url, episodes))
                hub.append(steps / seconds)
        finally:
            proc.terminate()
            proc.wait(30)
    native_sps, hub_sps = sorted(native)[len(native) // 2], sorted(hub)[len(hub) // 2]
    table.add("native gym.make + RecordRun", native_sps, "steps/s", f"{episodes} episodes in one process, median of {rounds}")
    table.add(f"OpenEnv, {SESSIONS} sessions at once", hub_sps, "steps/s",
              f"{episodes} episodes over WebSocket on loopback; server in its own process")
    table.add("OpenEnv / native", ratio(hub_sps, native_sps), "x", f"cores: {os.cpu_count()}")
    return table
