"""The project API (silo-format §12.6), mixed with the command line, and a scaffold-to-reward run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import silo_gym
from silo_gym import Silo, SiloError, run_task

ENVIRONMENT_PY = '''
"""Builds the shop from data/."""

from __future__ import annotations

import json
from pathlib import Path

from .state import State

_DATA = Path(__file__).resolve().parent / "data"


def create_state() -> State:
    orders = json.loads((_DATA / "orders.json").read_text(encoding="utf-8"))
    return {"now": "2026-03-16", "orders": {o["id"]: o for o in orders}}
'''

SHIP_ORDER_PY = '''
"""Tool ship_order."""

from __future__ import annotations

from typing import Any

from silo_gym import ToolError, define_tool

from ..state import State


def _run(state: State, input: dict[str, Any]) -> Any:
    order = state["orders"].get(input["orderId"])
    if order is None:
        raise ToolError("not_found", f'Order "{input["orderId"]}" was not found.')
    if order["status"] != "pending":
        raise ToolError("invalid_state", f'Order "{order["id"]}" is {order["status"]}.')
    order["status"] = "shipped"
    order["carrier"] = input["carrier"]
    return order


ship_order = define_tool(
    name="ship_order",
    description="Ship a pending order with a carrier.",
    input_schema={
        "type": "object",
        "properties": {"orderId": {"type": "string"}, "carrier": {"type": "string", "enum": ["ground", "air"]}},
        "required": ["orderId", "carrier"],
        "additionalProperties": False,
    },
    run=_run,
)
'''

VER_001_PY = '''
"""Verifier VER-001 for task TASK-001."""

from __future__ import annotations

from silo_gym import VerifierCheck, VerifierContext, check, define_verifier, optional

from ..state import State


def _check(final_state: State, initial_state: State, context: VerifierContext) -> list[VerifierCheck]:
    order = final_state["orders"]["O-1"]
    others = [k for k, v in initial_state["orders"].items() if k != "O-1" and final_state["orders"][k] != v]
    return [
        check("O-1 is shipped", order["status"] == "shipped", f"status = {order['status']}"),
        check("O-1 went by air", order.get("carrier") == "air", f"carrier = {order.get('carrier')}"),
        optional("No other order changed", not others),
    ]


ver_001 = define_verifier(id="VER-001", task_id="TASK-001", name="O-1 shipped by air", check=_check)
'''

AGENT_PY = '''
def agent(task, tools, call_tool, signal):
    call_tool("ship_order", {"orderId": "O-1", "carrier": "air"})
    return {"output": "Shipped O-1."}
'''


def scripted_agent(task, tools, call_tool, signal):
    assert [t["name"] for t in tools] == ["ship_order"]
    result = call_tool("ship_order", {"orderId": "O-1", "carrier": "air"})
    assert "isError" not in result
    return {"output": "Shipped O-1 by air."}


def fill(env_dir: Path, rel: str, source: str) -> None:
    (env_dir / rel).write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")


def test_silo_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(SiloError) as info:
        Silo.open(missing)
    assert (info.value.code, info.value.message, info.value.details) == (
        "environment_not_found", f'Project directory "{missing}" was not found.', {"cwd": str(missing)})
    monkeypatch.chdir(tmp_path)
    silo = Silo.open()
    assert silo.cwd == tmp_path
    silo.environments.create("shop")
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)  # nothing later reads the process's current directory
    assert "shop" in silo.environments.list()
    env = silo.environment("shop")
    assert (env.name, env.cwd) == ("shop", tmp_path)
    assert env.data.add("x", 1) == "data/x.json"
    assert (tmp_path / ".silo/environments/shop/data/x.json").is_file()
    assert not (other / ".silo").exists()
    assert env.validate().counts["data"] == 1


def test_environments_list_and_open(project: Path) -> None:
    silo = Silo.open(project)
    before = silo.environments.list()
    env = silo.environments.create("Beta", template="blank", tools=["email"])
    assert env.name == "Beta"
    assert silo.environments.list() == sorted({*before, "beta"})
    assert json.loads((env.path / "silo.environment.json").read_text())["tools"] == ["email"]
    with pytest.raises(SiloError) as info:
        silo.environments.open("gamma")
    assert info.value.code == "environment_not_found"
    assert silo.environment("BETA").path == env.path


def test_sdk_and_cli_mix(project: Path, cli) -> None:
    silo = Silo.open(project)
    assert cli("init", "shop")[0] == 0
    env = silo.environment("shop")
    env.data.add("orders", [{"id": "O-1"}])
    assert cli("data", "list", "--env", "shop")[1] == "orders\tdata/orders.json\t" \
        f"{(env.path / 'data/orders.json').stat().st_size}B\n"
    assert cli("data", "update", "orders", "--env", "shop", "--data", "[]")[0] == 0
    assert env.data.get("orders") == []
    assert cli("task", "add", "TASK-001", "--env", "shop", "--title", "T", "--instruction", "I",
               "--verifier", "VER-001")[0] == 0
    env.tasks.update({**env.tasks.get("TASK-001").to_json(), "difficulty": "hard"})
    assert cli("task", "list", "--env", "shop")[1] == "TASK-001\thard\tVER-001\tT\n"
    env.tools.scaffold("ping")
    assert cli("tool", "add", "pong", "--env", "shop")[0] == 0
    assert [t["name"] for t in env.tools.list()] == ["ping", "pong"]  # in the order they were added
    assert cli("verifier", "add", "VER-001", "--env", "shop", "--task", "TASK-001")[0] == 0
    assert env.verifiers.list() == [{"id": "VER-001", "taskId": "TASK-001", "name": "TODO: name what VER-001 proves."}]
    assert env.verifiers.scaffold("VER-002", "TASK-001", name="Second") == "verifiers/ver_002.py"
    code, out, _ = cli("env", "validate", "--env", "shop", "--json")
    assert json.loads(out)["findings"] == env.validate().to_json()["findings"]
    assert [f.code for f in env.validate().findings] == ["tool_not_implemented", "tool_not_implemented",
                                                         "verifier_not_implemented", "verifier_task_mismatch",
                                                         "verifier_not_implemented"]
    env.tasks.remove("TASK-001")
    assert cli("task", "list", "--env", "shop")[1] == "No tasks.\n"


def test_scaffold_to_reward(project: Path, cli) -> None:
    silo = Silo.open(project)
    env = silo.environments.create("shop")
    assert env.data.add("orders", [{"id": "O-1", "status": "pending"}, {"id": "O-2", "status": "pending"}]) \
        == "data/orders.json"
    assert env.tasks.add({"id": "TASK-001", "title": "Ship O-1", "instruction": "Ship order O-1 by air.",
                          "verifierId": "VER-001", "difficulty": "easy", "entities": ["O-1"]}) == "tasks/TASK-001.json"
    assert env.tools.scaffold("ship_order") == "tools/ship_order.py"
    assert cli("verifier", "add", "VER-001", "--env", "shop", "--task", "TASK-001")[0] == 0
    # the stubs validate, with a warning each, and the verifier fails on purpose
    report = env.validate()
    assert report.ok and [(f.level, f.code) for f in report.findings] == [
        ("warning", "tool_not_implemented"), ("warning", "verifier_not_implemented")]
    fill(env.path, "environment.py", ENVIRONMENT_PY)
    fill(env.path, "tools/ship_order.py", SHIP_ORDER_PY)
    fill(env.path, "verifiers/ver_001.py", VER_001_PY)
    report = env.validate()
    assert (report.ok, report.findings) == (True, [])
    assert report.counts == {"data": 1, "tasks": 1, "tools": 1, "verifiers": 1}
    result = run_task("shop", "TASK-001", scripted_agent, cwd=project)
    assert (result.passed, result.reward, result.error) == (True, 1, None)
    assert result.run["environment"] == "shop"
    assert Path(result.run_dir).parent == project / ".silo" / "runs"
    # and through the command line
    (project / "silo.agent.py").write_text(AGENT_PY)
    code, out, err = cli("run", "--env", "shop", "--task", "TASK-001")
    assert (code, err) == (0, "")
    assert "Result:      PASS" in out and "Reward:      1.00" in out


def _registered_ids(cwd: Path) -> list[str]:
    code = (
        "import json, gymnasium as gym, silo_gym\n"
        "print(json.dumps(sorted(k for k in gym.registry if k.startswith('silo/'))))\n"
    )
    env = {**os.environ, "SILO_GYM_PATH": ""}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True, timeout=120)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_registers_scaffolded_tasks(project: Path) -> None:
    silo = Silo.open(project)
    silo.environments.create("empty")
    env = silo.environments.create("shop")
    env.tasks.add({"id": "TASK-001", "title": "t", "instruction": "i", "verifierId": "VER-001"})
    ids = _registered_ids(project)
    assert "silo/shop-TASK-001" in ids
    assert "silo/shop" in ids
    assert not [i for i in ids if i.startswith("silo/empty")]


def test_package_exports() -> None:
    # validate_env.py moved to silo_gym/authoring/validate.py (issue 23); the old path is that module.
    assert silo_gym.validate.__module__ == "silo_gym.authoring.validate"
    assert __import__("silo_gym.validate_env").validate_env is sys.modules["silo_gym.authoring.validate"]
    assert silo_gym.Silo is Silo
    assert {"validate", "Silo"} <= set(silo_gym.__all__)
