"""Vector envs (gym-api.md, "Vectorization", "Recording"): every mode, autoreset, multi-task,
recording and spawn-safe workers, checked against real values."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import silo_gym
from silo_gym.vector import make_vec
from silo_gym.wrappers import RecordRun

REPO = Path(__file__).resolve().parent.parent
DEMO_TASKS = [f"TASK-00{n}" for n in range(1, 7)]
DEMO_IDS = [f"silo/demo-{t}" for t in DEMO_TASKS]
ARTIFACTS = {"trace.jsonl", "result.json", "state-diff.json", "run.json"}
ASYNC_KWARGS: dict[str, Any] = {"vectorization_mode": "async", "vector_kwargs": {"shared_memory": False}}
MODES: dict[str, dict[str, Any]] = {
    "default": {},
    "sync": {"vectorization_mode": "sync"},
    "async": ASYNC_KWARGS,
}
FORECAST = {"tool": "forecast_report", "input": {}}
DATE = {"tool": "get_current_date", "input": {}}
RIGHT_FIGURE = {"answer": "The weighted open pipeline is $507,500."}
#: (reset options, a tool call, an answer) per id for the mode tests.
SCRIPTS: dict[str, tuple[dict[str, Any] | None, dict[str, Any], dict[str, Any]]] = {
    "silo/demo-TASK-004": (None, FORECAST, RIGHT_FIGURE),
    "silo/demo": ({"task_id": "TASK-004"}, FORECAST, RIGHT_FIGURE),
    "silo/orders-TASK-001": (None, {"tool": "get_order", "input": {"orderId": "O-1"}}, {"answer": "done"}),
}
END_OBS = '{"terminationReason":"completed","error":null}'


def _load_solver() -> Any:
    spec = importlib.util.spec_from_file_location("_vec_crm_solver", REPO / "examples" / "agents" / "crm_solver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


solver = _load_solver()


def sub_info(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Sub-env ``i``'s info out of Gymnasium's batched info (the keys whose ``_key`` mask is set)."""
    out: dict[str, Any] = {}
    for key, value in infos.items():
        if key.startswith("_") or not infos[f"_{key}"][i]:
            continue
        out[key] = sub_info(value, i) if isinstance(value, dict) else value[i]
    return out


def plain(value: Any, drop: frozenset[str] = frozenset()) -> Any:
    """Batched values as plain Python (arrays -> lists), leaving out the keys in ``drop``."""
    if isinstance(value, dict):
        return {k: plain(v, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, np.ndarray):
        return [plain(v, drop) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [plain(v, drop) for v in value]
    return value


def single_run(env_id: str, actions: list[Any], options: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """The same actions on one ``gym.make`` env: the reference the vector results must match."""
    env = gym.make(env_id)
    env.reset(seed=0, options=options)
    out = [env.step(a) for a in actions]
    env.close()
    return out


@functools.cache
def instruction_of(env_id: str, task_id: str) -> str:
    env = gym.make(env_id)
    return env.unwrapped.silo_env.task(task_id).instruction  # type: ignore[attr-defined]


def run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir())


def tool_call_events(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == "tool_call"]


# ---------------------------------------------------------------------------------------------
# gym.make_vec in every mode
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("env_id", list(SCRIPTS))
def test_make_vec_every_mode(env_id: str, mode: str) -> None:
    options, call, answer = SCRIPTS[env_id]
    expected = single_run(env_id, [call, answer], options)
    envs = gym.make_vec(env_id, num_envs=2, **MODES[mode])
    try:
        obs, infos = envs.reset(seed=0, options=options)
        instruction = gym.make(env_id).reset(options=options)[0]
        assert obs == (instruction, instruction)
        assert all(type(o) is str for o in obs)
        task_id = "TASK-001" if "orders" in env_id else "TASK-004"
        assert infos["task_id"].tolist() == [task_id, task_id]
        assert infos["_task_id"].tolist() == [True, True]
        assert infos["tool_calls"].tolist() == [0, 0]
        assert [len(t) for t in infos["tools"]] == [len(envs.single_action_space.tools)] * 2  # type: ignore[attr-defined]

        obs, rewards, terminated, truncated, infos = envs.step([call, call])
        assert obs == (expected[0][0], expected[0][0])
        assert isinstance(rewards, np.ndarray) and rewards.tolist() == [0.0, 0.0]
        assert isinstance(terminated, np.ndarray) and terminated.dtype == np.bool_
        assert terminated.tolist() == [False, False] and truncated.tolist() == [False, False]
        assert infos["tool_calls"].tolist() == [1, 1] and infos["_tool_calls"].tolist() == [True, True]
        assert infos["call_id"].tolist() == [1, 1]
        assert list(infos["tool"]) == [call["tool"]] * 2

        obs, rewards, terminated, truncated, infos = envs.step([answer, answer])
        final_reward = expected[1][1]
        assert rewards.tolist() == [final_reward] * 2
        assert terminated.tolist() == [True, True] and truncated.tolist() == [False, False]
        if mode == "default":  # SAME_STEP: the new episode's first observation; the end in final_*
            assert obs == tuple(instruction_of(env_id, t) for t in infos["task_id"])
            assert list(infos["final_obs"]) == [END_OBS, END_OBS]
            assert infos["_final_obs"].tolist() == [True, True]
            final = infos["final_info"]
            assert final["result"]["reward"].tolist() == [final_reward] * 2
            assert final["_result"].tolist() == [True, True]
            assert final["termination_reason"].tolist() == ["completed"] * 2
            assert infos["tool_calls"].tolist() == [0, 0]  # the reset info of the new episode
        else:  # stock NEXT_STEP: the ending tuple itself
            assert obs == (END_OBS, END_OBS)
            assert "final_info" not in infos
            assert infos["result"]["reward"].tolist() == [final_reward] * 2
            assert infos["passed"].tolist() == [expected[1][4]["passed"]] * 2
    finally:
        envs.close()
    if env_id.startswith("silo/demo"):
        assert final_reward == 1.0


def test_default_entry_point_is_same_step_sync_without_shared_memory() -> None:
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=2)
    assert isinstance(envs, gym.vector.SyncVectorEnv)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    envs.close()
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=2, vector_mode="async")
    assert isinstance(envs, gym.vector.AsyncVectorEnv)
    assert envs.shared_memory is False
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    envs.close()


