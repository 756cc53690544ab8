"""NeMo Gym: the exported resources server run with NeMo Gym 0.7.0's own classes and routes.

NeMo Gym needs Python >= 3.13.14 (0.5 and later; 0.2-0.4 need 3.12), and its test runner
(``gym env test``) provisions that Python with uv, which cannot be downloaded here: these
machines have CPython 3.11 only. So the test installs nemo-gym 0.7.0 into a venv of its own with
``--ignore-requires-python --no-deps`` plus the packages its server modules import (the same
``resources_servers.gymnasium`` base class, FastAPI app, session middleware and request models a
3.13 install has), then does what ``gym env test`` does after its venv exists: ``pytest`` in
the server's folder. It also plays every demo task (and a variant world) through the server's HTTP
routes with NeMo Gym's request models, the sessions interleaved, and compares the runs with ``gym.make``'s.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any

import gymnasium as gym
import pytest

from silo_gym.hubs.export import export

from .helpers import DEMO_TASKS, play_native, run_bytes
from .venvs import ROOT, make_venv, venv_env

pytestmark = [pytest.mark.xdist_group("hub_venvs"), pytest.mark.timeout(2400)]

NEMO_GYM = "nemo-gym==0.7.0"
#: What nemo-gym 0.7.0's resources-server modules import (its full requirement list also pulls
#: mlflow, datasets and ray[default], and a scipy that needs Python 3.12 to build).
IMPORTED = ["fastapi", "uvicorn", "pydantic", "openai==2.44.0", "aiohttp", "omegaconf", "hydra-core", "orjson",
            "pyyaml", "rich", "devtools", "itsdangerous", "requests", "httptools", "ray>=2.58", "yappi", "pydot",
            "pandas", "scipy<1.17", "wandb", "packaging>=24.2", "pytest", "httpx"]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, silo_wheel: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """(the venv's bin/, the exported Gym tree)."""
    base = tmp_path_factory.mktemp("nemo_gym")
    wheel = silo_wheel
    tree = export("nemo-gym", "demo", base / "gym").path
    bin_dir = make_venv(base / "venv", [*IMPORTED, f"silo-gym=={wheel.name.split('-')[1]}"], wheel.parent,
                        first=["--no-deps", "--ignore-requires-python", NEMO_GYM])
    return bin_dir, tree


def _run(bin_dir: pathlib.Path, args: list[str], cwd: pathlib.Path, tree: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(bin_dir / "python"), *args], cwd=cwd, env=venv_env(bin_dir, PYTHONPATH=str(tree)),
                          capture_output=True, text=True, timeout=900)


def test_the_servers_own_tests_pass_under_nemo_gym(venv: tuple[pathlib.Path, pathlib.Path]) -> None:
    bin_dir, tree = venv
    server = tree / "resources_servers" / "silo_demo"
    done = _run(bin_dir, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning"],
                server, tree)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "3 passed" in done.stdout


def test_manifest_config_and_rows_validate_with_nemo_gym(venv: tuple[pathlib.Path, pathlib.Path]) -> None:
    bin_dir, tree = venv
    done = _run(bin_dir, ["-c", (
        "import json\n"
        "from omegaconf import OmegaConf\n"
        "from nemo_gym.environment.manifest import load_manifest\n"
        "from nemo_gym.openai_utils import NeMoGymResponseCreateParamsNonStreaming as P\n"
        "m = load_manifest('environments/silo_demo/manifest.yaml')\n"
        "c = OmegaConf.to_container(OmegaConf.load('resources_servers/silo_demo/configs/silo_demo.yaml'))\n"
        "rows = [json.loads(l) for l in open('resources_servers/silo_demo/data/example.jsonl')]\n"
        "tools = [t['name'] for t in P.model_validate(rows[0]['responses_create_params']).tools]\n"
        "print(json.dumps({'determinism': m.determinism.value, 'state': m.state.value, 'domain': m.domain.value,"
        " 'agent': c['silo_demo_gymnasium_agent']['responses_api_agents']['gymnasium_agent']['resources_server'],"
        " 'rows': [r['task_id'] for r in rows], 'tools': tools}))")], tree, tree)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["determinism"] == "seeded" and found["state"] == "per_session" and found["domain"] == "agent"
    assert found["agent"] == {"type": "resources_servers", "name": "silo_demo"}
    assert found["rows"] == list(DEMO_TASKS)
    assert found["tools"][-1] == "submit_answer" and "search_leads" in found["tools"] and len(found["tools"]) == 43


