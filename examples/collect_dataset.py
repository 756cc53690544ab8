"""Collect a small reward-model data set on the demo tasks: random episodes and reference-solver
episodes, their preference pairs, written as JSONL (and Parquet / a Hugging Face dataset when
``pip install "silo-gym[data]"`` is installed).

    python examples/collect_dataset.py [OUT_DIR]

The same from the command line:

    silo-gym collect --env demo --policy random --episodes-per-task 4 --out OUT_DIR --format jsonl,parquet,hf
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import silo_gym  # noqa: F401  (importing registers the silo/... ids)
from silo_gym.data import collect, preference_pairs, write

SOLVER = pathlib.Path(__file__).resolve().parent / "agents" / "crm_solver.py"


def main(out_dir: str) -> None:
    tasks = [f"silo/demo-TASK-00{n}" for n in range(1, 7)]
    rows = collect(tasks, "random", episodes_per_task=4, seed=0)
    # A Gymnasium policy (2 parameters) from a file; a Silo agent (4 parameters) works the same.
    rows += collect(tasks, f"{SOLVER}:make_policy", episodes_per_task=1, seed=0, policy_name="reference")
    pairs = preference_pairs(rows, max_pairs_per_task=8)

    formats = ["jsonl"]
    if importlib.util.find_spec("pyarrow"):
        formats.append("parquet")
    if importlib.util.find_spec("datasets"):
        formats.append("hf")
    files = write(rows, out_dir, formats) + write(pairs, out_dir, formats)
    print(f"{len(rows)} episodes, {len(pairs)} preference pairs")
    for task in sorted({r["task_id"] for r in rows}):
        mean = {}
        for policy in ("random", "reference"):
            rewards = [r["reward"] for r in rows if r["task_id"] == task and r["policy"] == policy]
            mean[policy] = sum(rewards) / len(rewards)
        print(f"  {task}: random mean reward {mean['random']:.2f}, reference {mean['reference']:.2f}")
    print("wrote", *files, sep="\n  ")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "silo-dataset")
