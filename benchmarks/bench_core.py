"""Step, reset and recording cost against their floors, and whole-episode throughput.

Step, reset, end and episodes measure the demo world and then the ERP world of the same size
(``benchmarks/worlds.py``: ``erp``, ``erp10x``, ``erp100x``), the ERP's figures in rows named
``erp: ...``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import orjson

import silo_gym
from silo_gym import SiloEnv
from silo_gym.tools import clone_output
from silo_gym.wrappers import RecordRun

from .common import Sizes, Table, interleaved, ratio, verdict
from .worlds import World, world

ROOT = Path(__file__).resolve().parent.parent
NO_LIMIT = 10**9
CHEAP = ("get_current_date", {})
TYPICAL = ("get_opportunity", {"opportunityId": "OPP-003"})
ERP_CHEAP: tuple[str, dict[str, Any]] = ("get_current_date", {})
ERP_TYPICAL: tuple[str, dict[str, Any]] = ("get_purchase_order", {"purchaseOrderId": "PO-202"})
ERP_TASKS = [f"TASK-{i:03d}" for i in range(1, 19)]


def _load_solver(file_name: str = "crm_solver.py") -> Any:
    spec = importlib.util.spec_from_file_location(f"_bench_{file_name[:-3]}", ROOT / "examples" / "agents" / file_name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_step(sizes: Sizes, at: World | None = None) -> Table:
    at = at or world(1)
    table = Table(f"step: SiloEnv.step vs the floor (tool.run + compiled schema check + output clone) @ {at.label} ({at.name})")
    env = at.env("TASK-004", max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT)
    env.reset(seed=0)
    made = gym.make(at.env_id("TASK-004"), max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT)
    made.reset(seed=0)
    assert env.episode is not None
    state = env.episode.state
    for label, (name, tool_input) in (("cheapest", CHEAP), ("typical read", TYPICAL)):
        source = env.episode.tool_map[name].source
        problems, run = source.validator.problems, source.run
        action = {"tool": name, "input": tool_input}

        def floor(problems: Any = problems, run: Any = run, tool_input: Any = tool_input) -> None:
            problems(tool_input)
            clone_output(run(state, tool_input))

        times = interleaved({
            "floor": floor,
            "step": lambda action=action: env.step(action),
            "make": lambda action=action: made.step(action),
        }, sizes.loops, sizes.repeats)
        target = 3.0 if label == "cheapest" else 1.3  # issue 14: cheapest tool 3x, typical read 1.3x
        table.add(f"{label} ({name}) floor", times["floor"], "us")
        table.add(f"{label} ({name}) SiloEnv.step", times["step"], "us")
        table.add(f"{label} step / floor", ratio(times["step"], times["floor"]), "x", verdict(ratio(times["step"], times["floor"]), target))
        table.add(f"{label} gym.make step", times["make"], "us")
        table.add(f"{label} gym.make / raw", ratio(times["make"], times["step"]), "x", verdict(ratio(times["make"], times["step"]), 1.2))
    _erp_step_rows(table, sizes, world(at.factor, "erp"))
    return table


def _step_floor_rows(table: Table, sizes: Sizes, env: SiloEnv, calls: tuple[tuple[str, tuple[str, dict[str, Any]]], ...],
                     prefix: str) -> None:
    """Rows ``<prefix><label> floor``, ``... SiloEnv.step`` and ``... step / floor`` for each call,
    the step and its floor (validation, ``run``, clone on the same world) measured alternately."""
    assert env.episode is not None
    state = env.episode.state
    for label, (name, tool_input) in calls:
        source = env.episode.tool_map[name].source
        problems, run = source.validator.problems, source.run
        action = {"tool": name, "input": tool_input}

        def floor(problems: Any = problems, run: Any = run, tool_input: Any = tool_input) -> None:
            problems(tool_input)
            clone_output(run(state, tool_input))

        def step(action: dict[str, Any] = action) -> None:
            env.step(action)

        times = interleaved({"floor": floor, "step": step}, sizes.loops, sizes.repeats)
        target = 3.0 if label == "cheapest" else 1.3
        table.add(f"{prefix}{label} ({name}) floor", times["floor"], "us")
        table.add(f"{prefix}{label} ({name}) SiloEnv.step", times["step"], "us")
        table.add(f"{prefix}{label} step / floor", ratio(times["step"], times["floor"]), "x",
                  verdict(ratio(times["step"], times["floor"]), target))


def _erp_step_rows(table: Table, sizes: Sizes, erp: World) -> None:
    """The ERP world's rows of the step benchmark: its cheapest tool and a typical read."""
    env = erp.env("TASK-007", max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT)
    env.reset(seed=0)
    _step_floor_rows(table, sizes, env, (("cheapest", ERP_CHEAP), ("typical read", ERP_TYPICAL)), "erp: ")
    env.close()


