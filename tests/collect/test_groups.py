"""Group-identical starts in ``collect`` (issue 21): ``group_size=G`` / ``--group-size G`` plays G
episodes of one world per group, records the group, and preference pairs stay inside groups."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from silo_gym.cli import main
from silo_gym.data import EPISODE_COLUMNS, collect, preference_pairs, read, write
from silo_gym.data.stream import MANIFEST, STREAM_FILE, ResumeError, collect_jsonl

TASKS = ["silo/project-TASK-003", "silo/project-TASK-011"]


@pytest.fixture(scope="module")
def grouped() -> list[dict]:
    return collect(TASKS, "random", episodes_per_task=6, group_size=3, variants=True, seed=4)


def test_a_group_shares_its_world_and_groups_differ(grouped: list[dict]) -> None:
    assert len(grouped) == 12 and all(tuple(r) == EPISODE_COLUMNS for r in grouped)
    for task in ("TASK-003", "TASK-011"):
        rows = [r for r in grouped if r["task_id"] == task]
        assert [r["group"] for r in rows] == [0, 0, 0, 1, 1, 1]
        groups = [rows[:3], rows[3:]]
        for members in groups:
            assert len({r["variant"] for r in members}) == 1
            assert len({json.dumps(r["prompt"]) for r in members}) == 1  # the same instruction
            # the policy's own randomness is each episode's: the first calls differ
            assert len({json.dumps(r["actions"][0]) for r in members}) == 3
        assert groups[0][0]["variant"] != groups[1][0]["variant"]
        assert groups[0][0]["prompt"] != groups[1][0]["prompt"]


def test_a_group_plays_the_world_of_its_first_episode_ungrouped(grouped: list[dict]) -> None:
    plain = collect(TASKS, "random", episodes_per_task=6, variants=True, seed=4)
    assert all(r["group"] is None for r in plain)
    for g, p in zip(grouped, plain, strict=True):
        if g["episode"] % 3 == 0:  # a group's first episode is that episode, unchanged
            assert {k: v for k, v in g.items() if k != "group"} == {k: v for k, v in p.items() if k != "group"}
        else:
            assert g["variant"] == grouped[grouped.index(g) - g["episode"] % 3]["variant"]


def test_pairs_stay_inside_groups() -> None:
    def row(task: str, group: int | None, reward: float, n: int) -> dict:
        prompt = [{"role": "user", "content": task}]
        return {"environment": "demo", "task_id": task, "group": group, "reward": reward, "prompt": prompt,
                "messages": prompt + [{"role": "assistant", "content": f"answer {n}"}]}

    rows = [row("T", 0, 1.0, 1), row("T", 0, 0.0, 2), row("T", 1, 0.5, 3), row("T", 1, 0.0, 4)]
    pairs = preference_pairs(rows)
    assert [(p["chosen"][0]["content"], p["rejected"][0]["content"]) for p in pairs] == \
        [("answer 1", "answer 2"), ("answer 3", "answer 4")]  # not 1-4, 3-2, 1-3 across groups
    ungrouped = [dict(r, group=None) for r in rows]
    assert len(preference_pairs(ungrouped)) == 5  # every two of the four whose rewards differ
    assert len(preference_pairs(rows, max_pairs_per_task=1)) == 1  # the cap is still per task


def test_group_size_must_divide_the_episodes() -> None:
    with pytest.raises(ValueError, match=r"episodes_per_task \(5\) must be a multiple of group_size \(2\)"):
        collect(TASKS[:1], "random", episodes_per_task=5, group_size=2)
    with pytest.raises(ValueError, match="group_size must be an int >= 1, got 0"):
        collect(TASKS[:1], "random", episodes_per_task=2, group_size=0)


def test_new_columns_survive_parquet_and_jsonl(grouped: list[dict], tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    write(grouped, tmp_path, ("jsonl", "parquet"))
    assert read(tmp_path / "episodes.jsonl") == grouped
    back = read(tmp_path / "episodes.parquet")
    assert back == grouped
    assert type(back[0]["required_fraction"]) is float and isinstance(back[0]["reward_components"], dict)


def test_cli_group_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ds"
    code = main(["collect", "--env", "project", "--tasks", "TASK-003", "--policy", "random", "--variants",
                 "--episodes-per-task", "4", "--group-size", "2", "--out", str(out), "--seed", "4"])
    assert code == 0, capsys.readouterr().err
    rows = read(out / "episodes.jsonl")
    assert [r["group"] for r in rows] == [0, 0, 1, 1]
    assert rows[0]["variant"] == rows[1]["variant"] != rows[2]["variant"] == rows[3]["variant"]
    assert json.loads((out / MANIFEST).read_text())["groupSize"] == 2
    pairs = read(out / "pairs.jsonl") if (out / "pairs.jsonl").stat().st_size else []
    assert pairs == preference_pairs(rows)
    capsys.readouterr()
    code = main(["collect", "--env", "project", "--tasks", "TASK-003", "--policy", "random",
                 "--episodes-per-task", "3", "--group-size", "2", "--out", str(tmp_path / "bad")])
    assert code != 0
    assert "--episodes-per-task (3) must be a multiple of --group-size (2)" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def test_a_grouped_collection_resumes_and_keeps_its_group_size(tmp_path: Path) -> None:
    out = tmp_path / "out"
    full = collect_jsonl(out, TASKS[:1], "random", episodes_per_task=4, group_size=2,
                         env_kwargs={"variants": True})
    cut = tmp_path / "cut"
    shutil.copytree(out, cut)
    lines = (cut / STREAM_FILE).read_bytes().splitlines(keepends=True)
    (cut / STREAM_FILE).write_bytes(b"".join(lines[:3]))
    record = json.loads((cut / MANIFEST).read_text())
    (cut / MANIFEST).write_text(json.dumps({**record, "complete": False}))
    with pytest.raises(ResumeError, match="groupSize=2.*groupSize=1"):
        collect_jsonl(cut, TASKS[:1], "random", episodes_per_task=4, resume=True, env_kwargs={"variants": True})
    rows = collect_jsonl(cut, TASKS[:1], "random", episodes_per_task=4, group_size=2, resume=True,
                         env_kwargs={"variants": True})
    assert rows == full
    # a row whose group is not its episode's is refused
    lines[1] = json.dumps({**json.loads(lines[1]), "group": 1}, separators=(",", ":")).encode() + b"\n"
    (cut / STREAM_FILE).write_bytes(b"".join(lines[:3]))
    (cut / MANIFEST).write_text(json.dumps({**record, "complete": False}))
    with pytest.raises(ResumeError, match=r"line 2: has group 1, but this collection plays episode 1 of each task in "
                                          r"group 0 \(groups of 2\)"):
        collect_jsonl(cut, TASKS[:1], "random", episodes_per_task=4, group_size=2, resume=True,
                      env_kwargs={"variants": True})
