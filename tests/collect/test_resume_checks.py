"""``collect_jsonl(resume=True)`` / ``silo-gym collect --resume`` keep only rows of the collection
asked for: each row well formed, in the plan, once. Anything else, and a damaged ``.collect.json``,
is refused with the file, the line and what to do, and a refusal changes nothing on disk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from silo_gym.cli import main
from silo_gym.data import EPISODE_COLUMNS, read
from silo_gym.data.stream import MANIFEST, STREAM_FILE, ResumeError, collect_jsonl

IDS = ["silo/demo-TASK-004", "silo/demo-TASK-001"]
EPISODES = 3


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished collection (random policy, 2 tasks x 3 episodes), copied by each test."""
    out = tmp_path_factory.mktemp("template") / "out"
    rows = collect_jsonl(out, IDS, "random", episodes_per_task=EPISODES)
    assert len(rows) == 6
    return out


@pytest.fixture(scope="module")
def finished_variants(tmp_path_factory):
    out = tmp_path_factory.mktemp("template-variants") / "out"
    collect_jsonl(out, IDS[:1], "random", episodes_per_task=EPISODES, env_kwargs={"variants": True})
    return out


def _copy(template: Path, tmp_path: Path, complete: bool = False) -> Path:
    out = tmp_path / "out"
    shutil.copytree(template, out)
    record = json.loads((out / MANIFEST).read_text())
    record["complete"] = complete
    (out / MANIFEST).write_text(json.dumps(record))
    return out


def _lines(out: Path) -> list[bytes]:
    return (out / STREAM_FILE).read_bytes().splitlines(keepends=True)


def _set_lines(out: Path, lines: list[bytes]) -> None:
    (out / STREAM_FILE).write_bytes(b"".join(lines))


def _row_line(row: dict) -> bytes:
    return json.dumps(row, separators=(",", ":")).encode() + b"\n"


def _edit(out: Path, index: int, **changes) -> None:
    lines = _lines(out)
    row = json.loads(lines[index])
    row.update(changes)
    lines[index] = _row_line(row)
    _set_lines(out, lines)


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def _refused(tmp_path: Path, out: Path, match: str, *, resume: bool = True, ids=IDS, **kwargs) -> str:
    """Resuming into ``out`` raises ResumeError matching ``match``; nothing under tmp_path changes
    and nothing is played (no row reaches ``progress``)."""
    before = _snapshot(tmp_path)
    played: list[dict] = []
    kwargs.setdefault("episodes_per_task", EPISODES)
    with pytest.raises(ResumeError, match=match) as info:
        collect_jsonl(out, ids, "random", resume=resume, progress=played.append, **kwargs)
    assert _snapshot(tmp_path) == before
    assert played == []
    return str(info.value)


# -- rows that are not in the plan, or appear twice ------------------------------------------------


def test_duplicated_rows_are_refused(finished, tmp_path):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    _set_lines(out, lines + lines[:3])
    message = _refused(tmp_path, out, r"line 7: .*episode 0 of task TASK-004 .*line 1")
    assert str(out / STREAM_FILE) in message
    assert "remove" in message.lower()


def test_duplicated_rows_of_a_complete_collection_are_refused(finished, tmp_path):
    out = _copy(finished, tmp_path, complete=True)
    lines = _lines(out)
    _set_lines(out, lines + lines[:1])
    _refused(tmp_path, out, r"line 7: .*already on line 1")


@pytest.mark.parametrize(("changes", "match"), [
    ({"task_id": "TASK-006", "episode": 99}, r"line 2: .*task TASK-006 .*does not play"),
    ({"task_id": "TASK-006"}, r"line 2: .*task TASK-006 .*does not play"),
    ({"episode": 3}, r"line 2: .*episode 3 of task TASK-004.*episodes 0 to 2"),
    ({"environment": "orders"}, r'line 2: .*environment "orders".*does not play'),
    ({"policy": "other.py"}, r'line 2: .*policy "other.py".*"random"'),
    ({"variant": 7}, r"line 2: .*variant 7.*canonical"),
])
def test_rows_outside_the_plan_are_refused(finished, tmp_path, changes, match):
    out = _copy(finished, tmp_path)
    _edit(out, 1, **changes)
    _refused(tmp_path, out, match)


def test_a_row_appended_from_outside_the_plan_is_refused(finished, tmp_path):
    out = _copy(finished, tmp_path)
    row = json.loads(_lines(out)[0])
    row.update(task_id="TASK-006", episode=99)
    _set_lines(out, _lines(out) + [_row_line(row)])
    _refused(tmp_path, out, r"line 7: .*TASK-006")


