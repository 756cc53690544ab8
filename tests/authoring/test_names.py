"""Hostile names are refused before anything is written (silo-format §12.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from silo_gym import Silo, SiloError
from silo_gym.scaffold import init_environment

from .helpers import snapshot

HOSTILE = [
    "../../etc",
    "a/b",
    "a\\b",
    "/abs",
    "CON",
    "com1.txt",
    "Lpt9",
    "nul.json",
    "x" * 300,
    "x" * 101,
    "ѕhop",  # Cyrillic "ѕ"
    "ｓｈｏｐ",  # full-width letters
    "shop\u200b",  # zero-width space
    "shop\n",
    "shop\r\n",
    ".hidden",
    "-dash",
    "_under",
    "sp ace",
    "semi;colon",
]


def message(kind: str, name: str) -> str:
    return (
        f'{kind} name "{name}" is not allowed: use letters, digits, ".", "_" and "-", '
        "starting with a letter or digit."
    )


@pytest.mark.parametrize("name", HOSTILE + [""])
def test_init_refuses_hostile_names(project: Path, name: str) -> None:
    before = snapshot(project)
    with pytest.raises(SiloError) as info:
        init_environment(name, cwd=project)
    assert info.value.code == "unsafe_name"
    assert info.value.details == {"kind": "environment", "name": name}
    assert info.value.message == message("Environment", name)
    assert snapshot(project) == before
    with pytest.raises(SiloError):
        Silo.open(project).environments.create(name, template="crm")
    assert snapshot(project) == before


@pytest.mark.parametrize("name", HOSTILE)
def test_init_cli_refuses_hostile_names(project: Path, cli, name: str) -> None:
    before = snapshot(project)
    assert cli("init", name) == (1, "", f"error: {message('Environment', name)}\n")
    assert snapshot(project) == before


def test_init_cli_empty_name(project: Path, cli) -> None:
    assert cli("init", "") == (1, "", "error: Missing <name>.\n")
    assert list(project.iterdir()) == []


def test_a_100_character_name_is_allowed(project: Path) -> None:
    init_environment("x" * 100, cwd=project)
    assert (project / ".silo/environments" / ("x" * 100)).is_dir()


@pytest.mark.parametrize("name", HOSTILE + [""])
def test_stores_and_scaffolds_refuse_hostile_names(project: Path, name: str) -> None:
    env = Silo.open(project).environments.create("shop")
    before = snapshot(project)
    calls = [
        ("dataset", env.data.add, (name, 1)),
        ("dataset", env.data.put, (name, 1)),
        ("dataset", env.data.update, (name, 1)),
        ("dataset", env.data.get, (name,)),
        ("dataset", env.data.remove, (name,)),
        ("task", env.tasks.get, (name,)),
        ("task", env.tasks.remove, (name,)),
        ("tool", env.tools.scaffold, (name,)),
        ("verifier", env.verifiers.scaffold, (name, "TASK-001")),
        ("task", env.verifiers.scaffold, ("VER-001", name)),
    ]
    for kind, fn, args in calls:
        with pytest.raises(SiloError) as info:
            fn(*args)
        assert (info.value.code, info.value.details) == ("unsafe_name", {"kind": kind, "name": name}), (kind, fn)
    # a task's id is checked by the task rules (silo-format §12.3)
    for fn in (env.tasks.add, env.tasks.put, env.tasks.update):
        with pytest.raises(SiloError) as info:
            fn({"id": name, "title": "t", "instruction": "i", "verifierId": "v"})
        assert info.value.code == "task_invalid"
    with pytest.raises(SiloError) as info:
        Silo.open(project).environment(name)
    assert info.value.code == "unsafe_name"
    assert snapshot(project) == before


@pytest.mark.parametrize("name", ["../../etc", "CON", "shop\n", "x" * 300])
def test_cli_writes_refuse_hostile_names(project: Path, cli, name: str) -> None:
    cli("init", "shop")
    before = snapshot(project)
    for argv in (
        ("data", "add", name, "--env", "shop", "--data", "1"),
        ("data", "remove", name, "--env", "shop"),
        ("task", "add", name, "--env", "shop", "--title", "t", "--instruction", "i", "--verifier", "v"),
        ("task", "remove", name, "--env", "shop"),
        ("tool", "add", name, "--env", "shop"),
        ("verifier", "add", name, "--env", "shop", "--task", "TASK-001"),
        ("data", "list", "--env", name),
    ):
        code, out, err = cli(*argv)
        assert code == 1 and out == ""
        assert err.startswith(("error: unsafe_name: ", "error: task_invalid: ")), err
    assert snapshot(project) == before


def test_state_type_override_must_be_an_identifier(project: Path) -> None:
    env = Silo.open(project).environments.create("shop")
    before = snapshot(project)
    for bad in ("dict[str, Any]", "1State", "State\n", "os.system"):
        with pytest.raises(SiloError) as info:
            env.tools.scaffold("ping", state_type=bad)
        assert info.value.details == {"kind": "stateType", "name": bad}
    assert snapshot(project) == before
