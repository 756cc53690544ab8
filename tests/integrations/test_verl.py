"""verl: the ``silo_agent`` loop run by verl's own ``AgentLoopWorker`` on CPU, the way verl tests
its agent loops: verl's trainer config (``ppo_trainer.yaml`` composed with hydra), a model
directory with a tokenizer (no weights), rows from ``silo_gym.integrations.verl.dataset`` read by
verl's ``RLHFDataset`` and ``collate_fn``, and a fake generation client that plays the demo's
reference solver as token ids. What comes back is verl's padded rollout batch."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import pathlib
import re
from types import SimpleNamespace
from typing import Any

import pytest

if os.environ.get("SILO_GYM_VERL") != "1" and importlib.util.find_spec("verl") is None:
    # verl pins transformers<5.11, which the trl extra's tests cannot share: `make test-verl`
    # runs this file in .venv-verl (with SILO_GYM_VERL=1, where a missing verl fails).
    pytest.skip("verl's tests run in their own venv: make test-verl", allow_module_level=True)
verl = pytest.importorskip("verl")
import gymnasium as gym  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from verl.experimental.agent_loop.agent_loop import AgentLoopWorker, _agent_loop_registry  # noqa: E402
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop  # noqa: E402
from verl.protocol import DataProto  # noqa: E402
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse  # noqa: E402
from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

from silo_gym.integrations import verl as silo_verl  # noqa: E402
from silo_gym.llm import to_openai_chat_tools  # noqa: E402

from ._chat_tokenizer import write_model_dir  # noqa: E402
from ._helpers import load_solver  # noqa: E402

pytestmark = pytest.mark.xdist_group("verl")  # one worker composes verl's config once

_RESPONSE_RE = re.compile(r"<tool_response>\n(.*?)\n</tool_response>", re.DOTALL)
_USER_RE = re.compile(r"<\|im_start\|>user\n(.*?)<\|im_end\|>", re.DOTALL)


def _compose(model_dir: pathlib.Path, loop_config: pathlib.Path, *overrides: str) -> Any:
    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=[
            f"actor_rollout_ref.model.path={model_dir}",
            "actor_rollout_ref.rollout.name=vllm",
            "actor_rollout_ref.rollout.prompt_length=16384",
            "actor_rollout_ref.rollout.response_length=8192",
            "actor_rollout_ref.rollout.multi_turn.max_tool_response_length=8192",
            f"actor_rollout_ref.rollout.agent.agent_loop_config_path={loop_config}",
            "data.max_prompt_length=16384",
            "data.filter_overlong_prompts=false",
            *overrides,
        ])


class ScriptedServer:
    """verl's generation client, faked: it answers ``generate`` with token ids of a scripted
    model and records every call. ``script(prompt_text, request_state) -> reply text``."""

    def __init__(self, tokenizer: Any, script: Any) -> None:
        self.tokenizer = tokenizer
        self.script = script
        self.calls: list[tuple[list[int], list[int]]] = []
        self.states: dict[str, dict[str, Any]] = {}

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any],
                       **kwargs: Any) -> TokenOutput:
        state = self.states.setdefault(request_id, {})
        text = self.script(self.tokenizer.decode(prompt_ids, skip_special_tokens=False), state)
        reply = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        self.calls.append((list(prompt_ids), reply))
        return TokenOutput(token_ids=reply, log_probs=[-0.5] * len(reply))


def _call_text(action: dict[str, Any]) -> str:
    return f'<tool_call>\n{json.dumps({"name": action["tool"], "arguments": action["input"]})}\n</tool_call>'


def solver_script(prompt: str, state: dict[str, Any]) -> str:
    """The demo reference solver as a model: each reply is one call, or the answer."""
    if "plan" not in state:
        state["plan"] = load_solver().plan(_USER_RE.findall(prompt)[0])
        action = next(state["plan"])
    else:
        action = state["plan"].send(json.loads(_RESPONSE_RE.findall(prompt)[-1]))
    return str(action["answer"]) if "answer" in action else _call_text(action)


@pytest.fixture(scope="module")
def verl_env(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("verl")
    model_dir = write_model_dir(root / "model")
    runs = root / "runs"
    loop_config = root / "agent_loops.yaml"
    loop_config.write_text(yaml.safe_dump(silo_verl.agent_loop_config(runs_dir=str(runs), max_tool_calls=20)),
                           encoding="utf-8")
    config = _compose(model_dir, loop_config)
    worker = AgentLoopWorker(config, llm_client=None)  # reads the loop config into verl's registry
    return SimpleNamespace(root=root, runs=runs, config=config, worker=worker, tokenizer=worker.tokenizer)


def _batch(env: SimpleNamespace, rows: list[dict[str, Any]]) -> DataProto:
    """The rows as the trainer hands them to the rollout: Parquet -> RLHFDataset -> collate_fn."""
    path = env.root / f"rows-{len(list(env.root.glob('rows-*')))}.parquet"
    pd.DataFrame(rows).to_parquet(path)
    data = RLHFDataset(data_files=[str(path)], tokenizer=env.tokenizer, config=env.config.data)
    return DataProto.from_single_dict(collate_fn([data[i] for i in range(len(data))]))


def _rollout(env: SimpleNamespace, rows: list[dict[str, Any]], script: Any) -> tuple[DataProto, ScriptedServer]:
    server = ScriptedServer(env.tokenizer, script)
    env.worker.llm_client = server
    return asyncio.run(env.worker.generate_sequences(_batch(env, rows))), server


def _row_out(out: DataProto, i: int = 0) -> tuple[list[int], list[int], list[float], list[int]]:
    """Sample ``i``'s unpadded response ids, response mask and rm_scores, and its prompt ids."""
    prompt_width = out.batch["prompts"].shape[1]
    attention = out.batch["attention_mask"][i]
    n = int(attention[prompt_width:].sum())
    prompt = out.batch["prompts"][i][attention[:prompt_width].bool()].tolist()
    return (out.batch["responses"][i][:n].tolist(), out.batch["response_mask"][i][:n].tolist(),
            out.batch["rm_scores"][i].tolist(), prompt)


