"""Preference pairs from episode rows, in the column layout of TRL's reward and DPO trainers
(gym-api.md, "Reward-model and trajectory data")."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import orjson

__all__ = ["PAIR_COLUMNS", "preference_pairs"]

#: The columns of a pair row, in order.
PAIR_COLUMNS: tuple[str, ...] = ("prompt", "chosen", "rejected", "chosen_reward", "rejected_reward", "task_id")


def _copy(value: Any) -> Any:
    """A deep copy of JSON data (fast path through orjson; ``copy.deepcopy`` otherwise)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, ValueError):
        return copy.deepcopy(value)


def preference_pairs(rows: Iterable[dict[str, Any]], max_pairs_per_task: int | None = None) -> list[dict[str, Any]]:
    """Chosen/rejected pairs of episodes of the same task.

    Which pairs: **every** two episodes of the same task (same ``environment`` and ``task_id``)
    whose rewards differ give one pair, the higher reward chosen; episodes with equal rewards
    give none. Rows of a grouped collection (``group`` set: ``collect(..., group_size=G)``) pair
    only within their group, whose episodes all started from one world, so every pair compares
    two attempts at the same world; rows without a ``group`` pair across the task as before. This is the literal reading of "one pair for every two episodes with different
    rewards", and it is what reward-model training wants: all the comparisons a group of ranked
    samples holds (K episodes give up to K·(K-1)/2 pairs), each episode taking part in several.
    The count grows quadratically, so ``max_pairs_per_task`` caps it per task; the pairs kept are
    the first in this order: the largest reward gap first (the clearest preferences), then the
    chosen episode's position in ``rows``, then the rejected one's. ``None`` means no cap.

    Columns (:data:`PAIR_COLUMNS`), TRL's conversational format:

    - ``prompt``: the chosen episode's prompt (system and user messages);
    - ``chosen`` / ``rejected``: each episode's messages after its own prompt (the assistant and
      tool messages);
    - ``chosen_reward``, ``rejected_reward``: the two rewards; ``task_id``.

    Failed rows (``reward`` is ``None``: every attempt of the episode failed) take no part.

    Rows of one task should share their prompt (they do when collected with the default prompts
    of one policy family); when they do not, the chosen episode's prompt is used.

    Returns:
        The pairs, tasks in order of first appearance.
    """
    if max_pairs_per_task is not None and max_pairs_per_task < 0:
        raise ValueError("max_pairs_per_task must be >= 0 or None")
    # per task, its pairing units: the whole task, or each group of a grouped collection
    tasks: dict[tuple[Any, Any], dict[Any, list[tuple[int, dict[str, Any]]]]] = {}
    for position, row in enumerate(rows):
        if row.get("reward") is None:
            continue  # a failed row (silo_gym.data.failed_row): no reward, no trajectory
        units = tasks.setdefault((row.get("environment"), row["task_id"]), {})
        units.setdefault(row.get("group"), []).append((position, row))
    pairs: list[dict[str, Any]] = []
    for (_, task_id), units in tasks.items():
        candidates: list[tuple[float, int, int, dict[str, Any], dict[str, Any]]] = []
        for members in units.values():
            for i, (pos_a, a) in enumerate(members):
                for pos_b, b in members[i + 1:]:
                    ra, rb = float(a["reward"]), float(b["reward"])
                    if ra == rb:
                        continue
                    hi, lo = ((pos_a, a), (pos_b, b)) if ra > rb else ((pos_b, b), (pos_a, a))
                    candidates.append((abs(ra - rb), hi[0], lo[0], hi[1], lo[1]))
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        if max_pairs_per_task is not None:
            candidates = candidates[:max_pairs_per_task]
        for _, _, _, chosen, rejected in candidates:
            prompt = chosen["prompt"]
            pairs.append({
                "prompt": _copy(prompt),
                "chosen": _copy(chosen["messages"][len(chosen["prompt"]):]),
                "rejected": _copy(rejected["messages"][len(rejected["prompt"]):]),
                "chosen_reward": float(chosen["reward"]),
                "rejected_reward": float(rejected["reward"]),
                "task_id": task_id,
            })
    return pairs
