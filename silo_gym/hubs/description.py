"""One description of a silo environment, read once, that every hub exporter writes from.

:func:`describe` opens the environment the way ``gym.make`` does and keeps what a hub package
needs: the tasks (id, title, instruction), the tools as a Silo agent receives them (name,
description, ``inputSchema``: silo-format §3.2) plus ``submit_answer``, whether the world is
variant-capable (docs/variants.md), the episode limits, and where the environment's files are
(a shipped world is found by name in the pinned silo-gym; any other is bundled into the package).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..env import SiloEnv
from ..loader import EnvironmentLocation, accepts_variant, find_environment
from ..serve.episodes import SUBMIT_ANSWER, SUBMIT_ANSWER_TOOL, check_servable
from ..version import __version__

__all__ = ["HubDescription", "HubTask", "HubTool", "describe"]


@dataclass(frozen=True)
class HubTool:
    """One tool: ``name``, ``description`` and its JSON Schema ``input_schema`` (an object schema)."""

    name: str
    description: str
    input_schema: dict[str, Any]

    def mcp(self) -> dict[str, Any]:
        """The MCP form: ``{"name", "description", "inputSchema"}`` (silo-format §3.2)."""
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}

    def responses(self) -> dict[str, Any]:
        """The OpenAI Responses form (NeMo Gym's rows): ``{"type": "function", "name", ...}``."""
        return {"type": "function", "name": self.name, "description": self.description,
                "parameters": self.input_schema, "strict": False}

    def chat(self) -> dict[str, Any]:
        """The OpenAI Chat Completions form: ``{"type": "function", "function": {...}}``."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.input_schema}}


@dataclass(frozen=True)
class HubTask:
    """One task: its ``id``, ``title``, canonical ``instruction`` and ``difficulty``."""

    id: str
    title: str
    instruction: str
    difficulty: str


@dataclass(frozen=True)
class HubDescription:
    """What a hub package is written from (see :func:`describe`).

    Attributes:
        environment: the environment's (lower-cased) name.
        path: its directory.
        shipped: True for a world shipped in silo-gym (found by name by the pinned silo-gym);
            False for any other, whose directory the exporters copy into the package.
        tasks: the tasks, in id order.
        tools: the environment's tools (the same for every task), then ``submit_answer``.
        variant_capable: ``create_state`` takes ``variant`` (docs/variants.md): every seed can
            play a different world, so a task set may be infinite.
        max_tool_calls, timeout_ms: the episode limits every hub session gets (silo-format §5.2).
        silo_gym_version: the silo-gym version the package pins.
    """

    environment: str
    path: Path
    shipped: bool
    tasks: tuple[HubTask, ...]
    tools: tuple[HubTool, ...]
    variant_capable: bool
    max_tool_calls: int = 100
    timeout_ms: int = 120000
    silo_gym_version: str = __version__
    task_ids: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "task_ids", tuple(t.id for t in self.tasks))

    @property
    def slug(self) -> str:
        """The environment name as a distribution-name part: lower case, runs of ``_``/``.`` as ``-``."""
        return re.sub(r"[-_.]+", "-", self.environment).strip("-").lower()

    @property
    def module(self) -> str:
        """The environment name as a Python identifier part (``-`` and ``.`` as ``_``)."""
        name = re.sub(r"[^0-9a-zA-Z_]+", "_", self.environment).lower()
        return name if not name[:1].isdigit() else f"env_{name}"

    def task(self, task_id: str) -> HubTask:
        """The task with this id.

        Raises:
            KeyError: no such task (the message lists the ids).
        """
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(f'Environment "{self.environment}" has no task "{task_id}"; its tasks: '
                       f"{', '.join(self.task_ids)}.")

    def settings(self) -> dict[str, Any]:
        """The JSON settings an exported package carries (``silo_env.json``): environment, whether
        bundled, task ids, limits, variant capability and the pinned silo-gym version."""
        return {"environment": self.environment, "bundled": not self.shipped, "taskIds": list(self.task_ids),
                "maxToolCalls": self.max_tool_calls, "timeoutMs": self.timeout_ms,
                "variantCapable": self.variant_capable, "siloGymVersion": self.silo_gym_version}


def describe(environment: str, *, cwd: str | os.PathLike[str] | None = None,
             path: str | os.PathLike[str] | None = None, max_tool_calls: int = 100,
             timeout_ms: int = 120000) -> HubDescription:
    """Open ``environment`` (resolved as silo-format §2.2 from ``cwd``, or the directory ``path``:
    then it counts as not shipped) and describe it for the hubs.

    The tool list comes from a throwaway world, as Gymnasium's action space does; opening runs
    the environment's ``create_state`` and ``bind_tools`` once.

    Raises:
        SiloError: ``unsafe_name``, ``environment_not_found`` and the loading errors of
            silo-format §2.4; ``tool_name_reserved`` when the environment has its own tool named
            ``submit_answer`` (the hubs' answer tool).
        ValueError: a negative limit.
    """
    location = (find_environment(environment, cwd) if path is None
                else EnvironmentLocation(environment.lower(), Path(os.path.abspath(path)), False))
    env = SiloEnv(location.name, max_tool_calls=max_tool_calls, timeout_ms=timeout_ms, path=str(location.path))
    try:
        check_servable(env)
        tools = [HubTool(t["name"], t["description"], dict(t["inputSchema"])) for t in env.fresh_tool_list()]
        tools.append(HubTool(SUBMIT_ANSWER, SUBMIT_ANSWER_TOOL["description"], dict(SUBMIT_ANSWER_TOOL["inputSchema"])))
        tasks = sorted((HubTask(t.id, t.title, t.instruction, t.difficulty) for t in env.tasks), key=lambda t: t.id)
        variant_capable = accepts_variant(env.silo_env.module.create_state)
    finally:
        env.close()
    return HubDescription(environment=location.name, path=location.path, shipped=location.shipped,
                          tasks=tuple(tasks), tools=tuple(tools), variant_capable=variant_capable,
                          max_tool_calls=max_tool_calls, timeout_ms=timeout_ms)
