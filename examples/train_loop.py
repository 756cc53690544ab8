"""A small learning loop that learns from the env's reward alone.

For each demo task the policy is a softmax over K candidate plans: the reference plan of
``examples/agents/crm_solver.py`` and corrupted versions of it (every figure wrong, the wrong
user acting and named, stopping after the first tool call, an empty answer).
A plan is a generator that yields actions and receives each tool result, as ``crm_solver.plan``
does, so every candidate reads real tool outputs. The policy never sees which plan is the
reference: it samples a plan per episode, runs the episodes in one vector env over the six demo
tasks (``silo_gym.make_vec``) and updates its logits by REINFORCE with a per-task baseline:

    theta[task] += lr * mean over the task's episodes of (reward - baseline) * grad log pi(plan)

where ``grad log pi(plan) = onehot(plan) - pi`` and the baseline is the mean reward of the task's
episodes in the batch. Each iteration runs exactly one episode per sub-env (``--envs-per-task``
sub-envs per task). Gymnasium steps every sub-env together, so a sub-env whose episode has ended
idles until the others finish by answering ``""`` at once in its fresh episode (those throwaway
episodes are graded, but not learned from).

    python examples/train_loop.py [--iterations N] [--envs-per-task M] [--lr LR] [--seed S]

Prints the mean reward per iteration and exits 0 when the final mean reward beats the first by at
least ``--margin``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import numpy as np

import silo_gym

HERE = Path(__file__).resolve().parent
TASKS = [f"TASK-00{n}" for n in range(1, 7)]
IDLE = {"answer": ""}

Action = dict[str, Any]
Plan = Generator[Action, dict[str, Any], None]


def load_solver() -> Any:
    """``examples/agents/crm_solver.py`` as a module (examples are not a package)."""
    spec = importlib.util.spec_from_file_location("crm_solver", HERE / "agents" / "crm_solver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


solver = load_solver()


# ---------------------------------------------------------------------------------------------
# The candidate plans: the reference and its corruptions
# ---------------------------------------------------------------------------------------------


def reference(instruction: str) -> Plan:
    """The reference solver's plan."""
    return solver.plan(instruction)


#: The demo's users (demo-crm.md §4.2), for the wrong-person corruption.
USERS = ["Amara Osei", "Daniel Reyes", "Priya Nair", "Tomas Bergstrom", "Lena Fischer", "Kofi Mensah"]


def _shift_digits(text: str) -> str:
    return re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), text)


def _corrupted(instruction: str, fix_input: Callable[[str], str], fix_answer: Callable[[str], str]) -> Plan:
    """The reference plan with ``fix_input`` applied to each tool input (as JSON text) and
    ``fix_answer`` to the answer; the reference still reads the real tool results."""
    steps = reference(instruction)
    action = next(steps)
    while "answer" not in action:
        changed = json.loads(fix_input(json.dumps(action["input"])))
        action = steps.send((yield {"tool": action["tool"], "input": changed}))
    yield {"answer": fix_answer(str(action["answer"]))}


def wrong_figures(instruction: str) -> Plan:
    """The reference plan with every digit changed, in the tool inputs and in the answer."""
    return _corrupted(instruction, _shift_digits, _shift_digits)


def _departed_user(text: str) -> str:
    return re.sub(r"USR-\d{3}", lambda m: "USR-006" if m.group() == "USR-004" else "USR-004", text)


def _next_person(text: str) -> str:
    pattern = "|".join(map(re.escape, USERS))
    return re.sub(pattern, lambda m: USERS[(USERS.index(m.group()) + 1) % len(USERS)], text)


def wrong_person(instruction: str) -> Plan:
    """The reference plan acting as (or for) the wrong user, and naming the wrong rep."""
    return _corrupted(instruction, _departed_user, _next_person)


def stops_early(instruction: str) -> Plan:
    """The reference's first tool call, then a bare claim of success."""
    steps = reference(instruction)
    action = next(steps)
    if "tool" in action:
        yield action
    yield {"answer": "Done."}


def empty_answer(instruction: str) -> Plan:
    """No tool call; an empty answer."""
    yield {"answer": ""}


