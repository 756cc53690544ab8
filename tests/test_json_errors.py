"""Errors say where: a data, task or manifest file with bad JSON names the file, line and column,
whichever way it is reached (issue 10 item 8)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import gymnasium as gym
import pytest
from conftest import subprocess_env

from silo_gym import SiloEnv, SiloError, run_task, validate
from silo_gym.cli import main
from silo_gym.registration import register_environment

#: create_state() reads data/items.json with the standard library, as the authoring guide does.
INIT = """
import json
from pathlib import Path

from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers


def create_state():
    rows = json.loads((Path(__file__).parent / "data" / "items.json").read_text(encoding="utf-8"))
    return {"count": 0, "label": "start", "items": rows}


def bind_tools(state):
    return _bind(state, tools)
"""

#: A missing comma on line 3: the parser stops at line 3, column 3.
BROKEN = '[\n  {"id": "A"}\n  {"id": "B"}\n]\n'
WHERE = "at line 3, column 3: Expecting ',' delimiter."


@pytest.fixture
def project(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SILO_GYM_PATH", "")
    return tmp_path


def _env(project: pathlib.Path, make_env_dir: Any, name: str, **files: str) -> pathlib.Path:
    return make_env_dir(project / ".silo" / "environments", name, init=INIT,
                        files={"data/items.json": '[{"id": "A"}]\n', **files})


def _error(fn: Any, *args: Any, **kwargs: Any) -> SiloError:
    with pytest.raises(SiloError) as info:
        fn(*args, **kwargs)
    return info.value


def test_a_bad_data_file_is_named_by_gym_make_run_task_and_the_cli(project, make_env_dir, capsys):
    env_dir = _env(project, make_env_dir, "jsondata", **{"data/items.json": BROKEN})
    path = ".silo/environments/jsondata/data/items.json"
    message = f"{path} is not valid JSON {WHERE}"
    details = {"path": path, "line": 3, "column": 3}

    error = _error(SiloEnv, "jsondata", "TASK-001")
    assert (error.code, error.message, error.details) == ("invalid_json", message, details)
    assert isinstance(error.__cause__, json.JSONDecodeError)  # what create_state() raised is kept

    ids = register_environment(env_dir)
    try:
        error = _error(gym.make, "silo/jsondata-TASK-001")
        assert (error.code, error.message) == ("invalid_json", message)
    finally:
        for env_id in ids:
            gym.registry.pop(env_id, None)

    error = _error(run_task, "jsondata", "TASK-001", lambda *a: {"output": "x"})
    assert (error.code, error.message) == ("invalid_json", message)

    assert main(["run", "--env", "jsondata", "--task", "TASK-001"]) == 1
    assert capsys.readouterr().err == f"error: invalid_json: {message}\n"


def test_a_bad_data_file_after_the_first_episode_is_named_at_reset(project, make_env_dir):
    env_dir = _env(project, make_env_dir, "lateb")
    env = SiloEnv("lateb", "TASK-001")
    env.reset(seed=0)
    (env_dir / "data" / "items.json").write_text(BROKEN, encoding="utf-8")
    # The environment module caches nothing here: every reset reads the file again.
    error = _error(env.reset, seed=1)
    assert error.code == "invalid_json" and error.details["line"] == 3


def test_an_unrelated_create_state_error_is_not_blamed_on_a_file(project, make_env_dir):
    broken_init = INIT.replace('"count": 0', '"count": int("x")')
    make_env_dir(project / ".silo" / "environments", "plainerr", init=broken_init,
                 files={"data/items.json": "[]", "data/zz.json": "{"})
    with pytest.raises(ValueError, match="invalid literal for int"):
        SiloEnv("plainerr", "TASK-001")
    # A parser error over text that is no data file, while every data file parses.
    own_json = INIT.replace('"count": 0', '"count": json.loads("{oops")')
    make_env_dir(project / ".silo" / "environments", "ownjson", init=own_json, files={"data/items.json": "[]"})
    with pytest.raises(json.JSONDecodeError):
        SiloEnv("ownjson", "TASK-001")


@pytest.mark.parametrize("reader", ["orjson", "utf8"])
def test_the_file_the_environment_failed_on_is_named_with_its_parsers_position(project, make_env_dir, reader):
    if reader == "orjson":
        init = INIT.replace("import json", "import orjson as json").replace(
            '.read_text(encoding="utf-8")', ".read_bytes()")
        files = {"data/a.json": "{", "data/items.json": BROKEN}  # a.json is broken but not the one read
        where = "at line 3, column 3: unexpected character, expected ',' or ']'."
    else:
        init = INIT
        files = {"data/items.json": b'["caf\xe9"]'}
        where = "at line 1, column 6: Invalid UTF-8 byte 0xe9."
    make_env_dir(project / ".silo" / "environments", "which", init=init, files=files)
    error = _error(SiloEnv, "which", "TASK-001")
    assert error.message == f".silo/environments/which/data/items.json is not valid JSON {where}"


def test_a_bad_task_file_is_named_by_every_entry_point(project, make_env_dir, capsys):
    _env(project, make_env_dir, "jsontask", **{"tasks/TASK-002.json": '{"id": "TASK-002",\n  "title": }\n'})
    path = ".silo/environments/jsontask/tasks/TASK-002.json"
    message = f"{path} is not valid JSON at line 2, column 12: Expecting value."

    error = _error(SiloEnv, "jsontask", "TASK-001")
    assert (error.code, error.message, error.details) == (
        "invalid_json", message, {"path": path, "line": 2, "column": 12})
    assert main(["run", "--env", "jsontask", "--task", "TASK-001"]) == 1
    assert capsys.readouterr().err == f"error: invalid_json: {message}\n"
    report = validate("jsontask")
    assert [(f.code, f.message) for f in report.findings if f.level == "error"] == [("runtime_load_failed", message)]
    assert main(["env", "validate", "--env", "jsontask"]) == 1
    assert f"ERROR\truntime_load_failed\t{message}\n" in capsys.readouterr().out


def test_env_validate_names_line_and_column_of_a_data_file(project, make_env_dir, capsys):
    _env(project, make_env_dir, "valdata", **{"data/items.json": BROKEN, "data/other.json": '{"x": NaN}'})
    assert main(["env", "validate", "--env", "valdata"]) == 1
    out = capsys.readouterr().out
    assert "ERROR\tdata_invalid_json\tdata/items.json is not valid JSON: Expecting ',' delimiter: line 3 column 3" in out
    assert "ERROR\tdata_invalid_json\tdata/other.json is not valid JSON: NaN is not valid JSON: line 1 column 7" in out


def test_import_silo_gym_warns_with_file_line_and_column(tmp_path: pathlib.Path, make_env_dir):
    root = tmp_path / "envs"
    make_env_dir(root, "badtask", tasks={"A.json": '{\n  "id": "A",\n  "title": "t",,\n}'})
    make_env_dir(root, "badmanifest", manifest='{"name": "x"\n"template": null}')
    code = ("import warnings\nwarnings.simplefilter('always')\nwith warnings.catch_warnings(record=True) as w:\n"
            "    import silo_gym\nprint('\\n'.join(str(x.message) for x in w))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env=subprocess_env(SILO_GYM_PATH=str(root)), timeout=120)
    assert out.returncode == 0, out.stderr
    task = "envs/badtask/tasks/A.json"  # relative to the project root, the cwd (silo-format §2.3)
    manifest = "envs/badmanifest/silo.environment.json"
    assert (f"silo_gym skipped the environment at {root / 'badtask'}: {task} is not valid JSON at line 3, "
            "column 16: Expecting property name enclosed in double quotes.") in out.stdout.splitlines()
    assert (f"silo_gym skipped the environment at {root / 'badmanifest'}: {manifest} is not valid JSON at "
            "line 2, column 1: Expecting ',' delimiter.") in out.stdout.splitlines()
