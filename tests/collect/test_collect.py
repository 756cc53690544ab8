"""``silo_gym.data``: episode rows, preference pairs, writers and reproducibility."""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
from pathlib import Path

import pytest

from silo_gym.data import (
    EPISODE_COLUMNS,
    PAIR_COLUMNS,
    collect,
    episode_seed,
    failed_row,
    iter_collect,
    preference_pairs,
    read,
    resolve_policy,
    write,
)
from silo_gym.llm import ChatPolicy

from ._helpers import SOLVER_PATH, ensure_test_env, load_solver, plan_chat

TASKS = ["silo/demo-TASK-001", "silo/demo-TASK-004", "silo/demo-TASK-005"]


@pytest.fixture(scope="module")
def dataset():
    random_rows = collect(TASKS, "random", episodes_per_task=3, seed=7)
    reference_rows = collect(TASKS, load_solver().make_policy(), episodes_per_task=2, seed=7)
    return random_rows + reference_rows


def test_row_count_and_exact_columns(dataset):
    assert len(dataset) == len(TASKS) * (3 + 2)
    for row in dataset:
        assert tuple(row) == EPISODE_COLUMNS
        assert row["environment"] == "demo"
        assert row["run_id"] is None
        assert isinstance(row["state_diff"], str) and json.loads(row["state_diff"]).keys() == {"scalars", "collections"}
        assert row["prompt"] == row["messages"][:2]
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert all(tuple(c) == ("label", "passed", "detail", "required") for c in row["checks"])
        assert row["tool_calls"] == sum(1 for a in row["actions"] if "tool" in a)
        assert row["required_passed"] <= row["required_total"]
    assert [r["episode"] for r in dataset[:3]] == [0, 1, 2]
    assert {r["policy"] for r in dataset} == {"random", "CrmSolverPolicy"}
    reference = [r for r in dataset if r["policy"] != "random"]
    assert all(r["reward"] == 1.0 and r["passed"] for r in reference)


def test_messages_of_gym_policies_are_chat_format(dataset):
    row = next(r for r in dataset if r["policy"] != "random" and r["task_id"] == "TASK-001")
    roles = [m["role"] for m in row["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    call = row["messages"][2]["tool_calls"][0]
    assert call["id"] == "call_1" and call["function"]["name"] == "search_leads"
    assert json.loads(call["function"]["arguments"]) == row["actions"][0]["input"]
    assert row["messages"][3]["tool_call_id"] == "call_1"
    assert row["messages"][-1] == {"role": "assistant", "content": row["actions"][-1]["answer"]}


def test_pairs_within_a_task_and_never_ties(dataset):
    pairs = preference_pairs(dataset)
    assert pairs
    by_task = {}
    for row in dataset:
        by_task.setdefault(row["task_id"], []).append(row)
    expected = sum(1 for rows in by_task.values() for a, b in itertools.combinations(rows, 2)
                   if a["reward"] != b["reward"])
    assert len(pairs) == expected
    for pair in pairs:
        assert tuple(pair) == PAIR_COLUMNS
        assert pair["chosen_reward"] > pair["rejected_reward"]
        rows = by_task[pair["task_id"]]
        assert pair["prompt"] == rows[0]["prompt"]
        chosen = [r for r in rows if r["messages"][2:] == pair["chosen"]]
        rejected = [r for r in rows if r["messages"][2:] == pair["rejected"]]
        assert chosen and rejected  # both trajectories come from this task's episodes
        assert chosen[0]["reward"] == pair["chosen_reward"] and rejected[0]["reward"] == pair["rejected_reward"]
        assert pair["chosen"][0]["role"] == "assistant"


def test_pairs_cap_keeps_the_largest_gaps(dataset):
    pairs = preference_pairs(dataset, max_pairs_per_task=2)
    counts = {}
    for p in pairs:
        counts[p["task_id"]] = counts.get(p["task_id"], 0) + 1
    assert max(counts.values()) <= 2
    full = preference_pairs(dataset)
    for task in counts:
        gaps = sorted((p["chosen_reward"] - p["rejected_reward"] for p in full if p["task_id"] == task), reverse=True)
        kept = [p["chosen_reward"] - p["rejected_reward"] for p in pairs if p["task_id"] == task]
        assert kept == gaps[:2]
    assert preference_pairs(dataset, max_pairs_per_task=0) == []


def test_pairs_by_hand():
    def row(task, reward, tag, env="e"):
        prompt = [{"role": "user", "content": task}]
        return {"environment": env, "task_id": task, "reward": reward, "prompt": prompt,
                "messages": prompt + [{"role": "assistant", "content": tag}]}

    rows = [row("A", 1.0, "a1"), row("A", 0.5, "a2"), row("A", 0.5, "a3"), row("B", 0.0, "b1"), row("A", 1.0, "a4"),
            row("B", 0.0, "b2"), row("A", 0.0, "x", env="other")]
    pairs = preference_pairs(rows)
    assert [(p["task_id"], p["chosen"][0]["content"], p["rejected"][0]["content"]) for p in pairs] == [
        ("A", "a1", "a2"), ("A", "a1", "a3"), ("A", "a4", "a2"), ("A", "a4", "a3")]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "hf"])
