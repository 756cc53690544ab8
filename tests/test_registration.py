"""Ids and registration (gym-api.md, "Ids and registration")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import gymnasium as gym
import pytest
from conftest import DEFAULT_TASK, ENVS_DIR, listing, subprocess_env
from gymnasium.envs.registration import registry

from silo_gym import SiloEnv, SiloError, SiloRegistrationWarning, register_environment
from silo_gym.registration import register_all, registered_environments


def _task(tid: str, **over):
    raw = dict(DEFAULT_TASK, id=tid)
    raw.update(over)
    return raw


def _run(script: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          env=subprocess_env(**env), timeout=120)


IMPORT_AND_REPORT = """
    import json, warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import silo_gym
    import gymnasium as gym
    print(json.dumps({
        "warnings": [[w.category.__name__, str(w.message)] for w in caught],
        "ids": sorted(k for k in gym.registry if k.startswith("silo/")),
    }))
"""


def test_broken_environments_are_skipped_with_one_warning_each(tmp_path, make_env_dir):
    root = tmp_path / "envs"
    make_env_dir(root, "good")
    make_env_dir(root, "MixedCase")
    bad = {
        "badmanifest": make_env_dir(root, "badmanifest", manifest="{"),
        "notobject": make_env_dir(root, "notobject", tasks={"A.json": "[]"}),
        "badjson": make_env_dir(root, "badjson", tasks={"A.json": "{"}),
        "missing": make_env_dir(root, "missing", tasks={"A.json": {"id": "T-1"}}),
        "unsafeid": make_env_dir(root, "unsafeid", tasks={"A.json": _task("../x")}),
        "dupe": make_env_dir(root, "dupe", tasks={"a.json": _task("T-1"), "b.json": _task("T-1")}),
        "versioned": make_env_dir(root, "versioned", tasks={"a.json": _task("TASK-v2")}),
        "shortver": make_env_dir(root, "shortver", tasks={"a.json": _task("v7")}),
        "env-v3": make_env_dir(root, "env-v3"),
        "ｄemo": make_env_dir(root, "ｄemo"),
        "CON": make_env_dir(root, "CON"),
        "nul.txt": make_env_dir(root, "nul.txt"),
        "a b": make_env_dir(root, "a b"),
    }
    make_env_dir(root, "notasks", tasks={})
    make_env_dir(root, ".staging-abcd1234")
    (root / "stray-file.json").write_text("{")
    before = listing(tmp_path)

    out = _run(IMPORT_AND_REPORT, SILO_GYM_PATH=str(root))
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)

    assert listing(tmp_path) == before  # registration writes nothing and imports no environment code
    ids = report["ids"]
    assert "silo/good" in ids and "silo/good-TASK-001" in ids
    assert "silo/mixedcase" in ids and "silo/mixedcase-TASK-001" in ids
    for name in [*bad, "notasks", ".staging-abcd1234"]:
        assert not [i for i in ids if i.lower().startswith(f"silo/{name.lower()}")], name

    messages = [m for cat, m in report["warnings"] if cat == "SiloRegistrationWarning"]
    assert len(messages) == len(report["warnings"]) == len(bad)
    for name, path in bad.items():
        mine = [m for m in messages if m.startswith(f"silo_gym skipped the environment at {path}: ")]
        assert len(mine) == 1, (name, messages)
    by_name = {name: next(m for m in messages if f"at {path}: " in m).split(": ", 1)[1]
               for name, path in bad.items()}
    assert by_name["badmanifest"] == (f"{(root / 'badmanifest' / 'silo.environment.json').as_posix()} is not valid "
                                      "JSON at line 1, column 2: Expecting property name enclosed in double quotes.")
    assert by_name["notobject"] == 'Task file "A.json" in environment "notobject" is not a JSON object.'
    assert by_name["missing"] == 'Task file "A.json" in environment "missing" is missing a non-empty "title".'
    assert by_name["unsafeid"] == 'Task file "A.json" in environment "unsafeid" has an unsafe id "../x".'
    assert by_name["dupe"] == 'Task id "T-1" is declared twice in environment "dupe": a.json and b.json.'
    assert by_name["versioned"] == (
        'Cannot register "silo/versioned-TASK-v2": it ends in "-v2", which Gymnasium reads as a version.'
    )
    assert by_name["shortver"] == (
        'Cannot register "silo/shortver-v7": it ends in "-v7", which Gymnasium reads as a version.'
    )
    assert by_name["env-v3"] == 'Cannot register "silo/env-v3": it ends in "-v3", which Gymnasium reads as a version.'
    assert by_name["CON"].startswith('Environment name "CON" is not allowed: ')
    assert by_name["ｄemo"].startswith('Environment name "ｄemo" is not allowed: ')


def test_relative_silo_gym_path_resolves_against_cwd_at_import(tmp_path, make_env_dir):
    make_env_dir(tmp_path / "rel", "relenv")
    script = IMPORT_AND_REPORT + """
    import os
    os.chdir("/")
    print(gym.spec("silo/relenv-TASK-001").kwargs["path"])
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                         env=subprocess_env(SILO_GYM_PATH=os.pathsep.join(["", "rel", "missing-dir"])),
                         cwd=tmp_path, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert json.loads(lines[0])["warnings"] == []
    assert lines[1] == str((tmp_path / "rel" / "relenv").resolve())


