"""Real GRPOTrainer steps on CPU fed by a curriculum (issue 21): TRL streams the
``curriculum_dataset``, every generation of a prompt starts from that prompt's world, the
environments report each rollout to the curriculum, and the reward's parts are logged apart.

The model is the example's tiny randomly initialised LM (no warm start): what is checked is the
plumbing, not learning (``test_trl_grpo.py`` is the learning proof).
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from silo_gym import data  # noqa: E402
from silo_gym.curriculum import Curriculum  # noqa: E402
from silo_gym.integrations import trl as silo_trl  # noqa: E402

from ._helpers import load_solver, load_training_example  # noqa: E402

EXAMPLE = load_training_example()
TASKS = ["silo/demo-TASK-005", "silo/demo-TASK-006"]
NUM_GENERATIONS = 2
STEPS = 2
PROMPTS_PER_STEP = 2


@pytest.fixture(scope="module")
def curriculum_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    tmp = tmp_path_factory.mktemp("grpo-curriculum")
    try:
        curriculum = Curriculum.from_ids(TASKS, variants_per_task=2, seed=0)
        env_class = silo_trl.environment_factory(TASKS, runs_dir=str(tmp / "runs"), max_completion_length=256,
                                                 variants=True, curriculum=curriculum)
        sft = silo_trl.sft_dataset(data.collect(TASKS, load_solver().make_policy, episodes_per_task=1), env_class)
        model, tokenizer = EXAMPLE.tiny_model_and_tokenizer(sft)
        seen: list[dict[str, Any]] = []

        def watch(prompts: Any, completions: Any, environments: Any, **kwargs: Any) -> list[float | None]:
            rewards = silo_trl.reward(prompts, completions, environments, **kwargs)
            for env, seed, variant in zip(environments, kwargs["seed"], kwargs["variant"], strict=True):
                seen.append({"run_dir": env.info["run_dir"], "seed": seed, "variant": variant})
            return rewards

        args = GRPOConfig(output_dir=str(tmp / "grpo"), max_steps=STEPS, learning_rate=1e-3, beta=0.0,
                          per_device_train_batch_size=PROMPTS_PER_STEP * NUM_GENERATIONS,
                          num_generations=NUM_GENERATIONS, max_completion_length=256, max_tool_calling_iterations=2,
                          shuffle_dataset=False, reward_weights=[1.0, 0.0, 0.0], logging_steps=1,
                          save_strategy="no", report_to=[], seed=0, disable_tqdm=True, **EXAMPLE.CPU_ARGS)
        trainer = GRPOTrainer(model=model, reward_funcs=[watch, silo_trl.passed, silo_trl.required_fraction],
                              args=args, train_dataset=silo_trl.curriculum_dataset(curriculum, variants=True),
                              processing_class=tokenizer, environment_factory=env_class)
        trainer.train()
    finally:
        torch.set_num_threads(threads)
    return {"seen": seen, "log": trainer.state.log_history, "curriculum": curriculum}


def _run(run_dir: str) -> dict[str, Any]:
    return json.loads(pathlib.Path(run_dir, "run.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_every_generation_of_a_streamed_prompt_plays_its_world(curriculum_run: dict[str, Any]) -> None:
    seen = curriculum_run["seen"]
    assert len(seen) == STEPS * PROMPTS_PER_STEP * NUM_GENERATIONS
    items = set(curriculum_run["curriculum"].items)
    for start in range(0, len(seen), NUM_GENERATIONS):
        group = seen[start:start + NUM_GENERATIONS]
        runs = [_run(g["run_dir"]) for g in group]
        assert len({(r["taskId"], r["config"]["variant"], r["task"]["instruction"]) for r in runs}) == 1
        assert len({g["seed"] for g in group}) == 1
        assert runs[0]["config"]["variant"] == group[0]["variant"]
        assert ("demo", runs[0]["taskId"], runs[0]["config"]["variant"]) in items


def test_the_curriculum_heard_every_rollout(curriculum_run: dict[str, Any]) -> None:
    stats = curriculum_run["curriculum"].stats()
    assert sum(s["episodes"] for s in stats) == len(curriculum_run["seen"])
    assert sum(s["draws"] for s in stats) >= STEPS * PROMPTS_PER_STEP  # TRL may read ahead


def test_each_reward_part_is_logged_under_its_name(curriculum_run: dict[str, Any]) -> None:
    logged = [entry for entry in curriculum_run["log"] if "rewards/passed/mean" in entry]
    assert len(logged) == STEPS
    per_step = PROMPTS_PER_STEP * NUM_GENERATIONS
    for step, entry in enumerate(logged):
        results = [json.loads(pathlib.Path(g["run_dir"], "result.json").read_text(encoding="utf-8"))
                   for g in curriculum_run["seen"][step * per_step:(step + 1) * per_step]]
        fractions = [r["requiredPassed"] / r["requiredTotal"] for r in results]
        assert entry["rewards/passed/mean"] == pytest.approx(sum(r["passed"] for r in results) / per_step)
        assert entry["rewards/required_fraction/mean"] == pytest.approx(sum(fractions) / per_step)
        assert entry["reward"] == pytest.approx(entry["rewards/watch/mean"])  # weights 1, 0, 0
