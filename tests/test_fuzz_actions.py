"""Random actions never break an episode (gym-api.md, "One episode")."""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from silo_gym import SiloEnv, dumps_compact
from silo_gym.episode import ACCEPTED_SHAPES

STEP_KEYS = ["tool_calls", "tool_errors", "call_id", "tool", "is_error"]
FINAL_KEYS = STEP_KEYS + ["termination_reason", "error", "passed", "reward_components", "required_fraction",
                          "optional_fraction", "result", "state_diff"]
SAMPLE = object()  # placeholder: replaced by env.action_space.sample()

scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=12))
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=8,
)
tool_names = st.sampled_from(["get_order", "ship_order", "explode", "nope", ""]) | json_values
inputs = (
    st.dictionaries(st.sampled_from(["orderId", "carrier", "express", "limit", "x"]),
                    st.sampled_from(["O-1", "O-2", "O-9", "ground", "express", True, 3]) | json_values, max_size=3)
    | json_values
)
tool_calls = st.fixed_dictionaries({"tool": tool_names}, optional={"input": inputs})
keys = st.sampled_from(["tool", "input", "answer", "name", "arguments"]) | st.text(max_size=5)
odd_dicts = st.dictionaries(keys, json_values | tool_names, max_size=4)
strings = (
    st.text(max_size=30)
    | json_values.map(json.dumps)  # may hold NaN / Infinity, which strict JSON refuses
    | tool_calls.map(lambda d: json.dumps(d))
    | tool_calls.map(lambda d: json.dumps(d) + " trailing")
)
answers = st.fixed_dictionaries({"answer": json_values})
actions = st.one_of(
    tool_calls, tool_calls, odd_dicts, strings, json_values, st.just(SAMPLE), st.just(SAMPLE),
    answers.filter(lambda _: True),
)


def _expected_tool_input(action):
    """What the trace's tool_call records for a call that was executed."""
    if isinstance(action, str):
        try:
            parsed = json.loads(action, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError:
            return action
        value = parsed
    else:
        value = action
    if (isinstance(value, dict) and set(value) <= {"tool", "input"} and "tool" in value
            and isinstance(value["tool"], str) and (value.get("input") is None or isinstance(value["input"], dict))
            and _plain(value.get("input"))):
        return value.get("input")
    return action


def _plain(value, depth=0):
    """Rule 8 (docs/spec-amendments.md): an input holds only exact JSON types, finite floats."""
    if value is None or type(value) in (str, int, bool):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return depth <= 100 and all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return depth <= 100 and all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return False


class Driver:
    def __init__(self, environment: str, max_tool_calls: int) -> None:
        self.env = SiloEnv(environment, "TASK-001", max_tool_calls=max_tool_calls)
        self.env.action_space.seed(0)
        self.max = max_tool_calls
        self.steps = 0
        self.episodes = 0
        self.start()

    def start(self) -> None:
        self.events: list[dict] = []
        self.env.add_listener(self.events.append)
        obs, info = self.env.reset()
        assert self.env.observation_space.contains(obs)
        self.calls, self.errors = 0, 0
        self.episodes += 1

    def step(self, action) -> None:
        env = self.env
        if action is SAMPLE:
            action = env.action_space.sample()
            assert env.action_space.contains(action)
        obs, reward, terminated, truncated, info = env.step(action)
        self.steps += 1
        assert isinstance(obs, str) and env.observation_space.contains(obs)
        assert type(reward) is float and not (terminated and truncated)
        assert type(terminated) is bool and type(truncated) is bool
        if not (terminated or truncated):
            assert reward == 0.0
            assert list(info) == STEP_KEYS
            assert info["tool_calls"] == self.calls + 1 == info["call_id"]
            assert type(info["is_error"]) is bool
            assert info["tool_errors"] == self.errors + info["is_error"]
            self.calls, self.errors = info["tool_calls"], info["tool_errors"]
            assert isinstance(info["tool"], str)  # "" when the action's tool is not a string
            payload = json.loads(obs)
            assert list(payload) == (["output", "isError"] if info["is_error"] else ["output"])
            if info["is_error"]:
                assert payload["isError"] is True
                if payload["output"]["code"] == "invalid_action":
                    assert payload["output"]["message"].endswith(" " + ACCEPTED_SHAPES)
                    assert "details" not in payload["output"]
            call, result = self.events[-2:]
            assert call["type"] == "tool_call" and result["type"] == "tool_result"
            assert call["callId"] == result["callId"] == info["call_id"]
            # The trace keeps null for a tool that is not a string (silo-format §3.6); info gives "".
            assert call["tool"] == result["tool"] and info["tool"] == (call["tool"] if call["tool"] is not None else "")
            assert result["isError"] is info["is_error"]
            assert dumps_compact(call["input"]) == dumps_compact(_expected_tool_input(action))
            return
        # The final step.
        assert list(info) == FINAL_KEYS
        assert info["call_id"] == 0 and info["tool"] == "" and info["is_error"] is False
        assert info["tool_calls"] == self.calls and info["tool_errors"] == self.errors
        reason = info["termination_reason"]
        assert terminated is (reason == "completed")
        if reason == "completed":
            assert info["error"] is None
        else:
            assert (reason, info["error"], self.calls) == ("max_tool_calls",
                                                           f"Tool call limit exceeded ({self.max}).", self.max)
        assert obs == dumps_compact({"terminationReason": reason, "error": info["error"]})
        result = info["result"]
        assert result["toolCalls"] == self.calls and result["toolErrors"] == self.errors
        assert result["terminationReason"] == reason and result["passed"] is info["passed"]
        assert reward == result["reward"] and 0.0 <= reward <= 1.0 and not math.isnan(reward)
        types = [e["type"] for e in self.events]
        assert [e["seq"] for e in self.events[:-1]] == list(range(1, len(self.events)))
        assert types.count("tool_call") == types.count("tool_result") == self.calls
        assert types[-4:] == ["agent_output", "run_end", "verifier_result", "episode_end"]
        self.start()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(actions, min_size=1, max_size=40))
def test_random_actions_on_orders(batch):
    driver = Driver("orders", 100)
    for action in batch:
        driver.step(action)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(actions, min_size=1, max_size=15))
def test_random_actions_with_small_budget(batch):
    driver = Driver("orders", 4)
    for action in batch:
        driver.step(action)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(actions, min_size=1, max_size=15))
def test_random_actions_on_inventory(batch):
    driver = Driver("inventory", 100)
    for action in batch:
        driver.step(action)


def test_sampled_actions_only():
    driver = Driver("orders", 2000)
    for _ in range(1500):
        driver.step(SAMPLE)
    assert driver.steps == 1500 and driver.calls == 1500
    driver.step({"answer": "done"})
    assert driver.episodes == 2
