"""Timing helpers and result output shared by the benchmarks."""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Sizes:
    """How much work each benchmark does; ``quick`` is for smoke tests."""

    repeats: int = 7
    loops: int = 2000
    episodes: int = 300
    memory_episodes: int = 100_000
    vector_steps: int = 200
    register_ids: int = 10_000
    view_runs: int = 1000

    @classmethod
    def quick(cls) -> Sizes:
        return cls(repeats=2, loops=20, episodes=5, memory_episodes=50, vector_steps=4, register_ids=50,
                   view_runs=24)


def per_call_us(fn: Callable[[], Any], loops: int, repeats: int, setup: Callable[[], Any] | None = None) -> float:
    """Median over ``repeats`` of the mean time of one ``fn()`` call, in microseconds."""
    samples = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        gc_was = gc.isenabled()
        gc.disable()
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        elapsed = time.perf_counter() - t0
        if gc_was:
            gc.enable()
        samples.append(elapsed / loops * 1e6)
    return statistics.median(samples)


def interleaved(fns: dict[str, Callable[[], Any]], loops: int, repeats: int) -> dict[str, float]:
    """Median µs per call of each function, measured in alternation so drift hits all alike."""
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            samples[name].append(per_call_us(fn, loops, 1))
    return {k: statistics.median(v) for k, v in samples.items()}


def machine() -> dict[str, Any]:
    """The machine a result was measured on."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
    }


@dataclass
class Table:
    """Rows of (metric, value, unit, note) printed aligned and written as JSON."""

    title: str
    rows: list[tuple[str, float | str, str, str]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def add(self, metric: str, value: float | str, unit: str = "", note: str = "") -> None:
        self.rows.append((metric, value, unit, note))
        self.data[metric] = {"value": value, "unit": unit, "note": note}

    def render(self) -> str:
        def cell(v: float | str) -> str:
            if isinstance(v, float):
                return f"{v:,.2f}" if abs(v) < 1000 else f"{v:,.0f}"
            return str(v)

        cells = [(m, cell(v), u, n) for m, v, u, n in self.rows]
        w = [max([len(c[i]) for c in cells] + [6]) for i in range(3)]
        out = [f"== {self.title} =="]
        for m, v, u, n in cells:
            out.append(f"  {m.ljust(w[0])}  {v.rjust(w[1])} {u.ljust(w[2])}  {n}".rstrip())
        return "\n".join(out)

    def write(self, name: str, out_dir: Path = RESULTS_DIR) -> Path:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{name}.json"
        payload = {"title": self.title, "machine": machine(), "results": self.data}
        path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        return path


def ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


def verdict(value: float, target: float, lower_is_better: bool = True) -> str:
    ok = value <= target if lower_is_better else value >= target
    return f"target {'<=' if lower_is_better else '>='} {target:g}: {'met' if ok else 'MISSED'}"


@dataclass
class ScaleTable:
    """One benchmark's figures side by side at each world size, with the largest over the
    smallest (``ratio``): the rows every per-size :class:`Table` has in common, as numbers."""

    title: str
    labels: list[str]
    rows: list[tuple[str, str, list[float], float]] = field(default_factory=list)

    @classmethod
    def of(cls, title: str, tables: dict[str, Table]) -> ScaleTable:
        labels = list(tables)
        out = cls(title, labels)
        first = tables[labels[0]]
        for metric, value, unit, _ in first.rows:
            values = [t.data.get(metric, {}).get("value") for t in tables.values()]
            if isinstance(value, float | int) and all(isinstance(v, float | int) for v in values):
                nums = [float(v) for v in values]  # type: ignore[arg-type]
                out.rows.append((metric, unit, nums, ratio(nums[-1], nums[0])))
        return out

    def render(self) -> str:
        def cell(v: float) -> str:
            return f"{v:,.2f}" if abs(v) < 1000 else f"{v:,.0f}"

        last, first = self.labels[-1], self.labels[0]
        head = ["metric", *self.labels, "unit", f"{last}/{first}"]
        body = [[m, *(cell(v) for v in vs), u, f"{r:.2f}x"] for m, u, vs, r in self.rows]
        widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
        out = [f"== {self.title} =="]
        for r in [head, *body]:
            out.append("  " + "  ".join(c.ljust(w) if i in (0, len(head) - 2) else c.rjust(w)
                                         for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip())
        return "\n".join(out)

    def write(self, name: str, out_dir: Path = RESULTS_DIR) -> Path:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{name}-scales.json"
        results = {m: {"unit": u, "values": dict(zip(self.labels, vs, strict=True)), "ratio": r}
                   for m, u, vs, r in self.rows}
        payload = {"title": self.title, "machine": machine(), "scales": self.labels, "results": results}
        path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        return path


def case_label(kind: str, name: str, tool_input: dict[str, Any]) -> str:
    """``"<kind>: <tool>(<input but limit>)"``, the row label of one tool case."""
    args = ", ".join(f"{k}={v}" for k, v in tool_input.items() if k != "limit")
    return f"{kind}: {name}({args})"


def tool_scaling_table(title: str, worlds: dict[int, dict[str, Any]],
                       cases: list[tuple[str, str, dict[str, Any]]], sizes: Sizes, target: float) -> Table:
    """Per case (kind, tool, input): its warm ``Tool.execute`` cost on the 1x world, then at each
    bigger factor of ``worlds`` (factor -> tool name -> bound tool) its cost over the 1x cost,
    measured in alternation; the biggest factor's ratio is judged against ``target`` except for
    ``"scan"`` cases (they read the whole collection by nature).

    Raises:
        AssertionError: a case's call is an error result at some factor.
    """
    table = Table(title)
    factors = sorted(worlds)
    for kind, name, tool_input in cases:
        label = case_label(kind, name, tool_input)
        for f in factors:
            result = worlds[f][name].execute(tool_input)
            if result.get("isError"):
                raise AssertionError(f"{label} at {f}x failed: {result['output']}")
        base = worlds[factors[0]][name]
        for f in factors[1:]:
            here = worlds[f][name]
            calls: dict[str, Callable[[], Any]] = {"here": partial(here.execute, tool_input),
                                                   "1x": partial(base.execute, tool_input)}
            warm = interleaved(calls, max(1, sizes.loops // 8), sizes.repeats)
            if f == factors[1]:
                table.add(f"{label} 1x", warm["1x"], "us")
            r = ratio(warm["here"], warm["1x"])
            table.add(f"{label} {f}x / 1x", r, "x", "reads the whole collection by nature" if kind == "scan"
                      else (verdict(r, target) if f == factors[-1] else ""))
    return table


def load_average() -> str:
    """The 1, 5 and 15 minute load averages (as ``uptime`` prints them), or ``"n/a"``."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def start_mock_model(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    """``silo-gym mock-model`` in a process of its own on a free port, answering after
    ``latency_ms``; returns the process and its OpenAI base URL (stop it with ``terminate()``)."""
    proc = subprocess.Popen([sys.executable, "-m", "silo_gym", "mock-model", "--port", "0", "--latency-ms",
                             str(latency_ms)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    banner = proc.stdout.readline()
    if "OpenAI base URL " not in banner:
        proc.kill()
        raise RuntimeError(f"the mock model server did not start: {banner}{proc.stderr.read() if proc.stderr else ''}")
    return proc, banner.split("OpenAI base URL ")[1].split(",")[0]
