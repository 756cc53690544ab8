"""``silo-gym serve`` in a child process, through the official MCP client over stdio and over
streamable HTTP: the reference plan gives the Gymnasium path's golden bytes, and concurrent
HTTP sessions never share a world."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
from conftest import subprocess_env  # noqa: E402
from golden import gate as g  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from silo_gym.serve.episodes import SERVER_STOPPED, SESSION_CLOSED, SUBMIT_ANSWER  # noqa: E402

from .helpers import HttpServer, as_silo_result, golden_mismatches, play_solver, run_dir_of, serve_command  # noqa: E402


def _stdio(task_id: str, runs: Path, cwd: Path) -> StdioServerParameters:
    command = serve_command("--env", "demo", "--task", task_id, "--runs-dir", str(runs))
    return StdioServerParameters(command=command[0], args=command[1:], cwd=cwd, env=subprocess_env())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_reference_plan_over_stdio_gives_the_golden_bytes_on_every_task(tmp_path: Path, mode: str) -> None:
    """One server process per task (a stdio connection is one session); both protocol eras."""
    runs = tmp_path / "runs"
    task_ids = g.TASK_IDS if mode == "auto" else ("TASK-001",)

    async def play(task_id: str) -> Any:
        async with Client(_stdio(task_id, runs, tmp_path), mode=mode) as client:
            prompt = await client.get_prompt("task")
            return await play_solver(client, prompt.messages[0].content.text)  # type: ignore[union-attr]

    async def main() -> dict[str, Any]:
        # Concurrently: one server process per task, all recording into one runs directory.
        replies: dict[str, Any] = {}

        async def one(task_id: str) -> None:
            replies[task_id] = await play(task_id)

        with anyio.fail_after(240):
            async with anyio.create_task_group() as tg:
                for task_id in task_ids:
                    tg.start_soon(one, task_id)
        return replies

    submitted = anyio.run(main)
    for task_id, reply in submitted.items():
        assert not reply.is_error, task_id
        assert reply.structured_content["reward"] == 1, task_id
        assert golden_mismatches("solver", task_id, run_dir_of(reply)) == [], task_id
    assert len(list(runs.iterdir())) == len(task_ids)


def test_a_stdio_client_that_leaves_unanswered_is_recorded(tmp_path: Path) -> None:
    runs = tmp_path / "runs"

    async def main() -> Any:
        async with Client(_stdio("TASK-002", runs, tmp_path)) as client:
            return await client.call_tool("get_current_date", {})

    reply = anyio.run(main)
    result = json.loads((run_dir_of(reply) / "result.json").read_text())
    assert (result["terminationReason"], result["error"], result["toolCalls"]) == ("agent_error", SESSION_CLOSED, 1)


def test_http_sessions_each_play_their_own_world_concurrently(tmp_path: Path) -> None:
    """Two sessions interleave their calls on one HTTP server: the solver's session gives the
    solver's golden bytes, the other one (which reads the lead after the solver converted it in
    its own world) sees it unconverted and gives the do-nothing golden state diff."""
    runs = tmp_path / "runs"
    server = HttpServer("--env", "demo", "--task", "TASK-001", "--runs-dir", str(runs), cwd=tmp_path)
    try:
        async def solver(converted: anyio.Event) -> Any:
            async with Client(server.url) as client:
                reply = await play_solver(client, client.instructions or "")
                converted.set()
                return reply

        async def bystander(converted: anyio.Event) -> tuple[Any, Any]:
            async with Client(server.url) as client:
                before = await client.call_tool("get_lead", {"leadId": "LEAD-004"})
                await converted.wait()
                after = await client.call_tool("get_lead", {"leadId": "LEAD-004"})
                await client.call_tool(SUBMIT_ANSWER, {"answer": ""})
                return before, after

        async def main() -> dict[str, Any]:
            out: dict[str, Any] = {}
            converted = anyio.Event()

            async def run_solver() -> None:
                out["solver"] = await solver(converted)

            async def run_bystander() -> None:
                out["bystander"] = await bystander(converted)

            with anyio.fail_after(120):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(run_bystander)
                    tg.start_soon(run_solver)
            return out

        out = anyio.run(main)
    finally:
        code, err = server.stop()
    assert code == 0, err
    solved = out["solver"]
    before, after = out["bystander"]
    assert solved.structured_content["reward"] == 1
    assert golden_mismatches("solver", "TASK-001", run_dir_of(solved)) == []
    assert as_silo_result(before)["output"] == as_silo_result(after)["output"]
    assert as_silo_result(after)["output"]["status"] == "qualified"
    bystander_dir = run_dir_of(before)
    assert bystander_dir != run_dir_of(solved)
    assert "state-diff.json" not in golden_mismatches("do-nothing", "TASK-001", bystander_dir)
    assert sorted(p.name for p in runs.iterdir()) == sorted([bystander_dir.name, run_dir_of(solved).name])


def test_http_session_endings_delete_and_server_stop_are_recorded(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    server = HttpServer("--env", "demo", "--task", "TASK-004", "--runs-dir", str(runs), cwd=tmp_path)
    try:
        async def leave() -> Any:
            async with Client(server.url) as client:  # exits with a DELETE of the session
                return await client.call_tool("get_current_date", {})

        left = anyio.run(leave)
        left_result = json.loads((run_dir_of(left) / "result.json").read_text())

        stuck: dict[str, Any] = {}

        async def linger() -> None:
            async with Client(server.url) as client:
                stuck["reply"] = await client.call_tool("get_current_date", {})
                await anyio.sleep(60)  # still open when the server stops

        async def main() -> None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(linger)
                while "reply" not in stuck:
                    await anyio.sleep(0.05)
                await anyio.to_thread.run_sync(server.stop)
                tg.cancel_scope.cancel()

        anyio.run(main)
    finally:
        if server.process.poll() is None:
            server.stop()
    assert (left_result["terminationReason"], left_result["error"]) == ("agent_error", SESSION_CLOSED)
    stopped = json.loads((run_dir_of(stuck["reply"]) / "result.json").read_text())
    assert (stopped["terminationReason"], stopped["error"]) == ("agent_error", SERVER_STOPPED)


def test_serve_refuses_bad_setup_before_serving(tmp_path: Path) -> None:
    done = subprocess.run(serve_command("--env", "demo", "--task", "TASK-999", "--runs-dir", str(tmp_path / "r")),
                          cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert done.stderr.startswith('error: task_not_found: Task "TASK-999" was not found in demo.')
    assert done.stdout == ""
    assert not (tmp_path / "r").exists()

    (tmp_path / "file").write_text("not a directory")
    done = subprocess.run(serve_command("--env", "demo", "--task", "TASK-001", "--runs-dir", str(tmp_path / "file")),
                          cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and "is not a directory" in done.stderr and done.stdout == ""

    for flags, message in ((("--transport", "ftp"), "error: Argument --transport: invalid choice: 'ftp'"),
                           (("--port", "70000"), "error: --port must be a port number from 0 to 65535; got 70000.")):
        done = subprocess.run(serve_command("--env", "demo", "--task", "TASK-001", *flags), cwd=tmp_path,
                              env=subprocess_env(), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 1 and done.stderr.startswith(message), done.stderr


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "Exception Group" not in stderr, stderr


def _only_run(runs: Path) -> Path:
    (run_dir,) = list(runs.iterdir())
    assert sorted(p.name for p in run_dir.iterdir()) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
    return run_dir


def test_http_server_stopped_by_sigterm_exits_143_and_records_the_open_session(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    server = HttpServer("--env", "demo", "--task", "TASK-004", "--runs-dir", str(runs), cwd=tmp_path)
    reply: dict[str, Any] = {}
    try:
        async def linger() -> None:
            async with Client(server.url) as client:
                reply["date"] = await client.call_tool("get_current_date", {})
                await anyio.sleep(60)  # still open when the server stops

        async def main() -> None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(linger)
                while "date" not in reply:
                    await anyio.sleep(0.05)
                server.process.send_signal(signal.SIGTERM)
                await anyio.to_thread.run_sync(server.process.wait, 30)
                tg.cancel_scope.cancel()

        anyio.run(main)
        err = server.process.stderr.read() if server.process.stderr else ""
    finally:
        if server.process.poll() is None:
            server.process.kill()
    assert server.process.returncode == 143, err
    _no_traceback(err)
    result = json.loads((_only_run(runs) / "result.json").read_text())
    assert (result["terminationReason"], result["error"], result["toolCalls"]) == ("agent_error", SERVER_STOPPED, 1)


def _stdio_session(tmp_path: Path, runs: Path) -> subprocess.Popen[str]:
    """``silo-gym serve`` over stdio, its stdin held open, after the handshake and one tool call."""
    process = subprocess.Popen(serve_command("--env", "demo", "--task", "TASK-004", "--runs-dir", str(runs)),
                               cwd=tmp_path, env=subprocess_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_current_date", "arguments": {}}},
    ]
    for message in messages:
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()
        if "id" in message:
            answer = json.loads(process.stdout.readline())
            assert answer["id"] == message["id"] and "result" in answer, answer
    return process


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 0)])
def test_stdio_server_stopped_by_a_signal_exits_at_once_and_records_the_session(
        tmp_path: Path, sig: signal.Signals, code: int) -> None:
    """The client still holds stdin open: the server must not wait for its next line."""
    runs = tmp_path / "runs"
    process = _stdio_session(tmp_path, runs)
    try:
        process.send_signal(sig)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server was still running 20 s after {sig.name} (stdin open)")
        assert process.stderr is not None
        err = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    assert process.returncode == code, err
    _no_traceback(err)
    result = json.loads((_only_run(runs) / "result.json").read_text())
    assert (result["terminationReason"], result["error"], result["toolCalls"]) == ("agent_error", SERVER_STOPPED, 1)