def _result(out: DataProto, i: int = 0) -> dict[str, Any]:
    silo = out.non_tensor_batch["silo"][i]
    return json.loads(pathlib.Path(silo["run_dir"], "result.json").read_text(encoding="utf-8"))


def _f32(value: float) -> float:
    """``value`` as verl stores it (``rm_scores`` is a float32 tensor)."""
    import torch

    return float(torch.tensor(value, dtype=torch.float32))


def _replay_observations(task: str, seed: int, actions: list[Any]) -> list[str]:
    env = gym.make(f"silo/demo-{task}")
    env.reset(seed=seed)
    observations = [env.step(a)[0] for a in actions]
    env.close()
    return observations


def test_the_loop_is_registered_and_its_config_entry_names_it() -> None:
    assert _agent_loop_registry[silo_verl.AGENT_NAME] == {"_target_": "silo_gym.integrations.verl.SiloAgentLoop"} \
        or _agent_loop_registry[silo_verl.AGENT_NAME]["_target_"] == "silo_gym.integrations.verl.SiloAgentLoop"
    entry = silo_verl.agent_loop_config(runs_dir="r", max_tool_calls=5)
    assert entry == [{"name": "silo_agent", "_target_": "silo_gym.integrations.verl.SiloAgentLoop", "runs_dir": "r",
                      "max_tool_calls": 5}]
    with pytest.raises(ValueError, match="Unknown silo_agent options: max_turns"):
        silo_verl.agent_loop_config(max_turns=3)


def test_dataset_rows_choose_task_and_seed() -> None:
    rows = silo_verl.dataset("silo/demo-TASK-002", repeats=2, seed=3)
    assert [r["extra_info"]["task_id"] for r in rows] == ["TASK-002", "TASK-002"]
    assert rows[0]["extra_info"]["seed"] != rows[1]["extra_info"]["seed"]
    assert rows[1]["extra_info"] == {"env_id": "silo/demo", "task_id": "TASK-002", "seed": rows[1]["extra_info"]["seed"],
                                     "index": 1}
    assert rows[0]["agent_name"] == "silo_agent" and rows[0]["prompt"][-1]["content"].startswith("Tomas Bergstrom")
    with pytest.raises(ValueError, match="repeats"):
        silo_verl.dataset("silo/demo", repeats=0)
    drawn = silo_verl.dataset("silo/demo-TASK-002", seed=3, variants=True)[0]["extra_info"]
    assert isinstance(drawn["variant"], int) and "variant" not in rows[0]["extra_info"]


