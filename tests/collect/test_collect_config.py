"""The collect settings as one object (issue 23 item 4): ``CollectConfig`` is accepted by
``collect``, ``iter_collect`` and ``collect_jsonl``, and every keyword call keeps working."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from silo_gym.data import CollectConfig, collect, iter_collect
from silo_gym.data.config import CollectOptions
from silo_gym.data.stream import collect_jsonl

ID = "silo/demo-TASK-001"


def _plain(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "run_id"} for row in rows]


def test_a_config_gives_the_rows_the_keywords_give() -> None:
    by_keywords = collect([ID], "random", episodes_per_task=2, seed=7)
    by_config = collect([ID], "random", CollectConfig(episodes_per_task=2, seed=7))
    assert by_config == by_keywords
    assert [r["episode"] for r in by_config] == [0, 1]
    streamed = list(iter_collect([ID], "random", config=CollectConfig(episodes_per_task=2, seed=7)))
    assert streamed == by_keywords


def test_keywords_replace_the_fields_of_a_config() -> None:
    config = CollectConfig(episodes_per_task=1, seed=7)
    rows = collect([ID], "random", config, episodes_per_task=3, seed=8)
    assert rows == collect([ID], "random", episodes_per_task=3, seed=8)
    assert config.episodes_per_task == 1 and config.seed == 7  # the config itself is unchanged
    assert rows != collect([ID], "random", episodes_per_task=3, seed=7)  # the seed did change


def test_a_config_is_checked_like_the_keywords() -> None:
    with pytest.raises(ValueError, match="concurrency must be an int >= 1, got 0"):
        collect([ID], "random", CollectConfig(episodes_per_task=1, concurrency=0))
    with pytest.raises(ValueError, match='backend must be "local" or "ray"'):
        iter_collect([ID], "random", CollectConfig(episodes_per_task=1), backend="spark")


def test_what_is_no_setting_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="collect\\(\\) got an unexpected keyword argument 'episodes'"):
        collect([ID], "random", episodes=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'episodes_per_task'"):
        collect([ID], "random")
    with pytest.raises(TypeError, match="takes a CollectConfig as config, got dict"):
        collect([ID], "random", {"episodes_per_task": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        CollectConfig(episodes_per_task=1).replace(episodes=2)


def test_the_keyword_types_name_every_field() -> None:
    fields = [f.name for f in dataclasses.fields(CollectConfig)]
    assert list(typing.get_type_hints(CollectOptions)) == fields
    assert len(fields) == 20


def test_variants_fold_into_the_env_kwargs() -> None:
    config = CollectConfig(episodes_per_task=1, env_kwargs={"max_tool_calls": 5}, variants=True)
    assert config.make_kwargs() == {"max_tool_calls": 5, "variants": True}
    assert config.env_kwargs == {"max_tool_calls": 5}
    assert CollectConfig(episodes_per_task=1).make_kwargs() is None


def test_collect_jsonl_takes_a_config(tmp_path: Path) -> None:
    rows = collect_jsonl(tmp_path / "a", [ID], "random", CollectConfig(episodes_per_task=2, seed=3))
    assert _plain(rows) == _plain(collect([ID], "random", episodes_per_task=2, seed=3))
    again = collect_jsonl(tmp_path / "a", [ID], "random", episodes_per_task=2, seed=3, resume=True)
    assert again == rows