PLANS: list[tuple[str, Callable[[str], Plan]]] = [
    ("wrong figures", wrong_figures),
    ("wrong person", wrong_person),
    ("stops early", stops_early),
    ("empty answer", empty_answer),
    ("reference", reference),
]


class PlanRunner:
    """Drives one plan in one sub-env: ``act(observation)`` -> the next action."""

    def __init__(self, plan: Callable[[str], Plan], instruction: str) -> None:
        self.steps = plan(instruction)
        self.started = False

    def act(self, observation: str) -> Action:
        if not self.started:
            self.started = True
            return next(self.steps)
        return self.steps.send(json.loads(observation))


# ---------------------------------------------------------------------------------------------
# Rollouts and learning
# ---------------------------------------------------------------------------------------------


def softmax(logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def run_batch(envs: Any, arms: list[int], seed: int) -> list[float]:
    """One episode per sub-env, sub-env ``i`` following ``PLANS[arms[i]]``; returns the rewards."""
    observations, _ = envs.reset(seed=seed)
    runners = [PlanRunner(PLANS[a][1], observations[i]) for i, a in enumerate(arms)]
    rewards: list[float | None] = [None] * envs.num_envs
    while any(r is None for r in rewards):
        actions = [runner.act(observations[i]) if rewards[i] is None else IDLE
                   for i, runner in enumerate(runners)]
        observations, reward, terminated, truncated, _ = envs.step(actions)
        for i in range(envs.num_envs):
            if rewards[i] is None and (terminated[i] or truncated[i]):
                rewards[i] = float(reward[i])
    return [float(r) for r in rewards if r is not None]


def train(iterations: int, envs_per_task: int, lr: float, seed: int,
          log: Callable[[str], None] = print) -> list[float]:
    """REINFORCE over the plan logits; returns the mean reward of each iteration."""
    rng = np.random.default_rng(seed)
    task_of = [t for t in range(len(TASKS)) for _ in range(envs_per_task)]
    envs = silo_gym.make_vec([f"silo/demo-{TASKS[t]}" for t in task_of])
    logits = np.zeros((len(TASKS), len(PLANS)))
    curve: list[float] = []
    try:
        for it in range(iterations):
            probs = softmax(logits)
            arms = [int(rng.choice(len(PLANS), p=probs[t])) for t in task_of]
            rewards = np.array(run_batch(envs, arms, seed=seed + it))
            grad = np.zeros_like(logits)
            for t in range(len(TASKS)):
                mine = [i for i, task in enumerate(task_of) if task == t]
                advantage = rewards[mine] - rewards[mine].mean()
                for i, adv in zip(mine, advantage, strict=True):
                    grad[t] += adv * (np.eye(len(PLANS))[arms[i]] - probs[t])
                grad[t] /= len(mine)
            logits += lr * grad
            curve.append(float(rewards.mean()))
            p_ref = softmax(logits)[:, -1]
            log(f"iteration {it + 1:>3}  mean reward {curve[-1]:.3f}  "
                f"p(reference) {' '.join(f'{p:.2f}' for p in p_ref)}")
    finally:
        envs.close()
    final = softmax(logits)
    for t, task in enumerate(TASKS):
        best = int(final[t].argmax())
        log(f"{task}: most likely plan {PLANS[best][0]!r} (p={final[t, best]:.2f})")
    return curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--envs-per-task", type=int, default=4, help="sub-envs (episodes per iteration) per task")
    parser.add_argument("--lr", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--margin", type=float, default=0.2, help="required gain of the final over the first mean")
    args = parser.parse_args(argv)
    if args.iterations < 2 or args.envs_per_task < 2:
        parser.error("--iterations and --envs-per-task must be at least 2")
    curve = train(args.iterations, args.envs_per_task, args.lr, args.seed)
    print(f"initial mean reward: {curve[0]:.3f}")
    print(f"final mean reward: {curve[-1]:.3f}")
    return 0 if curve[-1] >= curve[0] + args.margin else 1


if __name__ == "__main__":
    sys.exit(main())
