"""Gymnasium spaces for Silo environments: JSON tool calls as actions, JSON text as observations.

gym-api.md, "Spaces":

- :class:`ToolCall` (:mod:`.tool_call`) is the action space: a ``gymnasium.Space`` of dicts,
  either a tool call ``{"tool": <name>, "input": {...}}`` (``input`` optional, a dict or
  ``None``) or a final answer ``{"answer": <any JSON value>}``. ``sample()`` draws a call whose
  ``input`` is valid against the tool's ``inputSchema`` (:mod:`.sampling`), so a random policy is
  a useful baseline and a fuzzer.
- :class:`JsonText` (:mod:`.json_text`) is the observation space: any ``str`` up to
  ``max_length`` characters.
- Neither can be flattened to a numpy array or put in shared memory: Gymnasium's functions for
  that raise :class:`SpaceNotFlattenableError` / :class:`SharedMemoryUnsupportedError`
  (:mod:`.flatten`).
"""

from __future__ import annotations

from .flatten import SharedMemoryUnsupportedError, SpaceNotFlattenableError
from .json_text import JsonText
from .tool_call import ToolCall

__all__ = ["JsonText", "SharedMemoryUnsupportedError", "SpaceNotFlattenableError", "ToolCall"]