def _read_world_from_files(data_dir: Path) -> dict[str, Any]:
    """The naive reset: parse the nine data files again and build the world."""
    def load(name: str) -> Any:
        return json.loads((data_dir / f"{name}.json").read_text(encoding="utf-8"))

    world: dict[str, Any] = {"now": "2026-03-16"}
    for key in ("users", "accounts", "contacts", "leads", "opportunities", "activities", "stages"):
        world[key] = {r["id"]: r for r in load(key)}
    world["auditLog"] = load("auditLog")
    world["sequences"] = load("sequences")
    return world


def _reset_us(env: SiloEnv, loops: int, repeats: int) -> float:
    """Median µs of ``reset`` alone, each after an episode that ended (as in a training loop)."""
    samples = []
    answer = {"answer": ""}
    for _ in range(repeats):
        total = 0.0
        for _ in range(loops):
            t0 = time.perf_counter()
            env.reset()
            total += time.perf_counter() - t0
            env.step(answer)  # untimed: end the episode so the next reset abandons nothing
        samples.append(total / loops * 1e6)
    return statistics.median(samples)


def bench_reset(sizes: Sizes, at: World | None = None) -> Table:
    at = at or world(1)
    table = Table(f"reset: SiloEnv.reset vs the floor (the world from pre-serialised bytes) @ {at.label} ({at.name})")
    env = at.env("TASK-001")
    seed_world = env.silo_env.module.create_state()
    seed_bytes = orjson.dumps(seed_world)
    data_dir = env.silo_env.path / "data"
    loops = max(1, sizes.loops // 4 // at.factor)
    times = interleaved({
        "floor": lambda: orjson.loads(seed_bytes),
        "files": lambda: _read_world_from_files(data_dir),
        "deepcopy": lambda: copy.deepcopy(seed_world),
    }, loops, sizes.repeats)
    times["reset"] = _reset_us(env, loops, sizes.repeats)
    table.add("floor (orjson.loads of the world)", times["floor"], "us")
    table.add("SiloEnv.reset", times["reset"], "us", verdict(times["reset"], 200.0) if at.factor == 1 else "")
    table.add("reset / floor", ratio(times["reset"], times["floor"]), "x", verdict(ratio(times["reset"], times["floor"]), 2.0))
    table.add("naive: re-read data files", times["files"], "us")
    table.add("naive: copy.deepcopy", times["deepcopy"], "us")
    table.add("reset vs re-reading files", ratio(times["files"], times["reset"]), "x faster")
    table.add("reset vs deepcopy", ratio(times["deepcopy"], times["reset"]), "x faster")
    _erp_reset_rows(table, sizes, world(at.factor, "erp"))
    return table


def _erp_reset_rows(table: Table, sizes: Sizes, erp: World) -> None:
    """The ERP world's reset against its floor (``orjson.loads`` of its world), measured in
    alternation: a round of floors, then a round of resets, ``repeats`` times."""
    env = erp.env("TASK-001")
    seed_bytes = orjson.dumps(env.silo_env.module.create_state())
    loops = max(1, sizes.loops // 8 // erp.factor)
    floors, resets = [], []
    for _ in range(sizes.repeats):
        floors.append(interleaved({"floor": partial(orjson.loads, seed_bytes)}, loops, 1)["floor"])
        resets.append(_reset_us(env, loops, 1))
    floor, reset = statistics.median(floors), statistics.median(resets)
    env.close()
    table.add("erp: world size (compact JSON)", len(seed_bytes) / 1e3, "kB")
    table.add("erp: floor (orjson.loads of the world)", floor, "us")
    table.add("erp: SiloEnv.reset", reset, "us")
    table.add("erp: reset / floor", ratio(reset, floor), "x", verdict(ratio(reset, floor), 2.0))


def bench_record(sizes: Sizes, at: World | None = None) -> Table:
    at = at or world(1)
    table = Table(f"recording: RecordRun step vs raw step @ {at.label} ({at.name})")
    with tempfile.TemporaryDirectory() as tmp:
        raw = at.env("TASK-004", max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT)
        raw.reset(seed=0)
        rec = RecordRun(at.env("TASK-004", max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT), runs_dir=tmp)
        rec.reset(seed=0)
        action = {"tool": TYPICAL[0], "input": TYPICAL[1]}
        times = interleaved({"raw": lambda: raw.step(action), "recorded": lambda: rec.step(action)},
                            sizes.loops, sizes.repeats)
        rec.close()
    overhead = ratio(times["recorded"], times["raw"]) - 1
    table.add("raw step", times["raw"], "us")
    table.add("RecordRun step", times["recorded"], "us")
    table.add("recording overhead", overhead * 100, "%", verdict(overhead * 100, 50))
    return table


DEMO_TASKS = [f"TASK-00{i}" for i in range(1, 7)]
PROJECT_TASKS = [f"TASK-{i:03d}" for i in range(1, 16)]


def _episodes(env_of: Any, solver: Any, n: int, tasks: list[str] = DEMO_TASKS) -> float:
    import time

    envs = {t: env_of(t) for t in tasks}
    t0 = time.perf_counter()
    for i in range(n):
        env = envs[tasks[i % len(tasks)]]
        policy = solver.make_policy()
        obs, info = env.reset(seed=i)
        while True:
            obs, reward, term, trunc, info = env.step(policy(obs, info))
            if term or trunc:
                if not info["passed"]:
                    raise AssertionError(f"solver failed {info['result']}")
                break
    elapsed = time.perf_counter() - t0
    for env in envs.values():
        env.close()
    return n / elapsed


def bench_episodes(sizes: Sizes, at: World | None = None) -> Table:
    at = at or world(1)
    what = "each world's reference solver over its tasks (demo: six, project: fifteen)" if at.factor == 1 \
        else "the reference solver over the six demo tasks"
    table = Table(f"whole episodes: {what} @ {at.label} ({at.name})")
    solver = _load_solver()
    episodes = max(6, sizes.episodes // at.factor)
    with tempfile.TemporaryDirectory() as tmp:
        raw = _episodes(lambda t: gym.make(at.env_id(t)), solver, episodes)
        rec = _episodes(lambda t: RecordRun(gym.make(at.env_id(t)), runs_dir=tmp), solver, episodes)
    table.add("episodes per second (gym.make)", raw, "ep/s")
    table.add("episodes per second (recorded)", rec, "ep/s")
    table.add("recorded / raw throughput", ratio(rec, raw), "x")
    table.add("episodes run (each way)", float(episodes), "")
    erp = world(at.factor, "erp")
    erp_episodes = max(len(ERP_TASKS), sizes.episodes // at.factor)
    erp_rate = _episodes(lambda t: gym.make(erp.env_id(t)), _load_solver("erp_solver.py"), erp_episodes, ERP_TASKS)
    table.add("erp: episodes per second (gym.make, the 18 tasks' reference solver)", erp_rate, "ep/s")
    table.add("erp: episodes run", float(erp_episodes), "")
    if at.factor != 1:
        return table  # the project world is not scaled
    # The second shipped world: fifteen tasks over a larger world, canonical and variant worlds.
    project = _load_solver("project_solver.py")
    canonical = _episodes(lambda t: gym.make(f"silo/project-{t}"), project, sizes.episodes, PROJECT_TASKS)
    variants = _episodes(lambda t: gym.make(f"silo/project-{t}", variants=True), project, sizes.episodes,
                         PROJECT_TASKS)
    table.add("project: episodes per second (gym.make)", canonical, "ep/s")
    table.add("project: episodes per second (variants=True)", variants, "ep/s")
    table.add("project: variant / canonical throughput", ratio(variants, canonical), "x")
    return table


__all__ = ["bench_episodes", "bench_record", "bench_reset", "bench_step", "silo_gym"]


def _to_answer(env: SiloEnv, solver: Any, seed: int) -> Any:
    """Play the reference solver up to (not including) its answer; returns the answer action."""
    policy = solver.make_policy()
    obs, info = env.reset(seed=seed)
    while True:
        action = policy(obs, info)
        if "answer" in action:
            return action
        obs, _, _, _, info = env.step(action)


def bench_end(sizes: Sizes, at: World | None = None) -> Table:
    """The step that ends an episode against its floor (issue 14.2), per demo task, then per ERP
    task (rows ``erp: ...``, on the ERP world of the same size).

    Floor: one ``orjson.loads`` of the initial world's bytes (what the verifier compares against),
    the verifier's own ``check``, one ``orjson.dumps`` of the final world, on the same episode.
    The end: grading, the state diff and its exactness proof, the ``result.json`` dict.
    """
    at = at or world(1)
    table = Table(f"ending an episode: the answering step vs its floor @ {at.label} ({at.name})")
    repeats = max(3, sizes.repeats * 3 // max(1, at.factor // 10 or 1))
    _end_rows(table, at, _load_solver(), DEMO_TASKS, repeats, "")
    erp = world(at.factor, "erp")
    _end_rows(table, erp, _load_solver("erp_solver.py"), ERP_TASKS, max(2, repeats // 3), "erp: ")
    return table


def _end_rows(table: Table, at: World, solver: Any, tasks: list[str], repeats: int, prefix: str) -> None:
    """Per task, the answering step against its floor (median of ``repeats`` episodes), and the
    worst ratio; rows named with ``prefix``."""
    from silo_gym.verifiers import VerifierContext

    worst = 0.0
    for task in tasks:
        env = at.env(task, max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT)
        ends, floors = [], []
        for r in range(repeats):
            answer = _to_answer(env, solver, r)
            ep = env.episode
            assert ep is not None
            initial_bytes = orjson.dumps(ep._snapshot.restore())
            context = VerifierContext(str(answer["answer"]), ep.task)
            t0 = time.perf_counter()
            initial = orjson.loads(initial_bytes)
            ep.verifier.check(ep.state, initial, context)
            orjson.dumps(ep.state)
            floors.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            _, _, _, _, info = env.step(answer)
            ends.append(time.perf_counter() - t0)
            if not info["passed"]:
                raise AssertionError(f"the solver failed {task} @ {at.label}: {info['result']}")
        end, floor = statistics.median(ends) * 1e6, statistics.median(floors) * 1e6
        worst = max(worst, end / floor)
        changed = sum(len(e["added"]) + len(e["changed"]) + len(e["removed"])
                      for e in info["state_diff"]["collections"].values())
        table.add(f"{prefix}{task} end ({changed} records changed)", end, "us")
        table.add(f"{prefix}{task} floor", floor, "us")
        table.add(f"{prefix}{task} end / floor", ratio(end, floor), "x", verdict(ratio(end, floor), 1.5))
        env.close()
    table.add(f"{prefix}worst end / floor", worst, "x", verdict(worst, 1.5))
