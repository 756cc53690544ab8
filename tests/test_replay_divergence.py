"""``silo-gym replay`` shows where a recorded and a replayed value differ, however far in (issue 19,
item 17): both lines are cut around the first difference, never at the same prefix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from golden import gate as g

import silo_gym
from silo_gym.replay import Divergence, replay_run


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("recorded")
    return Path(silo_gym.run_task("demo", "TASK-001", g.silo_agent("solver"), runs_dir=runs).run_dir)


def test_first_difference() -> None:
    from silo_gym.replay import first_difference

    assert first_difference("abc", "abc") is None
    assert first_difference("abc", "abd") == 2
    assert first_difference("ab", "abc") == 2
    assert first_difference("", "x") == 0
    long = "x" * 10_000
    assert first_difference(long + "a" + long, long + "b" + long) == 10_000


def test_a_difference_past_the_shown_prefix_is_shown() -> None:
    head = '{"items":[' + ",".join(f'"item {i}"' for i in range(60))  # about 600 characters
    text = str(Divergence("call 1 (search)", "the output differs", head + ',"tail A"]}', head + ',"tail B"]}'))
    recorded = next(line for line in text.splitlines() if line.startswith("  recorded: "))
    replayed = next(line for line in text.splitlines() if line.startswith("  replayed: "))
    assert recorded != replayed
    assert '"tail A"' in recorded and '"tail B"' in replayed
    differs_at = len(head) + len(',"tail ') + 1  # 1-based
    assert f"first difference at character {differs_at}" in text
    assert recorded.startswith("  recorded: …")  # cut before, and says so


def test_short_values_are_shown_whole() -> None:
    text = str(Divergence("result.json", "line 3 differs", '"reward": 1', '"reward": 0.5'))
    assert '  recorded: "reward": 1\n  replayed: "reward": 0.5' in text
    assert "first difference" not in text


def test_a_long_value_differing_early_keeps_its_start() -> None:
    a, b = "A" + "z" * 1000, "B" + "z" * 1000
    text = str(Divergence("x", "differs", a, b))
    assert "  recorded: Az" in text and "  replayed: Bz" in text
    assert "(1001 characters)" in text


def test_replay_of_an_edited_long_output_shows_the_edit(recorded: Path, tmp_path: Path) -> None:
    run = tmp_path / recorded.name
    shutil.copytree(recorded, run)
    trace = run / "trace.jsonl"
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    result = max((e for e in events if e["type"] == "tool_result"), key=lambda e: len(json.dumps(e["output"])))
    text = silo_gym.dumps_compact(result["output"])
    assert len(text) > 400, "the fixture needs a long tool output"
    # Change one string character far past the first 300 characters of the output.
    where = next(i for i in range(350, len(text)) if text[i].isalpha() and text[i] != "Q")
    edited = text[:where] + "Q" + text[where + 1:]
    result["output"] = json.loads(edited)
    trace.write_text("".join(silo_gym.dumps_compact(e) + "\n" for e in events))
    report = replay_run(run)
    assert not report.identical
    summary = report.summary()
    recorded_line = next(line for line in summary.splitlines() if line.startswith("  recorded: "))
    replayed_line = next(line for line in summary.splitlines() if line.startswith("  replayed: "))
    assert recorded_line[len("  recorded: "):] != replayed_line[len("  replayed: "):]
    assert "Q" in recorded_line
    assert f"first difference at character {where + 1}" in summary
