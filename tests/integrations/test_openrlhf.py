"""OpenRLHF: the ``AgentExecutor`` of ``silo_gym.integrations.openrlhf`` run by OpenRLHF's own
``MultiTurnAgentExecutor.execute`` (its source, from the openrlhf wheel: OpenRLHF itself needs
flash-attn and vLLM, so it is not installed), the way OpenRLHF's tests drive it on CPU: a fake
vLLM engine answering token ids, a real tokenizer, the prompt rendered as its prompt data set
does (``apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)``)."""

from __future__ import annotations

import asyncio
import glob
import importlib.util
import json
import os
import pathlib
import re
import sys
import types
from types import SimpleNamespace
from typing import Any

import pytest

from ._helpers import ROOT, load_solver

pytest.importorskip("torch")


def _openrlhf_source() -> pathlib.Path | None:
    found = os.environ.get("SILO_GYM_OPENRLHF_SRC")
    if found:
        return pathlib.Path(found)
    hits = sorted(glob.glob(str(ROOT / ".venv" / "trainer-src" / "openrlhf" / "openrlhf-*.data" / "purelib")))
    return pathlib.Path(hits[-1]) if hits else None


SOURCE = _openrlhf_source()
if SOURCE is None or not (SOURCE / "openrlhf" / "utils" / "agent.py").is_file():
    pytest.skip("could not import openrlhf: its source is unpacked by `make setup-dev` under "
                ".venv/trainer-src/openrlhf (or set SILO_GYM_OPENRLHF_SRC)", allow_module_level=True)

if "openrlhf" not in sys.modules:
    # The package's __init__ files pull torch/transformers/sympy/pylatexenc helpers the agent
    # module does not use: bind the packages to their source folders, then import the real
    # openrlhf.utils.agent (and the real openrlhf.utils.logging_utils it imports).
    for name, folder in (("openrlhf", SOURCE / "openrlhf"), ("openrlhf.utils", SOURCE / "openrlhf" / "utils")):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
agent = importlib.import_module("openrlhf.utils.agent")
assert agent.__file__ == str(SOURCE / "openrlhf" / "utils" / "agent.py")

from silo_gym.integrations import openrlhf as silo_openrlhf  # noqa: E402

from ._chat_tokenizer import make_tokenizer  # noqa: E402

_RESULT_RE = re.compile(r"<tool_result>\n(.*?)\n</tool_result>", re.DOTALL)


class FakeEngine:
    """vLLM's ``generate`` faked as OpenRLHF's tests do: token ids in, token ids and text out."""

    def __init__(self, tokenizer: Any, script: Any) -> None:
        self.tokenizer = tokenizer
        self.script = script
        self.state: dict[str, Any] = {}
        self.outputs: list[list[int]] = []

    async def generate(self, token_ids: list[int], sampling_params: Any, **kwargs: Any) -> Any:
        text = self.script(self.tokenizer.decode(token_ids, skip_special_tokens=False), self.state)
        ids = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        reason = "stop"
        if sampling_params.max_tokens is not None and len(ids) > sampling_params.max_tokens:
            ids, reason = ids[: sampling_params.max_tokens], "length"
        self.outputs.append(ids)
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids, text=self.tokenizer.decode(ids, skip_special_tokens=True),
                                                        finish_reason=reason, logprobs=None)])


def solver_script(prompt: str, state: dict[str, Any]) -> str:
    if "plan" not in state:
        user = re.findall(r"<\|im_start\|>user\n(.*?)<\|im_end\|>", prompt, re.DOTALL)[0]
        state["plan"] = load_solver().plan(user)
        action = next(state["plan"])
    else:
        action = state["plan"].send(json.loads(_RESULT_RE.findall(prompt)[-1]))
    return str(action["answer"]) if "answer" in action else f"<tool_call>{json.dumps(action)}</tool_call>"


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return make_tokenizer()