def test_round_trip(dataset, tmp_path, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    if fmt == "hf":
        pytest.importorskip("datasets")
    pairs = preference_pairs(dataset)
    episodes_paths = write(dataset, tmp_path, formats=(fmt,))
    pairs_paths = write(pairs, tmp_path, formats=(fmt,))
    assert [Path(p).name for p in episodes_paths] == [{"jsonl": "episodes.jsonl", "parquet": "episodes.parquet",
                                                       "hf": "episodes"}[fmt]]
    assert read(episodes_paths[0]) == dataset
    assert read(pairs_paths[0]) == pairs


def test_jsonl_uses_the_canonical_compact_writer(dataset, tmp_path):
    from silo_gym import dumps_compact

    path = write(dataset[:2], tmp_path)[0]
    lines = Path(path).read_text("utf-8").splitlines()
    assert lines == [dumps_compact(r) for r in dataset[:2]]


def test_parquet_keeps_messages_and_checks_native(dataset, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = write(dataset, tmp_path, formats=("parquet",))[0]
    table = pq.read_table(path)
    assert table.column_names == list(EPISODE_COLUMNS)
    assert str(table.schema.field("actions").type) == "string"
    assert str(table.schema.field("checks").type).startswith("list<")
    assert str(table.schema.field("messages").type).startswith("list<")


def test_hf_dataset_loads_with_datasets(dataset, tmp_path):
    datasets = pytest.importorskip("datasets")
    path = write(preference_pairs(dataset), tmp_path, formats=("hf",))[0]
    ds = datasets.load_from_disk(path)
    assert ds.column_names == list(PAIR_COLUMNS)
    assert ds[0]["prompt"][1]["role"] == "user"


def test_collection_is_reproducible(tmp_path):
    def run(seed, sub):
        return collect(["silo/demo-TASK-002"], "random", episodes_per_task=3, seed=seed, runs_dir=tmp_path / sub)

    a, b = run(11, "a"), run(11, "b")
    assert all(r["run_id"] for r in a + b)
    assert [r["run_id"] for r in a] != [r["run_id"] for r in b]
    strip = [{k: v for k, v in r.items() if k != "run_id"} for r in a]
    assert strip == [{k: v for k, v in r.items() if k != "run_id"} for r in b]
    c = run(12, "c")
    assert [r["actions"] for r in c] != [r["actions"] for r in a]
    for r in a:
        assert (tmp_path / "a" / r["run_id"] / "run.json").is_file()


def test_episode_seed_is_stable():
    assert episode_seed(0, "demo", "TASK-001", 0) == episode_seed(0, "demo", "TASK-001", 0)
    assert episode_seed(0, "demo", "TASK-001", 0) == 699984436  # pinned: sha256 of the documented text
    digest = hashlib.sha256(b"silo-gym/collect\x003\x00demo\x00TASK-002\x005").digest()
    assert episode_seed(3, "demo", "TASK-002", 5) == int.from_bytes(digest[:4], "big")
    seeds = {episode_seed(s, "demo", t, i) for s in (0, 1) for t in ("TASK-001", "TASK-002") for i in range(3)}
    assert len(seeds) == 12 and all(0 <= s < 2**32 for s in seeds)


def test_chat_policy_rows_with_model_steps(tmp_path):
    rows = collect(["silo/demo-TASK-001"], ChatPolicy(plan_chat, model="m"), episodes_per_task=1,
                   runs_dir=tmp_path)
    row = rows[0]
    assert row["policy"] == "chat:m" and row["reward"] == 1.0
    assert row["messages"][2]["tool_calls"][0]["id"] == "r1"
    trace = (tmp_path / row["run_id"] / "trace.jsonl").read_text()
    assert trace.count('"type":"model_step"') == 3


def test_anthropic_policy_rows_are_converted_to_chat_format():
    def model(messages, tools):
        if len(messages) == 2:
            return {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "forecast_report", "input": {}}]}
        return {"role": "assistant", "content": [{"type": "text", "text": "No idea."}]}

    row = collect("silo/demo-TASK-004", ChatPolicy(model, api="anthropic"), episodes_per_task=1)[0]
    assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant", "tool", "assistant"]
    assert row["messages"][2]["tool_calls"][0] == {"id": "t1", "type": "function",
                                                   "function": {"name": "forecast_report", "arguments": "{}"}}


