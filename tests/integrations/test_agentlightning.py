"""Agent Lightning: the recipe of docs/training.md run by Agent Lightning's own ``Trainer.dev``
(its runners, store and tracer; the default ``Baseline`` algorithm) against the scripted model:
every rollout's reward in the store is its ``result.json``'s.

Agent Lightning pins packages the trl extra's tests cannot share (``agentops`` wants
``packaging<25``), so this file runs in ``.venv-verl`` with verl (``make test-verl``)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import pathlib
from typing import Any

import pytest

if os.environ.get("SILO_GYM_VERL") != "1" and importlib.util.find_spec("agentlightning") is None:
    pytest.skip("Agent Lightning's tests run in .venv-verl: make test-verl", allow_module_level=True)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm: no network at import
agl = pytest.importorskip("agentlightning")
pytest.importorskip("openai")
from agentlightning.emitter.reward import find_final_reward  # noqa: E402
from agentlightning.execution.shared_memory import SharedMemoryExecutionStrategy  # noqa: E402

from silo_gym.mock_model import MockModelServer  # noqa: E402

from ._recipes import recipe  # noqa: E402


def _results(runs: pathlib.Path) -> dict[str, dict[str, Any]]:
    """``result.json`` by task id (one run per task here)."""
    found = {}
    for run in runs.iterdir():
        meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
        found[meta["taskId"]] = json.loads((run / "result.json").read_text(encoding="utf-8"))
    return found


def test_trainer_dev_runs_the_recipe_and_stores_result_json_s_rewards(tmp_path: pathlib.Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the recipe records under ./runs
    silo_agent = recipe("### Agent Lightning")["silo_agent"]
    rows = [{"env_id": "silo/demo", "task_id": t, "seed": 0} for t in ("TASK-001", "TASK-002", "TASK-004")]
    with MockModelServer(latency_ms=0, faults=["malformed@2"]) as model:
        store = agl.InMemoryLightningStore()
        trainer = agl.Trainer(strategy=SharedMemoryExecutionStrategy(n_runners=1), store=store, tracer=agl.OtelTracer(),
                              max_rollouts=len(rows),
                              initial_resources={"main_llm": agl.LLM(endpoint=model.openai_base_url, model="m",
                                                                     sampling_parameters={"temperature": 0.0})})
        trainer.dev(silo_agent, rows)

    async def stored() -> list[tuple[dict[str, Any], str, float | None]]:
        out = []
        for rollout in await store.query_rollouts():
            spans = await store.query_spans(rollout.rollout_id)
            out.append((rollout.input, rollout.status, find_final_reward(spans)))
        return out

    rollouts = asyncio.run(stored())
    results = _results(tmp_path / "runs")
    assert len(rollouts) == len(rows) == len(results)
    for task, status, reward in rollouts:
        result = results[task["task_id"]]
        assert status == "succeeded" and reward == result["reward"] == 1.0
    assert sum(r["toolErrors"] for r in results.values()) == 1  # the malformed call reached the env
