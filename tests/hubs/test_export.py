"""The shared path: one description of an environment, one session class, one package writer,
and ``silo-gym export`` (no hub package needed)."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest
from conftest import ENVS_DIR
from gymnasium.error import ResetNeeded

from silo_gym import __version__
from silo_gym.cli import main
from silo_gym.errors import SiloError
from silo_gym.hubs.description import describe
from silo_gym.hubs.export import HUBS, package_files
from silo_gym.hubs.nemo_gym_package import example_rows
from silo_gym.hubs.package import ExportError, write_package
from silo_gym.hubs.session import OPTIONAL_ENDING_KEYS, HubEpisode, ending_metadata

from .helpers import DEMO_TASKS, play_native, run_bytes


def test_one_description_of_the_demo() -> None:
    desc = describe("demo")
    assert desc.shipped is True and desc.variant_capable is True
    assert desc.task_ids == DEMO_TASKS
    names = [t.name for t in desc.tools]
    assert names[-1] == "submit_answer" and len(names) == 43 and len(set(names)) == 43
    search = next(t for t in desc.tools if t.name == "search_leads")
    assert search.mcp()["inputSchema"] == search.input_schema == search.responses()["parameters"]
    assert search.chat()["function"]["name"] == "search_leads"
    assert desc.settings() == {"environment": "demo", "bundled": False, "taskIds": list(DEMO_TASKS),
                               "maxToolCalls": 100, "timeoutMs": 120000, "variantCapable": True,
                               "siloGymVersion": __version__}
    with pytest.raises(KeyError, match="TASK-001"):
        desc.task("TASK-404")


def test_every_hub_is_written_from_the_same_description() -> None:
    desc = describe("demo")
    for hub in HUBS:
        files, bundles = package_files(hub, desc)
        assert bundles == {}  # a shipped world is found by name in the pinned silo-gym
        text = "".join(files.values())
        assert f"=={__version__}" in text, hub  # every package pins this silo-gym
        settings = [json.loads(v) for k, v in files.items() if k.endswith("silo_env.json")]
        assert settings == [desc.settings()], hub
    rows = example_rows(desc)
    assert [r["task_id"] for r in rows] == list(DEMO_TASKS)
    assert rows[0]["responses_create_params"]["input"][0]["content"] == desc.tasks[0].instruction
    assert [t["name"] for t in rows[0]["responses_create_params"]["tools"]] == [t.name for t in desc.tools]
    with pytest.raises(ValueError, match="openenv, verifiers, nemo-gym"):
        package_files("gym-hub", desc)


def test_a_world_with_its_own_submit_answer_tool_is_refused(tmp_path: pathlib.Path) -> None:
    env_dir = tmp_path / "clash"
    shutil.copytree(ENVS_DIR / "inventory", env_dir)
    tools = env_dir / "tools"
    text = (tools / "__init__.py").read_text() if (tools / "__init__.py").exists() else ""
    if '"list_items"' not in text:
        pytest.skip("the inventory fixture's tools are not where this test renames one")
    (tools / "__init__.py").write_text(text.replace('"list_items"', '"submit_answer"'))
    with pytest.raises(SiloError) as refused:
        describe("clash", path=env_dir)
    assert refused.value.code == "tool_name_reserved"


def test_a_hub_session_plays_like_gym_make(tmp_path: pathlib.Path) -> None:
    reward, native_run, answer = play_native("TASK-003", tmp_path / "native", seed=0)
    hub = HubEpisode("demo", runs_dir=tmp_path / "hub")
    start = hub.reset(task_id="TASK-003", seed=0)
    assert start.tools[-1]["name"] == "submit_answer" and start.info["run_dir"]
    native_trace = [json.loads(line) for line in (native_run / "trace.jsonl").read_text().splitlines()]
    for event in native_trace:
        if event["type"] == "tool_call":
            step = hub.call(event["tool"], event["input"])
            assert step.done is False and step.reward == 0.0 and step.ending is None
    end = hub.call("submit_answer", {"answer": answer})
    assert end.done and end.terminated and not end.truncated and end.reward == reward
    assert end.ending is not None and end.ending["run_dir"] == start.info["run_dir"]
    assert run_bytes(end.ending["run_dir"]) == run_bytes(native_run)
    hub.close()


def test_closing_a_running_session_records_it_even_without_actions(tmp_path: pathlib.Path) -> None:
    hub = HubEpisode("demo", runs_dir=tmp_path)
    hub.reset(task_id="TASK-001", seed=0)
    hub.close("gone")
    (run,) = tmp_path.iterdir()
    result = json.loads((run / "result.json").read_text())
    assert result["terminationReason"] == "agent_error" and result["error"] == "gone" and result["toolCalls"] == 0
    again = HubEpisode("demo", runs_dir=tmp_path / "x")
    assert again.abandon("nothing running") is None


def test_submit_answer_with_other_arguments_is_an_invalid_action(tmp_path: pathlib.Path) -> None:
    hub = HubEpisode("demo")
    hub.reset(task_id="TASK-001", seed=0)
    step = hub.call("submit_answer", {"text": "x"})
    assert step.done is False and step.is_error is True
    assert step.output["code"] == "invalid_input" and '"answer"' in step.output["message"]
    assert hub.silo.episode is not None and hub.silo.episode.tool_calls == 0  # not counted, not traced
    end = hub.call("submit_answer", {"answer": "x"})
    assert end.done is True
    with pytest.raises(ResetNeeded):
        hub.call("submit_answer", {"text": "late"})


def test_ending_metadata_carries_reward_components_when_the_env_reports_them() -> None:
    info = {"termination_reason": "completed", "passed": True, "error": None, "result": {"reward": 1},
            "state_diff": {}, "tool_calls": 2, "tool_errors": 0, "run_dir": "/r", "run_id": "run_x",
            "reward_components": {"a": 1.0}, "required_fraction": 1.0, "optional_fraction": 0.5}
    meta = ending_metadata(info, True, False)
    assert meta["reward_components"] == {"a": 1.0} and meta["optional_fraction"] == 0.5
    assert meta["terminated"] is True and meta["truncated"] is False
    bare = ending_metadata({k: v for k, v in info.items() if k not in OPTIONAL_ENDING_KEYS}, False, True)
    assert not set(OPTIONAL_ENDING_KEYS) & set(bare) and bare["truncated"] is True


def test_the_package_writer_writes_all_or_nothing(tmp_path: pathlib.Path) -> None:
    out = write_package(tmp_path / "pkg", {"a.txt": "one", "b/c.txt": b"two"})
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == ["a.txt", "b/c.txt"]
    assert (out / "b" / "c.txt").read_bytes() == b"two"
    with pytest.raises(ExportError, match="not an empty directory"):
        write_package(out, {"a.txt": "again"})
    assert (out / "a.txt").read_text() == "one"
    with pytest.raises(ExportError, match="does not exist"):
        write_package(tmp_path / "missing" / "pkg", {"a.txt": "x"})
    with pytest.raises(ExportError, match="stay inside"):
        write_package(tmp_path / "evil", {"../escape.txt": "x"})
    with pytest.raises(OSError):  # a write fails half way: a file where a folder must go
        write_package(tmp_path / "half", {"x": "file", "x/y": "under a file"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]  # no staging or half package left
    (tmp_path / "empty").mkdir()
    assert write_package(tmp_path / "empty", {"k": "v"}) == tmp_path / "empty"


def test_silo_gym_export_cli(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    for hub in HUBS:
        assert main(["export", hub, "--env", "demo", "--out", str(tmp_path / hub)]) == 0
        out = capsys.readouterr().out
        assert f"Wrote the {hub} package of demo (6 tasks, shipped with silo-gym)" in out
        assert (tmp_path / hub / "README.md").is_file()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    assert main(["export", "openenv", "--env", "demo", "--out", str(tmp_path / "full")]) == 1
    assert "already exists and is not an empty directory" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == ["keep.txt"]
    assert main(["export", "openenv", "--env", "nowhere", "--out", str(tmp_path / "n")]) == 1
    assert 'Environment "nowhere" was not found' in capsys.readouterr().err
    assert not (tmp_path / "n").exists()
    assert main(["export", "verifiers", "--env", "demo"]) == 1
    assert "Missing --out" in capsys.readouterr().err