def test_a_variant_the_seed_does_not_draw_is_refused(finished_variants, tmp_path):
    out = _copy(finished_variants, tmp_path)
    rows = read(out / STREAM_FILE)
    assert all(isinstance(r["variant"], int) for r in rows)
    _edit(out, 2, variant=rows[2]["variant"] + 1)
    _refused(tmp_path, out, rf"line 3: .*variant {rows[2]['variant'] + 1}.*seed 0 .*variant {rows[2]['variant']}",
             ids=IDS[:1], env_kwargs={"variants": True})
    # the untouched collection resumes (plays nothing: every row is there)
    out2 = _copy(finished_variants, tmp_path / "again")
    assert read(out2 / STREAM_FILE) == collect_jsonl(out2, IDS[:1], "random", episodes_per_task=EPISODES,
                                                      env_kwargs={"variants": True}, resume=True)


def test_a_variant_collection_is_not_resumed_as_a_canonical_one(finished_variants, tmp_path):
    out = _copy(finished_variants, tmp_path)
    _refused(tmp_path, out, "holds another collection", ids=IDS[:1])
    # variants=True given as collect's argument is recorded too
    _refused(tmp_path, out, "holds another collection", ids=IDS[:1], variants=False)
    rows = collect_jsonl(out, IDS[:1], "random", episodes_per_task=EPISODES, variants=True, resume=True)
    assert len(rows) == EPISODES


# -- rows that are not well formed ------------------------------------------------------------------


@pytest.mark.parametrize(("line", "match"), [
    (b"{not json\n", r"line 3: .*not JSON"),
    (b"5\n", r"line 3: .*a number, not an episode row"),
    (b"[1, 2]\n", r"line 3: .*an array, not an episode row"),
    (b"\xff\xfe{}\n", r"line 3: .*not JSON.*UTF-8"),
    (b'{"environment": "demo"}\n', r'line 3: .*lacks the columns "task_id", "episode"'),
])
def test_a_bad_middle_line_is_refused(finished, tmp_path, line, match):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    lines[2] = line
    _set_lines(out, lines)
    message = _refused(tmp_path, out, match)
    assert message.startswith(f"{out / STREAM_FILE}, line 3: ")


@pytest.mark.parametrize(("changes", "match"), [
    ({"task_id": ["TASK-004"]}, r'line 2: column "task_id" is an array; .*a string'),
    ({"environment": None}, r'line 2: column "environment" is null; .*a string'),
    ({"episode": "1"}, r'line 2: column "episode" is a string; .*a whole number'),
    ({"episode": True}, r'line 2: column "episode" is a boolean; .*a whole number'),
    ({"episode": 1.5}, r'line 2: column "episode" is 1.5; .*a whole number'),
    ({"episode": -1}, r'line 2: column "episode" is -1; .*a whole number >= 0'),
    ({"reward": "1"}, r'line 2: column "reward" is a string; .*a number or null'),
    ({"passed": 1}, r'line 2: column "passed" is 1; .*true, false or null'),
    ({"messages": {"a": 1}}, r'line 2: column "messages" is an object; .*an array or null'),
    ({"variant": [1]}, r'line 2: column "variant" is an array; .*a whole number or null'),
    ({"messages": None}, r'line 2: .*reward .*"messages" is null'),
    ({"reward": None}, r"line 2: .*reward null \(a failed episode\).*error"),
])
def test_a_row_with_a_mistyped_column_is_refused(finished, tmp_path, changes, match):
    out = _copy(finished, tmp_path)
    _edit(out, 1, **changes)
    _refused(tmp_path, out, match)


def test_columns_must_be_exactly_the_episode_columns(finished, tmp_path):
    out = _copy(finished, tmp_path)
    row = json.loads(_lines(out)[1])
    extra = {**row, "score": 1}
    _set_lines(out, [*_lines(out)[:1], _row_line(extra), *_lines(out)[2:]])
    _refused(tmp_path, out, r'line 2: .*column not in an episode row: "score"')
    swapped = {k: row[k] for k in reversed(EPISODE_COLUMNS)}
    _set_lines(out, [*_lines(out)[:1], _row_line(swapped), *_lines(out)[2:]])
    _refused(tmp_path, out, r"line 2: .*another order")


def test_failed_rows_are_kept(finished, tmp_path):
    from silo_gym.data import failed_row

    out = _copy(finished, tmp_path)
    lines = _lines(out)
    lines[1] = _row_line(failed_row("demo", "TASK-004", 1, "random", "Episode failed after 3 attempt(s): x", 0))
    _set_lines(out, lines)
    rows = collect_jsonl(out, IDS, "random", episodes_per_task=EPISODES, resume=True)
    assert [r["reward"] is None for r in rows] == [False, True, False, False, False, False]


# -- a torn last line ---------------------------------------------------------------------------------


