"""Opt-in progress shaping, ``reward_mode="shaped"`` (issue 21): potential-based terms that
telescope on every episode, answer-reading checks not counted before the answer, artifacts and
the default mode unchanged."""

from __future__ import annotations

import json
import math
from typing import Any

import gymnasium as gym
import pytest

import silo_gym  # noqa: F401
from silo_gym.env import SiloEnv
from silo_gym.wrappers import RecordRun

ALL = [("demo", f"TASK-00{n}") for n in range(1, 7)] + [("project", f"TASK-{n:03d}") for n in range(1, 16)]

TOL = 1e-12


def _play(env: gym.Env[Any, Any], seed: int, actions: list[Any] | None, calls: int, answer: str,
          options: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[tuple[float, dict[str, Any]]], list[Any]]:
    """One episode: the given actions, or ``calls`` sampled ones then ``answer``; returns the
    reset info, each step's (reward, info) and the actions played."""
    _, reset_info = env.reset(seed=seed, options=options)
    env.action_space.seed(seed)
    played: list[Any] = []
    steps: list[tuple[float, dict[str, Any]]] = []
    plan = list(actions) if actions is not None else [None] * calls + [{"answer": answer}]
    for action in plan:
        action = env.action_space.sample() if action is None else action
        played.append(action)
        _, reward, terminated, truncated, info = env.step(action)
        steps.append((float(reward), info))
        if terminated or truncated:
            break
    return reset_info, steps, played


@pytest.mark.parametrize(("world", "task"), ALL)
def test_shaping_telescopes_on_random_episodes(world: str, task: str) -> None:
    shaped = gym.make(f"silo/{world}-{task}", reward_mode="shaped", variants=True, max_tool_calls=6,
                      disable_env_checker=True)
    plain = gym.make(f"silo/{world}-{task}", variants=True, max_tool_calls=6, disable_env_checker=True)
    for seed in range(3):
        reset_info, steps, played = _play(shaped, seed, None, calls=seed * 3 + 1, answer=["", "7", "x y z"][seed])
        start = reset_info["potential"]
        assert 0.0 <= start <= 1.0
        terms = [info["shaping"] for _, info in steps]
        final_reward, final = steps[-1]
        # every term is the change of potential; the ended episode's potential is 0
        previous = start
        for reward, info in steps[:-1]:
            assert 0.0 <= info["potential"] <= 1.0 and info["shaping_error"] == ""
            assert reward == info["shaping"] == info["potential"] - previous
            previous = info["potential"]
        assert final["potential"] == 0.0 and final["shaping"] == 0.0 - previous
        assert math.isclose(sum(terms), final["potential"] - start, abs_tol=TOL)
        assert math.isclose(sum(r for r, _ in steps), final["result"]["reward"] - start, abs_tol=TOL)
        assert final_reward == final["result"]["reward"] + final["shaping"]
        # the same actions without shaping: the same episode, byte for byte
        _, plain_steps, _ = _play(plain, seed, played, 0, "")
        plain_final = plain_steps[-1][1]
        assert json.dumps(plain_final["result"]) == json.dumps(final["result"])
        assert json.dumps(plain_final["state_diff"]) == json.dumps(final["state_diff"])
        assert plain_steps[-1][0] == final["result"]["reward"]
        assert all(r == 0.0 for r, _ in plain_steps[:-1])
    shaped.close()
    plain.close()


def _solver(world: str) -> Any:
    from golden.gate import load_solver

    return load_solver(world)