def test_a_row_chooses_its_variant_world(verl_env: SimpleNamespace) -> None:
    rows = silo_verl.dataset("silo/demo-TASK-002", seed=3, variants=True)
    out, server = _rollout(verl_env, rows, solver_script)
    run = json.loads(pathlib.Path(out.non_tensor_batch["silo"][0]["run_dir"], "run.json").read_text())
    assert run["config"]["variant"] == rows[0]["extra_info"]["variant"]
    assert _row_out(out)[2][len(_row_out(out)[0]) - 1] == _f32(_result(out)["reward"])


def test_a_scripted_episode_masks_token_for_token_and_rewards_the_last_token(verl_env: SimpleNamespace) -> None:
    rows = silo_verl.dataset("silo/demo-TASK-002", seed=3)
    out, server = _rollout(verl_env, rows, solver_script)
    response, mask, scores, prompt = _row_out(out)
    replies = [reply for _, reply in server.calls]
    # each generation's prompt is the previous prompt, the model's reply and the appended context
    contexts = []
    for (before, reply), (after, _) in zip(server.calls, server.calls[1:], strict=False):
        assert after[: len(before) + len(reply)] == before + reply
        contexts.append(after[len(before) + len(reply):])
    expected_ids, expected_mask = [], []
    for i, reply in enumerate(replies):
        expected_ids += reply
        expected_mask += [1] * len(reply)
        if i < len(contexts):
            expected_ids += contexts[i]
            expected_mask += [0] * len(contexts[i])
    assert prompt == server.calls[0][0]
    assert response == expected_ids and mask == expected_mask  # token for token
    # the context tokens are exactly the env's observations in the chat template, nothing else
    trace = [json.loads(line) for line in
             pathlib.Path(out.non_tensor_batch["silo"][0]["run_dir"], "trace.jsonl").read_text().splitlines()]
    actions = [{"tool": e["tool"], "input": e["input"]} for e in trace if e["type"] == "tool_call"]
    observations = _replay_observations("TASK-002", rows[0]["extra_info"]["seed"], actions)
    tok = verl_env.tokenizer
    assert [tok.decode(c, skip_special_tokens=False) for c in contexts] == [
        f"\n<|im_start|>user\n<tool_response>\n{obs}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
        for obs in observations]
    model_text = tok.decode([t for t, m in zip(response, mask, strict=True) if m == 1], skip_special_tokens=False)
    assert model_text == "".join(tok.decode(r, skip_special_tokens=False) for r in replies)
    assert all(obs not in model_text for obs in observations)  # tool output never counts as model tokens
    # the reward: result.json's, on the last response token only, which is a model token
    result = _result(out)
    assert result["reward"] == 1.0 and result["toolCalls"] == 3 == len(observations)
    assert scores[len(response) - 1] == _f32(result["reward"]) and sum(scores) == _f32(result["reward"]) and mask[-1] == 1
    assert out.non_tensor_batch["silo"][0]["result"] == result
    assert out.non_tensor_batch["silo"][0]["termination_reason"] == "completed"
    assert int(out.non_tensor_batch["__num_turns__"][0]) == 2 * len(replies)


