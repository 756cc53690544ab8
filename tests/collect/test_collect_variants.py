"""``data.collect(..., variants=True)`` / ``silo-gym collect --variants``: variant worlds, drawn
from each episode's seed, recorded in the ``variant`` column (docs/variants.md); an ungraded run
is a failed row."""

from __future__ import annotations

import json
import time

from silo_gym import data
from silo_gym.cli import main
from silo_gym.data.collect import EPISODE_COLUMNS


def _price_agent(task, tools, call_tool, signal):
    item = call_tool("get_item", {"itemId": "I-1"})["output"]
    return {"output": f"It costs {item['price']}."}


def test_rows_carry_the_variant_and_the_same_seed_gives_the_same_variants(tmp_path):
    assert EPISODE_COLUMNS[3] == "variant"
    rows = data.collect(["silo/variety-TASK-001"], _price_agent, episodes_per_task=6, seed=3, variants=True,
                        runs_dir=tmp_path / "runs")
    variants = [r["variant"] for r in rows]
    assert all(isinstance(v, int) and v % 3 != 0 for v in variants) and len(set(variants)) == 6
    assert all(r["reward"] == 1.0 for r in rows)
    for row in rows:
        run = json.loads((tmp_path / "runs" / row["run_id"] / "run.json").read_text())
        assert run["config"]["variant"] == row["variant"]
    again = data.collect(["silo/variety-TASK-001"], _price_agent, episodes_per_task=6, seed=3, variants=True)
    assert [r["variant"] for r in again] == variants
    canonical = data.collect(["silo/variety-TASK-001"], _price_agent, episodes_per_task=2)
    assert [r["variant"] for r in canonical] == [None, None]


def test_cli_collect_variants(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    agent = tmp_path / "price.py"
    agent.write_text(
        "def agent(task, tools, call_tool, signal):\n"
        "    item = call_tool('get_item', {'itemId': 'I-1'})['output']\n"
        "    return {'output': str(item['price'])}\n")
    code = main(["collect", "--env", "variety", "--tasks", "TASK-002,TASK-001", "--policy", "price.py",
                 "--episodes-per-task", "2", "--variants", "--out", "out"])
    assert code == 0, capsys.readouterr().err
    lines = [json.loads(x) for x in (tmp_path / "out" / "episodes.jsonl").read_text().splitlines()]
    assert all(isinstance(r["variant"], int) for r in lines) and len(lines) == 4


STUCK_TOOLS = '''
import threading

from silo_gym import define_tool

RELEASE = threading.Event()


def _stuck(state, input):
    RELEASE.wait(20)
    return "late"


tools = [define_tool(name="stuck", description="Hangs.", input_schema={"type": "object"}, run=_stuck)]
'''


def test_an_ungraded_run_is_a_failed_row_and_is_not_retried(tmp_path, make_env_dir):
    import sys

    import silo_gym

    env_dir = make_env_dir(tmp_path / "envs", "stuckcollect", tools=STUCK_TOOLS)
    silo_gym.register_environment(env_dir, override=True)
    calls = []

    def agent(task, tools, call_tool, signal):
        calls.append(1)
        call_tool("stuck")
        return {"output": "x"}

    start = time.monotonic()
    try:
        rows = data.collect(["silo/stuckcollect-TASK-001"], agent, episodes_per_task=1,
                            env_kwargs={"timeout_ms": 200}, runs_dir=tmp_path / "runs", max_retries=2)
    finally:
        for name, module in list(sys.modules.items()):
            if name.endswith(".tools") and hasattr(module, "RELEASE"):
                module.RELEASE.set()
    assert time.monotonic() - start < 15  # not the 20 s the tool would take, nor retries
    (row,) = rows
    assert row["reward"] is None and row["run_id"] is None and row["passed"] is None
    assert row["error"] == 'Episode not graded: Tool "stuck" did not return within 200 ms.'
    assert calls == [1]  # not played again
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []


def test_a_lone_surrogate_in_an_answer_is_written_to_parquet(tmp_path):
    import pytest

    pq = pytest.importorskip("pyarrow.parquet")
    from silo_gym import data as data_mod

    def policy(observation, info):
        return {"answer": "bad \ud800 answer"}

    rows = data_mod.collect(["silo/demo-TASK-004"], policy, episodes_per_task=1)
    files = data_mod.write(rows, tmp_path, ("jsonl", "parquet"))
    table = pq.read_table(next(f for f in files if f.endswith(".parquet"))).to_pylist()
    assert table[0]["messages"][-1]["content"] == "bad \\ud800 answer"
    assert data_mod.read(next(f for f in files if f.endswith(".jsonl")))[0]["messages"][-1]["content"] == \
        "bad \ud800 answer"
