"""verifiers v1: the exported taskset package installed into a venv of its own (with only its
declared dependencies, and uv for verifiers' harness), evaluated by verifiers' own ``vf-eval``
against ``silo-gym mock-model`` over loopback; rewards equal the runs' ``result.json`` and the
run bytes equal ``gym.make``'s."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any

import pytest

from silo_gym.hubs.export import export

from .helpers import DEMO_TASKS, play_native, run_bytes
from .venvs import make_venv, mock_model, venv_env

pytestmark = [pytest.mark.xdist_group("hub_venvs"), pytest.mark.timeout(2400)]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, silo_wheel: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """(the venv's bin/, the exported package) with the package installed."""
    base = tmp_path_factory.mktemp("verifiers")
    wheel = silo_wheel
    package = export("verifiers", "demo", base / "silo-demo").path
    # The package's only requirement is silo-gym[verifiers]=={version}: the wheel satisfies it.
    bin_dir = make_venv(base / "venv", [str(package), "uv"], wheel.parent)
    return bin_dir, package


def _python(bin_dir: pathlib.Path, code: str, cwd: pathlib.Path) -> Any:
    done = subprocess.run([str(bin_dir / "python"), "-c", code], cwd=cwd, env=venv_env(bin_dir),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_package_installs_with_only_its_declared_dependencies(venv: tuple[pathlib.Path, pathlib.Path],
                                                                   tmp_path: pathlib.Path) -> None:
    bin_dir, package = venv
    found = _python(bin_dir, (
        "import json, importlib.metadata as m, silo_demo\n"
        "from verifiers.v1.utils.loaders import taskset_class\n"
        "cls = taskset_class('silo-demo')\n"
        "req = m.requires('silo-demo')\n"
        "print(json.dumps({'all': silo_demo.__all__, 'cls': cls.__name__, 'requires': req,"
        " 'mcp': m.version('mcp'), 'silo': m.version('silo-gym')}))"), tmp_path)
    from silo_gym import __version__

    assert found["all"] == ["SiloDemoTaskset"] and found["cls"] == "SiloDemoTaskset"
    assert found["requires"] == [f"silo-gym[verifiers]=={__version__}"]
    assert found["silo"] == __version__ and found["mcp"].startswith("2.0")


def test_rows_tasks_seeds_variants_and_infinite(venv: tuple[pathlib.Path, pathlib.Path], tmp_path: pathlib.Path) -> None:
    bin_dir, _ = venv
    found = _python(bin_dir, (
        "import json, itertools\n"
        "from silo_demo import SiloDemoTaskset\n"
        "from silo_gym.integrations.verifiers_v1 import SiloTasksetConfig\n"
        "plain = list(SiloDemoTaskset(SiloTasksetConfig(id='silo-demo', seeds=2)))\n"
        "some = list(SiloDemoTaskset(SiloTasksetConfig(id='silo-demo', task_ids=['TASK-003'], variants=True, seeds=3)))\n"
        "endless = SiloDemoTaskset(SiloTasksetConfig(id='silo-demo', variants=True, infinite=True))\n"
        "first = [t.data for t in itertools.islice(iter(endless), 13)]\n"
        "errors = []\n"
        "for kwargs in ({'infinite': True}, {'task_ids': ['TASK-404']}):\n"
        "    try:\n"
        "        SiloDemoTaskset(SiloTasksetConfig(id='silo-demo', **kwargs))\n"
        "    except ValueError as exc:\n"
        "        errors.append(str(exc))\n"
        "print(json.dumps({'plain': [(t.data.task_id, t.data.seed, t.data.variant) for t in plain],"
        " 'some': [(t.data.task_id, t.data.variant, t.data.prompt) for t in some],"
        " 'endless': [(d.task_id, d.variant) for d in first], 'bounded': endless.bounded, 'errors': errors}))"),
        tmp_path)
    assert [row[0] for row in found["plain"]] == list(DEMO_TASKS) * 2
    assert all(row[2] is None for row in found["plain"]) and len({row[1] for row in found["plain"]}) == 12
    assert [row[0] for row in found["some"]] == ["TASK-003"] * 3
    assert all(isinstance(row[1], int) for row in found["some"]) and len({row[2] for row in found["some"]}) > 1
    assert [row[0] for row in found["endless"]] == (list(DEMO_TASKS) * 3)[:13] and found["bounded"] is False
    assert "infinite needs variants" in found["errors"][0] and "TASK-404" in found["errors"][1]


def test_vf_eval_against_the_mock_model_equals_gym_make(venv: tuple[pathlib.Path, pathlib.Path],
                                                        tmp_path: pathlib.Path) -> None:
    bin_dir, _ = venv
    runs, out = tmp_path / "runs", tmp_path / "out"
    with mock_model(tmp_path / "mock.log") as base_url:
        done = subprocess.run(
            [str(bin_dir / "vf-eval"), "silo-demo", "-m", "silo-mock", "--client.base-url", base_url,
             "--client.api-key-var", "SILO_MOCK_KEY", "--no-push", "--no-rich", "-o", str(out), "-n", "6",
             "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess",
             "--env.taskset.task.runs-dir", str(runs)],
            cwd=tmp_path, env=venv_env(bin_dir, SILO_MOCK_KEY="unused"), capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-6000:]
    (traces_file,) = out.glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces_file.read_text().splitlines() if line.strip()]
    assert len(episodes) == 6
    seen = set()
    for episode in episodes:
        (trace,) = episode["traces"]
        task_id = trace["task"]["data"]["task_id"]
        silo = trace["info"]["silo"]
        run_dir = pathlib.Path(silo["run_dir"])
        result = json.loads((run_dir / "result.json").read_text())
        assert trace["rewards"]["silo"]["score"] == result["reward"] == 1.0
        assert trace["metrics"]["passed"] == 1.0 and trace["metrics"]["tool_calls"] == result["toolCalls"]
        labels = {f"check/{c['label']}" for c in result["checks"]}
        assert labels and labels <= set(trace["metrics"])
        _, native_run, _ = play_native(task_id, tmp_path / "native", seed=trace["task"]["data"]["seed"])
        assert run_bytes(run_dir) == run_bytes(native_run), task_id
        seen.add(task_id)
    assert seen == set(DEMO_TASKS)
    assert len(list(runs.iterdir())) == 6


def test_replay_of_a_variant_row_and_of_a_failed_rollout(venv: tuple[pathlib.Path, pathlib.Path],
                                                         tmp_path: pathlib.Path) -> None:
    """The finalize replay in the venv, given the calls a tool server would have logged."""
    bin_dir, _ = venv
    reward, native_run, answer = play_native("TASK-002", tmp_path / "native", seed=11, variant=4)
    native_trace = [json.loads(line) for line in (native_run / "trace.jsonl").read_text().splitlines()]
    calls = [{"tool": e["tool"], "input": e["input"], "expired": False} for e in native_trace
             if e.get("type") == "tool_call"]
    assert calls
    found = _python(bin_dir, (
        "import json, sys\n"
        "from silo_demo.taskset import SiloDemoTask\n"
        "from silo_gym.integrations.verifiers_v1 import SiloRolloutState, SiloTaskConfig, SiloTaskData\n"
        f"calls = json.loads({json.dumps(json.dumps(calls))})\n"
        f"data = SiloTaskData(prompt='x', task_id='TASK-002', seed=11, variant=4)\n"
        f"task = SiloDemoTask(data, SiloTaskConfig(runs_dir={str(tmp_path / 'hub')!r}))\n"
        f"done = task.replay(SiloRolloutState(calls=calls), {answer!r})\n"
        "failed = task.replay(SiloRolloutState(calls=calls[:1]), 'ignored', 'The verifiers rollout failed: boom')\n"
        "print(json.dumps({'done': done, 'failed': failed}))"), tmp_path)
    assert found["done"]["reward"] == reward
    assert run_bytes(found["done"]["run_dir"]) == run_bytes(native_run)
    failed = found["failed"]
    assert failed["termination_reason"] == "agent_error" and failed["result"]["error"] == "The verifiers rollout failed: boom"