def test_the_prompt_carries_the_full_tool_schemas_that_verls_schema_model_drops(verl_env: SimpleNamespace) -> None:
    rows = silo_verl.dataset("silo/demo-TASK-002", seed=3)
    out, server = _rollout(verl_env, rows, lambda prompt, state: "Done.")
    prompt_text = verl_env.tokenizer.decode(server.calls[0][0], skip_special_tokens=False)
    env = gym.make("silo/demo-TASK-002")
    _, info = env.reset(seed=3)
    env.close()
    tool = next(t for t in to_openai_chat_tools(info["tools"]) if t["function"]["name"] == "list_users")
    limit = tool["function"]["parameters"]["properties"]["limit"]
    assert {"minimum", "maximum", "default"} <= set(limit)
    kept = OpenAIFunctionToolSchema.model_validate(tool).model_dump(exclude_unset=True, exclude_none=True)
    assert set(kept["function"]["parameters"]["properties"]["limit"]) == {"type", "description"}  # verl's loss
    assert json.dumps(tool) in prompt_text  # all of it reaches the model
    result = _result(out)
    assert result["toolCalls"] == 0 and _row_out(out)[2][len(_row_out(out)[0]) - 1] == _f32(result["reward"])


def test_malformed_calls_reach_the_env_and_come_back_as_its_errors(verl_env: SimpleNamespace) -> None:
    replies = iter(['<tool_call>\n{"name": "list_users", "arguments": {"limit": 3\n</tool_call>',
                    '<tool_call>\n{"name": "no_such_tool", "arguments": {}}\n</tool_call>',
                    '<tool_call>\n{"name": "list_users", "arguments": {"limit": "three"}}\n</tool_call>',
                    "I could not finish."])
    out, server = _rollout(verl_env, silo_verl.dataset("silo/demo-TASK-002", seed=3), lambda p, s: next(replies))
    result = _result(out)
    trace = [json.loads(line) for line in
             pathlib.Path(out.non_tensor_batch["silo"][0]["run_dir"], "trace.jsonl").read_text().splitlines()]
    codes = [e["output"]["code"] for e in trace if e["type"] == "tool_result"]
    assert codes == ["invalid_action", "tool_not_found", "invalid_input"] and result["toolErrors"] == 3
    tok = verl_env.tokenizer
    for (prompt, _), code in zip(server.calls[1:], codes, strict=True):
        shown = _RESPONSE_RE.findall(tok.decode(prompt, skip_special_tokens=False))[-1]
        assert json.loads(shown)["isError"] is True and json.loads(shown)["output"]["code"] == code
    response, mask, scores, _ = _row_out(out)
    assert scores[len(response) - 1] == _f32(result["reward"]) and mask[-1] == 1


def _other_worker(verl_env: SimpleNamespace, tmp_path: pathlib.Path, loop_options: dict[str, Any],
                  *overrides: str) -> SimpleNamespace:
    """A worker with its own loop options and verl overrides (the same model directory)."""
    loop_config = tmp_path / f"loops-{len(list(tmp_path.glob('loops-*')))}.yaml"
    loop_config.write_text(yaml.safe_dump(silo_verl.agent_loop_config(**loop_options)), encoding="utf-8")
    config = _compose(verl_env.root / "model", loop_config, *overrides)
    worker = AgentLoopWorker(config, llm_client=None)
    return SimpleNamespace(**{**vars(verl_env), "config": config, "worker": worker, "root": tmp_path})


