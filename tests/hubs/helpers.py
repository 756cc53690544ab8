"""Shared by the hub tests: the native (``gym.make``) run of a plan, run-directory bytes, and a
uvicorn server on 127.0.0.1 in a thread."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import pathlib
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
from integrations._helpers import load_solver

from silo_gym.wrappers.record import RecordRun

DEMO_TASKS = tuple(f"TASK-00{i}" for i in range(1, 7))


def play_native(task_id: str, runs_dir: pathlib.Path, *, seed: int | None = 0, variant: int | None = None,
                environment: str = "demo", **kwargs: Any) -> tuple[float, pathlib.Path, str]:
    """Play ``task_id`` with the reference solver through ``gym.make`` + ``RecordRun``:
    (reward, run directory, the plan's answer)."""
    env = RecordRun(gym.make(f"silo/{environment}", disable_env_checker=True, **kwargs), runs_dir=runs_dir)
    options: dict[str, Any] = {"task_id": task_id}
    if variant is not None:
        options["variant"] = variant
    try:
        instruction, info = env.reset(seed=seed, options=options)
        plan = load_solver().plan(instruction)
        action = next(plan)
        while "answer" not in action:
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                return float(reward), pathlib.Path(info["run_dir"]), ""
            action = plan.send(json.loads(obs))
        obs, reward, terminated, truncated, info = env.step(action)
        return float(reward), pathlib.Path(info["run_dir"]), str(action["answer"])
    finally:
        env.close()


def run_bytes(run_dir: str | pathlib.Path) -> tuple[bytes, bytes]:
    """``result.json`` and ``state-diff.json`` of a run directory."""
    run = pathlib.Path(run_dir)
    return (run / "result.json").read_bytes(), (run / "state-diff.json").read_bytes()


def load_module(path: pathlib.Path, name: str) -> Any:
    """A Python file as a fresh module (an exported package's ``server/app.py``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve the ASGI ``app`` on 127.0.0.1 (a free port) in a thread; yields its base URL and
    stops the server when the block ends."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", ws_max_size=64 * 1024 * 1024))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