def _load_agent_func(path: pathlib.Path) -> Any:
    """What OpenRLHF's ``_load_agent_executor`` does with ``--train.agent_func_path``."""
    spec = importlib.util.spec_from_file_location("agent_module", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert issubclass(module.AgentExecutor, agent.AgentExecutorBase)
    return module.AgentExecutor()


def _execute(tmp_path: pathlib.Path, tokenizer: Any, script: Any, *, max_length: int = 60_000,
             task: str = "TASK-002", rows_options: dict[str, Any] | None = None,
             **options: Any) -> tuple[dict[str, Any], FakeEngine, dict[str, Any], str]:
    agent_func = tmp_path / "agent_func.py"
    arguments = ", ".join([repr("silo/demo"), f"runs_dir={str(tmp_path / 'runs')!r}"]
                          + [f"{k}={v!r}" for k, v in options.items()])
    agent_func.write_text("from silo_gym.integrations.openrlhf import agent_executor\n"
                          f"AgentExecutor = agent_executor({arguments})\n", encoding="utf-8")
    executor = _load_agent_func(agent_func)
    row = silo_openrlhf.dataset(f"silo/demo-{task}", seed=3, **(rows_options or {}))[0]
    prompt = tokenizer.apply_chat_template(row["prompt"], tokenize=False, add_generation_prompt=True)
    engine = FakeEngine(tokenizer, script)
    out = asyncio.run(executor.execute(prompt, row["label"], SimpleNamespace(max_tokens=None, logprobs=None),
                                       max_length, tokenizer, engine))
    (run,) = (tmp_path / "runs").iterdir()
    return out, engine, json.loads((run / "result.json").read_text(encoding="utf-8")), prompt


def test_a_scripted_episode_gives_result_json_s_reward_and_only_model_tokens_as_actions(tmp_path, tokenizer):
    out, engine, result, prompt = _execute(tmp_path, tokenizer, solver_script)
    assert out["reward"] == out["scores"] == result["reward"] == 1.0 and result["toolCalls"] == 3
    tokens, ranges = out["observation_tokens"], out["action_ranges"]
    assert [tokens[a:b] for a, b in ranges] == engine.outputs  # the action spans are the generated tokens
    prompt_ids = tokenizer(text=prompt, add_special_tokens=False)["input_ids"]
    assert tokens[: len(prompt_ids)] == prompt_ids and ranges[0][0] == len(prompt_ids)
    # between the actions: the tool results as a user turn of the chat template, nothing else
    feedback = [tokenizer.decode(tokens[b:a2]) for (_, b), (a2, _) in zip(ranges, ranges[1:], strict=False)]
    observations = [_RESULT_RE.findall(f)[0] for f in feedback]
    assert all(f == f"\n<|im_start|>user\n<tool_result>\n{o}\n</tool_result><|im_end|>\n<|im_start|>assistant\n"
               for f, o in zip(feedback, observations, strict=True))
    actions = "".join(tokenizer.decode(tokens[a:b]) for a, b in ranges)
    assert len(observations) == 3 and all(o not in actions for o in observations)
    # the whole sequence is what the chat template renders for the conversation
    conversation = json.loads(json.dumps(silo_openrlhf.dataset("silo/demo-TASK-002", seed=3)[0]["prompt"]))
    for i, (a, b) in enumerate(ranges):
        conversation.append({"role": "assistant", "content": tokenizer.decode(tokens[a:b], skip_special_tokens=True)})
        if i < len(observations):
            conversation.append({"role": "user", "content": f"<tool_result>\n{observations[i]}\n</tool_result>"})
    assert tokenizer.decode(tokens) + "\n" == tokenizer.apply_chat_template(conversation, tokenize=False)
    assert out["extra_logs"]["silo_tool_calls"].item() == 3.0 and out["extra_logs"]["silo_passed"].item() == 1.0


def test_a_malformed_call_reaches_the_env_and_its_error_is_the_feedback(tmp_path, tokenizer):
    replies = iter(["<tool_call>{not json</tool_call>", '<tool_call>{"tool": "nope", "input": {}}</tool_call>',
                    "I give up."])
    out, engine, result, _ = _execute(tmp_path, tokenizer, lambda prompt, state: next(replies))
    assert result["toolErrors"] == 2 and out["reward"] == result["reward"]
    tokens, ranges = out["observation_tokens"], out["action_ranges"]
    shown = [json.loads(_RESULT_RE.findall(tokenizer.decode(tokens[b:a2]))[0])
             for (_, b), (a2, _) in zip(ranges, ranges[1:], strict=False)]
    assert [s["output"]["code"] for s in shown] == ["invalid_action", "tool_not_found"]


def test_when_max_len_runs_out_the_trainer_still_gets_result_json_s_reward(tmp_path, tokenizer):
    # a model that never answers: OpenRLHF stops when the sequence reaches max_len, without a last step
    prompt_len = len(tokenizer(text=tokenizer.apply_chat_template(
        silo_openrlhf.dataset("silo/demo-TASK-002", seed=3)[0]["prompt"], tokenize=False, add_generation_prompt=True),
        add_special_tokens=False)["input_ids"])
    out, engine, result, _ = _execute(
        tmp_path, tokenizer, lambda p, s: '<tool_call>{"tool": "get_current_date", "input": {}}</tool_call>',
        max_length=prompt_len + 300)
    assert result["terminationReason"] == "agent_error" and "max_len" in result["error"]
    assert out["reward"] == out["scores"] == result["reward"] and result["toolCalls"] >= 1


def test_labels_and_agent_executor_options() -> None:
    rows = silo_openrlhf.dataset("silo/demo-TASK-001", repeats=2, seed=1)
    labels = [json.loads(r["label"]) for r in rows]
    assert [lab["task_id"] for lab in labels] == ["TASK-001", "TASK-001"] and labels[0]["seed"] != labels[1]["seed"]
    assert rows[0]["prompt"][0]["role"] == "system" and "create_opportunity" in rows[0]["prompt"][0]["content"]
    assert silo_openrlhf._label("TASK-004") == {"task_id": "TASK-004"}
    with pytest.raises(ValueError, match="Unknown env keywords: max_turns"):
        silo_openrlhf.agent_executor("silo/demo", max_turns=3)


def test_a_prompt_without_the_instruction_is_refused(tmp_path, tokenizer):
    executor = silo_openrlhf.agent_executor("silo/demo", runs_dir=str(tmp_path))()
    with pytest.raises(ValueError, match="does not hold its instruction"):
        asyncio.run(executor.execute("<|im_start|>user\nhello<|im_end|>\n", json.dumps({"task_id": "TASK-001"}),
                                     SimpleNamespace(max_tokens=None, logprobs=None), 4096, tokenizer,
                                     FakeEngine(tokenizer, solver_script)))
    assert list(tmp_path.iterdir()) == []  # nothing acted: nothing recorded


def test_a_row_chooses_its_variant_world(tmp_path, tokenizer):
    row = silo_openrlhf.dataset("silo/demo-TASK-002", seed=3, variants=True)[0]
    variant = json.loads(row["label"])["variant"]
    assert isinstance(variant, int)
    # the executor's envs are canonical by default: the label alone makes them play that variant
    out, engine, result, _ = _execute(tmp_path, tokenizer, solver_script, rows_options={"variants": True})
    (run,) = (tmp_path / "runs").iterdir()
    assert json.loads((run / "run.json").read_text())["config"]["variant"] == variant
    assert out["reward"] == result["reward"]