def test_prefix_form_of_gym_make_without_prior_import():
    script = """
    import gymnasium as gym
    env = gym.make("silo_gym:silo/orders-TASK-001")
    obs, info = env.reset(seed=0)
    print(obs)
    print(info["environment"], info["task_id"])
    """
    out = _run(script, SILO_GYM_PATH=str(ENVS_DIR))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["Order O-1 is ready. Ship it with the express carrier.", "orders TASK-001"]


def test_registered_specs():
    for env_id, task_id in (("silo/orders-TASK-001", "TASK-001"), ("silo/orders", None),
                            ("silo/inventory-TASK-001", "TASK-001")):
        spec = gym.spec(env_id)
        assert spec.entry_point == "silo_gym.env:SiloEnv"
        assert spec.vector_entry_point == "silo_gym.vector:make_vector_env"
        assert spec.max_episode_steps is None
        assert spec.version is None
        env_name = env_id.split("/")[1].split("-")[0]
        assert spec.kwargs == {"environment": env_name, "task_id": task_id,
                               "path": str((ENVS_DIR / env_name).resolve())}


def test_gym_make_is_independent_of_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = gym.make("silo/inventory-TASK-001")
    obs, info = env.reset()
    assert info["environment"] == "inventory"
    env.close()


def test_register_environment_at_run_time(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "RunTimeEnv", tasks={"b.json": _task("T-2"), "a.json": _task("T-1")})
    try:
        ids = register_environment(env_dir)
        assert ids == ["silo/runtimeenv", "silo/runtimeenv-T-1", "silo/runtimeenv-T-2"]
        assert all(i in registry for i in ids)
        assert registry["silo/runtimeenv-T-2"].kwargs == {
            "environment": "runtimeenv", "task_id": "T-2", "path": str(env_dir)}
        env = gym.make("silo/runtimeenv-T-1")
        _, info = env.reset()
        assert info["environment"] == "runtimeenv"
        env.close()

        with pytest.raises(SiloError) as exc:
            register_environment(env_dir)
        assert exc.value.code == "environment_already_exists"
        assert exc.value.details["environment"] == "runtimeenv"

        other = make_env_dir(tmp_path / "other", "runtimeenv", tasks={"a.json": _task("T-9")})
        with pytest.raises(SiloError):
            register_environment(other)
        assert register_environment(other, override=True) == ["silo/runtimeenv", "silo/runtimeenv-T-9"]
        assert "silo/runtimeenv-T-1" not in registry
        assert registered_environments()["runtimeenv"][0] == other
    finally:
        for key in [k for k in registry if k.startswith("silo/runtimeenv")]:
            del registry[key]
        from silo_gym import registration

        registration._registered.pop("runtimeenv", None)


@pytest.mark.parametrize(
    ("name", "tasks", "manifest", "code"),
    [
        ("rt-badjson", {"a.json": "{"}, None, "invalid_json"),
        ("rt-badtask", {"a.json": "[]"}, None, "task_invalid"),
        ("rt-badmanifest", None, "{", "invalid_json"),
        ("rt-versioned", {"a.json": _task("X-v1")}, None, "task_invalid"),
        ("rt-unsafe", {"a.json": _task("a/b")}, None, "task_invalid"),
        ("CON", None, None, "unsafe_name"),
        ("ｄemo", None, None, "unsafe_name"),
    ],
)
def test_register_environment_raises_the_problems(tmp_path, make_env_dir, name, tasks, manifest, code):
    kwargs = {"tasks": tasks} if tasks is not None else {}
    if manifest is not None:
        kwargs["manifest"] = manifest
    env_dir = make_env_dir(tmp_path, name, **kwargs)
    before = set(registry)
    with pytest.raises(SiloError) as exc:
        register_environment(env_dir)
    assert exc.value.code == code
    assert set(registry) == before


def test_register_environment_without_tasks_registers_nothing(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "rt-empty", tasks={})
    before = set(registry)
    assert register_environment(env_dir) == []
    assert set(registry) == before


def test_register_environment_missing_directory(tmp_path):
    with pytest.raises(SiloError) as exc:
        register_environment(tmp_path / "nope")
    assert exc.value.code == "environment_not_found"


def test_register_all_again_adds_nothing_and_never_raises():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert register_all() == []
    assert [w for w in caught if issubclass(w.category, SiloRegistrationWarning)] == []


def test_environment_id_is_lower_cased_directory_name(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "UPPER", manifest={"name": "Something Else"})
    env = SiloEnv("UPPER", "TASK-001", path=str(env_dir))
    _, info = env.reset()
    assert info["environment"] == "upper"
    env.close()


