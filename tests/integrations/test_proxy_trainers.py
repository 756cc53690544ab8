"""The proxy-trainer recipes of docs/training.md (ART, AReaL, rLLM), each run as printed there
against the scripted model behind a vLLM-like endpoint (``_vllm_like``): ART with its own
classes and its own tokenizer of trajectories, rLLM with its real model gateway, AReaL (which
does not install beside this project's torch) as a loopback through that gateway."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import socket
import threading
import time
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # ART imports litellm: no network at import
pytest.importorskip("aiohttp")
openai = pytest.importorskip("openai")

from silo_gym.mock_model import MockModelServer  # noqa: E402

from ._chat_tokenizer import make_tokenizer  # noqa: E402
from ._recipes import recipe, rows  # noqa: E402
from ._vllm_like import VLLMLike  # noqa: E402

pytestmark = pytest.mark.xdist_group("proxy_trainers")


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return make_tokenizer()


@pytest.fixture(scope="module")
def vllm(tokenizer: Any) -> Any:
    with MockModelServer(latency_ms=0) as model:
        endpoint = VLLMLike(model.openai_base_url, tokenizer).start()
        yield endpoint
        endpoint.stop()


def _results(runs: pathlib.Path) -> list[dict[str, Any]]:
    return [json.loads((d / "result.json").read_text(encoding="utf-8")) for d in sorted(runs.iterdir())]


def _observations(messages: list[Any]) -> list[str]:
    return [m["content"] for m in messages if isinstance(m, dict) and m.get("role") == "tool"]


def _import_art() -> Any:
    """``import art``, undoing what its import does to transformers: it replaces
    ``transformers.masking_utils._preprocess_mask_arguments`` with a wrapper written for the
    transformers release ART pins, which breaks every model forward under newer ones (the TRL
    tests in this process train models)."""
    from transformers import masking_utils

    original = masking_utils._preprocess_mask_arguments
    try:
        return pytest.importorskip("art")
    finally:
        masking_utils._preprocess_mask_arguments = original


def test_the_rows_name_task_and_seed() -> None:
    found = rows()
    assert found[0] == {"env_id": "silo/demo", "task_id": "TASK-001", "seed": 0} and len(found) == 16


def test_art_recipe_trains_only_on_the_models_tokens_with_result_json_s_reward(
        vllm: Any, tokenizer: Any, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    art = _import_art()
    from art.preprocessing.tokenize import tokenize_trajectory

    monkeypatch.chdir(tmp_path)  # the recipe records under ./runs
    rollout = recipe("### ART")["rollout"]
    model = art.Model(name="silo-policy", project="silo", inference_base_url=vllm.base_url,
                      inference_api_key="key", inference_model_name="m")
    vllm.generated.clear()
    trajectory = asyncio.run(rollout(model, {"env_id": "silo/demo", "task_id": "TASK-002", "seed": 3}))
    (result,) = _results(tmp_path / "runs")
    assert isinstance(trajectory, art.Trajectory) and trajectory.reward == result["reward"] == 1.0
    choices = [m for m in trajectory.messages_and_choices if not isinstance(m, dict)]
    assert len(choices) == result["toolCalls"] + 1 == len(vllm.generated)
    tokenized = tokenize_trajectory(tokenizer, None, trajectory, 1.0, False, trajectory)
    assert tokenized is not None
    ids, mask = tokenized.token_ids, tokenized.assistant_mask
    assert [t for t, m in zip(ids, mask, strict=True) if m] == [t for g in vllm.generated for t in g]
    trained = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m])
    observations = _observations(trajectory.messages_and_choices)
    assert len(observations) == 3 and all(o not in trained for o in observations)  # tool output: never trained
    assert all(o in tokenizer.decode(ids) for o in observations)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def gateway(vllm: Any) -> Any:
    gateway_pkg = pytest.importorskip("rllm_model_gateway")
    import uvicorn

    config = gateway_pkg.GatewayConfig(workers=[gateway_pkg.WorkerConfig(url=vllm.base_url, model_name="m")],
                                       store_worker="memory", sync_traces=True, health_check_interval=3600)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(gateway_pkg.create_app(config), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "rLLM's gateway did not start"
        time.sleep(0.05)
    client = gateway_pkg.GatewayClient(f"http://127.0.0.1:{port}")
    yield client
    client.close()
    server.should_exit = True
    thread.join(30)


def test_rllm_recipe_the_gateway_captures_model_tokens_and_the_reward_is_result_json_s(
        gateway: Any, vllm: Any, tokenizer: Any, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rollout = recipe("### rLLM")["rollout"]
    vllm.generated.clear()
    traces, reward = rollout(gateway, "m", {"env_id": "silo/demo", "task_id": "TASK-002", "seed": 3})
    (result,) = _results(tmp_path / "runs")
    assert reward == result["reward"] == 1.0
    assert len(traces) == result["toolCalls"] + 1
    assert [t.completion_token_ids for t in traces] == vllm.generated  # vLLM's token ids, as generated
    observations = _observations(traces[-1].messages)
    assert len(observations) == 3
    completions = "".join(tokenizer.decode(t.completion_token_ids) for t in traces)
    assert all(o not in completions for o in observations)  # tool output only ever in prompts
    assert all(o in tokenizer.decode(traces[-1].prompt_token_ids) for o in observations)


def test_areal_recipe_returns_result_json_s_reward_for_the_session(
        gateway: Any, tmp_path: pathlib.Path) -> None:
    agent = recipe("### AReaL")["SiloAgent"](runs_dir=str(tmp_path / "runs"), temperature=0.0)
    session = gateway.create_session()

    async def run() -> float:
        async with openai.DefaultAsyncHttpxClient() as http_client:  # AReaL's inline mode passes one
            return await agent.run({"env_id": "silo/demo", "task_id": "TASK-004", "seed": 0},
                                   base_url=gateway.get_session_url(session), api_key=f"session-{session}",
                                   http_client=http_client)

    reward = asyncio.run(run())
    (result,) = _results(tmp_path / "runs")
    assert isinstance(reward, float) and reward == result["reward"] == 1.0
    traces = gateway.get_session_traces(session)
    # AReaL gives the returned reward to the session's last completion: the answer
    assert len(traces) == result["toolCalls"] + 1 and not traces[-1].response_message.get("tool_calls")
