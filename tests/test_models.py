"""The pydantic models of Silo's file formats validate what is loaded, give back the exact file,
and publish their JSON Schema (issue 10 item 9)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest
from conftest import ENVS_DIR, REPO_ROOT, subprocess_env
from jsonschema import Draft202012Validator

from silo_gym import SiloError, run_task
from silo_gym.cli import main
from silo_gym.jsonfmt import dumps_pretty_bytes
from silo_gym.models import (
    SCHEMA_FORMATS,
    Manifest,
    RunConfig,
    RunFile,
    RunResultFile,
    StateDiff,
    Task,
    ValidationReport,
    json_schema,
)

GOLDEN = REPO_ROOT / "tests" / "golden" / "demo"
DEMO = REPO_ROOT / "environments" / "demo"
ORDERS_AGENT = str(ENVS_DIR / "orders" / "agent.py")
RESULTS = sorted(GOLDEN.rglob("result.json"))
DIFFS = sorted(GOLDEN.rglob("state-diff.json"))
HASH = "sha256:" + "ab" * 32


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A run directory recorded by run_task on the orders test environment."""
    runs = tmp_path_factory.mktemp("runs")
    result = run_task("orders", "TASK-001", ORDERS_AGENT, runs_dir=runs)
    return pathlib.Path(result.run_dir)


def _schema_validator(name: str) -> Draft202012Validator:
    schema = json_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _error(fn: Any, *args: Any) -> SiloError:
    with pytest.raises(SiloError) as info:
        fn(*args)
    return info.value


# --- loading gives back the exact file ---------------------------------------------------------------


@pytest.mark.parametrize("path", RESULTS + DIFFS, ids=lambda p: p.relative_to(GOLDEN).as_posix())
def test_golden_artifacts_round_trip_byte_for_byte(path: pathlib.Path) -> None:
    model = RunResultFile if path.name == "result.json" else StateDiff
    loaded = model.read(path)
    assert dumps_pretty_bytes(loaded.to_json()) == path.read_bytes()


def test_a_recorded_run_round_trips(recorded_run: pathlib.Path) -> None:
    for name, model in (("run.json", RunFile), ("result.json", RunResultFile), ("state-diff.json", StateDiff)):
        loaded = model.read(recorded_run / name)
        assert dumps_pretty_bytes(loaded.to_json()) == (recorded_run / name).read_bytes(), name
    run = RunFile.read(recorded_run / "run.json")
    assert isinstance(run.task, Task) and run.task.verifier_id == "VER-001"


def test_the_validation_report_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["env", "validate", "--env", "demo", "--json"]) == 0
    out = capsys.readouterr().out
    report = ValidationReport.from_json_value(json.loads(out))
    assert report.ok is True and report.counts["tools"] == 42
    assert dumps_pretty_bytes(report.to_json()).decode("utf-8") == out


def _run_json(**config: Any) -> dict[str, Any]:
    task = json.loads((DEMO / "tasks" / "TASK-001.json").read_text(encoding="utf-8"))
    return {
        "runId": "run_20260915020238_9s01", "environment": "demo", "taskId": "TASK-001", "task": task,
        "verifierId": "VER-001", "verifierName": "n",
        "config": {"maxToolCalls": 100, "timeoutMs": 120000, "agentPath": None, **config},
        "startedAt": "2026-09-15T02:02:38.161Z", "finishedAt": "2026-09-15T02:02:38.165Z", "durationMs": 4,
        "terminationReason": "completed", "toolCallCount": 0,
    }


def test_run_json_config_with_and_without_the_provenance_keys() -> None:
    old = _run_json()
    assert RunFile.from_json_value(old).to_json() == old
    assert list(RunFile.from_json_value(old).to_json()["config"]) == ["maxToolCalls", "timeoutMs", "agentPath"]
    new = _run_json(variant=3, siloGymVersion="0.1.0", environmentHash=HASH)
    loaded = RunFile.from_json_value(new)
    assert (loaded.config.variant, loaded.config.siloGymVersion, loaded.config.environmentHash) == (3, "0.1.0", HASH)
    assert list(loaded.to_json()["config"]) == ["maxToolCalls", "timeoutMs", "agentPath", "variant",
                                                 "siloGymVersion", "environmentHash"]
    assert RunFile.from_json_value(_run_json(variant=None)).to_json()["config"]["variant"] is None
    assert RunConfig(maxToolCalls=1, timeoutMs=2, agentPath=None).to_json() == {
        "maxToolCalls": 1, "timeoutMs": 2, "agentPath": None}


