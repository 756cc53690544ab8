"""The observation space: ``JsonText``, any text up to a maximum length (gym-api.md, "Spaces")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium.spaces import Space

from ..jsonfmt import dumps_compact
from .sampling import WORDS

__all__ = ["JsonText"]

_MAX_ATTEMPTS = 8


class JsonText(Space[str]):
    """The observation space of a Silo env: any ``str`` of at most ``max_length`` characters.

    ``contains(x)`` is ``isinstance(x, str) and len(x) <= max_length``; it never parses.
    ``sample()`` returns the compact JSON of a small random object shaped like a tool result
    (``""`` when ``max_length < 2``, since no JSON object fits).
    """

    def __init__(self, max_length: int = 1_048_576, seed: int | np.random.Generator | None = None) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)) or max_length < 0:
            raise ValueError(f"JsonText: max_length must be a non-negative integer, got {max_length!r}.")
        self.max_length = int(max_length)
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``False``: observations are text of varying length."""
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> str:
        if mask is not None or probability is not None:
            raise ValueError("JsonText.sample does not support mask or probability.")
        if self.max_length < 2:
            return ""
        rng = self.np_random
        for _ in range(_MAX_ATTEMPTS):
            text = dumps_compact(_random_observation(rng))
            if len(text) <= self.max_length:
                return text
        return "{}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JsonText):
            return NotImplemented
        return self.max_length == other.max_length

    def __hash__(self) -> int:
        return hash(("JsonText", self.max_length))

    def __repr__(self) -> str:
        return f"JsonText(max_length={self.max_length})"

    def to_jsonable(self, sample_n: Iterable[str]) -> list[Any]:
        return list(sample_n)

    def from_jsonable(self, sample_n: list[Any]) -> list[str]:
        return list(sample_n)


# Random observations for JsonText.sample

_CODES = ("invalid_input", "not_found", "invalid_state", "not_allowed", "tool_not_found")


def _random_scalar(rng: np.random.Generator) -> Any:
    r = float(rng.random())
    if r < 0.4:
        return str(WORDS[int(rng.integers(len(WORDS)))])
    if r < 0.6:
        return int(rng.integers(0, 1000))
    if r < 0.75:
        return round(float(rng.random()) * 1000, 2)
    if r < 0.9:
        return bool(rng.random() < 0.5)
    return None


def _random_observation(rng: np.random.Generator) -> dict[str, Any]:
    r = float(rng.random())
    if r < 0.15:
        code = _CODES[int(rng.integers(len(_CODES)))]
        return {
            "output": {"code": code, "message": f"Sample {code.replace('_', ' ')} error."},
            "isError": True,
        }
    if r < 0.25:
        return {"terminationReason": "completed", "error": None}
    output: dict[str, Any] = {}
    for _ in range(int(rng.integers(1, 5))):
        key = WORDS[int(rng.integers(len(WORDS)))].replace(" ", "_")
        if float(rng.random()) < 0.2:
            output[key] = [_random_scalar(rng) for _ in range(int(rng.integers(0, 4)))]
        else:
            output[key] = _random_scalar(rng)
    return {"output": output}
