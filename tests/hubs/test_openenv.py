"""OpenEnv: the exported package's app served on 127.0.0.1 and played with openenv-core's own
clients; rewards and run bytes equal ``gym.make``'s; disconnects are ended and recorded."""

from __future__ import annotations

import asyncio
import json
import pathlib
from typing import Any

import pytest

pytest.importorskip("openenv.core")

from conftest import ENVS_DIR  # noqa: E402
from integrations._helpers import load_solver  # noqa: E402
from openenv.core import GenericEnvClient  # noqa: E402
from openenv.core.mcp_client import MCPToolClient  # noqa: E402

from silo_gym.hubs.export import export  # noqa: E402
from silo_gym.integrations.openenv import SESSION_CLOSED, SiloEnvClient, create_silo_app  # noqa: E402

from .helpers import DEMO_TASKS, load_module, play_native, run_bytes, serving  # noqa: E402

pytestmark = pytest.mark.xdist_group("openenv")


def _result_dict(observation: Any) -> dict[str, Any]:
    result = {"output": observation.result}
    if observation.is_error:
        result["isError"] = True
    return result


async def _play(client: SiloEnvClient, task_id: str, *, seed: int = 0, variant: int | None = None) -> Any:
    """The reference solver over an OpenEnv client; returns the ending step result."""
    kwargs: dict[str, Any] = {"task_id": task_id, "seed": seed}
    if variant is not None:
        kwargs["variant"] = variant
    start = await client.reset(**kwargs)
    assert start.observation.task_id == task_id and start.done is False
    plan = load_solver().plan(start.observation.instruction)
    action = next(plan)
    while "answer" not in action:
        step = await client.call_tool(action["tool"], action["input"])
        assert step.done is False and step.reward == 0.0
        action = plan.send(_result_dict(step.observation))
    return await client.submit_answer(action["answer"])


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return export("openenv", "demo", tmp_path_factory.mktemp("openenv") / "silo_demo_env").path


def _exported_app(package: pathlib.Path, runs: pathlib.Path, sessions: int = 64) -> Any:
    app_module = load_module(package / "server" / "app.py", f"_exported_app_{abs(hash(str(package)))}")
    return app_module.build_app(max_concurrent_envs=sessions, runs_dir=str(runs))


def test_exported_package_files(exported: pathlib.Path) -> None:
    names = sorted(str(p.relative_to(exported)) for p in exported.rglob("*") if p.is_file())
    assert names == ["README.md", "__init__.py", "client.py", "models.py", "openenv.yaml", "pyproject.toml",
                     "server/Dockerfile", "server/__init__.py", "server/app.py", "server/requirements.txt",
                     "silo_env.json", "wheels/README.md"]
    assert (exported / "openenv.yaml").read_text().splitlines() == [
        "spec_version: 1", "name: silo_demo_env", "type: space", "runtime: fastapi", "app: server.app:app", "port: 8000"]
    from silo_gym import __version__

    pyproject = (exported / "pyproject.toml").read_text()
    assert f'dependencies = ["silo-gym[openenv]=={__version__}"]' in pyproject
    readme = (exported / "README.md").read_text()
    front = readme.split("---\n")[1]
    assert "sdk: docker" in front and "app_port: 8000" in front and "  - openenv" in front
    settings = json.loads((exported / "silo_env.json").read_text())
    assert settings["environment"] == "demo" and settings["bundled"] is False
    assert settings["taskIds"] == list(DEMO_TASKS) and settings["variantCapable"] is True


def test_every_demo_task_at_once_equals_gym_make(exported: pathlib.Path, tmp_path: pathlib.Path) -> None:
    native = {task: play_native(task, tmp_path / "native", seed=0) for task in DEMO_TASKS}
    client_cls = load_module(exported / "client.py", "_exported_client").SiloDemoEnv
    with serving(_exported_app(exported, tmp_path / "hub")) as url:
        async def one(task: str) -> Any:
            async with client_cls(base_url=url) as client:
                return await _play(client, task)

        async def every() -> list[Any]:
            return await asyncio.gather(*(one(task) for task in DEMO_TASKS))

        ends = asyncio.run(every())
    for task, end in zip(DEMO_TASKS, ends, strict=True):
        reward, native_run, _ = native[task]
        obs = end.observation
        assert end.done is True and obs.terminated is True and obs.truncated is False
        assert obs.termination_reason == "completed"
        run_dir = pathlib.Path(obs.ending["run_dir"])
        assert run_dir.parent == tmp_path / "hub"
        result = json.loads((run_dir / "result.json").read_text())
        assert end.reward == result["reward"] == reward == 1.0
        assert obs.ending["result"] == result and obs.ending["passed"] is True
        assert run_bytes(run_dir) == run_bytes(native_run), task
    assert len(list((tmp_path / "hub").iterdir())) == len(DEMO_TASKS)


