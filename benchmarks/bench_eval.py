"""``silo-gym eval`` against ``silo-gym collect`` on the same episodes (issue 20: within 5%).

Both sides stream their rows with :func:`~silo_gym.data.collect_jsonl` and record every episode's
run; the evaluation adds what it does on top: fixing the worlds, the do-nothing baseline (one
episode per task and world), reading every trial's ``result.json`` and trace, and writing
``eval.json``. The two are timed in alternation, each into a fresh directory, and the medians
compared; on a loaded machine the wall clock drifts between runs, so each evaluation also times
its own parts (``eval.json``'s ``timing``) and its own work is given as a share of its episodes'
time, both measured in the same run. Rows:

- a model policy: ``ChatPolicy`` over the scripted model server (``silo-gym mock-model``, a
  separate process, ``LATENCY_MS`` per reply) at concurrency 8, on the six demo tasks;
- the random policy (no model: the cheapest episodes there are, so the baseline episodes and
  the reading weigh the most), on the demo and project tasks.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from silo_gym.data import collect_jsonl
from silo_gym.eval import evaluate

from .common import Sizes, Table, ratio, start_mock_model, verdict

LATENCY_MS = 50
TARGET = 1.05


def _timed(fn: Callable[[Path], Any], root: Path, name: str, parts: list[float] | None = None) -> float:
    out = root / name
    t0 = time.perf_counter()
    value = fn(out)
    elapsed = time.perf_counter() - t0
    if parts is not None:  # an evaluation: its own work over its episodes, measured inside the same run
        timing = value.data["timing"]
        parts.append((timing["duration_s"] - timing["episodes_s"]) / timing["episodes_s"])
    shutil.rmtree(out, ignore_errors=True)
    return elapsed


def _pair(table: Table, label: str, ids: list[str], make_policy: Callable[[], Any], trials: int, repeats: int,
          root: Path, **options: Any) -> None:
    collected: list[float] = []
    evaluated: list[float] = []
    extra: list[float] = []
    # One untimed run of each first: imports, registrations, the first envs and connections.
    _timed(lambda out: collect_jsonl(out, ids, make_policy(), episodes_per_task=1, runs_dir=out / "runs", **options),
           root, "warm-c")
    _timed(lambda out: evaluate(ids, make_policy(), trials=1, out_dir=out, **options), root, "warm-e")
    for i in range(repeats):
        order = [("collect", collected), ("eval", evaluated)]
        for side, samples in order if i % 2 == 0 else reversed(order):
            if side == "collect":
                samples.append(_timed(lambda out: collect_jsonl(out, ids, make_policy(), episodes_per_task=trials,
                                                                runs_dir=out / "runs", **options),
                                      root, f"c{i}"))
            else:
                samples.append(_timed(lambda out: evaluate(ids, make_policy(), trials=trials, out_dir=out, **options),
                                      root, f"e{i}", extra))
    c, e = statistics.median(collected), statistics.median(evaluated)
    table.add(f"{label}: collect", c, "s", f"median of {repeats}")
    table.add(f"{label}: eval", e, "s", f"median of {repeats}")
    table.add(f"{label}: eval / collect", ratio(e, c), "x", verdict(ratio(e, c), TARGET) + " (wall clock, "
              "alternating runs)")
    share = statistics.median(extra)
    table.add(f"{label}: eval's own work / its episodes", share * 100.0, "%",
              verdict(share * 100.0, (TARGET - 1) * 100.0) + " (baselines, reading the runs, eval.json; "
              "measured inside each eval run)")


def bench_eval(sizes: Sizes) -> Table:
    quick = sizes.episodes < 50
    table = Table("eval over collect, the same episodes, every run recorded (seconds per run)")
    repeats = 1 if quick else 5
    root = Path(tempfile.mkdtemp(prefix="sgeval-"))
    try:
        _pair(table, "random policy, demo + project, 4 trials" if quick else "random policy, demo + project, 16 trials",
              ["silo/demo", "silo/project"], lambda: "random", 4 if quick else 16, repeats, root)
        try:
            import aiohttp  # noqa: F401
        except ImportError:
            table.add("model policy", "not installed", "", 'pip install "silo-gym[aiohttp]"')
            return table
        from silo_gym.llm import ChatPolicy, openai_acomplete

        latency = 5 if quick else LATENCY_MS
        server, base_url = start_mock_model(latency)
        try:
            def chat() -> Any:
                return ChatPolicy(openai_acomplete(base_url, "m", lean=True), model="m")

            _pair(table, f"scripted model ({latency} ms), demo, c=8, {2 if quick else 8} trials", ["silo/demo"], chat,
                  2 if quick else 8, repeats, root, concurrency=8)
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return table
