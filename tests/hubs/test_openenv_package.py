"""The exported OpenEnv package installs into a fresh venv with only its declared dependencies
(silo-gym from a wheel built here, openenv-core from the index) and serves from its own entry
point (``python -m silo_demo_env.server.app``) on 127.0.0.1; its client plays a task there."""

from __future__ import annotations

import json
import pathlib
import socket
import subprocess
import time
import urllib.request

import pytest

pytest.importorskip("openenv.core")

from silo_gym.hubs.export import export  # noqa: E402

from .venvs import make_venv, venv_env  # noqa: E402

pytestmark = [pytest.mark.xdist_group("hub_venvs"), pytest.mark.timeout(2400)]

PLAY = """
import asyncio, json, sys
from silo_demo_env import SiloDemoEnv

async def main():
    async with SiloDemoEnv(base_url=sys.argv[1]) as env:
        start = await env.reset(task_id="TASK-004", seed=0)
        tools = [t.name for t in await env.list_tools()]
        end = await env.submit_answer("no change")
        print(json.dumps({"instruction": start.observation.instruction, "tools": len(tools),
                          "reward": end.reward, "ending": end.observation.ending}))

asyncio.run(main())
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_package_installs_alone_and_serves_from_its_entry_point(tmp_path: pathlib.Path,
                                                                   silo_wheel: pathlib.Path) -> None:
    wheel = silo_wheel
    package = export("openenv", "demo", tmp_path / "silo_demo_env").path
    bin_dir = make_venv(tmp_path / "venv", [str(package)], wheel.parent)
    requires = subprocess.run([str(bin_dir / "python"), "-c", "import importlib.metadata as m; "
                               "print(m.requires('openenv-silo-demo'))"], capture_output=True, text=True, check=True)
    from silo_gym import __version__

    assert requires.stdout.strip() == str([f"silo-gym[openenv]=={__version__}"])
    port, runs = _free_port(), tmp_path / "runs"
    server = subprocess.Popen([str(bin_dir / "python"), "-m", "silo_demo_env.server.app", "--port", str(port),
                               "--max-concurrent-envs", "4", "--runs-dir", str(runs)], cwd=tmp_path,
                              env=venv_env(bin_dir), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                health = json.loads(urllib.request.urlopen(f"{url}/health", timeout=2).read())
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                time.sleep(0.2)
        else:
            pytest.fail("the exported server did not answer /health")
        assert health.get("status") == "healthy"
        played = subprocess.run([str(bin_dir / "python"), "-c", PLAY, url], cwd=tmp_path, env=venv_env(bin_dir),
                                capture_output=True, text=True, timeout=300)
        assert played.returncode == 0, played.stderr[-4000:]
    finally:
        server.terminate()
        server.wait(30)
    found = json.loads(played.stdout.strip().splitlines()[-1])
    assert found["tools"] == 43 and found["instruction"]
    result = json.loads((pathlib.Path(found["ending"]["run_dir"]) / "result.json").read_text())
    assert found["reward"] == result["reward"] and found["ending"]["result"] == result
    assert pathlib.Path(found["ending"]["run_dir"]).parent == runs
