"""Finding and opening environments, manifests, task discovery (silo-format §2)."""

from __future__ import annotations

import json
import os
import pathlib
import textwrap

import pytest
from conftest import ENVS_DIR, REPO_ROOT

from silo_gym import SiloError, list_environments, open_environment
from silo_gym import loader as loader_mod
from silo_gym.loader import (
    discover_tasks,
    environment_roots,
    find_environment,
    list_locations,
    open_environment_at,
    read_manifest,
)
from silo_gym.models import Manifest

_ABSENT = object()


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """A project root with no environments anywhere: SILO_GYM_PATH cleared, nothing shipped."""
    project = tmp_path / "project"
    project.mkdir()
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    monkeypatch.setenv("SILO_GYM_PATH", "")
    monkeypatch.setattr(loader_mod, "shipped_environments_dir", lambda: shipped)
    return project


def project_envs(project: pathlib.Path) -> pathlib.Path:
    return project / ".silo" / "environments"


# -- manifest (§2.3) ------------------------------------------------------------------------------


def test_missing_manifest_gives_every_default(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "Widgets")
    manifest, present = read_manifest(env_dir)
    assert present is False
    assert manifest.to_json() == {
        "name": "Widgets",
        "template": None,
        "templateVersion": None,
        "entrypoint": "./__init__.py",
        "tools": [],
    }
    assert list(manifest.to_json()) == ["name", "template", "templateVersion", "entrypoint", "tools"]


@pytest.mark.parametrize("raw", ["[1, 2]", "null", "5", '"text"', "true"])
def test_non_object_manifest_counts_as_missing(tmp_path, make_env_dir, raw):
    env_dir = make_env_dir(tmp_path, manifest=raw)
    manifest, present = read_manifest(env_dir)
    assert present is True
    assert manifest.to_json() == Manifest.from_raw(None, "widgets").to_json()
    assert manifest.name == "widgets"
    assert manifest.entrypoint == "./__init__.py"


def test_wrong_typed_manifest_fields_fall_back(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, manifest={
        "name": 5, "template": 3, "templateVersion": ["x"], "entrypoint": "", "tools": ["a", 1, None, "b", {"c": 1}],
    })
    manifest, _ = read_manifest(env_dir)
    assert manifest.to_json() == {
        "name": "widgets", "template": None, "templateVersion": None, "entrypoint": "./__init__.py",
        "tools": ["a", "b"],
    }


def test_manifest_values_are_kept_and_name_trimmed(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, manifest={
        "tools": "email", "entrypoint": "./__init__.py", "templateVersion": "0.3.0", "template": "blank",
        "name": "  Pretty Name  ", "extra": True,
    })
    manifest, _ = read_manifest(env_dir)
    assert manifest.to_json() == {
        "name": "Pretty Name", "template": "blank", "templateVersion": "0.3.0", "entrypoint": "./__init__.py",
        "tools": [],
    }


@pytest.mark.parametrize("name", ["", "   ", None])
def test_blank_manifest_name_uses_directory(tmp_path, make_env_dir, name):
    env_dir = make_env_dir(tmp_path, "Dir", manifest={"name": name})
    assert read_manifest(env_dir)[0].name == "Dir"


@pytest.mark.parametrize(
    ("raw", "line", "column", "reason"),
    [
        ("{", 1, 2, "Expecting property name enclosed in double quotes"),
        ('{"name": NaN}', 1, 10, "NaN is not valid JSON"),
        ('{\n  "tools": [1, 2],\n  "x": -Infinity\n}', 3, 8, "-Infinity is not valid JSON"),
        ('{"name": "NaN", "x": Infinity}', 1, 22, "Infinity is not valid JSON"),
        ('{"a": 1} x', 1, 10, "Extra data"),
        ("", 1, 1, "Expecting value"),
        ('{\n  "name": "caf\xe9",\n  "entrypoint": \xff\n}', 3, 17, "Invalid UTF-8 byte 0xff"),
        ("[" * 100_000, 1, 100_000, "JSON nested too deeply"),
        ('{"name": "x",\n "tools": [\n  "a"\n  "b"]}', 4, 3, "Expecting ',' delimiter"),
    ],
)
def test_invalid_manifest_json_names_the_file_line_and_column(isolated, make_env_dir, raw, line, column, reason):
    env_dir = make_env_dir(project_envs(isolated), "broken")
    data = b"\xff".join(part.encode("utf-8") for part in raw.split("\xff"))  # é stays valid UTF-8
    (env_dir / "silo.environment.json").write_bytes(data)
    with pytest.raises(SiloError) as info:
        open_environment("broken", cwd=isolated)
    path = ".silo/environments/broken/silo.environment.json"
    assert info.value.code == "invalid_json"
    assert info.value.message == f"{path} is not valid JSON at line {line}, column {column}: {reason}."
    assert info.value.details == {"path": path, "line": line, "column": column}