def test_nothing_is_written_outside_the_runs_directory(tmp_path, make_env_dir):
    """Import, gym.make, episodes, run_task and fresh loads write only run directories, even with
    bytecode writing on (no __pycache__ in environment or agent directories)."""
    root = tmp_path / "envs"
    make_env_dir(root, "good", files={"helpers.py": "X = 1\n"})
    make_env_dir(root, "broken", tasks={"a.json": "{"})
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "a.py").write_text("def agent(task, tools, call_tool, signal):\n"
                                              "    call_tool('bump')\n    return {'output': 'ok'}\n")
    before = listing(tmp_path)
    script = f"""
        import warnings
        warnings.simplefilter("ignore")
        import gymnasium as gym
        import silo_gym
        from silo_gym.wrappers import RecordRun
        env = RecordRun(gym.make("silo/good-TASK-001"), runs_dir={str(tmp_path / "runs")!r})
        env.reset()
        env.step({{"tool": "bump"}})
        env.step({{"answer": "done"}})
        env.close()
        r = silo_gym.run_task("good", "TASK-001", {str(tmp_path / "agents" / "a.py")!r},
                              runs_dir={str(tmp_path / "runs")!r})
        assert r.passed
        silo_gym.open_environment("good")
        silo_gym.open_environment("good", fresh=False)
        print("ok")
    """
    env = {k: v for k, v in subprocess_env(SILO_GYM_PATH=str(root)).items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                         env=env, cwd=tmp_path / "agents", timeout=60)
    assert out.returncode == 0, out.stderr
    after = [p for p in listing(tmp_path) if p != "runs" and not p.startswith("runs/")]
    assert after == before
    assert len(os.listdir(tmp_path / "runs")) == 2


def test_id_clash_between_environments_skips_the_later_one(tmp_path, make_env_dir):
    root = tmp_path / "envs"
    first = make_env_dir(root, "a", tasks={"t.json": _task("b-c")})
    second = make_env_dir(root, "a-b", tasks={"t.json": _task("c")})
    script = IMPORT_AND_REPORT + """
    print(gym.spec("silo/a-b-c").kwargs["path"])
    """
    out = _run(script, SILO_GYM_PATH=str(root))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    report = json.loads(lines[0])
    shipped = ("silo/demo", "silo/project", "silo/erp")  # the environments shipped with the package
    assert [i for i in report["ids"] if not i.startswith(shipped)] == ["silo/a", "silo/a-b-c"]
    assert report["warnings"] == [[
        "SiloRegistrationWarning",
        f'silo_gym skipped the environment at {second}: Cannot register "silo/a-b-c": that id is already '
        f"registered ({first}).",
    ]]
    assert lines[1] == str(first)


def test_register_environment_refuses_a_clash_and_changes_nothing(tmp_path, make_env_dir):
    try:
        first = make_env_dir(tmp_path, "rtclash", tasks={"t.json": _task("x-y")})
        assert register_environment(first) == ["silo/rtclash", "silo/rtclash-x-y"]
        gym.register("silo/rtother-T-1", entry_point="silo_gym.env:SiloEnv")
        before = {k: registry[k] for k in registry if k.startswith("silo/rt")}
        for clash in (make_env_dir(tmp_path / "2", "rtclash-x", tasks={"t.json": _task("y")}),
                      make_env_dir(tmp_path / "3", "rtother", tasks={"t.json": _task("T-1")})):
            with pytest.raises(SiloError) as exc:
                register_environment(clash)
            assert exc.value.code == "task_invalid"
            assert "that id is already registered" in exc.value.message
            assert {k: registry[k] for k in registry if k.startswith("silo/rt")} == before
        # Re-registering its own ids with override is not a clash.
        assert register_environment(first, override=True) == ["silo/rtclash", "silo/rtclash-x-y"]
    finally:
        from silo_gym import registration

        for key in [k for k in registry if k.startswith("silo/rt")]:
            del registry[key]
        for name in ("rtclash", "rtclash-x", "rtother"):
            registration._registered.pop(name, None)


def test_an_environment_listed_as_a_directory_of_environments_gets_a_hint(tmp_path, make_env_dir):
    root = tmp_path / "envs"
    env_dir = make_env_dir(root, "shop", manifest={"name": "shop"}, files={"tools/helpers.py": "x = 1\n"})
    out = _run(IMPORT_AND_REPORT, SILO_GYM_PATH=str(env_dir))
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert not [i for i in report["ids"] if i.startswith(("silo/shop", "silo/tools", "silo/tasks"))]
    messages = [m for cat, m in report["warnings"] if cat == "SiloRegistrationWarning"]
    assert messages == [f"{env_dir} is an environment directory, but it is listed where directories OF environments "
                        f"go (SILO_GYM_PATH, .silo/environments); list its parent, {root}, instead."]
    out = _run(IMPORT_AND_REPORT, SILO_GYM_PATH=str(root))  # the parent: registered, no warning
    report = json.loads(out.stdout)
    assert "silo/shop-TASK-001" in report["ids"] and report["warnings"] == []