# --- what does not match its format is refused, naming the file and the field -------------------------


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        ({"reward": "1"}, "reward", "Input should be a valid number"),
        ({"reward": 1.5}, "reward", "Input should be less than or equal to 1"),
        ({"passed": 1}, "passed", "Input should be a valid boolean"),
        ({"toolCalls": -1}, "toolCalls", "Input should be greater than or equal to 0"),
        ({"toolCalls": 2.0}, "toolCalls", "Input should be a valid integer"),
        ({"terminationReason": "crashed"}, "terminationReason",
         "Input should be 'completed', 'max_tool_calls', 'timeout' or 'agent_error'"),
        ({"checks": [{"label": "x", "passed": True, "detail": "", "required": "yes"}]}, "checks[0].required",
         "Input should be a valid boolean"),
        ({"seed": 3}, "seed", "Extra inputs are not permitted"),
        ({"error": None, "agentOutput": None, "checks": None}, "checks", "Input should be a valid list"),
    ],
)
def test_result_json_that_breaks_its_format(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                                            change: dict[str, Any], field: str, problem: str) -> None:
    monkeypatch.chdir(tmp_path)
    data = json.loads(RESULTS[0].read_bytes()) | change
    (tmp_path / "result.json").write_text(json.dumps(data, indent=2), encoding="utf-8")  # 2.0 stays 2.0
    error = _error(RunResultFile.read, tmp_path / "result.json")
    assert (error.code, error.message, error.details) == (
        "file_invalid", f"result.json is not a valid result.json: {field}: {problem}.",
        {"path": "result.json", "format": "result.json", "field": field})


def test_a_missing_key_and_bad_json_are_named(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = json.loads(RESULTS[0].read_bytes())
    del data["toolErrors"]
    (tmp_path / "result.json").write_bytes(dumps_pretty_bytes(data))
    assert _error(RunResultFile.read, "result.json").message == (
        "result.json is not a valid result.json: toolErrors: Field required.")
    (tmp_path / "run.json").write_text('{\n  "runId": "x",\n}', encoding="utf-8")
    error = _error(RunFile.read, "run.json")
    assert (error.code, error.details) == ("invalid_json", {"path": "run.json", "line": 3, "column": 1})
    (tmp_path / "run.json").write_text("[]", encoding="utf-8")
    assert _error(RunFile.read, "run.json").message.startswith("run.json is not a valid run.json: (the whole file): ")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"runId": "run_1"}, "runId"),
        ({"startedAt": "2026-09-15 02:02:38"}, "startedAt"),
        ({"config": {"maxToolCalls": 100, "timeoutMs": 120000}}, "config.agentPath"),
        ({"config": {"maxToolCalls": 100, "timeoutMs": 120000, "agentPath": None, "variant": "2"}}, "config.variant"),
        ({"config": {"maxToolCalls": 100, "timeoutMs": 120000, "agentPath": None, "environmentHash": "abc"}},
         "config.environmentHash"),
        ({"task": {"id": "TASK-001", "title": " ", "instruction": "i", "verifierId": "V"}}, "task.title"),
        ({"durationMs": 1.5}, "durationMs"),
    ],
)
def test_run_json_that_breaks_its_format(change: dict[str, Any], field: str) -> None:
    error = _error(RunFile.from_json_value, _run_json() | change, "runs/x/run.json")
    assert error.code == "file_invalid" and error.details["field"] == field
    assert error.message.startswith(f"runs/x/run.json is not a valid run.json: {field}: ")


def test_report_and_state_diff_formats() -> None:
    report = {"environment": "x", "ok": True, "findings": [{"level": "info", "code": "c", "message": "m"}],
              "counts": {"data": 0, "tasks": 0, "tools": 0, "verifiers": 0}}
    assert _error(ValidationReport.from_json_value, report).details["field"] == "findings[0].level"
    report["findings"] = []
    del report["counts"]["tools"]  # type: ignore[attr-defined]
    assert _error(ValidationReport.from_json_value, report).details["field"] == "counts.tools"
    diff = {"scalars": [{"field": "now", "to": {"a": 1}}], "collections": {}}
    assert _error(StateDiff.from_json_value, diff).details["field"].startswith("scalars[0].to")
    diff = {"scalars": [{"field": "now", "to": "b"}], "collections": {"orders": {"added": [1], "removed": [],
                                                                                  "changed": []}}}
    assert _error(StateDiff.from_json_value, diff).details["field"] == "collections.orders.added[0]"


# --- the manifest and the task keep Silo's rules and messages ----------------------------------------


