"""Concurrent collection against a served model: many episodes in flight on one event loop.

With no arguments it starts the scripted model server (``silo_gym.mock_model``, 200 ms per reply,
one 429 and one hung request) in this process and collects the six demo tasks with 64 episodes
in flight; pass a base URL and a model to use a real server instead::

    python examples/concurrent_collect.py
    python examples/concurrent_collect.py http://localhost:8000/v1 Qwen/Qwen2.5-7B-Instruct

The same from the shell::

    silo-gym mock-model --latency-ms 200 --port 8000 &
    silo-gym collect --env demo --policy openai:m --base-url http://127.0.0.1:8000/v1 \\
        --episodes-per-task 20 --concurrency 64 --episode-timeout 30 --out out/

Needs ``pip install "silo-gym[openai,aiohttp]"``.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time

from silo_gym.data import collect
from silo_gym.llm import ChatPolicy, openai_acomplete
from silo_gym.mock_model import MockModelServer


def main(argv: list[str]) -> int:
    episodes_per_task = 20
    with contextlib.ExitStack() as stack:
        if len(argv) >= 2:
            base_url, model = argv[0], argv[1]
        else:
            server = stack.enter_context(MockModelServer(latency_ms=200, faults=["429@5", "hang@40"],
                                                         retry_after_s=0.5))
            base_url, model = server.openai_base_url, "scripted"
        policy = ChatPolicy(openai_acomplete(base_url, model, lean=True), model=model)
        runs = stack.enter_context(tempfile.TemporaryDirectory(prefix="silo-runs-"))
        t0 = time.perf_counter()
        rows = collect(["silo/demo"], policy, episodes_per_task=episodes_per_task, concurrency=64,
                       episode_timeout_s=10, runs_dir=runs)
        elapsed = time.perf_counter() - t0
    done = [r for r in rows if r["reward"] is not None]
    failed = [r for r in rows if r["reward"] is None]
    mean = sum(r["reward"] for r in done) / len(done) if done else float("nan")
    print(f"{len(rows)} episodes in {elapsed:.1f} s ({len(rows) / elapsed:.1f} episodes/s), "
          f"mean reward {mean:.2f}, {sum(r['retries'] for r in rows)} model calls retried, {len(failed)} failed")
    for row in failed:
        print(f"  {row['task_id']} episode {row['episode']}: {row['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
