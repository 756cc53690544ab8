"""Gymnasium's ``TimeLimit`` (``gym.make(id, max_episode_steps=N)``) refused on silo_gym envs.

``TimeLimit`` ends an episode from outside: after N steps it returns ``truncated=True`` with the
step's reward (0 before the answer) and leaves the episode open, so the next ``reset`` abandons
it and grades a run nobody receives. A silo_gym episode has limits of its own, which end it from
inside, graded and recorded: ``max_tool_calls`` (``terminationReason`` ``max_tool_calls``) and
``timeout_ms`` (``timeout``). So silo_gym refuses ``max_episode_steps``:

- ``SiloEnv.reset`` refuses to start an episode when it is called through a ``TimeLimit`` (the
  wrappers calling ``reset`` down the stack are seen on the call stack: a few frame looks per
  reset, nothing per step), so ``gym.make(id, max_episode_steps=N)`` and any hand-made
  ``TimeLimit(env, N)`` fail at the first ``reset``, before anything is played;
- where silo_gym builds or wraps the stack itself, at once: ``RecordRun``, ``gym.make_vec`` (the
  registered vector entry point), ``silo_gym.make_vec`` and ``data.collect``.
"""

from __future__ import annotations

import sys
from typing import Any

import gymnasium as gym

__all__ = ["TIME_LIMIT_REFUSED", "check_called_without_time_limit", "check_no_time_limit"]

#: Why ``max_episode_steps`` is refused, and what to use.
TIME_LIMIT_REFUSED = (
    "max_episode_steps (Gymnasium's TimeLimit wrapper) cannot limit a silo_gym episode: it would cut the "
    "episode off with reward 0 and leave it open, to be graded at the next reset into a run nobody receives. "
    "Limit the episode with max_tool_calls (the tool-call budget: the episode ends graded, terminationReason "
    "max_tool_calls) or timeout_ms, e.g. gym.make(id, max_tool_calls=N)."
)


def check_no_time_limit(env: Any) -> None:
    """Raise when ``env`` or any wrapper inside it is a ``TimeLimit``.

    Raises:
        ValueError: :data:`TIME_LIMIT_REFUSED`.
    """
    layer = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, gym.wrappers.TimeLimit):
            raise ValueError(TIME_LIMIT_REFUSED)
        layer = layer.env


def check_called_without_time_limit(depth: int = 1) -> None:
    """Raise when the frame ``depth`` levels above the caller's, or a wrapper method above it, is
    a ``TimeLimit``'s (``SiloEnv.reset`` calls this first). The walk stops at the first frame whose
    ``self`` is not a Gymnasium ``Wrapper``, so it costs a few frame looks.

    Raises:
        ValueError: :data:`TIME_LIMIT_REFUSED`.
    """
    frame = sys._getframe(depth + 1)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if not isinstance(owner, gym.Wrapper):
            return
        if isinstance(owner, gym.wrappers.TimeLimit):
            raise ValueError(TIME_LIMIT_REFUSED)
        frame = frame.f_back  # type: ignore[assignment]
