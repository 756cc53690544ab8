"""collect(..., episode_variants=...): the world of each episode, fixed by the caller (silo_gym.eval's
table of worlds), recorded by collect_jsonl and checked on resume."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

from silo_gym.data import ResumeError, collect, collect_jsonl
from silo_gym.data.collect import drawn_variant, episode_seed

IDS = ["silo/demo-TASK-001", "silo/demo-TASK-002"]


def test_each_episode_plays_its_variant(tmp_path: Path) -> None:
    worlds = {"demo/TASK-001": [4, None, 4], "demo/TASK-002": [11, 12, 13]}
    rows = collect(IDS, "random", episodes_per_task=3, episode_variants=worlds, runs_dir=tmp_path)
    assert [(r["task_id"], r["variant"]) for r in rows] == [
        ("TASK-001", 4), ("TASK-001", None), ("TASK-001", 4), ("TASK-002", 11), ("TASK-002", 12), ("TASK-002", 13)]
    for row in rows:
        run = json.loads((tmp_path / row["run_id"] / "run.json").read_text())
        assert run["config"]["variant"] == row["variant"]
    # The same seed and the same worlds: the same rows (apart from run ids) for either id form.
    again = collect(["silo/demo"], "random", episodes_per_task=3, episode_variants=worlds)
    assert [(r["task_id"], r["variant"], r["reward"]) for r in again if r["task_id"] in ("TASK-001", "TASK-002")] \
        == [(r["task_id"], r["variant"], r["reward"]) for r in rows]
    # Tasks the mapping leaves out play as before (here: canonical).
    partial = collect(IDS, "random", episodes_per_task=1, episode_variants={"demo/TASK-002": [5]})
    assert [r["variant"] for r in partial] == [None, 5]


def test_drawn_variant_is_what_a_variants_collection_plays() -> None:
    rows = collect(IDS, "random", episodes_per_task=3, seed=5, variants=True)
    env = gym.make("silo/demo-TASK-002", variants=True)
    assert [drawn_variant(env, 5, "demo", "TASK-002", i, True) for i in range(3)] == \
        [r["variant"] for r in rows if r["task_id"] == "TASK-002"]
    assert episode_seed(5, "demo", "TASK-002", 0) != episode_seed(5, "demo", "TASK-002", 1)


@pytest.mark.parametrize(("worlds", "error", "match"), [
    ([1, 2], TypeError, "must be a mapping"),
    ({"TASK-001": [1]}, TypeError, "keys are"),
    ({"demo/TASK-001": "12"}, TypeError, "must be a list"),
    ({"demo/TASK-001": [1, True]}, TypeError, "holds True"),
    ({"demo/TASK-001": [-1, 2]}, TypeError, "holds -1"),
    ({"demo/TASK-001": [2**63, 2]}, TypeError, "holds"),
    ({"demo/TASK-001": [1]}, ValueError, "names 1 world"),
])
def test_bad_episode_variants_are_refused_before_playing(worlds: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        collect(IDS, "random", episodes_per_task=2, episode_variants=worlds)  # type: ignore[arg-type]


def test_collect_jsonl_records_the_worlds_and_resume_checks_them(tmp_path: Path) -> None:
    worlds = {"demo/TASK-001": [3, 4], "demo/TASK-002": [5, 6]}
    out = tmp_path / "c"
    rows = collect_jsonl(out, IDS, "random", episodes_per_task=2, episode_variants=worlds)
    record = json.loads((out / ".collect.json").read_text())
    assert record["episodeVariants"] == worlds and record["complete"] is True
    # Resuming asks for the same worlds; other worlds (or none) are another collection.
    assert collect_jsonl(out, IDS, "random", episodes_per_task=2, episode_variants=worlds, resume=True) == rows
    with pytest.raises(ResumeError, match="episodeVariants"):
        collect_jsonl(out, IDS, "random", episodes_per_task=2, resume=True)
    with pytest.raises(ResumeError, match="episodeVariants"):
        collect_jsonl(out, IDS, "random", episodes_per_task=2, resume=True,
                      episode_variants={**worlds, "demo/TASK-002": [5, 7]})
    # A plain collection's record has no such key (it is as it was before).
    plain = tmp_path / "plain"
    collect_jsonl(plain, IDS, "random", episodes_per_task=1)
    assert "episodeVariants" not in json.loads((plain / ".collect.json").read_text())


def test_resume_refuses_a_kept_row_of_another_world(tmp_path: Path) -> None:
    worlds = {"demo/TASK-001": [3, 4], "demo/TASK-002": [5, 6]}
    out = tmp_path / "c"
    collect_jsonl(out, IDS, "random", episodes_per_task=2, episode_variants=worlds)
    lines = (out / "episodes.jsonl").read_text().splitlines()
    row = json.loads(lines[1])
    row["variant"] = 9
    (out / "episodes.jsonl").write_text("\n".join([lines[0], json.dumps(row)]) + "\n")
    record = json.loads((out / ".collect.json").read_text())
    record["complete"] = False
    (out / ".collect.json").write_text(json.dumps(record))
    with pytest.raises(ResumeError, match=r"line 2: has variant 9, but this collection plays variant 4 for episode 1"):
        collect_jsonl(out, IDS, "random", episodes_per_task=2, episode_variants=worlds, resume=True)