@pytest.mark.parametrize(("world", "task", "before_answer"), [
    ("demo", "TASK-001", None), ("demo", "TASK-002", None), ("demo", "TASK-003", None),
    ("project", "TASK-003", None), ("project", "TASK-007", None),
    ("demo", "TASK-004", 0.0), ("demo", "TASK-006", 0.0), ("project", "TASK-015", 0.0),
    # VER-012's "The answer does not give the total that ignores who is active" passes both probe
    # answers alike (the figure is computed, in no record): counted, a constant (silo_gym.shaping)
    ("project", "TASK-012", 0.5),
])
def test_the_solver_climbs_to_one_and_answer_checks_wait_for_the_answer(world: str, task: str,
                                                                      before_answer: float | None) -> None:
    env = gym.make(f"silo/{world}-{task}", reward_mode="shaped", disable_env_checker=True)
    obs, info = env.reset(seed=0)
    plan = _solver(world).plan(obs)
    action = next(plan)
    potentials = [info["potential"]]
    rewards = []
    while "answer" not in action:
        obs, reward, _, _, info = env.step(action)
        potentials.append(info["potential"])
        rewards.append(reward)
        action = plan.send(json.loads(obs))
    _, reward, terminated, _, final = env.step(action)
    assert terminated and final["passed"] and final["result"]["reward"] == 1.0
    if before_answer is not None:  # every required check reads the answer: nothing moves before it
        assert potentials == [before_answer] * len(potentials) and set(rewards) <= {0.0}
    else:  # the world alone passes every required check once the solver has acted
        assert potentials[-1] == 1.0 and potentials[0] < 1.0 and sum(rewards) > 0
    assert reward == 1.0 - potentials[-1]
    env.close()


def test_a_check_that_the_answer_must_not_fail_counts_as_not_passed() -> None:
    # VER-006's "The answer does not name the deactivated rep" passes on an empty answer: it reads
    # the answer, so before the answer it does not count.
    env = gym.make("silo/demo-TASK-006", reward_mode="shaped", disable_env_checker=True)
    _, info = env.reset(seed=0)
    assert info["potential"] == 0.0
    final = env.step({"answer": ""})[4]
    assert final["reward_components"]["The answer does not name the deactivated rep"]["passed"] is True
    env.close()


VERIFIERS_FAILING_AT_TWO = '''
from silo_gym import check, define_verifier


def _check(final, initial, context):
    if final["count"] == 2:
        raise RuntimeError("two is not gradable")
    return [check("count is 1", final["count"] == 1), check("label set", final["label"] == "done"),
            check("answered ok", context.agent_output == "ok")]


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="Counter at one", check=_check)]
'''


def test_a_world_the_verifier_cannot_grade_holds_the_potential(make_env_dir: Any, tmp_path: Any) -> None:
    env_dir = make_env_dir(tmp_path, verifiers=VERIFIERS_FAILING_AT_TWO)
    env = SiloEnv("widgets", "TASK-001", path=str(env_dir), reward_mode="shaped")
    _, info = env.reset(seed=0)
    assert info["potential"] == 0.0
    steps = [env.step(a) for a in ({"tool": "bump"}, {"tool": "rename", "input": {"label": "done"}},
                                   {"tool": "bump"}, {"tool": "bump", "input": {"by": -1}})]
    potentials = [s[4]["potential"] for s in steps]
    errors = [s[4]["shaping_error"] for s in steps]
    # 1/3 "answered ok" reads the answer: never counted before it
    assert potentials == [1 / 3, 2 / 3, 2 / 3, 2 / 3]
    assert errors[:2] == ["", ""] and errors[3] == ""
    assert errors[2] == 'Verifier "VER-001" failed: two is not gradable'
    assert [s[1] for s in steps] == [1 / 3, 2 / 3 - 1 / 3, 0.0, 0.0]
    _, reward, _, _, final = env.step({"answer": "ok"})
    assert final["result"]["reward"] == 1.0 and reward == 1.0 - 2 / 3


def test_shaped_runs_record_the_same_artifacts(tmp_path: Any) -> None:
    actions = [{"tool": "get_lead", "input": {"leadId": "LEAD-004"}}, {"tool": "nope"}, {"answer": "done"}]
    files = {}
    for mode in ("fraction", "shaped"):
        env = RecordRun(gym.make("silo/demo-TASK-001", reward_mode=mode, disable_env_checker=True),
                        runs_dir=tmp_path / mode)
        _play(env, 3, actions, 0, "")
        run_dir = env.run_dir
        assert run_dir is not None
        files[mode] = {n: open(f"{run_dir}/{n}", "rb").read() for n in ("result.json", "state-diff.json")}
        env.close()
    assert files["fraction"] == files["shaped"]


