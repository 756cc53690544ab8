"""The run-directory concept lives in ``silo_gym.runs`` (issue 23), with one list of a run's files;
the modules' old import paths still give the same objects."""

from __future__ import annotations

import importlib

import pytest

from silo_gym.runs import RUN_FILES

OLD_PATHS = {
    "silo_gym.rundir": "silo_gym.runs.rundir",
    "silo_gym.trace": "silo_gym.runs.trace",
    "silo_gym.files": "silo_gym.runs.files",
    "silo_gym.provenance": "silo_gym.runs.provenance",
}


def test_one_list_of_run_files_in_the_order_a_run_writes_them() -> None:
    assert RUN_FILES == ("trace.jsonl", "state-diff.json", "result.json", "run.json")
    rundir = importlib.import_module("silo_gym.runs.rundir")
    episodes = importlib.import_module("silo_gym.data.episodes")
    collect = importlib.import_module("silo_gym.data.collect")
    ray_backend = importlib.import_module("silo_gym.data.ray_backend")
    for holder in (rundir.RUN_ARTIFACTS, episodes.RUN_FILES, collect.RUN_FILES, ray_backend.RUN_FILES):
        assert holder is RUN_FILES


@pytest.mark.parametrize(("old", "new"), sorted(OLD_PATHS.items()))
def test_old_import_paths_give_the_moved_objects(old: str, new: str) -> None:
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    # The old path is the moved module itself, so patching a name there (tests do) reaches it.
    assert old_module is new_module
    assert old_module.__all__, old
    for name in old_module.__all__:
        assert getattr(old_module, name) is getattr(new_module, name), (old, name)
    # Everything the module offered before the move is still offered at its old path.
    assert set(new_module.__all__) <= set(old_module.__all__) | {"RUN_FILES"}


def test_the_public_names_users_import_today_still_import() -> None:
    from silo_gym import runs
    from silo_gym.files import read_run_file
    from silo_gym.provenance import environment_hash
    from silo_gym.rundir import RUN_ARTIFACTS, read_run
    from silo_gym.trace import TraceCorrupt, read_trace

    assert (read_run, read_trace, TraceCorrupt, environment_hash, read_run_file) == (
        runs.read_run, runs.read_trace, runs.TraceCorrupt, runs.environment_hash, runs.read_run_file)
    assert set(RUN_ARTIFACTS) == {"trace.jsonl", "result.json", "state-diff.json", "run.json"}