PLAY = """
import importlib.util, json, sys
from pathlib import Path
from unittest.mock import MagicMock
from fastapi.testclient import TestClient
from nemo_gym.server_utils import ServerClient
from resources_servers.silo_demo.app import SiloDemoResourcesServer, SiloDemoResourcesServerConfig

spec = importlib.util.spec_from_file_location("solver", sys.argv[1]); solver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(solver)
config = SiloDemoResourcesServerConfig(host="", port=0, entrypoint="", name="silo_demo", runs_dir=sys.argv[2])
app = SiloDemoResourcesServer(config=config, server_client=MagicMock(spec=ServerClient)).setup_webserver()
rows = [json.loads(l) for l in open("resources_servers/silo_demo/data/example.jsonl")]
rows += json.loads(Path(sys.argv[3]).read_text())  # more rows (a variant world)

def reply(output):
    return {"id": "r", "object": "response", "created_at": 0.0, "status": "completed", "model": "m", "output": output,
            "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}

sessions = []
for row in rows:  # one client (one cookie session) per task, all open at once
    client = TestClient(app)
    assert client.post("/reset", json=row).status_code == 200
    plan = solver.plan(row["responses_create_params"]["input"][0]["content"])
    sessions.append({"row": row, "client": client, "plan": plan, "action": next(plan), "n": 0, "end": None})
while any(s["end"] is None for s in sessions):
    for s in sessions:  # one step of each session in turn
        if s["end"] is not None:
            continue
        action, s["n"] = s["action"], s["n"] + 1
        if "answer" in action:
            output = [{"id": "msg", "type": "message", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": action["answer"], "annotations": []}]}]
        else:
            output = [{"type": "function_call", "call_id": f"call_{s['n']}", "name": action["tool"],
                       "arguments": json.dumps(action["input"])}]
        step = s["client"].post("/step", json={**s["row"], "response": reply(output)}).json()
        if step["terminated"] or step["truncated"]:
            s["end"] = {"task": s["row"]["task_id"], "reward": step["reward"], "info": step["info"]}
        else:
            (out,) = step["info"]["tool_outputs"]
            assert out["call_id"] == f"call_{s['n']}"
            s["action"] = s["plan"].send(json.loads(out["output"]))
print(json.dumps([s["end"] for s in sessions]))
"""


def test_every_demo_task_over_the_routes_equals_gym_make(venv: tuple[pathlib.Path, pathlib.Path],
                                                        tmp_path: pathlib.Path) -> None:
    bin_dir, tree = venv
    solver = ROOT / "examples" / "agents" / "crm_solver.py"
    rows = [json.loads(line) for line in (tree / "resources_servers" / "silo_demo" / "data" / "example.jsonl")
            .read_text().splitlines()]
    env = gym.make("silo/demo", disable_env_checker=True)
    instruction, _ = env.reset(seed=5, options={"task_id": "TASK-002", "variant": 3})
    env.close()
    variant_row = json.loads(json.dumps(rows[1]))
    variant_row.update(seed=5, variant=3)
    variant_row["responses_create_params"]["input"][0]["content"] = instruction
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps([variant_row]))
    done = _run(bin_dir, ["-c", PLAY, str(solver), str(tmp_path / "hub"), str(extra)], tree, tree)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    ends: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    assert [e["task"] for e in ends] == [*DEMO_TASKS, "TASK-002"]
    for end, (seed, variant) in zip(ends, [(0, None)] * len(DEMO_TASKS) + [(5, 3)], strict=True):
        _, native_run, _ = play_native(end["task"], tmp_path / "native", seed=seed, variant=variant)
        run_dir = pathlib.Path(end["info"]["run_dir"])
        result = json.loads((run_dir / "result.json").read_text())
        assert end["reward"] == result["reward"] == 1.0 and end["info"]["result"] == result
        assert end["info"]["termination_reason"] == "completed"
        assert run_bytes(run_dir) == run_bytes(native_run), end["task"]
    assert len(list((tmp_path / "hub").iterdir())) == len(DEMO_TASKS) + 1