def test_async_with_shared_memory_raises_gymnasiums_value_error() -> None:
    with pytest.raises(ValueError) as info:
        gym.make_vec("silo/demo-TASK-004", num_envs=2, vectorization_mode="async")
    assert "shared_memory" in str(info.value)  # Gymnasium's own advice
    cause = info.value.__cause__
    assert cause is not None and 'vector_kwargs={"shared_memory": False}' in str(cause)  # ours


# ---------------------------------------------------------------------------------------------
# Autoreset: no action is ever dropped
# ---------------------------------------------------------------------------------------------

T, A = DATE, {"answer": "507500"}
#: An LLM-style batch: each column is one vector step; the sub-envs end at different steps.
SCHEDULE = [
    [T, A, A],
    [A, T, T],
    [T, T, A],
    [T, A, T],
    [A, T, A],
    [T, A, T],
]


@pytest.mark.parametrize("mode", ["default", "async"])
def test_same_step_executes_every_action(mode: str, tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {"vector_mode": "async"} if mode == "async" else {}
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=3, record_runs_dir=tmp_path, **kwargs)
    instruction = gym.make("silo/demo-TASK-004").reset()[0]
    calls = [0, 0, 0]  # tool calls of each sub-env's current episode
    episodes: list[list[str]] = [[], [], []]  # run ids, in order
    obs, infos = envs.reset(seed=0)
    for i in range(3):
        episodes[i].append(infos["run_id"][i])
    for row in SCHEDULE:
        obs, rewards, terminated, truncated, infos = envs.step(row)
        for i, action in enumerate(row):
            if action is T:
                calls[i] += 1
                assert not terminated[i] and rewards[i] == 0.0
                assert infos["call_id"][i] == calls[i] and infos["tool_calls"][i] == calls[i]
                assert infos["run_id"][i] == episodes[i][-1]
                assert obs[i] == '{"output":{"today":"2026-03-16"}}'
            else:
                assert terminated[i] and rewards[i] == 1.0
                assert obs[i] == instruction  # the new episode's first observation
                assert infos["final_obs"][i] == END_OBS
                final = sub_info(infos["final_info"], i)
                assert final["tool_calls"] == calls[i]
                assert final["result"]["reward"] == 1.0 and final["result"]["toolCalls"] == calls[i]
                assert final["run_id"] == episodes[i][-1]
                assert infos["run_id"][i] != episodes[i][-1] and infos["tool_calls"][i] == 0
                episodes[i].append(infos["run_id"][i])
                calls[i] = 0
    envs.close()
    sent = [sum(1 for row in SCHEDULE if row[i] is T) for i in range(3)]
    # A sub-env whose last episode received no action before close() leaves no run for it.
    played = [ep if calls[i] else ep[:-1] for i, ep in enumerate(episodes)]
    for i in range(3):
        executed = sum(len(tool_call_events(tmp_path / run_id)) for run_id in played[i])
        assert executed == sent[i]
    assert sorted(p.name for p in run_dirs(tmp_path)) == sorted(r for ep in played for r in ep)


