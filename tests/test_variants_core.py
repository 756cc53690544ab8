"""The variant contract's Gymnasium face (docs/variants.md) on the small ``variety`` test world.

``variety`` variant k renames and reprices its items; every third variant (k % 3 == 0) drops item
I-1, so TASK-001's preconditions fail there and TASK-002's hold.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from conftest import ENVS_DIR, listing

import silo_gym
from silo_gym import SiloError
from silo_gym.replay import replay_run
from silo_gym.wrappers import RecordRun

SHOP = ENVS_DIR / "variety"
FILE_INSTRUCTION = json.loads((SHOP / "tasks" / "TASK-001.json").read_text())["instruction"]


def _answer_price(env: gym.Env, seed: int | None = None, options: dict | None = None) -> tuple[float, dict]:
    obs, info = env.reset(seed=seed, options=options)
    item = json.loads(env.step({"tool": "get_item", "input": {"itemId": "I-1"}})[0])["output"]
    _, reward, terminated, _, final = env.step({"answer": f"It costs {item['price']}."})
    assert terminated
    return float(reward), info


def test_default_is_the_canonical_task():
    env = gym.make("silo/variety-TASK-001")
    obs, info = env.reset(seed=3)
    assert info["variant"] is None
    assert obs == FILE_INSTRUCTION


def test_variants_true_draws_from_the_seed_and_renders_the_instruction():
    env = gym.make("silo/variety-TASK-001", variants=True)
    seen = {}
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        k = info["variant"]
        assert isinstance(k, int) and 0 <= k < 2**31
        assert k % 3 != 0  # variants that fail the task's preconditions are never handed out
        name = env.unwrapped.episode.state["items"]["I-1"]["name"]
        assert obs == f"What does the {name} (I-1) cost? Answer with the price."
        seen[seed] = (k, obs)
    assert len({k for k, _ in seen.values()}) == 12
    again = gym.make("silo/variety-TASK-001", variants=True)
    for seed, (k, obs) in seen.items():
        o, i = again.reset(seed=seed)
        assert (i["variant"], o) == (k, obs)


def test_a_variant_episode_is_graded_against_its_own_world():
    env = gym.make("silo/variety-TASK-001", variants=True)
    for seed in range(5):
        reward, info = _answer_price(env, seed=seed)
        assert reward == 1.0
    # The canonical answer (40) is wrong in a variant whose lamp costs something else.
    obs, info = env.reset(options={"variant": 1})
    price = env.unwrapped.episode.state["items"]["I-1"]["price"]
    assert price != 40
    _, reward, *_ = env.step({"answer": "It costs 40."})
    assert reward == 0.0


def test_options_variant_picks_one_in_either_mode_and_none_is_canonical():
    for variants in (False, True):
        env = gym.make("silo/variety-TASK-001", variants=variants)
        obs, info = env.reset(options={"variant": 7})
        assert info["variant"] == 7
        state7 = env.unwrapped.episode.state
        obs2, info2 = env.reset(options={"variant": None})
        assert info2["variant"] is None and obs2 == FILE_INSTRUCTION
        obs3, _ = env.reset(options={"variant": 7})
        assert obs3 == obs and env.unwrapped.episode.state == state7


def test_a_variant_failing_the_preconditions_is_refused_and_loses_nothing():
    env = gym.make("silo/variety-TASK-001")
    env.reset(options={"variant": 1})
    env.step({"tool": "get_item", "input": {"itemId": "I-1"}})
    running = env.unwrapped.episode
    with pytest.raises(SiloError) as err:
        env.reset(options={"variant": 3})
    assert err.value.code == "variant_preconditions_unmet"
    assert str(err.value) == (
        'Variant 3 of environment "variety" does not meet the preconditions of task "TASK-001": item I-1 is missing.'
    )
    assert err.value.details == {"environment": "variety", "taskId": "TASK-001", "variant": 3,
                                 "problems": ["item I-1 is missing"]}
    # The running episode was not abandoned by the refused reset.
    assert env.unwrapped.episode is running and not running.done
    # Another task of the same world accepts that variant.
    other = gym.make("silo/variety-TASK-002")
    _, info = other.reset(options={"variant": 3})
    assert info["variant"] == 3


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True, [1]])
def test_malformed_variant_options_are_type_errors(bad):
    env = gym.make("silo/variety-TASK-001")
    with pytest.raises(TypeError, match=r'options\["variant"\] must be a variant number'):
        env.reset(options={"variant": bad})


@pytest.mark.parametrize("variant", [2**63, 10**5000], ids=["2**63", "10**5000"])
def test_variants_beyond_the_range_are_refused_at_reset(tmp_path: Path, variant: int) -> None:
    env = RecordRun(gym.make("silo/variety-TASK-002"), runs_dir=tmp_path / "runs")
    with pytest.raises(TypeError) as caught:  # docs/variants.md: anything but a variant number
        env.reset(options={"variant": variant})
    message = str(caught.value)
    assert message.startswith('options["variant"] must be a variant number, an int with 0 <= k < 2**63')
    assert ("got 9223372036854775808" in message) if variant == 2**63 else ("got an int of 5001 digits" in message)
    env.close()
    assert not (tmp_path / "runs").exists() or listing(tmp_path / "runs") == []


def test_the_largest_variant_is_recorded_and_replays(tmp_path: Path) -> None:
    env = RecordRun(gym.make("silo/variety-TASK-002"), runs_dir=tmp_path / "runs")
    _, info = env.reset(options={"variant": 2**63 - 1})
    assert info["variant"] == 2**63 - 1
    env.step({"tool": "get_item", "input": {"itemId": "I-2"}})
    env.step({"answer": "done"})
    env.close()
    report = replay_run(info["run_dir"])
    assert report.identical, report.summary()


def test_an_environment_without_variants_refuses_them_clearly():
    with pytest.raises(SiloError) as err:
        gym.make("silo/orders-TASK-001", variants=True)
    assert err.value.code == "variant_unsupported"
    assert 'create_state() takes no "variant" argument' in str(err.value)
    env = gym.make("silo/orders-TASK-001")
    with pytest.raises(SiloError) as err2:
        env.reset(options={"variant": 1})
    assert err2.value.code == "variant_unsupported"
    _, info = env.reset(options={"variant": None})
    assert info["variant"] is None


def test_run_json_and_run_start_carry_the_variant_and_provenance(tmp_path):
    env = RecordRun(gym.make("silo/variety-TASK-001"), runs_dir=tmp_path)
    _answer_price(env, options={"variant": 4})
    run_dir = Path(env.run_dir)
    run = json.loads((run_dir / "run.json").read_text())
    assert list(run["config"]) == ["maxToolCalls", "timeoutMs", "agentPath", "variant", "siloGymVersion",
                                   "environmentHash"]
    assert run["config"]["variant"] == 4
    assert run["config"]["siloGymVersion"] == silo_gym.__version__
    assert run["config"]["environmentHash"].startswith("sha256:") and len(run["config"]["environmentHash"]) == 71
    rendered = env.unwrapped.episode.task.instruction
    assert run["task"]["instruction"] == rendered != FILE_INSTRUCTION
    start = json.loads((run_dir / "trace.jsonl").read_text().splitlines()[0])
    assert start["type"] == "run_start"
    assert start["config"] == run["config"] and start["task"] == run["task"]
    assert len(run) == 12  # the twelve keys of silo-format §6.4; the additions live in config
    # result.json keeps its byte-stable form: the same answer in the same variant, same bytes.
    env2 = RecordRun(gym.make("silo/variety-TASK-001"), runs_dir=tmp_path / "again")
    _answer_price(env2, options={"variant": 4})
    for name in ("result.json", "state-diff.json"):
        assert (run_dir / name).read_bytes() == (Path(env2.run_dir) / name).read_bytes()


def test_canonical_runs_record_variant_null(tmp_path):
    env = RecordRun(gym.make("silo/variety-TASK-001"), runs_dir=tmp_path)
    _answer_price(env)
    run = json.loads((Path(env.run_dir) / "run.json").read_text())
    assert run["config"]["variant"] is None
    assert run["task"]["instruction"] == FILE_INSTRUCTION


def test_environment_hash_follows_data_tasks_and_tools(tmp_path):
    from silo_gym.loader import open_environment_at
    from silo_gym.provenance import environment_hash

    copy_dir = tmp_path / "variety"
    shutil.copytree(SHOP, copy_dir)
    first = environment_hash(open_environment_at("variety", copy_dir, fresh=True))
    assert first == environment_hash(open_environment_at("variety", copy_dir, fresh=True))
    data = copy_dir / "data" / "items.json"
    data.write_text(data.read_text().replace("40", "41"))
    second = environment_hash(open_environment_at("variety", copy_dir, fresh=True))
    assert second != first
    task = copy_dir / "tasks" / "TASK-002.json"
    task.write_text(task.read_text().replace("by 10", "by 11"))
    third = environment_hash(open_environment_at("variety", copy_dir, fresh=True))
    assert third not in (first, second)
    init = copy_dir / "__init__.py"
    init.write_text(init.read_text().replace("One item by id.", "An item, by its id."))
    assert environment_hash(open_environment_at("variety", copy_dir, fresh=True)) not in (first, second, third)


def test_variant_worlds_are_the_same_in_another_process():
    code = (
        "import os, sys, json; os.environ['SILO_GYM_PATH'] = sys.argv[1]\n"
        "import gymnasium as gym, silo_gym\n"
        "env = gym.make('silo/variety-TASK-002', variants=True)\n"
        "out = []\n"
        "for s in range(5):\n"
        "    o, i = env.reset(seed=s)\n"
        "    out.append([i['variant'], o, silo_gym.dumps_compact(env.unwrapped.episode.state)])\n"
        "print(json.dumps(out))\n"
    )
    runs = [subprocess.run([sys.executable, "-c", code, str(ENVS_DIR)], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": str(seed), "PATH": ""}).stdout
            for seed in (1, 2)]
    assert runs[0] == runs[1]
    assert len(json.loads(runs[0])) == 5


def test_the_per_environment_env_draws_task_then_variant():
    env = gym.make("silo/variety", variants=True)
    tasks = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        tasks.add(info["task_id"])
        assert isinstance(info["variant"], int)
        if info["task_id"] == "TASK-001":
            assert info["variant"] % 3 != 0
    assert tasks == {"TASK-001", "TASK-002"}


def test_vector_envs_draw_variants_and_take_per_sub_env_lists():
    venv = gym.make_vec("silo/variety-TASK-002", num_envs=3, variants=True)
    _, infos = venv.reset(seed=0)
    variants = list(infos["variant"])
    assert len(set(variants)) == 3
    _, infos = venv.reset(options={"variant": [5, 6, None]})
    assert list(infos["variant"]) == [5, 6, None]
    with pytest.raises(ValueError, match=r'options\["variant"\] has 2 items; it needs one per sub-env \(3\)'):
        venv.reset(options={"variant": [5, 6]})
    venv.close()


def test_run_task_plays_a_variant(tmp_path):
    def agent(task, tools, call_tool, signal):
        item = call_tool("get_item", {"itemId": "I-1"})["output"]
        return {"output": f"It costs {item['price']}."}

    run = silo_gym.run_task("variety", "TASK-001", agent, runs_dir=tmp_path, variant=5)
    assert run.reward == 1.0 and run.run["config"]["variant"] == 5
    assert run.task.instruction == run.run["task"]["instruction"] != FILE_INSTRUCTION
    with pytest.raises(SiloError) as err:
        silo_gym.run_task("variety", "TASK-001", agent, runs_dir=tmp_path / "refused", variant=6)
    assert err.value.code == "variant_preconditions_unmet"
    assert not (tmp_path / "refused").exists() or not any((tmp_path / "refused").iterdir())


BROKEN_HOOKS = '''
from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers


def create_state(variant=None):
    if variant == 5:
        raise RuntimeError("no world for five")
    return {"now": "2026-09-15", "count": 0, "label": "start", "rows": [{"id": "A", "n": 1}]}


def render_instruction(task, state):
    raise KeyError("render boom")


def task_preconditions(task, state):
    if state["count"] == 0 and task.id == "TASK-001":
        return ["B-1 is missing."]
    return []


def bind_tools(state):
    return _bind(state, tools)
'''


def test_variant_hooks_that_fail_are_named_with_their_environment(tmp_path, make_env_dir):
    env_dir = make_env_dir(tmp_path, "brokenhooks", init=BROKEN_HOOKS)
    env = silo_gym.SiloEnv("brokenhooks", "TASK-001", path=str(env_dir))
    with pytest.raises(SiloError) as err:
        env.reset(options={"variant": 5})
    assert err.value.code == "runtime_contract_invalid"
    assert str(err.value) == ('create_state() of environment "brokenhooks" raised RuntimeError: no world for five '
                              '(variant 5).')
    with pytest.raises(SiloError) as err:
        env.reset(options={"variant": 1})
    assert str(err.value) == ('Variant 1 of environment "brokenhooks" does not meet the preconditions of task '
                              '"TASK-001": B-1 is missing.')  # one period, not two
    with pytest.raises(ValueError, match="num_envs must be a whole number of at least 1, got 0"):
        gym.make_vec("silo/variety-TASK-001", num_envs=0)


def test_a_failing_render_hook_is_named(tmp_path, make_env_dir):
    init = BROKEN_HOOKS.replace('if state["count"] == 0 and task.id == "TASK-001"', "if False")
    env_dir = make_env_dir(tmp_path, "brokenrender", init=init)
    env = silo_gym.SiloEnv("brokenrender", "TASK-001", path=str(env_dir))
    with pytest.raises(SiloError) as err:
        env.reset(options={"variant": 2})
    assert str(err.value) == ("render_instruction() of environment \"brokenrender\" raised KeyError: 'render boom' "
                              '(variant 2, task "TASK-001").')
