"""``collect(..., backend="ray")``: the same rows and artifacts as the local backend, streaming,
retries of dead workers, failed rows, and the error without Ray.

One local Ray cluster (2 CPUs) serves the whole module. Its temporary files live in a short temp
directory of its own (``_temp_dir`` and ``RAY_TMPDIR``; workers inherit ``TMPDIR`` pointing there
too), and the cluster's auth token comes from ``RAY_AUTH_TOKEN``, so Ray writes nothing to
``~/.ray`` (it otherwise saves a token to ``~/.ray/auth_token``); the fixture checks that.
Without Ray the cluster tests are skipped, except under ``CI``, where they fail.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from silo_gym import SiloError, register_environment
from silo_gym.cli import main
from silo_gym.data import EPISODE_COLUMNS, collect, episode_seed, iter_collect, preference_pairs, read
from silo_gym.data.ray_backend import publish_run
from silo_gym.llm import ChatPolicy

from . import _helpers
from ._helpers import SOLVER_PATH, plan_chat

# one cluster per xdist worker at most (--dist loadgroup); starting one is slow (make test-fast skips it)
pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.slow]

DEMO = ["silo/demo"]  # 6 tasks
HELPERS_PATH = Path(_helpers.__file__).resolve()


@pytest.fixture(scope="module")
def ray_cluster():
    try:
        import ray
    except ImportError:
        if os.environ.get("SILO_GYM_REQUIRE_EXTRAS") == "1":  # make test installs it: a skip would hide a gap
            pytest.fail('Ray is not installed; make test runs these tests: pip install -e ".[dev,ray]"')
        pytest.skip('Ray is not installed (pip install "silo-gym[ray]")')
    assert not ray.is_initialized()
    home_ray = Path.home() / ".ray"
    home_ray_existed = home_ray.exists()
    # Short: Ray's unix socket paths under the session directory must stay below 108 bytes.
    tmp = Path(tempfile.mkdtemp(prefix="sgray-"))
    patch = pytest.MonkeyPatch()
    try:
        patch.setenv("RAY_TMPDIR", str(tmp))
        patch.setenv("TMPDIR", str(tmp))  # the workers' staging directories land here too
        # RAY_AUTH_MODE left unset: ray.init then turns token auth on for this process and the
        # cluster (re-reading its config, which an explicit value set after `import ray` would not),
        # and finds the token in RAY_AUTH_TOKEN instead of generating ~/.ray/auth_token.
        patch.delenv("RAY_AUTH_MODE", raising=False)
        patch.setenv("RAY_AUTH_TOKEN", secrets.token_hex(16))
        patch.delenv("RAY_ADDRESS", raising=False)
        started = time.monotonic()
        ray.init(num_cpus=2, include_dashboard=False, _temp_dir=str(tmp), log_to_driver=False,
                 object_store_memory=100 * 1024 * 1024)
        yield {"ray": ray, "tmp": tmp, "startup_s": time.monotonic() - started}
    finally:
        ray.shutdown()
        patch.undo()
        shutil.rmtree(tmp, ignore_errors=True)
        if not home_ray_existed:
            assert not home_ray.exists(), "Ray wrote to ~/.ray"


def _strip(rows, *keys):
    keys = keys or ("run_id",)
    return [{k: v for k, v in r.items() if k not in keys} for r in rows]


def _stage_dirs(cluster):
    base = cluster["tmp"] / "silo-gym-ray"
    return sorted(p.name for p in base.iterdir()) if base.is_dir() else []


def _assert_same_artifacts(local_rows, local_dir, ray_rows, ray_dir):
    assert sorted(p.name for p in local_dir.iterdir()) == sorted(r["run_id"] for r in local_rows)
    assert sorted(p.name for p in ray_dir.iterdir()) == sorted(r["run_id"] for r in ray_rows)
    volatile = {"runId", "startedAt", "finishedAt", "durationMs"}
    for a, b in zip(local_rows, ray_rows, strict=True):
        da, db = local_dir / a["run_id"], ray_dir / b["run_id"]
        assert sorted(p.name for p in db.iterdir()) == ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
        for name in ("result.json", "state-diff.json"):
            assert (da / name).read_bytes() == (db / name).read_bytes()
        run_a, run_b = json.loads((da / "run.json").read_text()), json.loads((db / "run.json").read_text())
        assert run_b["runId"] == b["run_id"]
        assert {k: v for k, v in run_a.items() if k not in volatile} == \
            {k: v for k, v in run_b.items() if k not in volatile}
        trace_a = [json.loads(x) for x in (da / "trace.jsonl").read_text().splitlines()]
        trace_b = [json.loads(x) for x in (db / "trace.jsonl").read_text().splitlines()]
        assert [{k: v for k, v in e.items() if k not in volatile | {"at"}} for e in trace_a] == \
            [{k: v for k, v in e.items() if k not in volatile | {"at"}} for e in trace_b]


@pytest.mark.parametrize("policy", ["random", f"{SOLVER_PATH}:make_policy", str(SOLVER_PATH)],
                         ids=["random", "gym-policy", "silo-agent"])
def test_same_rows_and_artifacts_as_local(ray_cluster, tmp_path, policy):
    local = collect(DEMO, policy, episodes_per_task=4, seed=11, runs_dir=tmp_path / "local")
    remote = collect(DEMO, policy, episodes_per_task=4, seed=11, runs_dir=tmp_path / "ray", backend="ray",
                     num_workers=2)
    assert len(remote) == 24
    assert all(tuple(r) == EPISODE_COLUMNS for r in remote)
    assert [(r["task_id"], r["episode"]) for r in remote] == [(r["task_id"], r["episode"]) for r in local]
    assert _strip(remote) == _strip(local)
    assert all(r["run_id"] for r in remote)
    _assert_same_artifacts(local, tmp_path / "local", remote, tmp_path / "ray")
    if policy != "random":
        assert all(r["reward"] == 1.0 for r in remote)
    assert _stage_dirs(ray_cluster) == []  # workers cleaned their staging directories


def test_results_do_not_depend_on_the_number_of_workers(ray_cluster):
    one = collect(DEMO, "random", episodes_per_task=2, seed=4, backend="ray", num_workers=1)
    two = collect(DEMO, "random", episodes_per_task=2, seed=4, backend="ray", num_workers=2)
    local = collect(DEMO, "random", episodes_per_task=2, seed=4)
    assert one == two == local  # run_id is None without runs_dir
    assert preference_pairs(two) == preference_pairs(local)


def test_grouped_collection_is_the_same_on_ray(ray_cluster):
    local = collect(DEMO, "random", episodes_per_task=4, seed=4, group_size=2, variants=True)
    remote = collect(DEMO, "random", episodes_per_task=4, seed=4, group_size=2, variants=True, backend="ray",
                     num_workers=2)
    assert remote == local and [r["group"] for r in remote[:4]] == [0, 0, 1, 1]
    assert remote[0]["variant"] == remote[1]["variant"] != remote[2]["variant"]


def test_pickled_policy_object(ray_cluster):
    from ray import cloudpickle  # Ray's own copy: registering with the cloudpickle package would not do

    # plan_chat lives in a test module the workers cannot import: send it by value.
    cloudpickle.register_pickle_by_value(_helpers)
    try:
        policy = ChatPolicy(plan_chat, model="m")
        remote = collect(["silo/demo-TASK-001", "silo/demo-TASK-004"], policy, episodes_per_task=2,
                         backend="ray", num_workers=2)
    finally:
        cloudpickle.unregister_pickle_by_value(_helpers)
    local = collect(["silo/demo-TASK-001", "silo/demo-TASK-004"], ChatPolicy(plan_chat, model="m"),
                    episodes_per_task=2)
    assert remote == local
    assert {r["policy"] for r in remote} == {"chat:m"} and all(r["reward"] == 1.0 for r in remote)


def test_unpicklable_policy_says_what_to_do(ray_cluster):
    import threading

    lock = threading.Lock()

    def policy(observation, info):
        with lock:
            return {"answer": ""}

    with pytest.raises(TypeError, match="could not be pickled.*zero-argument factory"):
        collect(["silo/demo-TASK-001"], policy, episodes_per_task=1, backend="ray", num_workers=1)


def test_iter_collect_streams_rows_as_they_finish(ray_cluster, tmp_path):
    seen = []
    stream = iter_collect(DEMO, "random", episodes_per_task=2, seed=9, runs_dir=tmp_path, backend="ray",
                          num_workers=2, progress=seen.append)
    first = next(stream)
    assert tuple(first) == EPISODE_COLUMNS
    assert (tmp_path / first["run_id"] / "run.json").is_file()  # its artifacts are in place already
    rows = [first, *stream]
    assert rows == seen and len(rows) == 12
    ordered = sorted(rows, key=lambda r: (r["task_id"], r["episode"]))
    assert _strip(ordered) == _strip(collect(DEMO, "random", episodes_per_task=2, seed=9))

    # Closing the stream early stops its workers; the cluster is usable afterwards.
    stream = iter_collect(DEMO, "random", episodes_per_task=3, backend="ray", num_workers=2)
    next(stream)
    stream.close()
    assert len(collect(["silo/demo-TASK-001"], "random", episodes_per_task=1, backend="ray")) == 1


KILLER = '''
import importlib.util
import os
import pathlib

from silo_gym.llm import ChatPolicy

_spec = importlib.util.spec_from_file_location("_collect_helpers_for_killer", {helpers!r})
_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_helpers)

MARKER = pathlib.Path({marker!r})
TARGET_SEEDS = {targets!r}


class Killer(ChatPolicy):
    """The scripted chat policy, but the worker process dies in the middle of a target episode,
    after its first tool call: only the first time ({first_only!r}), or every time."""

    def steps(self, env, seed, options):  # the loop of run_episode and arun_episode alike
        self.armed = seed in TARGET_SEEDS and (not {first_only!r} or not MARKER.exists())
        return super().steps(env, seed, options)


def make_policy():
    def complete(messages, tools):
        if policy.armed and any(m["role"] == "tool" for m in messages):
            with open(MARKER, "a") as fh:
                fh.write(f"{{os.getpid()}}\\n")
            os._exit(1)
        if {raise_on!r} and {raise_on!r} in messages[1]["content"]:
            raise RuntimeError("the model server is down")
        return _helpers.plan_chat(messages, tools)

    policy = Killer(complete, model="m")
    policy.armed = False
    return policy
'''


def _killer(tmp_path, targets, *, first_only=True, raise_on=""):
    marker = tmp_path / "killed.txt"
    path = tmp_path / "killer.py"
    path.write_text(textwrap.dedent(KILLER).format(helpers=str(HELPERS_PATH), marker=str(marker),
                                                   targets=set(targets), first_only=first_only,
                                                   raise_on=raise_on))
    return f"{path}:make_policy", marker


def test_worker_killed_mid_episode_is_retried_and_recorded_once(ray_cluster, tmp_path):
    target = episode_seed(0, "demo", "TASK-003", 2)
    spec, marker = _killer(tmp_path, {target})
    runs = tmp_path / "runs"
    rows = collect(DEMO, spec, episodes_per_task=4, runs_dir=runs, backend="ray", num_workers=2)
    killed = marker.read_text().split()
    assert len(killed) == 1  # one worker died, once
    assert len(rows) == 24
    assert sorted((r["task_id"], r["episode"]) for r in rows) == \
        sorted({(r["task_id"], r["episode"]) for r in rows})  # each episode exactly once
    assert all(r["reward"] == 1.0 and r["error"] is None for r in rows)
    # Exactly one complete run directory per episode: the dead attempt left nothing behind.
    assert sorted(p.name for p in runs.iterdir()) == sorted(r["run_id"] for r in rows)
    for r in rows:
        assert sorted(p.name for p in (runs / r["run_id"]).iterdir()) == \
            ["result.json", "run.json", "state-diff.json", "trace.jsonl"]
    assert {r["policy"] for r in rows} == {spec}  # a policy loaded from a file is labelled by its spec
    local = collect(DEMO, ChatPolicy(plan_chat, model="m"), episodes_per_task=4)
    assert _strip(rows, "run_id", "policy") == _strip(local, "run_id", "policy")
    # The dead worker's staging directory was swept by its replacement; the rest closed cleanly.
    assert _stage_dirs(ray_cluster) == []


def test_episodes_that_keep_failing_become_failed_rows(ray_cluster, tmp_path):
    doomed = episode_seed(0, "demo", "TASK-002", 0)
    spec, marker = _killer(tmp_path, {doomed}, first_only=False, raise_on="probability-weighted")
    runs = tmp_path / "runs"
    rows = collect(DEMO, spec, episodes_per_task=1, runs_dir=runs, backend="ray", num_workers=2, max_retries=1)
    assert [(r["task_id"], r["episode"]) for r in rows] == [(f"TASK-00{i}", 0) for i in range(1, 7)]
    # The doomed episode killed a worker on each of its 2 attempts, plus once more when its first
    # death was ambiguous (another episode lost with that worker): that death counts for nobody.
    assert len(marker.read_text().split()) in (2, 3)
    failed = {r["task_id"]: r for r in rows if r["reward"] is None}
    assert set(failed) == {"TASK-002", "TASK-004"}
    died = failed.pop("TASK-002")
    assert died["error"].startswith("Episode failed after 2 attempt(s): The Ray worker playing the episode died")
    for row in [died, *failed.values()]:
        assert tuple(row) == EPISODE_COLUMNS
        assert row["run_id"] is None and row["passed"] is None and row["messages"] is None
        assert row["policy"] == spec and row["environment"] == "demo"
    for row in failed.values():
        assert row["error"] == "Episode failed after 2 attempt(s): RuntimeError: the model server is down"
    good = [r for r in rows if r["reward"] is not None]
    assert good and all(r["reward"] == 1.0 for r in good)
    assert sorted(p.name for p in runs.iterdir()) == sorted(r["run_id"] for r in good)


def test_setup_errors_stop_the_collection_with_the_original_error(ray_cluster, tmp_path):
    with pytest.raises(SiloError) as info:
        collect(DEMO, str(tmp_path / "missing.py"), episodes_per_task=1, backend="ray", num_workers=1)
    assert info.value.code == "agent_invalid"


def test_an_environment_registered_at_run_time_reaches_the_workers(ray_cluster, tmp_path, make_env_dir):
    # Workers do not share the driver's registry: they register the env from its path.
    name = f"raywidgets{secrets.token_hex(3)}"
    tools = """
        from silo_gym import define_tool

        def _bump(state, input):
            state["count"] += input.get("by", 1)
            return {"count": state["count"]}

        tools = [define_tool(name="bump", description="Add to the counter.",
                             input_schema={"type": "object", "properties": {"by": {"type": "integer"}},
                                           "additionalProperties": False}, run=_bump)]
    """
    register_environment(make_env_dir(tmp_path, name=name, tools=tools))
    local = collect([f"silo/{name}"], "random", episodes_per_task=3, seed=1)
    remote = collect([f"silo/{name}"], "random", episodes_per_task=3, seed=1, backend="ray", num_workers=2)
    assert remote == local and len(remote) == 3


def test_cli_backend_ray(ray_cluster, tmp_path, capsys):
    code = main(["collect", "--env", "demo", "--tasks", "TASK-001,TASK-004", "--policy", "random",
                 "--episodes-per-task", "3", "--out", str(tmp_path / "ray"), "--seed", "2",
                 "--runs-dir", str(tmp_path / "runs"), "--backend", "ray", "--num-workers", "3",
                 "--worker-cpus", "0.5"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Collected 6 episodes from demo with policy random (seed 2)." in captured.out
    assert main(["collect", "--env", "demo", "--tasks", "TASK-001,TASK-004", "--policy", "random",
                 "--episodes-per-task", "3", "--out", str(tmp_path / "local"), "--seed", "2"]) == 0
    ray_rows, local_rows = read(tmp_path / "ray" / "episodes.jsonl"), read(tmp_path / "local" / "episodes.jsonl")
    assert _strip(ray_rows) == _strip(local_rows)
    assert (tmp_path / "ray" / "pairs.jsonl").read_bytes() == (tmp_path / "local" / "pairs.jsonl").read_bytes()
    assert len(list((tmp_path / "runs").iterdir())) == 6


# -- without a cluster ------------------------------------------------------------------------------


def test_without_ray_the_error_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)
    message = r'backend="ray" needs Ray, which is not installed: pip install "silo-gym\[ray\]"'
    with pytest.raises(ImportError, match=message):
        collect(DEMO, "random", episodes_per_task=1, backend="ray")
    with pytest.raises(ImportError, match=message):
        iter_collect(DEMO, "random", episodes_per_task=1, backend="ray")  # at the call, not at next()
    assert main(["collect", "--env", "demo", "--policy", "random", "--out", str(tmp_path / "x"),
                 "--backend", "ray"]) == 1
    assert 'pip install "silo-gym[ray]"' in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cli_backend_flags_are_checked(tmp_path, capsys):
    base = ["collect", "--env", "demo", "--policy", "random", "--out", str(tmp_path / "x")]
    for extra, message in ((["--backend", "spark"], "--backend must be local or ray"),
                           (["--num-workers", "2"], "need --backend ray"),
                           (["--ray-address", "auto"], "need --backend ray"),
                           (["--worker-cpus", "0.5"], "need --backend ray"),
                           (["--backend", "ray", "--worker-cpus", "0"], "--worker-cpus must be a number above 0"),
                           (["--backend", "ray", "--worker-cpus", "x"], "--worker-cpus must be a number above 0"),
                           (["--max-retries", "-1"], "--max-retries must be at least 0"),
                           (["--backend", "ray", "--num-workers", "0"], "--num-workers must be at least 1")):
        assert main(base + extra) == 1
        assert message in capsys.readouterr().err


def test_publish_run_draws_a_new_suffix_on_a_clash(tmp_path):
    run_id = "run_20260915020238_9s01"
    files = {
        "trace.jsonl": b'{"seq":1,"type":"run_start","at":"x","runId":"run_20260915020238_9s01"}\n',
        "state-diff.json": b'{\n  "scalars": [],\n  "collections": {}\n}\n',
        "result.json": b'{\n  "passed": true\n}\n',
        "run.json": b'{\n  "runId": "run_20260915020238_9s01",\n  "environment": "demo"\n}\n',
    }
    assert publish_run(tmp_path, run_id, files) == run_id
    other = publish_run(tmp_path, run_id, files)
    assert other != run_id and other.startswith("run_20260915020238_") and len(other) == len(run_id)
    assert json.loads((tmp_path / other / "run.json").read_text())["runId"] == other
    assert json.loads((tmp_path / other / "trace.jsonl").read_text())["runId"] == other
    assert (tmp_path / other / "result.json").read_bytes() == files["result.json"]
    assert sorted(os.listdir(tmp_path / other)) == sorted(files)


def test_concurrency_inside_each_worker(ray_cluster, tmp_path):
    pytest.importorskip("aiohttp")
    from silo_gym.llm import openai_acomplete
    from silo_gym.mock_model import MockModelServer

    with MockModelServer(latency_ms=30, faults=["hang@3"]) as server:
        policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")  # pickled
        runs = tmp_path / "runs"
        rows = collect(DEMO, policy, episodes_per_task=4, backend="ray", num_workers=1, concurrency=12,
                       episode_timeout_s=8.0, runs_dir=runs)
        assert len(rows) == 24
        failed = [r for r in rows if r["reward"] is None]
        assert len(failed) == 1, [r["error"] for r in failed]
        # request 3 is an early turn of one episode (which one depends on timing)
        assert re.fullmatch(r"Episode timed out after 8 s \(episode_timeout_s\): the model call of turn [12] did "
                            r"not return\.", failed[0]["error"])
        good = [r for r in rows if r["reward"] is not None]
        assert all(r["reward"] == 1.0 for r in good)
        assert sorted(p.name for p in runs.iterdir()) == sorted(r["run_id"] for r in good)
        local = collect(DEMO, policy, episodes_per_task=4)
    by_key = {(r["task_id"], r["episode"]): r for r in local}
    for row in good:
        expected = {k: v for k, v in by_key[(row["task_id"], row["episode"])].items() if k != "run_id"}
        assert {k: v for k, v in row.items() if k != "run_id"} == expected


COUNTING = '''
import asyncio
import importlib.util
import os
import pathlib

from silo_gym.llm import ChatPolicy

_spec = importlib.util.spec_from_file_location("_collect_helpers_for_counting", {helpers!r})
_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_helpers)

LOG = pathlib.Path({log!r})
ACTIVE = 0


class Counting(ChatPolicy):
    """The scripted chat policy; logs how many episodes this process is playing at each start."""

    async def arun_episode(self, env, **kwargs):
        global ACTIVE
        ACTIVE += 1
        with open(LOG, "a") as fh:
            fh.write(f"{{os.getpid()}} {{ACTIVE}}\\n")
        try:
            return await super().arun_episode(env, **kwargs)
        finally:
            ACTIVE -= 1


def make_policy():
    async def complete(messages, tools):
        await asyncio.sleep(0.005)  # a model turn: the loop may start another episode meanwhile
        return _helpers.plan_chat(messages, tools)

    return Counting(complete, model="m")
'''


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_worker_plays_at_most_concurrency_episodes_at_once(ray_cluster, tmp_path, concurrency):
    # Each worker is handed one episode beyond its concurrency so it never starves; that one
    # must wait, not play (a policy object is shared by the episodes of a worker).
    log = tmp_path / "active.txt"
    path = tmp_path / "counting.py"
    path.write_text(textwrap.dedent(COUNTING).format(helpers=str(HELPERS_PATH), log=str(log)))
    rows = collect(DEMO, f"{path}:make_policy", episodes_per_task=3, backend="ray", num_workers=2,
                   concurrency=concurrency)
    assert len(rows) == 18 and all(r["reward"] == 1.0 for r in rows)
    starts = [tuple(map(int, line.split())) for line in log.read_text().split("\n") if line]
    assert len(starts) == 18
    assert max(active for _pid, active in starts) == concurrency


def test_episode_variants_reach_the_workers_and_eval_runs_on_ray(ray_cluster, tmp_path):
    from silo_gym.eval import evaluate

    ids = ["silo/demo-TASK-001", "silo/demo-TASK-003"]
    worlds = {"demo/TASK-001": [3, 8], "demo/TASK-003": [None, 5]}
    rows = collect(ids, "random", episodes_per_task=2, episode_variants=worlds, backend="ray", num_workers=2)
    assert [r["variant"] for r in rows] == [3, 8, None, 5]
    local = evaluate(ids, str(SOLVER_PATH), trials=2, variants=worlds, out_dir=tmp_path / "local")
    on_ray = evaluate(ids, str(SOLVER_PATH), trials=2, variants=worlds, out_dir=tmp_path / "ray", backend="ray",
                      num_workers=2)
    assert {k: v for k, v in on_ray.data.items() if k != "timing"} == \
        {k: v for k, v in local.data.items() if k != "timing"}
    assert on_ray.tasks["demo/TASK-003"]["variants"] == [None, 5] and on_ray.overall["successes"] == 4
