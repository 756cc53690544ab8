"""One episode loop for sync and async model functions (issue 11, item 1)."""

from __future__ import annotations

import asyncio
import functools
import threading
import time

import gymnasium as gym
import pytest

from silo_gym.llm import ChatPolicy, ModelHTTPError, RetryPolicy, TextProtocolPolicy
from silo_gym.llm.policy import EPISODE_METER, EpisodeMeter, is_async_callable

from ._scripted import DEMO_TASKS, PLANNERS, plan_text


def _async(fn):
    async def complete(*args):
        await asyncio.sleep(0)
        return fn(*args)

    return complete


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "text"])
def test_async_and_sync_model_functions_play_the_same_episode(api):
    plan = plan_text if api == "text" else PLANNERS[api]

    def policy(fn):
        return TextProtocolPolicy(fn, model="s") if api == "text" else ChatPolicy(fn, api=api, model="s")

    for task in DEMO_TASKS:
        env = gym.make(f"silo/demo-{task}")
        sync = policy(plan).run_episode(env, seed=0)
        via_run = policy(_async(plan)).run_episode(env, seed=0)  # asyncio.run inside
        via_await = asyncio.run(policy(_async(plan)).arun_episode(env, seed=0))
        env.close()
        assert sync.reward == 1.0
        for other in (via_run, via_await):
            assert other.actions == sync.actions and other.reward == sync.reward
            assert len(other.messages) == len(sync.messages)


def test_run_episode_refuses_an_async_model_inside_a_running_loop():
    policy = ChatPolicy(_async(PLANNERS["chat"]))

    async def main():
        env = gym.make("silo/demo-TASK-004")
        with pytest.raises(RuntimeError, match=r"use `await policy.arun_episode\(env, ...\)`"):
            policy.run_episode(env, seed=0)
        ep = await policy.arun_episode(env, seed=0)
        env.close()
        return ep

    assert asyncio.run(main()).reward == 1.0


def test_a_sync_model_function_never_blocks_the_loop():
    seen = []

    def slow(messages, tools):
        seen.append(threading.current_thread() is threading.main_thread())
        time.sleep(0.15)
        return PLANNERS["chat"](messages, tools)

    async def main():
        policy = ChatPolicy(slow)
        envs = [gym.make("silo/demo-TASK-004") for _ in range(4)]
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        tick = asyncio.create_task(ticker())
        t0 = time.perf_counter()
        episodes = await asyncio.gather(*(policy.arun_episode(e, seed=0) for e in envs))
        elapsed = time.perf_counter() - t0
        tick.cancel()
        return episodes, elapsed, ticks

    episodes, elapsed, ticks = asyncio.run(main())
    assert [e.reward for e in episodes] == [1.0] * 4
    assert seen and not any(seen)  # called in worker threads
    assert elapsed < 4 * 2 * 0.15 * 0.9  # under the serial 1.2 s: the four episodes overlapped
    assert ticks >= 10  # the loop kept turning while the model "thought"


def test_is_async_callable():
    async def f(a, b):
        return None

    class Caller:
        async def __call__(self, a, b):
            return None

    assert is_async_callable(f) and is_async_callable(functools.partial(f, 1)) and is_async_callable(Caller())
    assert not is_async_callable(PLANNERS["chat"]) and not is_async_callable(lambda m, t: None)


def test_retries_are_counted_on_the_episode_and_the_meter():
    calls = []

    async def flaky(messages, tools):
        calls.append(1)
        if len(calls) in (1, 2):
            raise ModelHTTPError(503, "busy", retry_after_s=0.0)
        return PLANNERS["chat"](messages, tools)

    meter = EpisodeMeter()

    async def main():
        EPISODE_METER.set(meter)
        env = gym.make("silo/demo-TASK-004")
        policy = ChatPolicy(flaky, retry=RetryPolicy(initial_delay_s=0.001))
        return await policy.arun_episode(env, seed=0)

    ep = asyncio.run(main())
    assert ep.reward == 1.0 and ep.retries == 2
    assert meter.retries == 2 and meter.turns == 2 and not meter.waiting


def test_cancelling_an_episode_aborts_it():
    async def hang(messages, tools):
        await asyncio.sleep(3600)

    env = gym.make("silo/demo-TASK-004")

    async def main():
        task = asyncio.create_task(ChatPolicy(hang).arun_episode(env, seed=0))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    end = env.unwrapped.episode.end
    assert end.reason == "agent_error" and end.error == "CancelledError"
    env.close()
