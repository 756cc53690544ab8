"""``silo-gym learn``: one learning run of a local model (logic in :mod:`silo_gym.learn`)."""

from __future__ import annotations

import argparse

from .parser import Commands, directory


def learn_command(args: argparse.Namespace) -> int:
    """Run or resume the learning run into ``args.out``; print progress and the results table."""
    from ..learn import DEFAULT_TOOLS, LearnConfig, run_learning

    tools = None if args.tools == "all" else (args.tools.split(",") if args.tools else list(DEFAULT_TOOLS))
    config = LearnConfig(tasks=args.tasks, tools=tools, solver=args.solver, train_per_task=args.train,
                         held_out_per_task=args.held_out, seed=args.seed, sft_epochs=args.sft_epochs, sft_learning_rate=args.sft_learning_rate,
                         sft_batch_size=args.sft_batch_size, sft_assistant_only_loss=args.sft_loss == "assistant",
                         grpo_steps=args.grpo_steps, num_generations=args.num_generations,
                         temperature=args.temperature,
                         max_new_tokens=args.max_new_tokens, model=args.model,
                         max_completion_length=args.max_completion_length)
    run_learning(args.out, config, progress=lambda text: print(text, flush=True))
    return 0


def register(commands: Commands) -> None:
    """``silo-gym learn``."""
    from ..learn import DEFAULT_TASKS

    about = "train a local model (SFT, then GRPO) and evaluate it on held-out variants"
    p = commands.add_parser("learn", help=about, description=about)
    p.add_argument("--out", metavar="DIR", type=directory, required=True,
                   help="the run's directory (a run there is resumed from its last finished stage)")
    p.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS), metavar="ID",
                   help="silo ids of one environment's tasks")
    p.add_argument("--tools", default=None, metavar="NAMES",
                   help="comma-separated tool names shown to the model, or 'all'")
    p.add_argument("--solver", default="examples/agents/crm_solver.py:make_policy", metavar="PATH[:NAME]",
                   help="the reference solver whose episodes are the SFT data")
    p.add_argument("--model", default=None, metavar="PATH", help="a model directory or .gguf")
    p.add_argument("--train", type=int, default=30, metavar="N", help="training variants per task")
    p.add_argument("--held-out", type=int, default=20, metavar="N", help="held-out variants per task")
    p.add_argument("--sft-epochs", type=float, default=1.0, metavar="E", help="SFT epochs")
    p.add_argument("--sft-learning-rate", type=float, default=5e-4, metavar="LR", help="LoRA SFT learning rate")
    p.add_argument("--sft-batch-size", type=int, default=2, metavar="N", help="SFT rows per optimizer step")
    p.add_argument("--sft-loss", choices=("assistant", "all"), default="assistant",
                   help="SFT loss on the assistant's tokens only (default) or on every token")
    p.add_argument("--grpo-steps", type=int, default=2, metavar="N", help="GRPO steps")
    p.add_argument("--num-generations", type=int, default=4, metavar="G", help="GRPO group size")
    p.add_argument("--temperature", type=float, default=1.0, metavar="T",
                   help="GRPO's sampling temperature (a small model garbles long tool arguments at 1.0)")
    p.add_argument("--max-new-tokens", type=int, default=160, metavar="N",
                   help="longest reply in the evaluations")
    p.add_argument("--max-completion-length", type=int, default=512, metavar="N",
                   help="GRPO's completion budget in tokens, tool results included")
    p.add_argument("--seed", type=int, default=0, help="the base seed")
    p.set_defaults(handler=learn_command)
