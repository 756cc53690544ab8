"""A raw stdio client of ``silo-gym serve``: writes any line, reads replies with a timeout."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from conftest import subprocess_env

from .helpers import serve_command


class RawStdio:
    """``silo-gym serve`` over stdio in a child process, driven line by line."""

    def __init__(self, runs: Path, cwd: Path, task: str = "TASK-004", env: str = "demo",
                 process: subprocess.Popen[str] | None = None) -> None:
        self.process = process or subprocess.Popen(
            serve_command("--env", env, "--task", task, "--runs-dir", str(runs)), cwd=cwd, env=subprocess_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._replies: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._next_id = 100

    @classmethod
    def attach(cls, process: subprocess.Popen[str]) -> RawStdio:
        """A client of a server process started by the caller (stdin and stdout pipes)."""
        return cls(Path(), Path(), process=process)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._replies.put(line)

    def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def reply(self, timeout: float = 30.0) -> dict[str, Any] | None:
        """The next reply, or None when none comes within ``timeout`` seconds."""
        try:
            return json.loads(self._replies.get(timeout=timeout))  # type: ignore[no-any-return]
        except queue.Empty:
            return None

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_line(json.dumps(message))
        answer = self.reply(timeout)
        assert answer is not None and answer.get("id") == self._next_id, answer
        return answer

    def handshake(self) -> None:
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "raw", "version": "1"}}, timeout=60)
        self.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def close(self, timeout: float = 30.0) -> tuple[int, str]:
        """Close stdin (the client leaves); the exit code and stderr."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        err = self.process.stderr.read() if self.process.stderr else ""
        return self.process.returncode, err
