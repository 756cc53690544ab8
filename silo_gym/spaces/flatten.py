"""Gymnasium's flatten and shared-memory functions refuse both spaces with a clear error.

Neither space can be flattened to a fixed numpy array, and neither can live in the shared memory
of ``AsyncVectorEnv`` (gym-api.md, "Spaces"). Gymnasium's ``flatdim``/``flatten``/``unflatten``/
``flatten_space`` and ``create_shared_memory``/``read_from_shared_memory``/
``write_to_shared_memory`` are registered for both spaces and raise instead of returning silently
wrong values. Batching works through Gymnasium's generic handlers for custom spaces:
``batch_space(space, n)`` is a ``Tuple`` of ``n`` copies, and batched observations are tuples of
``str``.
"""

from __future__ import annotations

from typing import Any

from gymnasium.error import CustomSpaceError
from gymnasium.spaces import Space
from gymnasium.spaces.utils import flatdim, flatten, flatten_space, unflatten
from gymnasium.vector.utils import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

from ..errors import SiloGymError
from .json_text import JsonText
from .tool_call import ToolCall

__all__ = ["SharedMemoryUnsupportedError", "SpaceNotFlattenableError"]


class SpaceNotFlattenableError(ValueError, NotImplementedError, SiloGymError):
    """Raised by Gymnasium's flatten functions for :class:`ToolCall` and :class:`JsonText`.

    It is both a ``ValueError`` (what Gymnasium raises for spaces that cannot be flattened) and a
    ``NotImplementedError`` (what it raises for unknown spaces), so either ``except`` clause works.
    """


class SharedMemoryUnsupportedError(CustomSpaceError, ValueError, SiloGymError):
    """Raised by Gymnasium's shared-memory functions for :class:`ToolCall` and :class:`JsonText`.

    A ``CustomSpaceError`` so that ``AsyncVectorEnv`` wraps it in its own ``ValueError`` (this
    error is then the ``__cause__``), and a ``ValueError`` for direct callers.
    """


def _flatten_message(space: Space[Any]) -> str:
    if isinstance(space, ToolCall):
        what = 'holds JSON tool calls ({"tool": <name>, "input": {...}} or {"answer": ...} dicts)'
        instead = "Pass actions as dicts (an LLM policy, or space.sample())"
    else:
        what = "holds JSON text of varying length"
        instead = "Keep observations as str and encode them yourself (for example with a tokenizer)"
    return (
        f"{space!r} {what} and cannot be flattened to a numpy array. {instead} instead of using "
        "gymnasium.spaces.utils.flatten / flatdim / flatten_space or FlattenObservation."
    )


def _raise_not_flattenable(space: Space[Any], *args: Any, **kwargs: Any) -> Any:
    raise SpaceNotFlattenableError(_flatten_message(space))


def _raise_no_shared_memory(space: Space[Any], *args: Any, **kwargs: Any) -> Any:
    raise SharedMemoryUnsupportedError(
        f"{space!r} holds text of varying length and cannot be stored in shared memory. "
        'Pass vector_kwargs={"shared_memory": False} to gym.make_vec(..., vectorization_mode="async") '
        "(or shared_memory=False to AsyncVectorEnv); silo_gym's default vector entry point does this."
    )


for _cls in (ToolCall, JsonText):
    for _fn in (flatdim, flatten, unflatten, flatten_space):
        _fn.register(_cls)(_raise_not_flattenable)
    for _fn in (create_shared_memory, read_from_shared_memory, write_to_shared_memory):
        _fn.register(_cls)(_raise_no_shared_memory)
del _cls, _fn