def test_task_from_file_checks_silos_rules_in_their_order() -> None:
    # §2.5: the four strings are checked before the id is checked for safety.
    error = _error(Task.from_file, {"id": "../x", "instruction": "i", "verifierId": "V"}, "shop", "a.json")
    assert (error.code, error.message, error.details) == (
        "task_invalid", 'Task file "a.json" in environment "shop" is missing a non-empty "title".',
        {"environment": "shop", "file": "a.json", "field": "title"})
    error = _error(Task.from_file, {"id": "../x", "title": "t", "instruction": "i", "verifierId": "V"}, "shop",
                   "a.json")
    assert error.message == 'Task file "a.json" in environment "shop" has an unsafe id "../x".'
    error = _error(Task.from_file, ["not", "an", "object"], "shop", "a.json")
    assert error.message == 'Task file "a.json" in environment "shop" is not a JSON object.'
    task = Task.from_file({"id": "T-1", "title": "t", "instruction": "i", "verifierId": "V", "difficulty": 3,
                           "entities": ["a", 1, "b"], "extra": True}, "shop", "a.json")
    assert task.to_json() == {"id": "T-1", "title": "t", "instruction": "i", "verifierId": "V",
                              "difficulty": "unspecified", "entities": ["a", "b"]}


def test_task_model_validates_direct_input() -> None:
    with pytest.raises(ValueError, match="title"):
        Task.model_validate({"id": "T-1", "title": "", "instruction": "i", "verifierId": "V"})
    with pytest.raises(ValueError, match="entities"):
        Task(id="T-1", title="t", instruction="i", verifier_id="V", entities=("a", 2))  # type: ignore[arg-type]
    assert Task(id="T-1", title="t", instruction="i", verifier_id="V").difficulty == "unspecified"


@pytest.mark.parametrize("raw", [None, [], "x", {"name": 5, "template": 1, "entrypoint": " ", "tools": "a"}])
def test_manifest_defaults_never_raise(raw: Any) -> None:
    assert Manifest.from_raw(raw, "shop").to_json() == {
        "name": "shop", "template": None, "templateVersion": None, "entrypoint": "./__init__.py", "tools": []}


# --- silo-gym schema ---------------------------------------------------------------------------------


def test_schema_command_prints_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert set(SCHEMA_FORMATS) == {"manifest", "task", "result", "run", "report", "state-diff"}
    for name in SCHEMA_FORMATS:
        assert main(["schema", name]) == 0
        out, err = capsys.readouterr()
        assert err == "" and out.startswith('{\n  "$schema": "https://json-schema.org/draft/2020-12/schema",\n')
        schema = json.loads(out)
        assert schema == json_schema(name)
        Draft202012Validator.check_schema(schema)
    assert main(["schema", "nope"]) == 1
    assert capsys.readouterr().err == (
        'error: Unknown format "nope". Available: manifest, task, result, run, report, state-diff.\n')
    assert main(["schema"]) == 1
    assert capsys.readouterr().err == "error: Missing <format>.\n"


def test_schemas_accept_real_files_and_refuse_broken_ones(recorded_run: pathlib.Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    manifest = _schema_validator("manifest")
    manifest.validate(json.loads((DEMO / "silo.environment.json").read_bytes()))
    manifest.validate({})  # every key has a default
    assert not manifest.is_valid({"name": ""}) and not manifest.is_valid({"tools": "a"})

    task = _schema_validator("task")
    files = sorted((DEMO / "tasks").glob("*.json"))
    assert len(files) == 6
    for path in files:
        task.validate(json.loads(path.read_bytes()))
    good = {"id": "T-1", "title": "t", "instruction": "i", "verifierId": "V"}
    task.validate(good)
    for bad in ({**good, "title": "   "}, {**good, "id": "../x"}, {k: v for k, v in good.items() if k != "title"},
                {**good, "entities": [1]}):
        assert not task.is_valid(bad), bad

    result = _schema_validator("result")
    for path in RESULTS:
        result.validate(json.loads(path.read_bytes()))
    assert not result.is_valid({**json.loads(RESULTS[0].read_bytes()), "reward": "1"})
    diff = _schema_validator("state-diff")
    for path in DIFFS:
        diff.validate(json.loads(path.read_bytes()))

    run = _schema_validator("run")
    run.validate(json.loads((recorded_run / "run.json").read_bytes()))
    run.validate(_run_json(variant=1, siloGymVersion="0.1.0", environmentHash=HASH))
    assert not run.is_valid(_run_json(variant="1"))

    assert main(["env", "validate", "--env", "demo", "--json"]) == 0
    _schema_validator("report").validate(json.loads(capsys.readouterr().out))


def test_import_silo_gym_does_not_import_pydantic() -> None:
    code = "import sys, silo_gym\nprint('pydantic' in sys.modules, 'silo_gym.models' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env(),
                         timeout=120)
    assert (out.returncode, out.stdout) == (0, "False False\n"), out.stderr