def test_verls_limits_end_the_episode_graded_with_the_reward_on_a_model_token(
        verl_env: SimpleNamespace, tmp_path: pathlib.Path) -> None:
    rows = silo_verl.dataset("silo/demo-TASK-002", seed=3)
    # max_tool_calls (the env's budget) ends it in mid-turn: the ending result is not appended
    env = _other_worker(verl_env, tmp_path, {"runs_dir": str(tmp_path / "runs"), "max_tool_calls": 2})
    calls = "".join(_call_text({"tool": "list_users", "input": {"limit": n}}) for n in (1, 2, 3))
    out, server = _rollout(env, rows, lambda p, s: calls)
    result = _result(out)
    assert result["terminationReason"] == "max_tool_calls" and len(server.calls) == 1
    response, mask, scores, _ = _row_out(out)
    assert response == server.calls[0][1] and set(mask) == {1}  # only the model's tokens
    assert scores[len(response) - 1] == _f32(result["reward"]) and sum(scores) == _f32(result["reward"])
    # verl's max_user_turns ends a model that never answers: agent_error, graded, that reward returned
    env = _other_worker(verl_env, tmp_path, {"runs_dir": str(tmp_path / "runs")},
                        "actor_rollout_ref.rollout.multi_turn.max_user_turns=3")
    out, server = _rollout(env, rows, lambda p, s: _call_text({"tool": "get_current_date", "input": {}}))
    result = _result(out)
    assert result["terminationReason"] == "agent_error" and "max_user_turns (3)" in result["error"]
    assert len(server.calls) == 3 and result["toolCalls"] == 3
    response, mask, scores, _ = _row_out(out)
    assert scores[len(response) - 1] == _f32(result["reward"]) and sum(scores) == _f32(result["reward"])
    # verl's response_length runs out: the results that do not fit are not appended
    env = _other_worker(verl_env, tmp_path, {"runs_dir": str(tmp_path / "runs")},
                        "actor_rollout_ref.rollout.response_length=60")
    out, server = _rollout(env, rows, lambda p, s: _call_text({"tool": "get_current_date", "input": {}}))
    result = _result(out)
    assert result["terminationReason"] == "agent_error" and "response_length (60 tokens)" in result["error"]
    response, mask, scores, _ = _row_out(out)
    assert len(response) <= 60 and mask[-1] == 1 and scores[len(response) - 1] == _f32(result["reward"])
    # an answer that just fits the budget and ends its turn is an answer, not a cut reply
    fits = len(verl_env.tokenizer.encode("Done.", add_special_tokens=False)) + 1
    env = _other_worker(verl_env, tmp_path, {"runs_dir": str(tmp_path / "runs")},
                        f"actor_rollout_ref.rollout.response_length={fits}")
    out, server = _rollout(env, rows, lambda p, s: "Done.")
    result = _result(out)
    assert result["terminationReason"] == "completed" and result["agentOutput"] == "Done."
    response, mask, scores, _ = _row_out(out)
    assert len(response) == fits and scores[fits - 1] == _f32(result["reward"])


def test_the_loop_refuses_an_env_limit_above_verls_tool_response_limit(verl_env: SimpleNamespace,
                                                                      tmp_path: pathlib.Path) -> None:
    rows = silo_verl.dataset("silo/demo-TASK-002", seed=3)
    env = _other_worker(verl_env, tmp_path, {"max_observation_length": 9000})
    from hydra.errors import InstantiationException

    with pytest.raises(InstantiationException, match=r"max_observation_length \(9000\) is above verl's "
                                         r"multi_turn.max_tool_response_length \(8192\)"):
        _rollout(env, rows, solver_script)
    # a prompt longer than rollout.prompt_length: verl would cut its start (the tools); refused
    env = _other_worker(verl_env, tmp_path, {}, "actor_rollout_ref.rollout.prompt_length=512")
    with pytest.raises(ValueError, match=r"above verl's rollout.prompt_length \(512\)"):
        _rollout(env, rows, solver_script)


def test_verls_own_tool_loop_cuts_long_results_and_recreates_tools_per_call() -> None:
    """The two traps of verl's ToolAgentLoop the silo loop avoids, shown with verl's own code."""
    from unittest.mock import MagicMock

    created: list[str] = []

    class CountingTool:
        name = "t"

        async def create(self, create_kwargs: Any = None) -> tuple[str, ToolResponse]:
            created.append("create")
            return f"inst-{len(created)}", ToolResponse()

        async def execute(self, instance_id: str, parameters: Any, **kwargs: Any) -> tuple[ToolResponse, float, dict]:
            return ToolResponse(text="x" * 300), 0.0, {}

        async def release(self, instance_id: str) -> None:
            created.append("release")

    loop = MagicMock(spec=ToolAgentLoop)
    loop.tools = {"t": CountingTool()}
    loop.max_tool_response_length = 256
    loop.tool_response_truncate_side = "right"
    call = ToolAgentLoop._call_tool.__get__(loop, ToolAgentLoop)
    data = SimpleNamespace(tools_kwargs={})
    responses = [asyncio.run(call(SimpleNamespace(name="t", arguments="{}"), {}, data))[0] for _ in range(2)]
    assert created == ["create", "release", "create", "release"]  # no state survives a call
    assert all(r.text.endswith("...(truncated)") and len(r.text) < 300 for r in responses)