def test_invalid_manifest_json_outside_project_is_absolute(isolated, tmp_path, make_env_dir, monkeypatch):
    outside = tmp_path / "elsewhere"
    env_dir = make_env_dir(outside, "broken", manifest="{")
    monkeypatch.setenv("SILO_GYM_PATH", str(outside))
    with pytest.raises(SiloError) as info:
        open_environment("broken", cwd=isolated)
    path = (env_dir / "silo.environment.json").as_posix()
    assert path.startswith("/")
    assert info.value.message.startswith(f"{path} is not valid JSON at line 1, column 2: ")
    assert info.value.details == {"path": path, "line": 1, "column": 2}


def test_invalid_json_path_defaults_to_process_cwd(tmp_path, make_env_dir, monkeypatch):
    env_dir = make_env_dir(tmp_path, "broken", manifest="{")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SiloError) as info:
        read_manifest(env_dir)
    assert info.value.details == {"path": "broken/silo.environment.json", "line": 1, "column": 2}


# -- task discovery (§2.5, §2.6) ---------------------------------------------------------------------


def _task(**over):
    base = {"id": "T-1", "title": "Title", "instruction": "Do it.", "verifierId": "V-1"}
    base.update(over)
    return base


def _discover(tmp_path, make_env_dir, tasks, name="widgets"):
    env_dir = make_env_dir(tmp_path, name, tasks=tasks)
    return discover_tasks(name, env_dir, tmp_path)


@pytest.mark.parametrize("value", ["[]", '"x"', "5", "null", "true"])
def test_task_not_an_object(tmp_path, make_env_dir, value):
    with pytest.raises(SiloError) as info:
        _discover(tmp_path, make_env_dir, {"A.json": value})
    assert info.value.code == "task_invalid"
    assert info.value.message == 'Task file "A.json" in environment "widgets" is not a JSON object.'
    assert info.value.details == {"environment": "widgets", "file": "A.json"}


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({}, "id"),
        ({"title": "t", "instruction": "i", "verifierId": "v"}, "id"),
        ({"id": 5, "title": "t", "instruction": "i", "verifierId": "v"}, "id"),
        ({"id": "  ", "title": "t", "instruction": "i", "verifierId": "v"}, "id"),
        ({"id": "T"}, "title"),
        ({"id": "T", "title": "\t\n", "instruction": "i", "verifierId": "v"}, "title"),
        ({"id": "T", "title": "t"}, "instruction"),
        ({"id": "T", "title": "t", "instruction": None, "verifierId": "v"}, "instruction"),
        ({"id": "T", "title": "t", "instruction": "i"}, "verifierId"),
        ({"id": "T", "title": "t", "instruction": "i", "verifierId": ["v"]}, "verifierId"),
        ({"verifierId": "", "instruction": "", "title": "", "id": ""}, "id"),
    ],
)
def test_task_missing_fields_in_order(tmp_path, make_env_dir, raw, field):
    with pytest.raises(SiloError) as info:
        _discover(tmp_path, make_env_dir, {"B.json": raw})
    assert info.value.code == "task_invalid"
    assert info.value.message == (
        f'Task file "B.json" in environment "widgets" is missing a non-empty "{field}".'
    )
    assert info.value.details == {"environment": "widgets", "file": "B.json", "field": field}


