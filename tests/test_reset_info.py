"""``ResetInfo``: the reset info's tool list is copied on first read, and every way of reading the
info sees a fresh list (gym-api.md: no object shared between episodes)."""

from __future__ import annotations

import copy
import json
import pickle

import gymnasium as gym
import orjson
import pytest

from silo_gym.info import ResetInfo
from silo_gym.tools import tool_list


@pytest.fixture
def reset_info():
    env = gym.make("silo/orders-TASK-001")
    _, info = env.reset(seed=0)
    return info, tool_list(env.unwrapped.episode.tools)


def _pending(info) -> bool:
    return type(dict.__getitem__(info, "tools")) is orjson.Fragment


def test_the_copy_is_not_made_until_read(reset_info):
    info, tools = reset_info
    assert isinstance(info, ResetInfo) and isinstance(info, dict)
    assert _pending(info)
    assert info["tool_calls"] == 0 and "tools" in info and len(info) == 7
    assert _pending(info)  # reading other keys does not copy
    first = info["tools"]
    assert first == tools and type(first) is list and not _pending(info)
    assert info["tools"] is first  # one copy per info


@pytest.mark.parametrize("read", [
    lambda i: i["tools"], lambda i: i.get("tools"), lambda i: dict(i.items())["tools"],
    lambda i: list(i.values())[4], lambda i: i.copy()["tools"], lambda i: dict(i)["tools"],
    lambda i: {**i}["tools"], lambda i: copy.deepcopy(i)["tools"], lambda i: pickle.loads(pickle.dumps(i))["tools"],
    lambda i: json.loads(json.dumps(i))["tools"], lambda i: orjson.loads(orjson.dumps(i))["tools"],
    lambda i: (i | {})["tools"], lambda i: eval(repr(i))["tools"],
], ids=["getitem", "get", "items", "values", "copy", "dict", "unpack", "deepcopy", "pickle", "json", "orjson",
        "or", "repr"])
def test_every_way_of_reading_sees_the_tool_list(reset_info, read):
    info, tools = reset_info
    assert read(info) == tools


def test_no_object_is_shared_between_resets():
    env = gym.make("silo/orders-TASK-001")
    _, a = env.reset()
    _, b = env.reset()
    assert a == b and a["tools"] is not b["tools"]
    a["tools"][0]["inputSchema"]["properties"].clear()  # mutating one copy changes no other
    _, c = env.reset()
    assert c["tools"] == b["tools"] != a["tools"]
    assert env.unwrapped.action_space == gym.make("silo/orders-TASK-001").action_space


def test_equality_with_plain_dicts(reset_info):
    info, _ = reset_info
    plain = dict(info)
    assert info == plain and plain == info and not (info != plain)
    assert type(plain) is dict
