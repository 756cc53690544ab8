"""Silo environments as verifiers v1 tasksets (Prime's Environments Hub; extra
``silo-gym[verifiers]``; docs/hubs.md).

What verifiers v1 does with a taskset package (read from ``verifiers.v1``): ``vf-eval <id>``
imports the module named by the id, takes the one ``Taskset`` subclass its ``__all__`` exports,
iterates ``load()`` for tasks, and plays each rollout with a harness (the model's loop). Tools
come from ``Toolset`` MCP servers: a task's ``toolsets()`` are started per rollout, each in its
own process (``python -m <the toolset's module>``), given the rollout's task data by
``setup_task`` and the rollout's ``State`` over a channel that is pulled before and pushed after
every tool call. Tool servers stop before the task's ``finalize``; then ``@metric`` and
``@reward`` methods score the trace.

Here, per rollout:

- :class:`SiloToolset` plays the live episode (a :class:`~silo_gym.hubs.session.HubEpisode`,
  unrecorded) in its process: ``setup_task`` resets it with the row's task, seed and variant;
  every silo tool and ``submit_answer`` are listed with their own JSON Schemas; each call is
  stepped and appended to the rollout state (``calls``), and the call that ends the episode sets
  ``ended``. A :meth:`SiloTask.episode_ended` ``@stop`` then ends the trajectory.
- :meth:`SiloTask.finalize` replays the state's calls through a recorded ``HubEpisode`` in the
  evaluating process (silo worlds are deterministic: the same task, seed, variant and calls give
  the same world and the same outputs) and ends it as the live one ended, or, when the model
  stopped without ``submit_answer``, with its last reply as the answer (a rollout that failed is
  ended as ``agent_error``). The run directory it records is what ``gym.make`` would record for
  the same episode, byte for byte.
- the ``silo`` reward is the verifier's (``result.json``'s ``reward``); the metrics are each
  check (1.0 passed, 0.0 failed) and tool-call health: ``tool_calls``, ``tool_errors``,
  ``tool_error_rate``, ``invalid_actions``, ``passed``, and ``required_fraction`` /
  ``optional_fraction`` when the env reports them. ``trace.info["silo"]`` holds ``run_dir``,
  ``termination_reason`` and ``result``.

An exported package (``silo-gym export verifiers``) subclasses these with its environment's
name and files; :class:`SiloTasksetConfig` chooses the rows (tasks x seeds x variants; endless
with ``infinite`` on a variant-capable world).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import verifiers.v1 as vf
from mcp.types import CallToolResult, TextContent, Tool
from pydantic import Field

from ..data.collect import episode_seed
from ..hubs.session import HubEpisode, HubStep

__all__ = [
    "SiloRolloutState",
    "SiloTask",
    "SiloTaskConfig",
    "SiloTaskData",
    "SiloTaskset",
    "SiloTasksetConfig",
    "SiloToolset",
    "check_metrics",
]

#: ``error`` of an episode whose rollout failed before an answer (a model or harness error).
ROLLOUT_FAILED = "The verifiers rollout failed before an answer: {error}"


class SiloTaskData(vf.TaskData):
    """One row: the silo ``task_id``, ``seed`` and ``variant`` (``None``: canonical), the episode
    limits, and the instruction as ``prompt`` (the first user message)."""

    task_id: str
    seed: int | None = None
    variant: int | None = None
    max_tool_calls: int = 100
    timeout_ms: int = 120000


class SiloRolloutState(vf.State):
    """What the tool server tells the rollout: every call it stepped, in order (``tool``,
    ``input``, ``expired``: the deadline had passed), and how the live episode ``ended`` (its
    termination reason) when a call ended it."""

    calls: list[dict[str, Any]] = Field(default_factory=list)
    ended: str | None = None


class SiloTaskConfig(vf.TaskConfig):
    """Under ``--env.taskset.task.*``: ``tools`` (the tool server's placement) and ``runs_dir``
    (where each rollout's run is recorded; empty: not recorded)."""

    tools: vf.ToolsetConfig = vf.ToolsetConfig()
    runs_dir: str = ".silo/runs"


class SiloTasksetConfig(vf.TasksetConfig):
    """Which rows ``load()`` yields: ``task_ids`` (empty: all), ``seeds`` rows per task (seed
    ``i`` of a task is :func:`silo_gym.data.collect.episode_seed` of ``seed``), ``variants``
    (each row draws a variant world from its seed, as ``gym.make(..., variants=True)`` does),
    ``infinite`` (rows without end; needs ``variants``)."""

    task_ids: list[str] = Field(default_factory=list)
    seeds: int = Field(1, ge=1)
    seed: int = 0
    variants: bool = False
    infinite: bool = False
    task: SiloTaskConfig = SiloTaskConfig()


class _Environment:
    """The exported package's environment: its name and, for a bundled world, its directory."""

    ENVIRONMENT: ClassVar[str] = ""
    ENVIRONMENT_PATH: ClassVar[str | None] = None

    @classmethod
    def episode(cls, data: SiloTaskData, runs_dir: str | None = None, variants: bool = False) -> HubEpisode:
        if not cls.ENVIRONMENT:
            raise TypeError(f"{cls.__name__} names no silo environment (set ENVIRONMENT).")
        return HubEpisode(cls.ENVIRONMENT, path=cls.ENVIRONMENT_PATH, runs_dir=runs_dir or None,
                          max_tool_calls=data.max_tool_calls, timeout_ms=data.timeout_ms, variants=variants)


class SiloToolset(_Environment, vf.Toolset[vf.ToolsetConfig, SiloRolloutState]):
    """The rollout's tool server: the live episode (module docs). Tools keep their own names."""

    TOOL_PREFIX = None

    def __init__(self, config: vf.ToolsetConfig) -> None:
        super().__init__(config)
        self.hub: HubEpisode | None = None
        self.tools: list[dict[str, Any]] = []

    async def setup_task(self, task: Any) -> None:
        data = SiloTaskData.model_validate(task.model_dump()) if not isinstance(task, SiloTaskData) else task
        self.hub = self.episode(data)
        self.tools = self.hub.reset(task_id=data.task_id, seed=data.seed, variant=data.variant).tools

    def register(self, mcp: Any) -> None:
        # MCPServer answers tools/list and tools/call through these methods: replacing them
        # serves the environment's own schemas (as verifiers' NeMo Gym toolset does).
        server: Any = mcp
        server.list_tools = self.list_tools
        server.call_tool = self._with_state(self.call_tool)

    async def list_tools(self) -> list[Tool]:
        return [Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"]) for t in self.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        hub = self.hub
        if hub is None or not hub.running:
            text = '{"output":{"code":"episode_ended","message":"The episode has ended; no more tool calls."},' \
                   '"isError":true}'
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        expired = hub.past_deadline()
        step = hub.call(name, arguments)
        self.state.calls.append({"tool": name, "input": arguments, "expired": expired})
        if step.done:
            ending = step.ending or {}
            self.state.ended = ending.get("termination_reason")
        return CallToolResult(content=[TextContent(type="text", text=step.observation)], is_error=step.is_error)


class SiloTask(_Environment, vf.Task[SiloTaskData, SiloRolloutState, SiloTaskConfig]):
    """One rollout of a silo task (module docs). Subclasses set :attr:`TOOLSET`."""

    TOOLSET: ClassVar[type[SiloToolset]] = SiloToolset

    @classmethod
    def toolsets(cls, config: SiloTaskConfig) -> list[vf.Toolset]:
        return [cls.TOOLSET(config.tools)]

    @vf.stop
    async def episode_ended(self, trace: vf.Trace) -> bool:
        """The live episode ended (an answer was submitted or a limit fired): no more turns."""
        return trace.state.ended is not None

    async def finalize(self, trace: vf.Trace, runtime: Any = None) -> None:
        trace.info["silo"] = self.replay(trace.state, trace.last_reply, _failure(trace))

    def replay(self, state: SiloRolloutState, reply: str, failure: str | None = None) -> dict[str, Any]:
        """Play the rollout's calls again, recorded, and end the episode as the live one ended
        (else with ``reply`` as the answer, or as ``agent_error`` with ``failure``). Returns
        ``run_dir``, ``reward``, ``termination_reason``, ``result`` and ``info`` (the ending
        step's metadata)."""
        data = self.data
        hub = self.episode(data, runs_dir=self.config.runs_dir)
        try:
            hub.reset(task_id=data.task_id, seed=data.seed, variant=data.variant)
            step: HubStep | None = None
            for call in state.calls:
                if call.get("expired"):
                    hub.expire()
                step = hub.call(call["tool"], call["input"])
                if step.done:
                    break
            if step is None or not step.done:
                if failure is not None:
                    step = hub.abandon(failure)
                else:
                    step = hub.answer(reply)
            assert step is not None and step.ending is not None
            ending = step.ending
        finally:
            hub.env.close()
        return {"run_dir": ending["run_dir"], "reward": step.reward, "termination_reason": ending["termination_reason"],
                "result": ending["result"], "info": {k: v for k, v in ending.items() if k != "result"}}

    @vf.reward(weight=1.0)
    async def silo(self, trace: vf.Trace) -> float:
        """The silo verifier's reward for the episode (``result.json``'s ``reward``)."""
        silo = trace.info.get("silo")
        if not silo:
            raise vf.TaskError("The silo episode was not replayed (finalize did not run), so there is no reward.")
        return float(silo["reward"])

    @vf.metric
    async def silo_checks(self, trace: vf.Trace) -> dict[str, float]:
        """Each check of ``result.json`` and the tool-call health (:func:`check_metrics`)."""
        silo = trace.info.get("silo")
        return check_metrics(silo["result"], silo["info"]) if silo else {}


def check_metrics(result: dict[str, Any] | None, info: dict[str, Any] | None = None) -> dict[str, float]:
    """Metrics of one graded episode: ``check/<label>`` (1.0 passed), ``passed``, ``tool_calls``,
    ``tool_errors``, ``tool_error_rate`` (errors per call; 0.0 without calls),
    ``invalid_actions`` (calls the runtime refused before a tool ran) and, when reported,
    ``required_fraction`` / ``optional_fraction``."""
    if result is None:
        return {}
    metrics: dict[str, float] = {"passed": float(bool(result.get("passed"))),
                                 "tool_calls": float(result.get("toolCalls", 0)),
                                 "tool_errors": float(result.get("toolErrors", 0))}
    calls = metrics["tool_calls"]
    metrics["tool_error_rate"] = metrics["tool_errors"] / calls if calls else 0.0
    for check in result.get("checks") or []:
        metrics[f"check/{check.get('label')}"] = float(bool(check.get("passed")))
    invalid = (info or {}).get("invalid_actions")
    if isinstance(invalid, int | float):
        metrics["invalid_actions"] = float(invalid)
    for key in ("required_fraction", "optional_fraction"):
        value = (info or {}).get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            metrics[key] = float(value)
    return metrics


def _failure(trace: Any) -> str | None:
    """The rollout's first error, as the ending error of an unanswered episode; None when it
    ended cleanly."""
    errors = list(getattr(trace, "errors", None) or [])
    if not errors:
        return None
    first = errors[0]
    text = getattr(first, "message", None) or getattr(first, "type", None) or str(first)
    return ROLLOUT_FAILED.format(error=text)


class SiloTaskset(_Environment, vf.Taskset[SiloTask, SiloTasksetConfig]):
    """The rows of one silo environment (see :class:`SiloTasksetConfig`). Subclasses set
    ``ENVIRONMENT`` (and ``ENVIRONMENT_PATH`` for a bundled world), ``TASK`` (their
    :class:`SiloTask`), ``TASK_IDS``, ``VARIANT_CAPABLE`` and the limits."""

    TASK: ClassVar[type[SiloTask]] = SiloTask
    TASK_IDS: ClassVar[tuple[str, ...]] = ()
    VARIANT_CAPABLE: ClassVar[bool] = False
    MAX_TOOL_CALLS: ClassVar[int] = 100
    TIMEOUT_MS: ClassVar[int] = 120000

    def __init__(self, config: SiloTasksetConfig) -> None:
        super().__init__(config)
        if (config.variants or config.infinite) and not self.VARIANT_CAPABLE:
            raise ValueError(f'The silo environment "{self.ENVIRONMENT}" is not variant-capable: its tasks have '
                             "one world each, so variants and infinite are not available.")
        if config.infinite and not config.variants:
            raise ValueError("infinite needs variants: without them every row of a task plays the same world.")
        unknown = [t for t in config.task_ids if t not in self.TASK_IDS]
        if unknown:
            raise ValueError(f"Unknown task id(s) {unknown}; this taskset has {', '.join(self.TASK_IDS)}.")
        self.INFINITE = config.infinite  # type: ignore[misc]  # an instance's view of the class flag

    def rows(self) -> Iterator[tuple[str, int]]:
        """(task id, seed) pairs in load order: each seed index over the tasks, ``seeds`` of them
        (or without end)."""
        tasks = list(self.config.task_ids) or list(self.TASK_IDS)
        indexes = itertools.count() if self.config.infinite else range(self.config.seeds)
        for i in indexes:
            for task_id in tasks:
                yield task_id, episode_seed(self.config.seed, self.ENVIRONMENT, task_id, i)

    def load(self) -> Iterator[SiloTask]:
        hub = HubEpisode(self.ENVIRONMENT, path=self.ENVIRONMENT_PATH, max_tool_calls=self.MAX_TOOL_CALLS,
                         timeout_ms=self.TIMEOUT_MS, variants=self.config.variants)
        try:
            for task_id, seed in self.rows():
                start = hub.reset(task_id=task_id, seed=seed)
                variant = start.info.get("variant")
                data = SiloTaskData(name=f"{task_id}#{seed}" + (f"@{variant}" if variant is not None else ""),
                                    id=f"{self.ENVIRONMENT}/{task_id}/{seed}/{variant}", prompt=start.instruction,
                                    task_id=task_id, seed=seed, variant=variant,
                                    max_tool_calls=self.MAX_TOOL_CALLS, timeout_ms=self.TIMEOUT_MS)
                yield self.TASK(data, self.config.task)
        finally:
            hub.silo.close()


def package_path(init_file: str, environment: str, bundled: bool) -> str | None:
    """The bundled world's directory beside an exported package's ``__init__.py`` (None: shipped)."""
    return os.fspath(Path(init_file).resolve().parent / "environment" / environment) if bundled else None