def test_a_variant_world_equals_gym_make(tmp_path: pathlib.Path) -> None:
    reward, native_run, _ = play_native("TASK-002", tmp_path / "native", seed=5, variant=3)
    with serving(create_silo_app("demo", runs_dir=tmp_path / "hub", max_concurrent_envs=2)) as url:
        async def go() -> Any:
            async with SiloEnvClient(base_url=url) as client:
                return await _play(client, "TASK-002", seed=5, variant=3)

        end = asyncio.run(go())
    assert end.observation.variant == 3
    assert end.reward == reward
    assert run_bytes(end.observation.ending["run_dir"]) == run_bytes(native_run)


def test_openenv_generic_and_mcp_clients(tmp_path: pathlib.Path) -> None:
    """openenv-core's own clients, untyped: dict actions (GenericEnvClient) and MCP calls (MCPToolClient)."""
    with serving(create_silo_app("demo", runs_dir=tmp_path, max_concurrent_envs=4)) as url:
        async def generic() -> tuple[Any, Any]:
            async with GenericEnvClient(base_url=url) as client:
                start = await client.reset(task_id="TASK-001", seed=0)
                listed = await client.step({"type": "list_tools"})
                call = await client.step({"type": "call_tool", "tool_name": "search_leads",
                                          "arguments": {"query": "zzz-nobody"}})
                end = await client.step({"type": "call_tool", "tool_name": "submit_answer",
                                         "arguments": {"answer": "nothing to do"}})
                return start, (listed, call, end)

        async def mcp() -> tuple[list[Any], Any]:
            async with MCPToolClient(base_url=url) as client:
                await client.reset(task_id="TASK-003", seed=0)
                tools = await client.list_tools()
                found = await client.call_tool("search_leads", query="zzz-nobody")
                return tools, found

        start, (listed, call, end) = asyncio.run(generic())
        tools, found = asyncio.run(mcp())
    assert "qualified" in start.observation["instruction"]
    names = [t["name"] for t in listed.observation["tools"]]
    assert names[-1] == "submit_answer" and "search_leads" in names and len(names) == 43
    assert call.observation["tool_name"] == "search_leads" and call.observation["is_error"] is False
    assert call.observation["result"] == {"total": 0, "count": 0, "offset": 0, "results": []}
    assert end.done is True and end.observation["termination_reason"] == "completed"
    assert end.reward == end.observation["ending"]["result"]["reward"]
    assert [t.name for t in tools] == names
    assert found == {"total": 0, "count": 0, "offset": 0, "results": []}


def test_a_session_that_disconnects_is_ended_and_recorded(tmp_path: pathlib.Path) -> None:
    with serving(create_silo_app("demo", runs_dir=tmp_path, max_concurrent_envs=4)) as url:
        async def leave(call: bool) -> None:
            client = SiloEnvClient(base_url=url)
            await client.connect()
            await client.reset(task_id="TASK-001", seed=0)
            if call:
                await client.call_tool("search_leads", {"query": "Acme"})
            await client._ws.close()  # the connection drops: no "close" message, no answer  # type: ignore[union-attr]

        asyncio.run(leave(True))
        asyncio.run(leave(False))
        for _ in range(200):
            done = [p for p in tmp_path.iterdir() if (p / "run.json").exists()]
            if len(done) == 2:
                break
            asyncio.run(asyncio.sleep(0.05))
    runs = sorted(tmp_path.iterdir())
    assert len(runs) == 2
    results = sorted((json.loads((r / "result.json").read_text()) for r in runs), key=lambda r: r["toolCalls"])
    assert [r["toolCalls"] for r in results] == [0, 1]
    for result in results:
        assert result["terminationReason"] == "agent_error" and result["error"] == SESSION_CLOSED


def test_a_tool_limit_truncates_and_says_so(tmp_path: pathlib.Path) -> None:
    with serving(create_silo_app("demo", runs_dir=tmp_path, max_tool_calls=1, max_concurrent_envs=1)) as url:
        async def go() -> tuple[Any, Any]:
            async with SiloEnvClient(base_url=url) as client:
                await client.reset(task_id="TASK-001", seed=0)
                first = await client.call_tool("search_leads", {"query": "Acme"})
                second = await client.call_tool("search_leads", {"query": "Acme"})
                return first, second

        first, second = asyncio.run(go())
    assert first.done is False
    obs = second.observation
    assert second.done is True and obs.truncated is True and obs.terminated is False
    assert obs.termination_reason == "max_tool_calls" == obs.ending["result"]["terminationReason"]
    assert second.reward == obs.ending["result"]["reward"]