@pytest.mark.parametrize("tid", ["../x", "/etc", "a/b", "CON", "nul.txt", "x" * 101, "abc\n", "ｄemo", " T-1"])
def test_task_unsafe_id(tmp_path, make_env_dir, tid):
    with pytest.raises(SiloError) as info:
        _discover(tmp_path, make_env_dir, {"A.json": _task(id=tid)})
    assert info.value.code == "task_invalid"
    assert info.value.message == f'Task file "A.json" in environment "widgets" has an unsafe id "{tid}".'
    assert info.value.details == {"environment": "widgets", "file": "A.json", "field": "id"}


def test_task_invalid_json(tmp_path, make_env_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env_dir = make_env_dir(tmp_path, tasks={"A.json": _task(), "B.json": "{'id': 1}"})
    with pytest.raises(SiloError) as info:
        discover_tasks("widgets", env_dir)
    assert info.value.code == "invalid_json"
    assert info.value.message == (
        "widgets/tasks/B.json is not valid JSON at line 1, column 2: "
        "Expecting property name enclosed in double quotes."
    )
    assert info.value.details == {"path": "widgets/tasks/B.json", "line": 1, "column": 2}


def test_task_duplicate_id_names_both_files(tmp_path, make_env_dir):
    tasks = {"b.json": _task(id="T-9"), "a.json": _task(id="T-1"), "c.json": _task(id="T-9")}
    with pytest.raises(SiloError) as info:
        _discover(tmp_path, make_env_dir, tasks)
    assert info.value.code == "task_invalid"
    assert info.value.message == 'Task id "T-9" is declared twice in environment "widgets": b.json and c.json.'
    assert info.value.details == {"environment": "widgets", "id": "T-9", "files": ["b.json", "c.json"]}


def test_every_file_is_checked_before_duplicates(tmp_path, make_env_dir):
    """§2.5: step 3 checks each file in order; the duplicate test is step 4, after all files."""
    tasks = {"a.json": _task(id="T-1"), "b.json": _task(id="T-1"), "c.json": {"id": "T-3"}}
    with pytest.raises(SiloError) as info:
        _discover(tmp_path, make_env_dir, tasks)
    assert info.value.details == {"environment": "widgets", "file": "c.json", "field": "title"}


def test_tasks_sorted_by_id_and_only_json_files(tmp_path, make_env_dir):
    tasks = {
        "1.json": _task(id="b"),
        "2.json": _task(id="B"),
        "3.json": _task(id="a"),
        "notes.txt": "ignored",
        "4.JSON": "ignored: case matters",
        "x.json.bak": "{",
    }
    env_dir = make_env_dir(tmp_path, tasks=tasks)
    (env_dir / "tasks" / "dir.json").mkdir()
    found = discover_tasks("widgets", env_dir)
    assert [t.id for t in found] == ["B", "a", "b"]


def test_no_tasks_dir_means_no_tasks(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, tasks={})
    assert discover_tasks("widgets", env_dir) == []
    (env_dir / "tasks").rmdir()
    assert discover_tasks("widgets", env_dir) == []


def test_task_json_form(tmp_path, make_env_dir):
    raw = {
        "entities": ["O-1", 2, None, "O-2", ["x"]],
        "extra": "dropped",
        "difficulty": "  hard  ",
        "verifierId": " V-1 ",
        "instruction": "  Keep   spacing. ",
        "title": " Padded title ",
        "id": "T-1",
    }
    (task,) = _discover(tmp_path, make_env_dir, {"T-1.json": raw})
    form = task.to_json()
    assert list(form) == ["id", "title", "instruction", "verifierId", "difficulty", "entities"]
    assert form == {
        "id": "T-1",
        "title": " Padded title ",
        "instruction": "  Keep   spacing. ",
        "verifierId": " V-1 ",
        "difficulty": "hard",
        "entities": ["O-1", "O-2"],
    }
    assert task.verifier_id == " V-1 "
    assert task.entities == ("O-1", "O-2")


@pytest.mark.parametrize(
    ("difficulty", "expected"),
    [(None, "unspecified"), ("", "unspecified"), ("   ", "unspecified"), (3, "unspecified"),
     (["easy"], "unspecified"), ("easy", "easy"), ("legendary", "legendary"), (_ABSENT, "unspecified")],
)
def test_task_difficulty(tmp_path, make_env_dir, difficulty, expected):
    raw = _task()
    if difficulty is not _ABSENT:
        raw["difficulty"] = difficulty
    (task,) = _discover(tmp_path, make_env_dir, {"a.json": raw})
    assert task.difficulty == expected


@pytest.mark.parametrize("entities", ["O-1", {"a": 1}, 5, None, True])
def test_task_entities_not_a_list(tmp_path, make_env_dir, entities):
    (task,) = _discover(tmp_path, make_env_dir, {"a.json": _task(entities=entities)})
    assert task.to_json()["entities"] == []


def test_task_is_frozen(tmp_path, make_env_dir):
    (task,) = _discover(tmp_path, make_env_dir, {"a.json": _task()})
    with pytest.raises(Exception):  # noqa: B017 - pydantic raises ValidationError
        task.id = "other"  # type: ignore[misc]


# -- names, search order, listing (§2.2; gym-api.md) ----------------------------------------------


def test_search_order(isolated, tmp_path, make_env_dir, monkeypatch):
    p1, p2 = tmp_path / "p1", tmp_path / "p2"
    shipped = tmp_path / "shipped"
    make_env_dir(p1, "alpha")
    make_env_dir(p2, "ALPHA")
    make_env_dir(p2, "delta")
    make_env_dir(project_envs(isolated), "Alpha")
    make_env_dir(project_envs(isolated), "beta")
    make_env_dir(shipped, "alpha")
    make_env_dir(shipped, "beta")
    make_env_dir(shipped, "gamma")
    make_env_dir(shipped, "delta")
    monkeypatch.setenv("SILO_GYM_PATH", os.pathsep.join(["", str(p1), str(tmp_path / "missing"), "", str(p2)]))
    assert find_environment("alpha", isolated).path == (p1 / "alpha").resolve()
    assert find_environment("ALPHA", isolated).path == (p1 / "alpha").resolve()
    assert find_environment("delta", isolated).path == (p2 / "delta").resolve()
    assert find_environment("beta", isolated).path == (project_envs(isolated) / "beta").resolve()
    gamma = find_environment("Gamma", isolated)
    assert gamma.path == (shipped / "gamma").resolve()
    assert gamma.shipped is True
    assert find_environment("beta", isolated).shipped is False
    assert list_environments(isolated) == ["alpha", "beta", "delta", "gamma"]


def test_relative_silo_gym_path_entries_resolve_against_cwd_at_import(tmp_path, make_env_dir):
    """gym-api.md: relative entries are resolved against the cwd at import, so a later chdir (or a
    project ``cwd=`` passed to a call) does not move them."""
    import subprocess
    import sys

    from conftest import subprocess_env

    make_env_dir(tmp_path / "rel", "relenv")
    (tmp_path / "project").mkdir()
    script = textwrap.dedent(f"""
        import os
        from silo_gym.loader import environment_roots, find_environment, list_environments
        os.chdir("/")
        print(find_environment("relenv").path)
        print(find_environment("relenv", cwd={str(tmp_path / "project")!r}).path)
        print(environment_roots()[0][0], "relenv" in list_environments())
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         env=subprocess_env(SILO_GYM_PATH="rel"), timeout=60)
    assert out.returncode == 0, out.stderr
    expected = str((tmp_path / "rel" / "relenv").resolve())
    assert out.stdout.splitlines() == [expected, expected, f"{tmp_path / 'rel'} True"]


def test_environment_roots_order(isolated, tmp_path, monkeypatch):
    monkeypatch.setenv("SILO_GYM_PATH", os.pathsep.join([str(tmp_path / "a"), "", str(tmp_path / "b")]))
    roots = environment_roots(isolated)
    assert roots[:3] == [(tmp_path / "a", False), (tmp_path / "b", False),
                         (isolated / ".silo" / "environments", False)]
    assert roots[3][1] is True and len(roots) == 4


def test_within_one_directory_code_point_order_wins(isolated, make_env_dir):
    envs = project_envs(isolated)
    make_env_dir(envs, "Zed", tasks={"a.json": _task(title="upper")})
    make_env_dir(envs, "zed", tasks={"a.json": _task(title="lower")})
    loc = find_environment("ZED", isolated)
    assert loc.path.name == "Zed"  # "Z" < "z"
    assert list_environments(isolated) == ["zed"]


def test_hidden_unsafe_and_files_are_not_environments(isolated, make_env_dir):
    envs = project_envs(isolated)
    make_env_dir(envs, ".staging-abcd1234")
    make_env_dir(envs, "ｄemo")
    make_env_dir(envs, "CON")
    make_env_dir(envs, "a b")
    make_env_dir(envs, "ok")
    (envs / "file-env").write_text("not a dir")
    assert list_environments(isolated) == ["ok"]
    assert [loc.name for loc in list_locations(isolated)] == ["ok"]


def test_not_found_lists_available(isolated, make_env_dir):
    make_env_dir(project_envs(isolated), "Beta")
    make_env_dir(project_envs(isolated), "alpha")
    with pytest.raises(SiloError) as info:
        open_environment("Nope", cwd=isolated)
    assert info.value.code == "environment_not_found"
    assert info.value.message == 'Environment "Nope" was not found. Available: alpha, beta.'
    assert info.value.details == {"environment": "Nope", "available": ["alpha", "beta"]}


def test_not_found_without_any_environment(isolated):
    with pytest.raises(SiloError) as info:
        open_environment("nope", cwd=isolated)
    assert info.value.message == 'Environment "nope" was not found. Create it with "silo-gym init nope".'
    assert info.value.details == {"environment": "nope", "available": []}


@pytest.mark.parametrize("name", ["../x", "/etc", "", "a/b", "CON", "nul.txt", "x" * 101, "abc\n", "ｄemo"])
def test_unsafe_environment_name_refused_before_file_access(name, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the file system was touched")

    monkeypatch.setattr(loader_mod, "list_locations", boom)
    with pytest.raises(SiloError) as info:
        open_environment(name)
    assert info.value.code == "unsafe_name"
    assert info.value.details == {"kind": "environment", "name": name}


def test_shipped_environments_dir_in_editable_install():
    assert loader_mod.shipped_environments_dir() == REPO_ROOT / "environments"


# -- opening (§2.4) --------------------------------------------------------------------------------


def test_open_returns_the_environment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = open_environment("ORDERS")
    assert env.name == "ORDERS"
    assert env.path == (ENVS_DIR / "orders").resolve()
    assert env.entrypoint == (ENVS_DIR / "orders" / "__init__.py").resolve()
    assert env.entrypoint.is_absolute()
    assert env.manifest.name == "orders"
    assert [t.id for t in env.tasks] == ["TASK-001"]
    assert callable(env.module.create_state) and callable(env.module.bind_tools)
    assert [v.id for v in env.module.verifiers] == ["VER-001"]


def test_entrypoint_submodule(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = open_environment("inventory")
    assert env.entrypoint == (ENVS_DIR / "inventory" / "main.py").resolve()
    assert env.module.__name__.endswith(".main")
    assert env.module.create_state()["items"][0]["id"] == "SKU-1"


def test_opening_never_calls_create_state_or_bind_tools(tmp_path, make_env_dir):
    init = """
    def create_state():
        raise RuntimeError("create_state was called")
    def bind_tools(state):
        raise RuntimeError("bind_tools was called")
    verifiers = []
    """
    env_dir = make_env_dir(tmp_path, init=init, tools=None, verifiers=None)
    env = open_environment_at("widgets", env_dir)
    assert [t.id for t in env.tasks] == ["TASK-001"]


@pytest.mark.parametrize("entry", ["../x.py", "../widgets/__init__.py/../../x.py", "/etc/passwd", "..", "sub/../../x.py"])
def test_entrypoint_outside(tmp_path, make_env_dir, entry):
    env_dir = make_env_dir(tmp_path, manifest={"entrypoint": entry})
    (tmp_path / "x.py").write_text("raise SystemExit('imported!')\n")
    with pytest.raises(SiloError) as info:
        open_environment_at("widgets", env_dir)
    assert info.value.code == "entrypoint_outside_environment"
    assert info.value.message == (
        f'Entrypoint "{entry}" of environment "widgets" is outside the environment directory.'
    )
    assert info.value.details == {"environment": "widgets", "entrypoint": entry}


def test_entrypoint_inside_after_normalisation(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, manifest={"entrypoint": "tools/../__init__.py"})
    env = open_environment_at("widgets", env_dir)
    assert env.entrypoint == env_dir / "__init__.py"


def test_import_error_becomes_runtime_contract_invalid(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, init="x = 1 / 0\n")
    with pytest.raises(SiloError) as info:
        open_environment_at("Widgets", env_dir)
    err = info.value
    assert err.code == "runtime_contract_invalid"
    assert err.message == 'Environment "Widgets" could not be imported: ZeroDivisionError: division by zero'
    assert err.details == {"environment": "Widgets", "entrypoint": str(env_dir / "__init__.py")}
    assert isinstance(err.__cause__, ZeroDivisionError)


def test_syntax_error_and_missing_module(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "a", init="from .nothing_here import x\n")
    with pytest.raises(SiloError) as info:
        open_environment_at("a", env_dir)
    # the module as the author wrote it, not under the load's private package name
    assert info.value.message == "Environment \"a\" could not be imported: ModuleNotFoundError: No module named 'nothing_here'"
    assert isinstance(info.value.__cause__, ModuleNotFoundError)
    env_dir = make_env_dir(tmp_path, "a2", init="from . import nothing_here\n")
    with pytest.raises(SiloError) as info:
        open_environment_at("a2", env_dir)
    assert "_silo_env" not in info.value.message and "the environment's package" in info.value.message
    env_dir = make_env_dir(tmp_path, "b", init="def (:\n")
    with pytest.raises(SiloError) as info:
        open_environment_at("b", env_dir)
    assert info.value.message.startswith('Environment "b" could not be imported: SyntaxError: ')


def test_missing_entrypoint_file(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, manifest={"entrypoint": "./main.py"})
    with pytest.raises(SiloError) as info:
        open_environment_at("widgets", env_dir)
    assert info.value.code == "runtime_contract_invalid"
    assert info.value.message.startswith('Environment "widgets" could not be imported: ')
    assert info.value.__cause__ is not None
    env_dir = make_env_dir(tmp_path, "noinit", init=None)
    with pytest.raises(SiloError) as info:
        open_environment_at("noinit", env_dir)
    assert info.value.code == "runtime_contract_invalid"


@pytest.mark.parametrize(
    ("source", "missing", "message"),
    [
        ("", "create_state", 'Environment "w" does not export create_state().'),
        ("create_state = 5\nbind_tools = print\nverifiers = []\n", "create_state",
         'Environment "w" does not export create_state().'),
        ("def create_state():\n    return {}\n", "bind_tools", 'Environment "w" does not export bind_tools().'),
        ("def create_state():\n    return {}\nbind_tools = 'no'\nverifiers = []\n", "bind_tools",
         'Environment "w" does not export bind_tools().'),
        ("def create_state():\n    return {}\ndef bind_tools(s):\n    return []\n", "verifiers",
         'Environment "w" does not export a verifiers list.'),
        ("def create_state():\n    return {}\ndef bind_tools(s):\n    return []\nverifiers = {}\n", "verifiers",
         'Environment "w" does not export a verifiers list.'),
        ("verifiers = 'x'\n", "create_state", 'Environment "w" does not export create_state().'),
    ],
)
def test_missing_exports_in_order(tmp_path, make_env_dir, source, missing, message):
    env_dir = make_env_dir(tmp_path, "w", init=source)
    with pytest.raises(SiloError) as info:
        open_environment_at("w", env_dir)
    assert info.value.code == "runtime_contract_invalid"
    assert info.value.message == message
    assert info.value.details == {"environment": "w", "missing": missing}


def test_verifiers_tuple_is_accepted(tmp_path, make_env_dir):
    source = "def create_state():\n    return {}\ndef bind_tools(s):\n    return []\nverifiers = ()\n"
    env = open_environment_at("w", make_env_dir(tmp_path, "w", init=source))
    assert env.module.verifiers == ()


def test_module_caching_and_fresh_loads(isolated, make_env_dir):
    env_dir = make_env_dir(project_envs(isolated), "cached")
    a = open_environment("cached", cwd=isolated, fresh=False)
    b = open_environment("cached", cwd=isolated, fresh=False)
    assert a.module is b.module
    init = env_dir / "__init__.py"
    init.write_text(init.read_text().replace('"label": "start"', '"label": "edited"'))
    c = open_environment("cached", cwd=isolated)  # fresh=True is the default
    assert c.module is not a.module
    assert c.module.__name__ != a.module.__name__
    assert c.module.create_state()["label"] == "edited"
    assert a.module.create_state()["label"] == "start"
    # Two loads never share module objects, submodules included.
    assert c.module.tools is not a.module.tools
    assert c.module.tools[0] is not a.module.tools[0]


def test_relative_imports_inside_the_package(tmp_path, make_env_dir):
    files = {
        "state.py": "def double(n):\n    return 2 * n\n",
        "helpers/__init__.py": "",
        "helpers/deep.py": "from ..state import double\n\nVALUE = double(21)\n",
    }
    init = """
    from silo_gym import bind_tools as _bind

    from .helpers.deep import VALUE
    from .tools import tools
    from .verifiers import verifiers


    def create_state():
        return {"count": 0, "label": "x", "value": VALUE}


    def bind_tools(state):
        return _bind(state, tools)
    """
    env = open_environment_at("widgets", make_env_dir(tmp_path, init=init, files=files))
    assert env.module.create_state()["value"] == 42


def test_open_environment_at_missing_directory(tmp_path):
    with pytest.raises(SiloError) as info:
        open_environment_at("ghost", tmp_path / "ghost")
    assert info.value.code == "environment_not_found"


def test_test_envs_manifests_are_well_formed():
    for name in ("orders", "inventory"):
        data = json.loads((ENVS_DIR / name / "silo.environment.json").read_text())
        assert list(data) == ["name", "template", "templateVersion", "entrypoint", "tools"]


def test_loaded_env_does_not_leak_into_sys_modules_on_failure(tmp_path, make_env_dir):
    import sys

    before = {k for k in sys.modules if k.startswith("_silo_env_")}
    env_dir = make_env_dir(tmp_path, "leaky", init=textwrap.dedent("""
        from . import tools  # noqa
        raise ValueError("late failure")
    """))
    with pytest.raises(SiloError):
        open_environment_at("leaky", env_dir)
    after = {k for k in sys.modules if k.startswith("_silo_env_")}
    assert after == before


def test_fresh_load_sees_a_same_size_edit_within_one_second(tmp_path, make_env_dir):
    """A .pyc is trusted on (size, mtime in seconds): a fresh load must compile from source."""
    import subprocess
    import sys

    env_dir = make_env_dir(tmp_path, "w", files={"state.py": "VALUE = 'aaaa'\n"}, init=(
        "from .state import VALUE\n\ndef create_state():\n    return {'v': VALUE}\n\n"
        "def bind_tools(s):\n    return []\n\nverifiers = []\n"))
    agent = tmp_path / "agent.py"
    agent.write_text("NAME = 'one'\ndef agent(*a):\n    return {'output': NAME}\n")
    script = textwrap.dedent(f"""
        import os, pathlib
        from silo_gym.loader import open_environment_at
        from silo_gym.runner import load_agent
        d = pathlib.Path({str(env_dir)!r})
        agent = pathlib.Path({str(agent)!r})
        print(open_environment_at("w", d).module.create_state()["v"], load_agent(str(agent)).__module__ and
              load_agent(str(agent))()["output"])
        for path, old, new in ((d / "state.py", "aaaa", "bbbb"), (agent, "one", "two")):
            st = os.stat(path)
            path.write_text(path.read_text().replace(old, new))
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        print(open_environment_at("w", d).module.create_state()["v"], load_agent(str(agent))()["output"])
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["aaaa one", "bbbb two"]
    # Fresh loads write no bytecode into the environment either.
    assert not (env_dir / "__pycache__").exists()
