"""Driving a served Silo task with the official MCP client (``mcp.Client``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import REPO_ROOT, subprocess_env
from golden import gate as g
from mcp import Client
from mcp_types import CallToolResult

from silo_gym.serve.server import RUN_DIR_META

EPISODE_FILES = ("result.json", "state-diff.json")


def as_silo_result(result: CallToolResult) -> dict[str, Any]:
    """The Silo tool result dict an MCP tool result stands for (``{"output"[, "isError"]}``)."""
    output = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return {"output": output, "isError": True} if result.is_error else {"output": output}


def run_dir_of(result: CallToolResult) -> Path:
    assert result.meta is not None, "every tool result names its run directory in _meta"
    return Path(result.meta[RUN_DIR_META])


async def play_solver(client: Client, instruction: str) -> CallToolResult:
    """The reference plan (examples/agents/crm_solver.py) through MCP; returns submit's result."""
    steps = g.load_solver().plan(instruction)
    action = next(steps)
    while "answer" not in action:
        result = await client.call_tool(action["tool"], action["input"])
        action = steps.send(as_silo_result(result))
    return await client.call_tool("submit_answer", {"answer": action["answer"]})


def golden_mismatches(agent: str, task_id: str, run_dir: Path) -> list[str]:
    """The episode files of ``run_dir`` that differ from the golden copies of ``agent/task_id``."""
    golden = g.GOLDEN_DIR / "demo" / agent / task_id
    return [name for name in EPISODE_FILES if (run_dir / name).read_bytes() != (golden / name).read_bytes()]


def serve_command(*args: str) -> list[str]:
    """The command line that serves a task (``silo-gym serve ...`` run by this Python)."""
    return [sys.executable, "-m", "silo_gym", "serve", *args]


class HttpServer:
    """``silo-gym serve --transport http --port 0`` in a child process; ``url`` once it listens."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.process = subprocess.Popen(
            serve_command(*args, "--transport", "http", "--port", "0"),
            cwd=cwd, env=subprocess_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self.url = self._wait_for_url()

    def _wait_for_url(self) -> str:
        assert self.process.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                break
            found = re.search(r"(http://\S+/mcp)", line)
            if found:
                return found.group(1)
        self.process.kill()
        raise AssertionError(f"the server did not announce its URL: {self.process.communicate()}")

    def stop(self) -> tuple[int, str]:
        """Interrupt the server as Ctrl-C does; returns (exit code, the rest of stderr)."""
        self.process.send_signal(2)
        try:
            _, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return self.process.returncode, err


def repo_env() -> dict[str, str]:
    return subprocess_env(PYTHONPATH=os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