def test_silo_agent_and_factory_policies(tmp_path):
    ensure_test_env("orders")
    orders_agent = str(Path(__file__).resolve().parents[1] / "envs" / "orders" / "agent.py")
    rows = collect(["silo/orders"], orders_agent, episodes_per_task=2, runs_dir=tmp_path)
    assert len(rows) == 2 and all(r["reward"] == 1.0 for r in rows)
    assert rows[0]["policy"] == orders_agent
    assert rows[0]["actions"][-1] == {"answer": "Shipped O-1."}
    assert [m["role"] for m in rows[0]["messages"]] == ["system", "user", "assistant", "tool", "assistant", "tool",
                                                        "assistant"]
    run = json.loads((tmp_path / rows[0]["run_id"] / "run.json").read_text())
    assert run["config"]["agentPath"] == orders_agent
    demo = collect(["silo/demo-TASK-005"], f"{SOLVER_PATH}:make_policy", episodes_per_task=1)
    assert demo[0]["reward"] == 1.0
    demo = collect(["demo"], f"{SOLVER_PATH}", episodes_per_task=1)
    assert len(demo) == 6 and all(r["reward"] == 1.0 for r in demo)


def test_silo_agent_over_budget_and_raising():
    ensure_test_env("orders")

    def greedy(task, tools, call_tool, signal):
        for _ in range(5):
            call_tool("get_order", {"orderId": "O-1"})
        return {"output": "unreachable"}

    row = collect("silo/orders-TASK-001", greedy, episodes_per_task=1, env_kwargs={"max_tool_calls": 2})[0]
    assert row["termination_reason"] == "max_tool_calls" and row["tool_calls"] == 2
    assert len(row["actions"]) == 3 and row["error"] == "Tool call limit exceeded (2)."

    def crash(task, tools, call_tool, signal):
        raise RuntimeError("boom")

    row = collect("silo/orders-TASK-001", crash, episodes_per_task=1)[0]
    assert row["termination_reason"] == "agent_error" and row["error"] == "boom" and row["actions"] == []