def test_stock_next_step_ignores_the_action_after_an_end(tmp_path: Path) -> None:
    """Gymnasium's default autoreset (NEXT_STEP): the step after an end only resets that sub-env.

    Whatever action was sent to it is silently dropped, which loses an LLM's tool call.
    """
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=2, vectorization_mode="sync",
                        wrappers=[functools.partial(RecordRun, runs_dir=tmp_path)])
    instruction, _ = envs.reset(seed=0)
    _, rewards, terminated, _, infos = envs.step([A, T])
    assert terminated.tolist() == [True, False] and rewards.tolist() == [1.0, 0.0]
    obs, rewards, terminated, _, infos = envs.step([T, T])  # sub-env 0's call is dropped
    assert obs[0] == instruction[0] and rewards[0] == 0.0
    assert not infos["_call_id"][0] and infos["tool_calls"][0] == 0
    assert infos["tool_calls"][1] == 2
    envs.close()
    calls = sum(len(tool_call_events(d)) for d in run_dirs(tmp_path))
    assert calls == 2  # three tool calls were sent


def test_same_step_through_vector_kwargs_keeps_every_action(tmp_path: Path) -> None:
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=2, vectorization_mode="sync",
                        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
                        wrappers=[functools.partial(RecordRun, runs_dir=tmp_path)])
    instruction, _ = envs.reset(seed=0)
    _, rewards, terminated, _, infos = envs.step([A, T])
    assert terminated.tolist() == [True, False] and rewards.tolist() == [1.0, 0.0]
    assert infos["final_info"]["result"]["reward"][0] == 1.0
    obs, _, _, _, infos = envs.step([T, T])
    assert infos["call_id"].tolist() == [1, 2]
    envs.close()
    assert sum(len(tool_call_events(d)) for d in run_dirs(tmp_path)) == 3


def test_stock_next_step_with_a_call_beside_an_end() -> None:
    """Every info key keeps one type on every step (call_id 0 and tool "" when no call ran), so
    Gymnasium's own batching works for any mix of sub-env steps (gym-api.md, amended)."""
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=2, vectorization_mode="sync")
    envs.reset(seed=0)
    try:
        _, _, terminated, _, infos = envs.step([T, A])
        assert terminated.tolist() == [False, True]
        assert infos["call_id"].tolist() == [1, 0] and infos["call_id"].dtype.kind == "i"
        assert infos["tool"].tolist() == [T["tool"], ""]
        # NEXT_STEP: sub-env 1 resets on this step (its action is ignored), sub-env 0 answers.
        _, _, terminated, _, infos = envs.step([A, T])
        assert terminated.tolist() == [True, False]
        # sub-env 1's info is its reset info (no "tool"), masked out by Gymnasium.
        assert infos["_tool"].tolist() == [True, False] and infos["tool"][0] == ""
        assert infos["call_id"][0] == 0
        _, _, terminated, _, infos = envs.step([T, T])
        assert infos["call_id"].tolist() == [0, 1] and infos["_call_id"].tolist() == [False, True]
    finally:
        envs.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_infos_of_mixed_types_are_batched_exactly(mode: str) -> None:
    """Answers of different JSON types in one step: Gymnasium would make an int array of the first
    and cast the rest (2.5 -> 2, "7" -> 7, "x" -> crash); our entry point keeps every value."""
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=4, vector_mode=mode)
    try:
        envs.reset(seed=0)
        answers: list[Any] = [507500, 2.5, "7", {"figure": 507500}]
        _, rewards, terminated, _, infos = envs.step([{"answer": a} for a in answers])
        assert terminated.tolist() == [True] * 4
        outputs = [sub_info(infos["final_info"], i)["result"]["agentOutput"] for i in range(4)]
        assert outputs == answers
        assert [type(o) for o in outputs] == [int, float, str, dict]
        assert rewards.tolist()[2] < 1.0
    finally:
        envs.close()
    # A call beside an end under NEXT_STEP: an int and None in the same key.
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=4, vector_mode=mode, autoreset_mode=AutoresetMode.NEXT_STEP)
    try:
        envs.reset(seed=0)
        _, _, terminated, _, infos = envs.step([T, A, T, A])
        assert terminated.tolist() == [False, True, False, True]
        assert plain(infos["call_id"]) == [1, 0, 1, 0]
        assert infos["_call_id"].tolist() == [True] * 4
        assert plain(infos["passed"]) == [False, True, False, True]  # unmasked entries keep the default
        assert infos["_passed"].tolist() == [False, True, False, True]
    finally:
        envs.close()


