"""The dataset and task stores (silo-format §12.2, §12.3) through the project API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from silo_gym import Silo, SiloError, Task
from silo_gym.store import atomic_write

from .helpers import snapshot


@pytest.fixture
def env(project: Path):
    """A blank environment ``shop`` in the project."""
    return Silo.open(project).environments.create("shop")


def err(fn, *args) -> SiloError:
    with pytest.raises(SiloError) as info:
        fn(*args)
    return info.value


# --- datasets ----------------------------------------------------------------------------------


def test_data_modes_and_files(env, project: Path) -> None:
    data_dir = project / ".silo/environments/shop/data"
    assert (data_dir / ".gitkeep").is_file()
    assert env.data.list() == []
    assert env.data.add("orders", [{"id": "O-1", "total": 12.0}]) == "data/orders.json"
    assert not (data_dir / ".gitkeep").exists()
    assert (data_dir / "orders.json").read_text() == '[\n  {\n    "id": "O-1",\n    "total": 12\n  }\n]\n'
    assert env.data.get("orders") == [{"id": "O-1", "total": 12}]
    assert env.data.update("orders", {"b": 1, "a": "é"}) == "data/orders.json"
    assert (data_dir / "orders.json").read_text(encoding="utf-8") == '{\n  "b": 1,\n  "a": "é"\n}\n'
    assert env.data.put("config", 3) == "data/config.json"
    assert env.data.put("config", None) == "data/config.json"
    assert env.data.get("config") is None
    assert env.data.list() == [
        {"name": "config", "file": "data/config.json", "bytes": 5},
        {"name": "orders", "file": "data/orders.json", "bytes": len('{\n  "b": 1,\n  "a": "é"\n}\n'.encode())},
    ]
    assert env.data.remove("config") == "data/config.json"
    assert not (data_dir / "config.json").exists()
    assert [e["name"] for e in env.data.list()] == ["orders"]
    assert [p.name for p in data_dir.iterdir()] == ["orders.json"]  # no temporary file left


def test_data_errors(env, project: Path) -> None:
    env.data.add("orders", [])
    e = err(env.data.add, "orders", [])
    assert (e.code, e.message) == (
        "data_already_exists", 'Dataset "orders" already exists in environment "shop" (data/orders.json).'
    )
    for fn, args in ((env.data.update, ("nope", 1)), (env.data.get, ("nope",)), (env.data.remove, ("nope",))):
        e = err(fn, *args)
        assert (e.code, e.message) == ("data_not_found", 'Dataset "nope" was not found in environment "shop".')
    e = err(env.data.put, "weird", {"when": {1, 2}})
    assert (e.code, e.message, e.details) == (
        "invalid_json",
        ".silo/environments/shop/data/weird.json is not valid JSON.",
        {"path": ".silo/environments/shop/data/weird.json"},
    )
    assert not (project / ".silo/environments/shop/data/weird.json").exists()
    (project / ".silo/environments/shop/data/broken.json").write_text("{")
    e = err(env.data.get, "broken")
    assert (e.code, e.message, e.details) == (
        "invalid_json",
        ".silo/environments/shop/data/broken.json is not valid JSON at line 1, column 2: "
        "Expecting property name enclosed in double quotes.",
        {"path": ".silo/environments/shop/data/broken.json", "line": 1, "column": 2},
    )
    e = err(env.data.add, "../x", 1)
    assert (e.code, e.details) == ("unsafe_name", {"kind": "dataset", "name": "../x"})


def test_data_cli(project: Path, cli) -> None:
    assert cli("init", "shop")[0] == 0
    assert cli("data", "list", "--env", "shop") == (0, "No datasets.\n", "")
    assert cli("data", "list", "--env", "shop", "--json") == (0, "[]\n", "")
    assert cli("data", "add", "orders", "--env", "shop", "--data", '[{"id": "O-1"}]') == (
        0, "Created data/orders.json\n", "")
    (project / "in.json").write_text('{"x": [1, 2.5]}')
    code, out, _ = cli("data", "add", "cfg", "--env", "shop", "--file", "in.json", "--json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "action": "add", "name": "cfg", "file": "data/cfg.json"}
    assert list(json.loads(out)) == ["ok", "action", "name", "file"]
    sizes = {p.stem: p.stat().st_size for p in (project / ".silo/environments/shop/data").iterdir()}
    assert sizes["cfg"] == len('{\n  "x": [\n    1,\n    2.5\n  ]\n}\n')
    assert cli("data", "list", "--env", "shop") == (
        0, f"cfg\tdata/cfg.json\t{sizes['cfg']}B\norders\tdata/orders.json\t{sizes['orders']}B\n", "")
    code, out, _ = cli("data", "list", "--env", "shop", "--json")
    assert [list(row) for row in json.loads(out)] == [["name", "file", "bytes"]] * 2
    assert cli("data", "show", "cfg", "--env", "shop") == (0, '{\n  "x": [\n    1,\n    2.5\n  ]\n}\n', "")
    assert cli("data", "show", "cfg", "--env", "shop", "--json")[1] == '{\n  "x": [\n    1,\n    2.5\n  ]\n}\n'
    assert cli("data", "update", "cfg", "--env", "shop", "--data=[]") == (0, "Updated data/cfg.json\n", "")
    code, out, _ = cli("data", "update", "cfg", "--env", "shop", "--data", "{}", "--json")
    assert json.loads(out) == {"ok": True, "action": "update", "name": "cfg", "file": "data/cfg.json"}
    assert cli("data", "remove", "cfg", "--env", "shop") == (0, "Removed data/cfg.json\n", "")
    cli("data", "add", "cfg", "--env", "shop", "--data", "1")
    code, out, _ = cli("data", "remove", "cfg", "--env", "shop", "--json")
    assert json.loads(out) == {"ok": True, "action": "remove", "name": "cfg", "file": "data/cfg.json"}


def test_data_cli_errors(project: Path, cli) -> None:
    cli("init", "shop")
    cli("data", "add", "orders", "--env", "shop", "--data", "[]")
    before = snapshot(project)
    assert cli("data", "add", "x", "--env", "shop", "--data", "1", "--file", "a.json") == (
        1, "", "error: Pass either --file or --data, not both.\n")
    assert cli("data", "add", "x", "--env", "shop") == (1, "", "error: Missing --file <path> or --data <json>.\n")
    assert cli("data", "add", "x", "--env", "shop", "--data", "{nope") == (
        1, "", "error: Content is not valid JSON: Expecting property name enclosed in double quotes: "
               "line 1 column 2 (char 1)\n")
    assert cli("data", "add", "orders", "--env", "shop", "--data", "1") == (
        1, "", 'error: data_already_exists: Dataset "orders" already exists in environment "shop" '
               "(data/orders.json).\n")
    assert cli("data", "update", "nope", "--env", "shop", "--data", "1") == (
        1, "", 'error: data_not_found: Dataset "nope" was not found in environment "shop".\n')
    assert cli("data", "show", "nope", "--env", "shop")[2] == (
        'error: data_not_found: Dataset "nope" was not found in environment "shop".\n')
    assert cli("data", "remove", "nope", "--env", "shop")[0] == 1
    assert cli("data", "show", "--env", "shop") == (1, "", "error: Missing <name>.\n")
    assert cli("data", "list") == (1, "", "error: Missing --env.\n")
    assert cli("data", "frobnicate", "--env", "shop")[0] == 1
    assert snapshot(project) == before


# --- tasks -------------------------------------------------------------------------------------

TASK = {"id": "TASK-002", "title": "Ship", "instruction": "Ship O-1.", "verifierId": "VER-002"}


def test_task_modes_and_file_form(env, project: Path) -> None:
    tasks_dir = project / ".silo/environments/shop/tasks"
    assert env.tasks.list() == []
    raw = {"entities": ["O-1", 7, "O-2"], "extra": True, "difficulty": "  easy ", **TASK}
    assert env.tasks.add(raw) == "tasks/TASK-002.json"
    assert not (tasks_dir / ".gitkeep").exists()
    assert (tasks_dir / "TASK-002.json").read_text() == (
        "{\n"
        '  "id": "TASK-002",\n'
        '  "title": "Ship",\n'
        '  "instruction": "Ship O-1.",\n'
        '  "verifierId": "VER-002",\n'
        '  "difficulty": "easy",\n'
        '  "entities": [\n'
        '    "O-1",\n'
        '    "O-2"\n'
        "  ]\n"
        "}\n"
    )
    task = env.tasks.get("TASK-002")
    assert isinstance(task, Task)
    assert (task.title, task.verifier_id, task.entities) == ("Ship", "VER-002", ("O-1", "O-2"))
    # put of a new id adds; a Task object is accepted
    new = Task.from_raw({**TASK, "id": "TASK-001"})
    assert env.tasks.put(new) == "tasks/TASK-001.json"
    assert [t.id for t in env.tasks.list()] == ["TASK-001", "TASK-002"]
    # an update rewrites the file where the task was found
    (tasks_dir / "TASK-002.json").rename(tasks_dir / "shipping.json")
    assert env.tasks.update({**TASK, "title": "Ship it"}) == "tasks/shipping.json"
    assert json.loads((tasks_dir / "shipping.json").read_text())["title"] == "Ship it"
    assert env.tasks.put({**TASK, "title": "Again"}) == "tasks/shipping.json"
    assert json.loads((tasks_dir / "shipping.json").read_text())["difficulty"] == "unspecified"
    assert env.tasks.remove("TASK-002") == "tasks/shipping.json"
    assert sorted(p.name for p in tasks_dir.iterdir()) == ["TASK-001.json"]


def test_task_errors(env, project: Path) -> None:
    env.tasks.add(TASK)
    e = err(env.tasks.add, {**TASK, "title": "dup"})
    assert (e.code, e.message) == (
        "task_already_exists", 'Task "TASK-002" already exists in environment "shop" (TASK-002.json).'
    )
    for fn, arg in ((env.tasks.get, "TASK-404"), (env.tasks.remove, "TASK-404"),
                    (env.tasks.update, {**TASK, "id": "TASK-404"})):
        e = err(fn, arg)
        assert (e.code, e.message, e.details) == (
            "task_not_found",
            'Task "TASK-404" was not found in environment "shop". Available: TASK-002.',
            {"environment": "shop", "taskId": "TASK-404", "available": ["TASK-002"]},
        )
    before = snapshot(project)
    e = err(env.tasks.add, {**TASK, "id": "TASK-003", "instruction": "   "})
    assert (e.code, e.message, e.details) == (
        "task_invalid",
        'Task file "TASK-003.json" in environment "shop" is missing a non-empty "instruction".',
        {"environment": "shop", "file": "TASK-003.json", "field": "instruction"},
    )
    e = err(env.tasks.put, {**TASK, "id": "../evil"})
    assert (e.code, e.message) == (
        "task_invalid", 'Task file "../evil.json" in environment "shop" has an unsafe id "../evil".'
    )
    e = err(env.tasks.add, ["not", "an", "object"])
    assert e.code == "task_invalid"
    assert err(env.tasks.get, "../evil").code == "unsafe_name"
    assert snapshot(project) == before


def test_task_cli(project: Path, cli) -> None:
    cli("init", "shop")
    assert cli("task", "list", "--env", "shop") == (0, "No tasks.\n", "")
    assert cli("task", "list", "--env", "shop", "--json") == (0, "[]\n", "")
    assert cli("task", "add", "TASK-001", "--env", "shop", "--title", "Ship O-1", "--instruction", "Ship it.",
               "--verifier", "VER-001", "--entities", " O-1, ,O-2,") == (
        0, "Created tasks/TASK-001.json\n"
           'warning: Verifier "VER-001" is not registered in environment "shop"; "env validate" reports '
           'task_verifier_unresolved until it is. Scaffold it with "silo-gym verifier add VER-001 --env shop '
           '--task TASK-001".\n', "")
    code, out, _ = cli("task", "add", "--id", "TASK-002", "--env", "shop", "--title", "Count",
                       "--instruction", "How many?", "--verifier", "VER-002", "--difficulty", "hard", "--json")
    assert code == 0
    payload = json.loads(out)
    assert list(payload) == ["ok", "action", "task", "file", "warnings"]  # VER-002 is not registered
    assert payload == {
        "ok": True, "action": "add",
        "task": {"id": "TASK-002", "title": "Count", "instruction": "How many?", "verifierId": "VER-002",
                 "difficulty": "hard", "entities": []},
        "file": "tasks/TASK-002.json",
        "warnings": ['Verifier "VER-002" is not registered in environment "shop"; "env validate" reports '
                     'task_verifier_unresolved until it is. Scaffold it with "silo-gym verifier add VER-002 --env '
                     'shop --task TASK-002".'],
    }
    assert cli("task", "list", "--env", "shop") == (
        0, "TASK-001\tunspecified\tVER-001\tShip O-1\nTASK-002\thard\tVER-002\tCount\n", "")
    code, out, _ = cli("task", "list", "--env", "shop", "--json")
    assert [t["id"] for t in json.loads(out)] == ["TASK-001", "TASK-002"]
    assert list(json.loads(out)[0]) == ["id", "title", "instruction", "verifierId", "difficulty", "entities"]
    code, out, _ = cli("task", "show", "TASK-001", "--env", "shop")
    assert out == (project / ".silo/environments/shop/tasks/TASK-001.json").read_text()
    assert json.loads(out)["entities"] == ["O-1", "O-2"]
    # update merges the given fields; entities are kept unless given
    assert cli("task", "update", "TASK-001", "--env", "shop", "--difficulty", "easy") == (
        0, "Updated tasks/TASK-001.json\n", "")
    stored = json.loads((project / ".silo/environments/shop/tasks/TASK-001.json").read_text())
    assert stored == {"id": "TASK-001", "title": "Ship O-1", "instruction": "Ship it.", "verifierId": "VER-001",
                      "difficulty": "easy", "entities": ["O-1", "O-2"]}
    code, out, _ = cli("task", "update", "--id", "TASK-001", "--env", "shop", "--title", "New", "--entities", "",
                       "--verifier", "VER-009", "--instruction", "Do.", "--json")
    assert json.loads(out) == {
        "ok": True, "action": "update",
        "task": {"id": "TASK-001", "title": "New", "instruction": "Do.", "verifierId": "VER-009",
                 "difficulty": "easy", "entities": []},
        "file": "tasks/TASK-001.json",
        "warnings": ['Verifier "VER-009" is not registered in environment "shop"; "env validate" reports '
                     'task_verifier_unresolved until it is. Scaffold it with "silo-gym verifier add VER-009 --env '
                     'shop --task TASK-001".'],
    }
    code, out, _ = cli("task", "remove", "TASK-002", "--env", "shop", "--json")
    assert json.loads(out) == {"ok": True, "action": "remove", "id": "TASK-002", "file": "tasks/TASK-002.json"}
    assert cli("task", "remove", "TASK-001", "--env", "shop") == (0, "Removed tasks/TASK-001.json\n", "")
    assert cli("task", "list", "--env", "shop") == (0, "No tasks.\n", "")


def test_task_cli_errors(project: Path, cli) -> None:
    cli("init", "shop")
    cli("task", "add", "TASK-001", "--env", "shop", "--title", "T", "--instruction", "I", "--verifier", "V")
    before = snapshot(project)
    assert cli("task", "add", "TASK-002", "--env", "shop", "--instruction", "I", "--verifier", "V") == (
        1, "", 'error: task_invalid: Task file "TASK-002.json" in environment "shop" is missing a non-empty '
               '"title".\n')
    assert cli("task", "add", "--env", "shop", "--title", "T") == (
        1, "", 'error: task_invalid: Task file ".json" in environment "shop" is missing a non-empty "id".\n')
    assert cli("task", "add", "TASK-001", "--env", "shop", "--title", "T", "--instruction", "I",
               "--verifier", "V") == (
        1, "", 'error: task_already_exists: Task "TASK-001" already exists in environment "shop" '
               "(TASK-001.json).\n")
    assert cli("task", "update", "TASK-404", "--env", "shop", "--title", "x") == (
        1, "", 'error: task_not_found: Task "TASK-404" was not found in environment "shop". '
               "Available: TASK-001.\n")
    assert cli("task", "update", "TASK-001", "--env", "shop", "--title", "") == (
        1, "", 'error: task_invalid: Task file "TASK-001.json" in environment "shop" is missing a non-empty '
               '"title".\n')
    assert cli("task", "show", "TASK-404", "--env", "shop")[0] == 1
    assert cli("task", "remove", "--env", "shop") == (1, "", "error: Missing <id>.\n")
    assert cli("task", "update", "--env", "shop") == (1, "", "error: Missing <id>.\n")
    assert snapshot(project) == before


def test_task_file_of_another_task_is_never_overwritten(env, project: Path) -> None:
    env.tasks.add({**TASK, "id": "TASK-009"})
    tasks_dir = project / ".silo/environments/shop/tasks"
    (tasks_dir / "TASK-009.json").rename(tasks_dir / "TASK-001.json")
    e = err(env.tasks.add, {**TASK, "id": "TASK-001"})
    assert e.code == "task_invalid"
    assert json.loads((tasks_dir / "TASK-001.json").read_text())["id"] == "TASK-009"


# --- read-only shipped environments ------------------------------------------------------------


def test_shipped_environment_is_read_only(project: Path, cli) -> None:
    demo = Silo.open(project).environment("demo")
    assert demo.read_only
    message = (
        'Environment "demo" is shipped with silo_gym and cannot be edited; '
        'copy it with "silo-gym init <new-name> --template crm".'
    )
    before = snapshot(demo.path)
    for fn, args in (
        (demo.data.add, ("x", 1)), (demo.data.put, ("users", [])), (demo.data.update, ("users", [])),
        (demo.data.remove, ("users",)), (demo.tasks.add, (TASK,)), (demo.tasks.put, (TASK,)),
        (demo.tasks.update, (TASK,)), (demo.tasks.remove, ("TASK-001",)), (demo.tools.scaffold, ("t",)),
        (demo.verifiers.scaffold, ("VER-9", "TASK-001")),
    ):
        e = err(fn, *args)
        assert (e.code, e.message, e.details) == ("environment_read_only", message, {"environment": "demo"})
    for argv in (
        ("data", "add", "x", "--env", "demo", "--data", "1"),
        ("data", "add", "x", "--env", "demo", "--data", "{bad"),
        ("task", "update", "TASK-404", "--env", "demo", "--title", "t"),
        ("data", "update", "users", "--env", "demo", "--data", "1"),
        ("data", "remove", "users", "--env", "demo"),
        ("task", "add", "TASK-009", "--env", "demo", "--title", "t", "--instruction", "i", "--verifier", "v"),
        ("task", "update", "TASK-001", "--env", "demo", "--title", "t"),
        ("task", "remove", "TASK-001", "--env", "demo"),
        ("tool", "add", "t", "--env", "demo"),
        ("verifier", "add", "VER-9", "--env", "demo", "--task", "TASK-001"),
    ):
        assert cli(*argv) == (1, "", f"error: environment_read_only: {message}\n")
    assert snapshot(demo.path) == before
    # reading works
    assert len(demo.data.list()) == 9
    assert [t.id for t in demo.tasks.list()][:1] == ["TASK-001"]


def test_atomic_write_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "x.json"
    target.write_text("old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("silo_gym.store.os.replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, b"new")
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]
    assert target.read_text() == "old"


def test_task_update_refuses_two_different_ids(tmp_path, monkeypatch, capsys):
    from silo_gym.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["init", "renames"]) == 0
    assert main(["task", "add", "TASK-2", "--env", "renames", "--title", "t", "--instruction", "i",
                 "--verifier", "V"]) == 0
    capsys.readouterr()
    code = main(["task", "update", "TASK-2", "--env", "renames", "--id", "TASK-9", "--title", "new"])
    assert code == 1 and "The task id is given twice" in capsys.readouterr().err
    assert main(["task", "update", "TASK-2", "--env", "renames", "--id", "TASK-2", "--title", "new"]) == 0
