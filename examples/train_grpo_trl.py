"""Train an LLM agent on silo tasks with TRL: an SFT warm start on the reference solver's
episodes, then GRPO with the tasks as environments (docs/training.md).

What this shows, plainly: the plumbing (TRL's trainers, tool calls stepping silo envs, rewards
from the verifiers), not learning. Its tiny random model emits broken tool-call fragments and
earns the do-nothing reward, and each step draws other tasks, so the per-step reward is no
learning curve. A real model learning, measured on held-out variants: ``silo-gym learn``
(docs/learning.md).

Without ``--model`` it runs on CPU in a minute or two: a tiny randomly initialised model and a
tokenizer trained here on the warm-start conversations (nothing is downloaded). Such a model only
learns to replay the solver, but every part is real: TRL's SFTTrainer and GRPOTrainer, the
model's tool calls stepping the silo envs, the verifiers' rewards. With ``--model`` (a Hugging
Face model name or directory with a tool-calling chat template, for example a Qwen 2.5/3
instruct model) the same script trains that model; give it a GPU.

    python examples/train_grpo_trl.py [--tasks silo/demo] [--sft-steps 100] [--steps 6]
        [--model NAME] [--runs-dir DIR] [--output-dir DIR]

Prints the SFT loss, then one line per GRPO step: ``step <n> mean reward <r> (rewards ...)``.
Every GRPO rollout is recorded as a Silo run under ``--runs-dir`` (default: a temp dir).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

#: A Hermes-style chat template: tool calls as ``<tool_call>{"name", "arguments"}</tool_call>``,
#: the format of Qwen 2.5 that TRL's response parser reads. It lists only the tool names, to keep
#: the tiny model's prompts short; the assistant turn is marked with {% generation %} so SFT can
#: train on the assistant's tokens only. A real model keeps its own template.
CHAT_TEMPLATE = """\
{%- set ns = namespace(first=0) -%}
{{- '<|im_start|>system\\n' -}}
{%- if messages and messages[0]['role'] == 'system' -%}
{{- messages[0]['content'] + '\\n' -}}
{%- set ns.first = 1 -%}
{%- endif -%}
{%- if tools -%}
{{- '# Tools\\n' -}}
{%- for tool in tools -%}
{%- set fn = tool['function'] if tool['function'] is defined else tool -%}
{{- fn['name'] + '\\n' -}}
{%- endfor -%}
{%- endif -%}
{{- '<|im_end|>\\n' -}}
{%- for message in messages[ns.first:] -%}
{%- if message['role'] == 'assistant' -%}
{{- '<|im_start|>assistant\\n' -}}
{%- generation -%}
{%- if message['content'] -%}{{- message['content'] -}}{%- endif -%}
{%- for call in message['tool_calls'] or [] -%}
{%- set fn = call['function'] if call['function'] is defined else call -%}
{{- '<tool_call>\\n{"name": "' + fn['name'] + '", "arguments": ' + (fn['arguments'] | tojson) + '}\\n</tool_call>' -}}
{%- endfor -%}
{{- '<|im_end|>' -}}
{%- endgeneration -%}
{{- '\\n' -}}
{%- else -%}
{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|im_start|>assistant\\n' -}}
{%- endif -%}
"""

#: Plain float32 on CPU: TRL's configs default to bf16 autocast and gradient checkpointing, which
#: a tiny CPU model only pays for (bf16 sampling also derails its generations).
CPU_ARGS = {"use_cpu": True, "bf16": False, "gradient_checkpointing": False}


def train_tokenizer(texts: list[str], vocab_size: int = 2000) -> Any:
    """A byte-level BPE tokenizer trained on ``texts``, with :data:`CHAT_TEMPLATE` and TRL's
    response parser for Hermes-style tool calls."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen3_template

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    backend.train_from_iterator(texts, trainer=trainer)
    # As in Qwen's tokenizer: the tool-call tags are single tokens that stay in decoded text.
    backend.add_tokens([AddedToken(t, special=False) for t in ("<tool_call>", "</tool_call>")])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        padding_side="left")
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.response_template = qwen3_template
    return tokenizer


