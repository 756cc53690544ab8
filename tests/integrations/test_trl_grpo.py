"""The proof: real TRL training steps on CPU against silo tasks (issue 12).

A tiny randomly initialised causal LM and a tokenizer trained here (nothing is downloaded) are
warm-started with TRL's SFTTrainer on ``sft_dataset`` rows of the reference solver's episodes,
then trained with GRPOTrainer(environment_factory=...) on demo tasks, every rollout recorded as a
Silo run. The tests read those runs back.
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
from transformers import TrainerCallback  # noqa: E402
from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer  # noqa: E402
from trl.chat_template_utils import is_chat_template_prefix_preserving, supports_tool_calling  # noqa: E402

from silo_gym import data  # noqa: E402
from silo_gym.integrations import trl as silo_trl  # noqa: E402

from ._helpers import load_solver, load_training_example  # noqa: E402

pytestmark = pytest.mark.slow  # make test-fast leaves this module out (README, "Developing")

#: The tiny model, tokenizer, chat template and CPU settings come from the example.

EXAMPLE = load_training_example()

TASKS = ["silo/demo-TASK-005", "silo/demo-TASK-006"]
NUM_GENERATIONS = 4
GRPO_STEPS = 3
MAX_COMPLETION_LENGTH = 1536
class _WeightWatch(TrainerCallback):  # type: ignore[misc]
    """Records, per optimizer step, whether any parameter changed."""

    def __init__(self) -> None:
        self.before: list[torch.Tensor] = []
        self.changed: dict[int, bool] = {}

    def on_step_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        self.before = [p.detach().clone() for p in model.parameters()]

    def on_step_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        after = list(model.parameters())
        self.changed[state.global_step] = any(not torch.equal(b, a.detach()) for b, a in zip(self.before, after, strict=True))


@pytest.fixture(scope="module")
def grpo_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # two test workers share two cores; more threads only contend
    torch.manual_seed(0)
    tmp = tmp_path_factory.mktemp("grpo")
    try:
        env_class = silo_trl.environment_factory(TASKS, runs_dir=str(tmp / "runs"),
                                                 max_completion_length=MAX_COMPLETION_LENGTH)
        solver = load_solver()
        rows = data.collect(TASKS, solver.make_policy, episodes_per_task=1)
        sft = silo_trl.sft_dataset(rows, env_class)

        model, tokenizer = EXAMPLE.tiny_model_and_tokenizer(sft)
        assert supports_tool_calling(tokenizer) and is_chat_template_prefix_preserving(tokenizer)

        sft_args = SFTConfig(output_dir=str(tmp / "sft"), max_steps=100, learning_rate=1e-2, lr_scheduler_type="constant",
                             per_device_train_batch_size=2, assistant_only_loss=True, max_length=None,
                             save_strategy="no", report_to=[], logging_steps=10, seed=0,
                             disable_tqdm=True, **EXAMPLE.CPU_ARGS)
        sft_trainer = SFTTrainer(model=model, args=sft_args, train_dataset=sft, processing_class=tokenizer)
        sft_trainer.train()

        seen: list[dict[str, Any]] = []

        def silo_reward(prompts: Any, completions: Any, environments: Any, **kwargs: Any) -> list[float | None]:
            rewards = silo_trl.reward(prompts, completions, environments, **kwargs)
            for env, value, completion, task_id in zip(environments, rewards, completions, kwargs["task_id"], strict=True):
                seen.append({"reward": value, "run_dir": env.info["run_dir"], "task_id": task_id,
                             "completion": completion})
            return rewards

        watch = _WeightWatch()
        grpo_args = GRPOConfig(output_dir=str(tmp / "grpo"), max_steps=GRPO_STEPS, learning_rate=1e-3, beta=0.0,
                               weight_decay=0.0, per_device_train_batch_size=2 * NUM_GENERATIONS,
                               num_generations=NUM_GENERATIONS, max_completion_length=MAX_COMPLETION_LENGTH,
                               max_tool_calling_iterations=3, temperature=1.5, logging_steps=1, save_strategy="no",
                               report_to=[], seed=0, disable_tqdm=True, **EXAMPLE.CPU_ARGS)
        trainer = GRPOTrainer(model=sft_trainer.model, reward_funcs=silo_reward, args=grpo_args,
                              train_dataset=silo_trl.dataset(TASKS, repeats=4), processing_class=tokenizer,
                              environment_factory=env_class, callbacks=[watch])
        trainer.train()
    finally:
        torch.set_num_threads(threads)
    per_step = len(seen) // GRPO_STEPS
    return {"seen": seen, "per_step": per_step, "log": trainer.state.log_history, "changed": watch.changed,
            "runs_dir": tmp / "runs", "sft_log": sft_trainer.state.log_history}


def _trace(run_dir: str) -> list[dict[str, Any]]:
    lines = pathlib.Path(run_dir, "trace.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_every_rollout_is_a_recorded_run_whose_reward_the_trainer_received(grpo_run: dict[str, Any]) -> None:
    seen = grpo_run["seen"]
    assert len(seen) == GRPO_STEPS * 2 * NUM_GENERATIONS
    assert len({s["run_dir"] for s in seen}) == len(seen)  # one run per rollout
    for s in seen:
        result = json.loads(pathlib.Path(s["run_dir"], "result.json").read_text(encoding="utf-8"))
        assert s["reward"] == result["reward"]
        run = json.loads(pathlib.Path(s["run_dir"], "run.json").read_text(encoding="utf-8"))
        assert run["taskId"] == s["task_id"]
    # and what the trainer logged is the mean of those result.json rewards, step by step
    means = [entry["reward"] for entry in grpo_run["log"] if "reward" in entry]
    per_step = grpo_run["per_step"]
    for step, mean in enumerate(means):
        chunk = seen[step * per_step:(step + 1) * per_step]
        assert mean == pytest.approx(statistics.fmean(s["reward"] for s in chunk), abs=1e-6)


def test_the_models_tool_calls_reached_the_silo_env(grpo_run: dict[str, Any]) -> None:
    calls = []
    for s in grpo_run["seen"]:
        made = [c["function"]["name"] for m in s["completion"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        traced = [e for e in _trace(s["run_dir"]) if e["type"] == "tool_call"]
        assert len(traced) >= sum(1 for name in made if name)  # every call the model made is in the trace
        calls += traced
    assert any(e["tool"] in ("stale_opportunities", "rep_performance") for e in calls)
    # a parsed call produced a real tool result in the trace
    results = [e for s in grpo_run["seen"] for e in _trace(s["run_dir"]) if e["type"] == "tool_result"]
    assert any(not e.get("isError") and e["tool"] == "stale_opportunities" for e in results)


def test_a_step_with_differing_rewards_in_a_group_changed_the_weights(grpo_run: dict[str, Any]) -> None:
    seen, per_step = grpo_run["seen"], grpo_run["per_step"]
    differing_steps = []
    for step in range(GRPO_STEPS):
        chunk = seen[step * per_step:(step + 1) * per_step]
        groups = [chunk[i:i + NUM_GENERATIONS] for i in range(0, len(chunk), NUM_GENERATIONS)]
        for group in groups:
            assert len({g["task_id"] for g in group}) == 1  # a group is one prompt's generations
        if any(len({g["reward"] for g in group}) > 1 for group in groups):
            differing_steps.append(step + 1)
    assert differing_steps, "no GRPO step had a group with differing rewards"
    assert all(grpo_run["changed"][step] for step in differing_steps)


def test_the_sft_warm_start_learned(grpo_run: dict[str, Any]) -> None:
    losses = [entry["loss"] for entry in grpo_run["sft_log"] if "loss" in entry]
    assert losses[-1] < losses[0] / 10