# ---------------------------------------------------------------------------------------------
# Sync and async agree
# ---------------------------------------------------------------------------------------------


def _solver_rollout(envs: gym.vector.VectorEnv, steps: int) -> list[Any]:
    policies = [solver.make_policy() for _ in range(envs.num_envs)]
    drop = frozenset({"run_id", "run_dir", "_run_id", "_run_dir"})
    obs, infos = envs.reset(seed=3)
    out: list[Any] = [(list(obs), plain(infos, drop))]
    for _ in range(steps):
        actions = [policies[i](obs[i], sub_info(infos, i)) for i in range(envs.num_envs)]
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        out.append((list(obs), rewards.tolist(), terminated.tolist(), truncated.tolist(), plain(infos, drop)))
    return out


def test_sync_and_async_give_identical_results(tmp_path: Path) -> None:
    sync = make_vec(DEMO_IDS, record_runs_dir=tmp_path / "sync")
    asyn = make_vec(DEMO_IDS, vectorization_mode="async", record_runs_dir=tmp_path / "async")
    try:
        a = _solver_rollout(sync, 5)
        b = _solver_rollout(asyn, 5)
    finally:
        sync.close()
        asyn.close()
    assert a == b
    ended: dict[int, tuple[float, bool, int]] = {}  # each sub-env's first episode: solved
    for _, rewards, terminated, truncated, infos in a[1:]:
        for i in range(6):
            if (terminated[i] or truncated[i]) and i not in ended:
                final = infos["final_info"]
                ended[i] = (rewards[i], final["passed"][i], final["result"]["toolErrors"][i])
    assert ended == dict.fromkeys(range(6), (1.0, True, 0))


# ---------------------------------------------------------------------------------------------
# Multi-task
# ---------------------------------------------------------------------------------------------


def test_make_vec_fixes_one_task_per_sub_env() -> None:
    envs = silo_gym.make_vec(["silo/demo-TASK-001", "silo/demo-TASK-004"])
    try:
        obs, infos = envs.reset(seed=0)
        assert infos["task_id"].tolist() == ["TASK-001", "TASK-004"]
        assert "Fjord Maritime" in obs[0] and "probability-weighted" in obs[1]
        for _ in range(3):  # autoresets keep each sub-env on its task
            _, _, terminated, _, infos = envs.step([{"answer": ""}, {"answer": ""}])
            assert terminated.tolist() == [True, True]
            assert infos["task_id"].tolist() == ["TASK-001", "TASK-004"]
            assert infos["final_info"]["result"]["reward"].tolist()[1] < 1.0
        with pytest.raises(ValueError, match="bound to task"):
            envs.reset(options={"task_id": "TASK-002"})
    finally:
        envs.close()


@pytest.mark.parametrize("ids", [["silo/demo-TASK-001", "silo/orders-TASK-001"],
                                 ["silo/orders-TASK-001", "silo/demo", "silo/demo-TASK-002"]])
