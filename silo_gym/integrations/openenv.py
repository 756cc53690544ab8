"""Silo environments as OpenEnv environments (extra ``silo-gym[openenv]``; docs/hubs.md).

OpenEnv (``openenv-core``) serves an ``Environment`` over HTTP and WebSocket: each WebSocket
session gets its own instance from a factory and plays ``reset`` / ``step`` / ``state`` on it; a
session that disconnects is destroyed, which calls the instance's ``close()``. Here:

- :class:`SiloOpenEnv` is that ``Environment`` over one silo environment: ``reset(seed=,
  episode_id=, task_id=, variant=)`` starts an episode on a fresh world (``task_id`` ``None``:
  drawn from ``seed``, or the one the server was bound to), and every session is its own world
  and its own recorded run, so the class sets ``SUPPORTS_CONCURRENT_SESSIONS``.
- Actions are OpenEnv's MCP actions, its first-class path for tool-using environments (its
  server routes them by their ``type``): ``ListToolsAction()`` answers the task's tools (with
  ``submit_answer``), ``CallToolAction(tool_name=, arguments=)`` runs one tool call; calling
  ``submit_answer`` with ``{"answer": ...}`` ends the episode with that answer.
- Observations are :class:`SiloObservation`: the tool's ``result`` (its ``output``) and
  ``is_error``; ``done`` is silo's ``terminated or truncated`` and ``truncated`` says which; the
  ending observation's ``reward`` is the verifier's (``result.json``'s) and its ``metadata`` (and
  its ``ending`` field, since openenv-core 0.3 leaves ``metadata`` off the wire) holds ``result``,
  ``state_diff``, ``termination_reason``, ``passed``, ``run_dir`` and any reward components.
- A session that disconnects or is closed with its episode running ends it as ``agent_error``,
  graded and recorded.
- :func:`create_silo_app` is the server (``max_concurrent_envs`` bounds the sessions: OpenEnv's
  default of one would serialise a batched trainer); :class:`SiloEnvClient` is the typed client.

Every session plays through :class:`silo_gym.hubs.session.HubEpisode`, the path all hubs share,
so an OpenEnv episode has the rewards and run-directory bytes of the same episode under
``gym.make``.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.mcp_types import (
    CallToolAction,
    ListToolsAction,
    ListToolsObservation,
    Tool,
)
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from ..hubs.description import describe
from ..hubs.session import DEFAULT_MAX_SESSIONS, HubEpisode
from ..version import __version__

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "SESSION_CLOSED",
    "CallToolAction",
    "ListToolsAction",
    "ListToolsObservation",
    "SiloEnvClient",
    "SiloObservation",
    "SiloOpenEnv",
    "SiloState",
    "create_silo_app",
]

#: ``error`` of an episode whose OpenEnv session went away before it ended.
SESSION_CLOSED = "The OpenEnv session closed before the episode ended."


class SiloObservation(Observation):
    """What ``reset`` and a tool call answer (``done``, ``reward`` and ``metadata`` are OpenEnv's).

    After ``reset``: ``instruction``, ``task_id``, ``variant``, ``tool_name`` empty. After a call:
    ``tool_name``, ``result`` (the tool's output, any JSON value) and ``is_error``. On the step
    that ends the episode: ``done``, ``terminated``/``truncated``, ``termination_reason``, the
    verifier's ``reward``, and ``ending`` (= ``metadata``; see the module docs).
    """

    instruction: str = Field(default="", description="The task's instruction (after reset)")
    task_id: str = Field(default="", description="The task being played")
    variant: int | None = Field(default=None, description="The variant world (None: canonical)")
    tool_name: str = Field(default="", description="The tool that was called (empty after reset or at the end)")
    result: Any = Field(default=None, description="The tool's output (any JSON value)")
    is_error: bool = Field(default=False, description="The tool result is an error (silo-format §3.3)")
    terminated: bool = Field(default=False, description="The episode completed (an answer was graded)")
    truncated: bool = Field(default=False, description="A limit or an abandonment ended the episode")
    termination_reason: str | None = Field(default=None, description="completed, max_tool_calls, timeout or agent_error")
    ending: dict[str, Any] | None = Field(default=None, description="The ending step's metadata (result, state_diff, ...)")


class SiloState(State):
    """``state()``: the episode id and step count (OpenEnv's), the task, variant, seed, run and counts."""

    task_id: str | None = None
    variant: int | None = None
    seed: int | None = None
    run_id: str | None = None
    run_dir: str | None = None
    tool_calls: int = 0
    tool_errors: int = 0
    done: bool = False
    termination_reason: str | None = None


class SiloOpenEnv(Environment[Action, Observation, SiloState]):
    """One silo environment as an OpenEnv ``Environment`` (module docs).

    Args:
        environment: the environment name.
        path: its directory (a bundled world); ``None`` resolves the name (silo-format §2.2).
        task_id: the task ``reset`` plays when given none; ``None`` draws one from the seed.
        variant: the variant ``reset`` plays when given none; ``None`` is the canonical world.
        runs_dir: where run directories go; ``None`` records nothing.
        max_tool_calls, timeout_ms: the episode limits (silo-format §5.2).

    Raises:
        SiloError: the environment's loading errors (silo-format §2.4).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, environment: str, *, path: str | os.PathLike[str] | None = None,
                 task_id: str | None = None, variant: int | None = None,
                 runs_dir: str | os.PathLike[str] | None = None, max_tool_calls: int = 100,
                 timeout_ms: int = 120000) -> None:
        super().__init__()
        self.environment = environment
        self.default_task_id = task_id
        self.default_variant = variant
        self.hub = HubEpisode(environment, path=path, runs_dir=runs_dir, max_tool_calls=max_tool_calls,
                              timeout_ms=timeout_ms)
        self._state = SiloState()

    def reset(self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None,
              variant: int | None = None, **kwargs: Any) -> SiloObservation:
        """Start an episode on a fresh world; a running one is first ended as ``SiloEnv.reset`` does.

        Raises:
            TypeError: an argument other than ``seed``, ``episode_id``, ``task_id``, ``variant``.
            SiloError: ``task_not_found``, ``variant_unsupported``, ``variant_preconditions_unmet``.
        """
        if kwargs:
            raise TypeError(f"reset() takes seed, episode_id, task_id and variant; got {sorted(kwargs)}.")
        task = task_id if task_id is not None else self.default_task_id
        chosen = variant if variant is not None else self.default_variant
        start = self.hub.reset(task_id=task, seed=seed, variant=chosen)
        info = start.info
        self._state = SiloState(episode_id=episode_id or info.get("run_id"), step_count=0, task_id=info["task_id"],
                                variant=info["variant"], seed=seed, run_id=info.get("run_id"),
                                run_dir=info.get("run_dir"))
        metadata = {"environment": info["environment"], "title": info["title"], "tools": start.tools,
                    "max_tool_calls": info["max_tool_calls"], "run_id": info.get("run_id"),
                    "run_dir": info.get("run_dir")}
        return SiloObservation(instruction=start.instruction, task_id=info["task_id"], variant=info["variant"],
                               metadata=metadata)

    def step(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        """``ListToolsAction``: the tools. ``CallToolAction``: one tool call (``submit_answer``
        ends the episode). The reward stays 0.0 until the ending step.

        Raises:
            TypeError: another action type.
            gymnasium.error.ResetNeeded: before ``reset`` or after the episode ended.
        """
        if isinstance(action, ListToolsAction):
            tools = self.hub.start.tools if self.hub.start is not None else self.hub.tools()
            return ListToolsObservation(tools=[Tool(name=t["name"], description=t["description"],
                                                    input_schema=t["inputSchema"]) for t in tools])
        if not isinstance(action, CallToolAction):
            raise TypeError(f"SiloOpenEnv takes ListToolsAction or CallToolAction, got {type(action).__name__}.")
        step = self.hub.call(action.tool_name, action.arguments)
        state = self._state
        # one copy, not three validated assignments (OpenEnv's State validates each one)
        self._state = state = state.model_copy(update={
            "step_count": state.step_count + 1,
            "tool_calls": int(step.info.get("tool_calls", state.tool_calls)),
            "tool_errors": int(step.info.get("tool_errors", state.tool_errors))})
        if step.ending is None:
            return SiloObservation(task_id=state.task_id or "", variant=state.variant, tool_name=action.tool_name,
                                   result=step.output, is_error=step.is_error, reward=0.0)
        return self._ended(step.ending, step.reward)

    def _ended(self, ending: dict[str, Any], reward: float) -> SiloObservation:
        self._state = state = self._state.model_copy(update={"done": True,
                                                             "termination_reason": ending["termination_reason"]})
        return SiloObservation(task_id=state.task_id or "", variant=state.variant, done=True, reward=reward,
                               terminated=ending["terminated"], truncated=ending["truncated"],
                               termination_reason=ending["termination_reason"], ending=ending, metadata=dict(ending))

    @property
    def state(self) -> SiloState:
        """The session's episode: task, variant, seed, run, counts, whether it ended and why."""
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name=f"silo-{self.environment}",
                                   description=f'The silo environment "{self.environment}": tool calls as MCP '
                                               "actions, the verifier's reward at the end of each episode.",
                                   version=__version__)

    def close(self) -> None:
        """End a running episode as ``agent_error`` (graded and recorded) and let the world go."""
        ended = self.hub.abandon(SESSION_CLOSED)
        if ended is not None and ended.ending is not None:
            self._ended(ended.ending, ended.reward)
        self.hub.env.close()


def create_silo_app(environment: str, *, path: str | os.PathLike[str] | None = None, task_id: str | None = None,
                    variant: int | None = None, runs_dir: str | os.PathLike[str] | None = None,
                    max_tool_calls: int = 100, timeout_ms: int = 120000,
                    max_concurrent_envs: int = DEFAULT_MAX_SESSIONS) -> Any:
    """The OpenEnv FastAPI app serving ``environment``: one :class:`SiloOpenEnv` per WebSocket
    session, at most ``max_concurrent_envs`` at once (a session past that is refused with
    OpenEnv's ``CAPACITY_REACHED``). The environment is opened once here, so a missing one fails
    now. Arguments are :class:`SiloOpenEnv`'s.

    Raises:
        SiloError: the environment's loading errors; ``tool_name_reserved``.
        ValueError: ``max_concurrent_envs`` < 1.
    """
    if isinstance(max_concurrent_envs, bool) or not isinstance(max_concurrent_envs, int) or max_concurrent_envs < 1:
        raise ValueError(f"max_concurrent_envs must be an int >= 1, got {max_concurrent_envs!r}.")
    describe(environment, path=path)  # fails now for a missing environment or a reserved tool name
    # A partial of the class: OpenEnv reads SUPPORTS_CONCURRENT_SESSIONS off it without building one.
    factory = functools.partial(SiloOpenEnv, environment, path=path, task_id=task_id, variant=variant,
                                runs_dir=runs_dir, max_tool_calls=max_tool_calls, timeout_ms=timeout_ms)
    return create_app(factory, CallToolAction, SiloObservation, env_name=f"silo-{environment}",
                      max_concurrent_envs=max_concurrent_envs)


class SiloEnvClient(EnvClient[Action, Observation, SiloState]):
    """OpenEnv's WebSocket client, typed for :class:`SiloOpenEnv` (``async with`` it, or ``.sync()``).

    ``reset(task_id=, seed=, variant=)`` answers a :class:`SiloObservation`; ``step(CallToolAction(...))``
    a :class:`SiloObservation` (``ListToolsAction()``: a ``ListToolsObservation``). Helpers:
    :meth:`list_tools`, :meth:`call_tool`, :meth:`submit_answer`.
    """

    def _step_payload(self, action: Action) -> dict[str, Any]:
        if isinstance(action, ListToolsAction):
            return {"type": "list_tools"}
        if isinstance(action, CallToolAction):
            return {"type": "call_tool", "tool_name": action.tool_name, "arguments": action.arguments}
        raise TypeError(f"SiloEnvClient sends ListToolsAction or CallToolAction, got {type(action).__name__}.")

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[Observation]:
        data = dict(payload.get("observation") or {})
        done, reward = bool(payload.get("done", False)), payload.get("reward")
        if "tools" in data:
            obs: Observation = ListToolsObservation(tools=[Tool(**tool) for tool in data["tools"]], done=done,
                                                    reward=reward, metadata=data.get("metadata") or {})
        else:
            data.pop("metadata", None)
            metadata = payload.get("metadata") or data.get("ending") or {}
            obs = SiloObservation(**data, done=done, reward=reward, metadata=metadata)
        return StepResult(observation=obs, reward=reward, done=done)

    def _parse_state(self, payload: dict[str, Any]) -> SiloState:
        return SiloState(**payload)

    async def list_tools(self) -> list[Tool]:
        """The task's tools (``submit_answer`` last)."""
        result = await self.step(ListToolsAction())
        return list(result.observation.tools)  # type: ignore[attr-defined]

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> StepResult[Observation]:
        """One tool call."""
        return await self.step(CallToolAction(tool_name=name, arguments=dict(arguments or {})))

    async def submit_answer(self, answer: Any) -> StepResult[Observation]:
        """End the episode with ``answer``; the result's ``reward`` is the verifier's."""
        return await self.call_tool("submit_answer", {"answer": answer})
