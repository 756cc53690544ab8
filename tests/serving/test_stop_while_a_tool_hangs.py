"""``silo-gym serve`` stops at once on SIGTERM or SIGINT even while a tool call hangs, and the run
then ends ungraded (issue 19, item 11), over stdio and over HTTP. Tested on the real process."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from authoring.helpers import TOOLS_HEAD, write_env  # noqa: E402
from conftest import subprocess_env  # noqa: E402

from silo_gym.rundir import read_run  # noqa: E402

from .helpers import serve_command  # noqa: E402
from .stdio_client import RawStdio  # noqa: E402

TOOLS = TOOLS_HEAD + '''
import threading
import time


def _sleep(state, input):
    time.sleep(20)
    state["items"]["I-1"]["qty"] = 2
    return {"slept": True}


def _forever(state, input):
    threading.Event().wait()


ANY = {"type": "object"}
sleep20 = define_tool(name="sleep20", description="Returns after 20 s.", input_schema=ANY, run=_sleep)
forever = define_tool(name="forever", description="Never returns.", input_schema=ANY, run=_forever)
tools = [get_item, sleep20, forever]
'''

#: Seconds the server may take to exit after the signal (it waits 1 s for a running call).
STOP_S = 8.0


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hang")
    write_env(root, {"tools/__init__.py": TOOLS}, name="hangs")
    return root


def _ungraded(runs: Path) -> dict[str, Any]:
    """The one run: recorded whole but ungraded (a tool was still running), and readable."""
    (run_dir,) = list(runs.iterdir())
    names = sorted(p.name for p in run_dir.iterdir())
    assert names == ["run.json", "trace.jsonl"], names  # no result.json, no state-diff.json
    run = json.loads((run_dir / "run.json").read_text())
    record = read_run(run_dir)
    end = record.first("run_end")
    assert end is not None and run["terminationReason"] == "agent_error"
    assert "was still running when the episode ended" in end["error"]
    assert "The MCP server stopped" in end["error"]
    return run


@pytest.mark.parametrize("tool", ["sleep20", "forever"])
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 0)])
def test_stdio_server_stops_at_once_while_a_tool_hangs(project: Path, tmp_path: Path, tool: str,
                                                       sig: signal.Signals, code: int) -> None:
    runs = tmp_path / "runs"
    process = subprocess.Popen(serve_command("--env", "hangs", "--task", "TASK-001", "--runs-dir", str(runs)),
                               cwd=project, env=subprocess_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    client = RawStdio.attach(process)
    try:
        client.handshake()
        client.send_line(json.dumps({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
                                     "params": {"name": tool, "arguments": {}}}))
        time.sleep(1.0)  # the call is running in the server
        start = time.monotonic()
        process.send_signal(sig)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"serve was still running 30 s after {sig.name} while {tool} ran")
        took = time.monotonic() - start
    finally:
        if process.poll() is None:
            process.kill()
        _, err = process.communicate()
    assert process.returncode == code, err
    assert took < STOP_S, f"took {took:.1f} s to stop"
    assert "Traceback" not in err, err
    _ungraded(runs)


def _http_server(project: Path, runs: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(serve_command("--env", "hangs", "--task", "TASK-001", "--runs-dir", str(runs),
                                             "--transport", "http", "--port", "0"),
                               cwd=project, env=subprocess_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if "http://" in line:
            return process, line.strip().rsplit(" ", 1)[-1]
        if not line:
            break
    process.kill()
    raise AssertionError(f"no URL announced: {process.communicate()}")


@pytest.mark.parametrize("tool", ["sleep20", "forever"])
def test_http_server_stops_at_once_while_a_tool_hangs(project: Path, tmp_path: Path, tool: str) -> None:
    import anyio
    from mcp import Client

    runs = tmp_path / "runs"
    process, url = _http_server(project, runs)
    started = threading.Event()
    try:
        async def call() -> None:
            async with Client(url) as client:
                await client.call_tool("get_item", {"id": "I-1"})
                started.set()
                await client.call_tool(tool, {})  # hangs until the server goes away

        def client_thread() -> None:
            try:
                anyio.run(call)
            except BaseException:  # noqa: S110 - the server went away under the call
                pass

        worker = threading.Thread(target=client_thread, daemon=True)
        worker.start()
        assert started.wait(60)
        time.sleep(1.0)  # the hanging call is running in the server
        start = time.monotonic()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"serve was still running 30 s after SIGTERM while {tool} ran")
        took = time.monotonic() - start
    finally:
        if process.poll() is None:
            process.kill()
        _, err = process.communicate()
    assert process.returncode == 143, err
    assert took < STOP_S, f"took {took:.1f} s to stop"
    assert "Traceback" not in err and "ERROR" not in err, err  # a forced stop is expected, not an error
    run = _ungraded(runs)
    assert run["toolCallCount"] == 2