def test_make_vec_refuses_mixed_environments(ids: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        silo_gym.make_vec(ids)
    assert str(info.value) == "make_vec needs ids of one environment; got demo, orders."


def test_make_vec_is_exported() -> None:
    assert silo_gym.make_vec is make_vec
    assert "make_vec" in silo_gym.__all__


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_per_environment_env_takes_one_task_per_sub_env(mode: str) -> None:
    envs = gym.make_vec("silo/demo", num_envs=3, vector_mode=mode)
    try:
        obs, infos = envs.reset(seed=0, options={"task_id": ["TASK-002", "TASK-005", "TASK-002"]})
        assert infos["task_id"].tolist() == ["TASK-002", "TASK-005", "TASK-002"]
        assert "Tomas Bergstrom" in obs[0] and "not moved stage" in obs[1]
        obs, infos = envs.reset(options={"task_id": "TASK-006"})
        assert infos["task_id"].tolist() == ["TASK-006"] * 3
        with pytest.raises(ValueError, match=r'options\["task_id"\] has 2 items; it needs one per sub-env \(3\)'):
            envs.reset(options={"task_id": ["TASK-001", "TASK-002"]})
        # the vector env still works after the refusal (async workers are not lost)
        obs, infos = envs.reset(options={"task_id": ("TASK-001", "TASK-003", "TASK-004")})
        assert infos["task_id"].tolist() == ["TASK-001", "TASK-003", "TASK-004"]
        _, rewards, _, _, _ = envs.step([{"answer": ""}] * 3)
        assert rewards.shape == (3,)
    finally:
        envs.close()


def _autoreset_tasks(seed: int, steps: int) -> list[list[str]]:
    envs = gym.make_vec("silo/demo", num_envs=3)
    _, infos = envs.reset(seed=seed)
    drawn = [infos["task_id"].tolist()]
    for _ in range(steps):
        _, _, _, _, infos = envs.step([{"answer": ""}] * 3)
        drawn.append(infos["task_id"].tolist())
    envs.close()
    return drawn


def test_autoresets_draw_the_task_from_np_random() -> None:
    drawn = _autoreset_tasks(seed=11, steps=6)
    assert drawn == _autoreset_tasks(seed=11, steps=6)
    assert drawn != _autoreset_tasks(seed=12, steps=6)
    assert len({t for row in drawn for t in row}) > 1
    for i in range(3):  # sub-env i is seeded with seed + i, then draws at every autoreset
        env = gym.make("silo/demo")
        expected = [env.reset(seed=11 + i)[1]["task_id"]]
        expected += [env.reset()[1]["task_id"] for _ in range(6)]
        assert [row[i] for row in drawn] == expected


# ---------------------------------------------------------------------------------------------
# Recording under vectors
# ---------------------------------------------------------------------------------------------


def _check_recorded(envs: gym.vector.VectorEnv, runs: Path, steps: int) -> None:
    """Answer ``steps`` times in every sub-env; each episode must get its own complete run."""
    n = envs.num_envs
    obs, infos = envs.reset(seed=0)
    assert infos["_run_id"].tolist() == [True] * n
    seen = list(infos["run_id"])
    for _ in range(steps):
        _, _, terminated, _, infos = envs.step([{"answer": "507500"}] * n)
        assert terminated.all()
        final_ids = list(infos["final_info"]["run_id"])
        assert final_ids == seen[-n:]
        for run_dir in infos["final_info"]["run_dir"]:
            assert {p.name for p in Path(run_dir).iterdir()} == ARTIFACTS
        assert infos["_run_id"].tolist() == [True] * n
        seen += list(infos["run_id"])
    envs.close()  # the auto-reset episodes received no action: discarded, not graded runs
    assert len(set(seen)) == len(seen) == n * (steps + 1)
    dirs = run_dirs(runs)
    assert sorted(p.name for p in dirs) == sorted(seen[: n * steps])  # run directories = episodes played
    for d in dirs:
        assert {p.name for p in d.iterdir()} == ARTIFACTS
    reasons = [json.loads((d / "result.json").read_text())["terminationReason"] for d in dirs]
    assert reasons == ["completed"] * (n * steps)


def test_record_runs_dir_under_the_entry_point(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=3, record_runs_dir=runs, agent_path="agents/x.py")
    _check_recorded(envs, runs, steps=2)
    run = json.loads(next(iter(run_dirs(runs))).joinpath("run.json").read_text())
    assert run["config"]["agentPath"] == "agents/x.py"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_record_run_wrapper_under_stock_modes(mode: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    kwargs = dict(MODES[mode])
    kwargs["vector_kwargs"] = {**kwargs.get("vector_kwargs", {}), "autoreset_mode": AutoresetMode.SAME_STEP}
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=3,
                        wrappers=[functools.partial(RecordRun, runs_dir=runs)], **kwargs)
    _check_recorded(envs, runs, steps=2)


def test_run_ids_never_collide_across_async_workers(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    envs = gym.make_vec("silo/demo-TASK-004", num_envs=2, vector_mode="async", record_runs_dir=runs)
    _check_recorded(envs, runs, steps=40)  # 82 runs in the same second or two, from two processes


# ---------------------------------------------------------------------------------------------
# Spawn-safe workers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("context", ["spawn", "forkserver"])
@pytest.mark.parametrize("env_id", ["silo/demo-TASK-004", "silo/orders-TASK-001"])
def test_workers_started_fresh_find_every_id(env_id: str, context: str) -> None:
    assert os.environ["SILO_GYM_PATH"]  # inherited by the workers: silo/orders-* registers there
    options, call, answer = SCRIPTS[env_id]
    expected = single_run(env_id, [call, answer], options)
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="async",
                        vector_kwargs={"shared_memory": False, "context": context})
    try:
        obs, infos = envs.reset(seed=0)
        assert infos["environment"].tolist() == [env_id.split("/")[1].split("-")[0]] * 2
        obs, rewards, _, _, _ = envs.step([call, call])
        assert obs == (expected[0][0],) * 2
        _, rewards, terminated, _, _ = envs.step([answer, answer])
        assert rewards.tolist() == [expected[1][1]] * 2 and terminated.all()
    finally:
        envs.close()


@pytest.mark.parametrize("entry", ["make_vec", "entry_point"])
def test_spawned_workers_build_an_environment_registered_at_run_time(
        entry: str, tmp_path: Path, make_env_dir: Any) -> None:
    """A spawned worker re-imports silo_gym, which knows only what is on disk: an environment
    registered with ``register_environment`` in the parent must reach it by its spec, not its id."""
    from gymnasium.envs.registration import registry

    from silo_gym import registration

    env_dir = make_env_dir(tmp_path, "vecruntime")
    try:
        assert silo_gym.register_environment(env_dir) == ["silo/vecruntime", "silo/vecruntime-TASK-001"]
        if entry == "make_vec":
            envs = make_vec(["silo/vecruntime-TASK-001"] * 2, vectorization_mode="async", context="spawn")
        else:
            envs = gym.make_vec("silo/vecruntime-TASK-001", num_envs=2, vector_mode="async", context="spawn")
        try:
            obs, infos = envs.reset(seed=0)
            assert obs == ("Bump the counter exactly once.",) * 2
            assert infos["environment"].tolist() == ["vecruntime"] * 2
            obs, _, _, _, _ = envs.step([{"tool": "bump", "input": {}}] * 2)
            assert obs == ('{"output":{"count":1}}',) * 2
            _, rewards, terminated, _, _ = envs.step([{"answer": "done"}] * 2)
            assert rewards.tolist() == [1.0, 1.0] and terminated.all()
        finally:
            envs.close()
    finally:
        for key in [k for k in registry if k.startswith("silo/vecruntime")]:
            del registry[key]
        registration._registered.pop("vecruntime", None)


def _same_batched(a: Any, b: Any) -> None:
    """Two batched info trees are equal key for key, in the same order, with the same dtypes."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b)
        for key in a:
            _same_batched(a[key], b[key])
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
        for x, y in zip(a.tolist(), b.tolist(), strict=True):
            _same_batched(x, y)
    else:
        assert a == b and type(a) is type(b)


@pytest.mark.parametrize("seed", range(4))
def test_the_lean_same_step_path_gives_gymnasiums_results(seed: int, tmp_path: Path) -> None:
    """Our sync entry point batches steps that end no episode in one pass; every result, infos
    included, equals stock Gymnasium's SAME_STEP on the same schedule."""
    rng = np.random.default_rng(seed)
    # (answers of one JSON type: stock Gymnasium casts mixed ones, which ours keeps exact)
    choices: list[Any] = [T, A, {"tool": "nope"}, "not json", {"tool": "get_opportunity", "input": {"x": 1}},
                          {"answer": "no idea"}]
    ours = gym.make_vec("silo/demo-TASK-004", num_envs=3, record_runs_dir=tmp_path / "a")
    stock = gym.make_vec("silo/demo-TASK-004", num_envs=3, vectorization_mode="sync",
                         vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
                         wrappers=[functools.partial(RecordRun, runs_dir=tmp_path / "b")])
    try:
        ours.reset(seed=seed)
        stock.reset(seed=seed)
        for _ in range(25):
            actions = [choices[int(k)] for k in rng.integers(len(choices), size=3)]
            got, want = ours.step(list(actions)), stock.step(list(actions))
            assert got[0] == tuple(want[0])
            for x, y in zip(got[1:4], want[1:4], strict=True):
                assert x.tolist() == y.tolist() and x.dtype == y.dtype
            drop = ("run_id", "run_dir")
            _same_batched(plain(got[4], frozenset(drop)), plain(want[4], frozenset(drop)))
            assert list(got[4]) == list(want[4])
    finally:
        ours.close()
        stock.close()