def test_gym_policy_exception_is_retried_then_a_failed_row(tmp_path):
    calls = {"n": 0}

    def bad(observation, info):
        calls["n"] += 1
        raise ValueError("policy bug")

    rows = collect("silo/demo-TASK-004", bad, episodes_per_task=2, runs_dir=tmp_path, max_retries=1)
    assert calls["n"] == 4  # 2 episodes x (1 + 1 retry)
    assert [r["episode"] for r in rows] == [0, 1]
    for row in rows:
        assert tuple(row) == EPISODE_COLUMNS
        assert row["reward"] is None and row["run_id"] is None and row["passed"] is None
        assert row["error"] == "Episode failed after 2 attempt(s): ValueError: policy bug"
        assert row["policy"] == "test_gym_policy_exception_is_retried_then_a_failed_row.<locals>.bad"
        assert row == failed_row("demo", "TASK-004", row["episode"], row["policy"], row["error"], 0)
    assert list(tmp_path.iterdir()) == []  # failed attempts leave no run directory
    assert preference_pairs(rows) == []


def test_a_flaky_policy_is_recorded_once(tmp_path):
    solver = load_solver().make_policy()
    state = {"raised": False}

    def flaky(observation, info):
        if info.get("tool_calls") == 1 and not state["raised"]:
            state["raised"] = True
            raise ConnectionError("model server hiccup")
        return solver(observation, info)

    rows = collect("silo/demo-TASK-001", flaky, episodes_per_task=2, runs_dir=tmp_path)
    reference = collect("silo/demo-TASK-001", load_solver().make_policy(), episodes_per_task=2)
    strip = ("run_id", "policy")
    assert [{k: v for k, v in r.items() if k not in strip} for r in rows] == \
        [{k: v for k, v in r.items() if k not in strip} for r in reference]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(r["run_id"] for r in rows)


def test_failed_rows_round_trip(tmp_path):
    rows = [failed_row("demo", "TASK-001", 0, "random", "Episode failed after 3 attempt(s): boom")]
    for fmt in ("jsonl",) + (("parquet",) if importlib.util.find_spec("pyarrow") else ()):
        path = write(rows, tmp_path, formats=(fmt,))[0]
        assert read(path) == rows


def test_backend_arguments_are_checked():
    with pytest.raises(ValueError, match="backend must be"):
        collect("silo/demo-TASK-001", "random", episodes_per_task=1, backend="dask")
    with pytest.raises(ValueError, match="max_retries"):
        collect("silo/demo-TASK-001", "random", episodes_per_task=1, max_retries=-1)
    with pytest.raises(ValueError, match='needs backend="ray"'):
        collect("silo/demo-TASK-001", "random", episodes_per_task=1, num_workers=2)
    with pytest.raises(ValueError, match="ray_address"):
        collect("silo/demo-TASK-001", "random", episodes_per_task=1, ray_address="auto")


def test_iter_collect_streams_in_collect_order_locally(tmp_path):
    seen = []
    stream = iter_collect(["silo/demo-TASK-001", "silo/demo-TASK-002"], "random", episodes_per_task=2, seed=5,
                          progress=seen.append)
    first = next(stream)
    assert (first["task_id"], first["episode"]) == ("TASK-001", 0) and seen == [first]
    rows = [first, *stream]
    assert rows == seen
    assert rows == collect(["silo/demo-TASK-001", "silo/demo-TASK-002"], "random", episodes_per_task=2, seed=5)


def test_policy_kinds_by_signature():
    assert resolve_policy("random")[0] == "random"
    assert resolve_policy(lambda obs, info: {"answer": ""})[0] == "gym"
    assert resolve_policy(lambda task, tools, call_tool, signal: {"output": ""})[0] == "agent"
    assert resolve_policy(lambda: (lambda obs, info: None))[0] == "gym"
    assert resolve_policy(ChatPolicy(plan_chat))[0] == "episode"
    with pytest.raises(TypeError):
        resolve_policy(lambda a, b, c: None)
    with pytest.raises(TypeError):
        resolve_policy(42)


def test_missing_pyarrow_says_how_to_install(dataset, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r'pip install "silo-gym\[data\]"'):
        write(dataset, tmp_path, formats="parquet")
    with pytest.raises(ValueError, match="Unknown format"):
        write(dataset, tmp_path, formats=("csv",))