def test_a_torn_last_line_is_dropped_and_its_episode_played_again(finished, tmp_path):
    out = _copy(finished, tmp_path)
    full = read(out / STREAM_FILE)
    lines = _lines(out)
    _set_lines(out, lines[:2] + [lines[2][:40]])  # a crash in the middle of the third row's write
    rows = collect_jsonl(out, IDS, "random", episodes_per_task=EPISODES, resume=True)
    assert rows == full == read(out / STREAM_FILE)
    assert json.loads((out / MANIFEST).read_text())["complete"] is True


def test_a_refusal_keeps_the_torn_last_line(finished, tmp_path):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    torn = lines[:2] + [b"{oops\n"] + lines[3:5] + [lines[5][:40]]
    _set_lines(out, torn)
    _refused(tmp_path, out, r"line 3: .*not JSON")
    # refused for its arguments after the rows were read: the torn line is still there
    _set_lines(out, lines[:5] + [lines[5][:40]])
    before = _snapshot(tmp_path)
    with pytest.raises(ValueError, match="concurrency"):
        collect_jsonl(out, IDS, "random", episodes_per_task=EPISODES, resume=True, concurrency=0)
    assert _snapshot(tmp_path) == before


def test_without_resume_the_refusal_keeps_the_torn_last_line(finished, tmp_path):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    _set_lines(out, lines[:5] + [lines[5][:40]])
    _refused(tmp_path, out, r"holds an unfinished collection \(5 rows", resume=False)


# -- a damaged .collect.json, files that are not files ------------------------------------------------


@pytest.mark.parametrize(("record", "match"), [
    (b"[1]", r"is an array, not an object"),
    (b"{oops", r"not JSON"),
    (b"", r"not JSON"),
    (b'{"ids": ["silo/demo-TASK-004"]}', r'lacks "policy"'),
    ("seed", r'"seed" is a string; .*a whole number'),
    ("complete", r'"complete" is a string; .*true or false'),
    ("ids", r'"ids" is an array holding a number; .*an array of strings'),
    ("envKwargs", r'"envKwargs" is an array; .*an object'),
])
@pytest.mark.parametrize("resume", [True, False])
def test_a_damaged_record_is_refused(finished, tmp_path, record, match, resume):
    out = _copy(finished, tmp_path)
    if isinstance(record, str):  # mistype one key of the real record
        data = json.loads((out / MANIFEST).read_text())
        data[record] = {"seed": "0", "complete": "no", "ids": [1], "envKwargs": []}[record]
        record = json.dumps(data).encode()
    (out / MANIFEST).write_bytes(record)
    message = _refused(tmp_path, out, match, resume=resume)
    assert message.startswith(f"{out / MANIFEST} is not a collection record")
    assert "another directory" in message


@pytest.mark.parametrize("resume", [True, False])
@pytest.mark.parametrize("name", [STREAM_FILE, MANIFEST])
def test_a_directory_in_place_of_a_file_is_refused(finished, tmp_path, name, resume):
    out = _copy(finished, tmp_path)
    (out / name).unlink()
    (out / name).mkdir()
    _refused(tmp_path, out, rf"{name} is not a file", resume=resume)


@pytest.mark.parametrize("resume", [True, False])
def test_an_output_path_that_is_a_file_is_refused(tmp_path, resume):
    out = tmp_path / "out"
    out.write_text("notes")
    _refused(tmp_path, out, "is not a directory", resume=resume)


# -- from the shell -----------------------------------------------------------------------------------


def test_cli_refuses_a_tampered_resume_and_says_where(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path)
    lines = _lines(out)
    _set_lines(out, lines + lines[:3])
    before = _snapshot(tmp_path)
    argv = ["collect", "--env", "demo", "--tasks", "TASK-004,TASK-001", "--policy", "random",
            "--episodes-per-task", "3", "--out", str(out), "--resume"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {out / STREAM_FILE}, line 7: ")
    assert "Collected" not in captured.out
    assert _snapshot(tmp_path) == before

    _set_lines(out, lines[:2] + [b"5\n"] + lines[3:])
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"{out / STREAM_FILE}, line 3: " in err and "object is not iterable" not in err

    _set_lines(out, lines)
    (out / MANIFEST).write_text("[1]")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out / MANIFEST} is not a collection record") and "attribute" not in err


def test_rows_of_a_policy_object_must_share_its_label(tmp_path):
    def answer_now(observation, info):
        return {"answer": ""}

    out = tmp_path / "out"
    collect_jsonl(out, IDS[:1], answer_now, episodes_per_task=EPISODES)
    record = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**record, "complete": False}))
    assert {r["policy"] for r in read(out / STREAM_FILE)} == {answer_now.__qualname__}
    _edit(out, 2, policy="someone_else")
    before = _snapshot(tmp_path)
    with pytest.raises(ResumeError, match=r'line 3: was played by policy "someone_else", but the row on line 1 by'):
        collect_jsonl(out, IDS[:1], answer_now, episodes_per_task=EPISODES, resume=True)
    assert _snapshot(tmp_path) == before