async def _refusal(url: str) -> dict[str, Any]:
    """The first message a new WebSocket session gets from a full server: OpenEnv sends its
    refusal at once and closes (a client's own first request may race that close)."""
    from websockets.asyncio.client import connect

    async with connect(url.replace("http://", "ws://", 1) + "/ws") as ws:
        return json.loads(await asyncio.wait_for(ws.recv(), 60))  # type: ignore[no-any-return]


def test_sessions_past_the_bound_are_refused(tmp_path: pathlib.Path) -> None:
    with serving(create_silo_app("demo", runs_dir=tmp_path, max_concurrent_envs=1)) as url:
        async def go() -> tuple[dict[str, Any], Any]:
            async with SiloEnvClient(base_url=url) as first:
                await first.reset(task_id="TASK-001")
                refused = await _refusal(url)
                still = await first.call_tool("search_leads", {"query": "zzz-nobody"})  # the first plays on
                return refused, still

        refused, still = asyncio.run(go())
    assert refused["type"] == "error" and refused["data"]["code"] == "CAPACITY_REACHED"
    assert refused["data"]["max_sessions"] == 1 and still.done is False


def test_bad_reset_arguments_are_refused_over_the_wire(tmp_path: pathlib.Path) -> None:
    with serving(create_silo_app("demo", runs_dir=tmp_path, max_concurrent_envs=2)) as url:
        async def go() -> str:
            async with SiloEnvClient(base_url=url) as client:
                with pytest.raises(RuntimeError) as refused:
                    await client.reset(task_id="TASK-404")
                return str(refused.value)

        message = asyncio.run(go())
    assert "TASK-404" in message and "TASK-001" in message
    assert list(tmp_path.iterdir()) == []


def test_a_bundled_world_is_copied_and_served(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / ".silo" / "environments").mkdir(parents=True)
    import shutil

    shutil.copytree(ENVS_DIR / "inventory", project / ".silo" / "environments" / "inventory")
    done = export("openenv", "inventory", tmp_path / "pkg", cwd=project)
    bundled = done.path / "environment" / "inventory"
    assert (bundled / "silo.environment.json").is_file() and not list(bundled.rglob("__pycache__"))
    assert json.loads((done.path / "silo_env.json").read_text())["bundled"] is True
    shutil.rmtree(project)  # the package needs only its own copy
    with serving(_exported_app(done.path, tmp_path / "runs", sessions=2)) as url:
        async def go() -> Any:
            async with SiloEnvClient(base_url=url) as client:
                start = await client.reset(task_id="TASK-001", seed=0)
                tools = [t.name for t in await client.list_tools()]
                end = await client.submit_answer("nothing")
                return start, tools, end

        start, tools, end = asyncio.run(go())
    assert tools == ["list_items", "submit_answer"]
    assert end.done is True
    result = json.loads((pathlib.Path(end.observation.ending["run_dir"]) / "result.json").read_text())
    assert end.reward == result["reward"]


def test_64_sessions_at_once_are_isolated_and_each_recorded_once(tmp_path: pathlib.Path) -> None:
    native = {task: run_bytes(play_native(task, tmp_path / "native", seed=0)[1]) for task in DEMO_TASKS}
    tasks = [DEMO_TASKS[i % len(DEMO_TASKS)] for i in range(64)]
    with serving(create_silo_app("demo", runs_dir=tmp_path / "hub", max_concurrent_envs=64)) as url:
        async def every() -> tuple[list[Any], dict[str, Any]]:
            clients = [SiloEnvClient(base_url=url, message_timeout_s=300) for _ in tasks]
            await asyncio.gather(*(client.connect() for client in clients))  # 64 sessions open at once
            starts = await asyncio.gather(*(client.reset(task_id=task, seed=0) for client, task in zip(clients, tasks, strict=True)))
            assert all(not s.done for s in starts)
            refused = await _refusal(url)  # the 65th is refused while they are open
            try:
                return await asyncio.gather(*(_play_started(c, s) for c, s in zip(clients, starts, strict=True))), refused
            finally:
                await asyncio.gather(*(client.close() for client in clients))

        ends, refusal = asyncio.run(every())
    assert refusal["data"]["code"] == "CAPACITY_REACHED" and refusal["data"]["max_sessions"] == 64
    runs = sorted((tmp_path / "hub").iterdir())
    assert len(runs) == 64  # each session recorded once
    seen = set()
    for task, end in zip(tasks, ends, strict=True):
        run_dir = pathlib.Path(end.observation.ending["run_dir"])
        seen.add(run_dir)
        assert end.reward == 1.0 and run_bytes(run_dir) == native[task], task  # no world was shared
    assert seen == set(runs)


async def _play_started(client: SiloEnvClient, start: Any) -> Any:
    plan = load_solver().plan(start.observation.instruction)
    action = next(plan)
    while "answer" not in action:
        step = await client.call_tool(action["tool"], action["input"])
        action = plan.send(_result_dict(step.observation))
    return await client.submit_answer(action["answer"])