def test_the_default_modes_add_no_shaping_keys_and_shaped_is_checked() -> None:
    env = gym.make("silo/demo-TASK-001", disable_env_checker=True)
    _, info = env.reset(seed=0)
    assert "potential" not in info
    step_info = env.step({"tool": "get_current_date"})[4]
    assert not {"potential", "shaping", "shaping_error"} & set(step_info)
    assert not {"potential", "shaping", "shaping_error"} & set(env.step({"answer": ""})[4])
    with pytest.raises(ValueError, match='reward_mode must be "fraction", "binary" or "shaped", got \'shaping\''):
        gym.make("silo/demo-TASK-001", reward_mode="shaping")


def test_shaped_vector_env_batches_the_terms() -> None:
    vec = gym.make_vec("silo/demo", num_envs=2, reward_mode="shaped")
    _, info = vec.reset(seed=1, options={"task_id": ["TASK-002", "TASK-006"]})
    single = gym.make("silo/demo", reward_mode="shaped", disable_env_checker=True)
    expected = single.reset(seed=1, options={"task_id": "TASK-002"})[1]["potential"]
    single.close()
    assert list(info["potential"]) == [expected, 0.0]
    _, rewards, _, _, info = vec.step([{"tool": "get_current_date"}, {"answer": ""}])
    assert rewards[0] == 0.0 and info["shaping"][0] == 0.0  # a read changes nothing
    assert info["final_info"]["shaping"][1] == 0.0 and rewards[1] == info["final_info"]["result"]["reward"][1]
    vec.close()


COUNTING_VERIFIERS = '''
from silo_gym import check, define_verifier

ANSWERS = []


def _check(final, initial, context):
    ANSWERS.append(context.agent_output)
    return [check("count is 1", final["count"] == 1), check("said ok", context.agent_output == "ok"),
            check("never said no", "no" not in context.agent_output)]


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="Counter at one", check=_check)]
'''


def test_answer_reading_checks_are_learned_once_per_env(make_env_dir: Any, tmp_path: Any) -> None:
    env_dir = make_env_dir(tmp_path, verifiers=COUNTING_VERIFIERS)
    env = SiloEnv("widgets", "TASK-001", path=str(env_dir), reward_mode="shaped")
    answers = env._verifiers[0].check_fn.__globals__["ANSWERS"]
    _, info = env.reset(seed=0)
    assert info["potential"] == 0.0  # "never said no" passes the empty answer, but reads it
    assert len(answers) == 2 and answers[0] == "" and "start" in answers[1].split("\n")  # the probe names the world
    rewards = [env.step({"tool": "bump"})[1], env.step({"tool": "peek"})[1]]
    assert rewards == [1 / 3, 0.0]
    env.step({"answer": "ok"})
    assert answers[2:] == ["", "", "ok"]  # one grading per step from then on
    del answers[:]
    env.reset(seed=0)
    env.step({"tool": "bump"})
    assert answers == ["", ""]  # the next episode needs no probe


def test_shaped_envs_pass_the_gymnasium_checker_and_collect_keeps_the_verifier_reward() -> None:
    from gymnasium.utils.env_checker import check_env

    from silo_gym import data

    env = gym.make("silo/project-TASK-003", reward_mode="shaped")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()
    shaped = data.collect("silo/project-TASK-003", "random", episodes_per_task=3, seed=2,
                          env_kwargs={"reward_mode": "shaped"})
    plain = data.collect("silo/project-TASK-003", "random", episodes_per_task=3, seed=2)
    assert shaped == plain  # rows hold the episode's reward, not the last step's shaped one