def tiny_model_and_tokenizer(sft: Any) -> tuple[Any, Any]:
    """A 2-layer causal LM (hidden size 64) and a tokenizer trained on the SFT conversations."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    bootstrap = train_tokenizer(["x"])
    texts = [bootstrap.apply_chat_template(r["messages"], tools=json.loads(r["tools"]), tokenize=False) for r in sft]
    tokenizer = train_tokenizer(texts)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                         tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=None)
    return Qwen2ForCausalLM(config), tokenizer


def load_solver() -> Any:
    path = Path(__file__).resolve().parent / "agents" / "crm_solver.py"
    spec = importlib.util.spec_from_file_location("_crm_solver_for_training", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", nargs="+", default=["silo/demo"], help="silo ids of one environment")
    parser.add_argument("--model", help="a Hugging Face model name or directory (default: a tiny local model)")
    parser.add_argument("--sft-steps", type=int, default=100)
    parser.add_argument("--steps", type=int, default=6, help="GRPO steps")
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument("--max-completion-length", type=int, default=1536)
    parser.add_argument("--temperature", type=float, default=1.5)
    parser.add_argument("--runs-dir", help="where GRPO rollouts are recorded (default: a temp dir)")
    parser.add_argument("--output-dir", help="trainer output (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from transformers import PrinterCallback
    from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

    from silo_gym import data
    from silo_gym.integrations import trl as silo_trl

    work = Path(tempfile.mkdtemp(prefix="silo-grpo-"))
    runs_dir = args.runs_dir or str(work / "runs")
    output_dir = args.output_dir or str(work / "out")
    torch.manual_seed(args.seed)
    env_class = silo_trl.environment_factory(args.tasks, runs_dir=runs_dir,
                                             max_completion_length=args.max_completion_length)
    rows = data.collect(args.tasks, load_solver().make_policy, episodes_per_task=1, seed=args.seed)
    sft = silo_trl.sft_dataset(rows, env_class)
    print(f"SFT warm start on {len(sft)} solver episodes of {', '.join(env_class.task_ids)}")

    cpu: dict[str, Any] = {}
    if args.model:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model = AutoModelForCausalLM.from_pretrained(args.model)
        tokenizer = AutoTokenizer.from_pretrained(args.model)
        assistant_only = False  # most model templates lack {% generation %} markers
    else:
        torch.set_num_threads(min(2, torch.get_num_threads()))
        model, tokenizer = tiny_model_and_tokenizer(sft)
        cpu = CPU_ARGS
        assistant_only = True
    common = {"report_to": [], "save_strategy": "no", "disable_tqdm": True, "seed": args.seed, **cpu}

    sft_trainer = SFTTrainer(
        model=model, processing_class=tokenizer, train_dataset=sft,
        args=SFTConfig(output_dir=f"{output_dir}/sft", max_steps=args.sft_steps, learning_rate=1e-2 if not args.model else 1e-5,
                       lr_scheduler_type="constant", per_device_train_batch_size=2, assistant_only_loss=assistant_only,
                       max_length=None, logging_steps=max(1, args.sft_steps // 5), **common),
    )
    sft_trainer.remove_callback(PrinterCallback)  # print our own summary, not every log dict
    sft_trainer.train()
    losses = [f"{e['loss']:.3f}" for e in sft_trainer.state.log_history if "loss" in e]
    print(f"SFT loss: {' -> '.join(losses)}")

    rewards: list[float] = []

    def silo_reward(prompts: Any, completions: Any, environments: Any, **kwargs: Any) -> list[float | None]:
        out = silo_trl.reward(prompts, completions, environments, **kwargs)
        rewards.extend(r for r in out if r is not None)
        return out

    per_step = 2 * args.num_generations
    trainer = GRPOTrainer(
        model=sft_trainer.model, processing_class=tokenizer, reward_funcs=silo_reward,
        train_dataset=silo_trl.dataset(args.tasks, repeats=2 * args.steps, seed=args.seed),  # 2 prompts a step
        environment_factory=env_class,
        args=GRPOConfig(output_dir=f"{output_dir}/grpo", max_steps=args.steps, learning_rate=1e-3 if not args.model else 1e-6,
                        beta=0.0, per_device_train_batch_size=per_step, num_generations=args.num_generations,
                        max_completion_length=args.max_completion_length, max_tool_calling_iterations=8,
                        temperature=args.temperature, logging_steps=1, **common),
    )
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    for step in range(args.steps):
        chunk = rewards[step * per_step:(step + 1) * per_step]
        if chunk:
            shown = " ".join(f"{r:g}" for r in chunk)
            print(f"step {step + 1} mean reward {statistics.fmean(chunk):.3f} (rewards {shown})")
    print(f"runs recorded in {runs_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
