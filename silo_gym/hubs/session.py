"""The one way every hub plays a silo episode: a (recorded) ``SiloEnv`` stepped with Gymnasium
actions, so a hub's episode has the same rewards and the same run directory bytes as
``gym.make`` given the same task, seed, variant and actions.

A hub session calls :meth:`HubEpisode.reset`, then :meth:`~HubEpisode.call` per tool call and
:meth:`~HubEpisode.answer` for the final answer (the ``submit_answer`` tool does the same), and
:meth:`~HubEpisode.close` when the session goes away: an episode still running then is ended as
``agent_error``, graded and recorded, even if it received no action (a client that resets and
disconnects still leaves a run behind).
"""

from __future__ import annotations

import copy
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from gymnasium.error import ResetNeeded

from ..env import SiloEnv
from ..jsonfmt import dumps_compact, loads_strict
from ..serve.episodes import SUBMIT_ANSWER, SUBMIT_ANSWER_TOOL
from ..wrappers.record import RecordRun

__all__ = ["DEFAULT_MAX_SESSIONS", "ENDING_KEYS", "OPTIONAL_ENDING_KEYS", "HubEpisode", "HubStart", "HubStep", "ending_metadata"]

#: Sessions one hub server runs at once unless told otherwise (each is one world in memory).
DEFAULT_MAX_SESSIONS = 64

#: What the step that ends an episode reports (a hub puts these in its ending observation's metadata).
ENDING_KEYS = ("termination_reason", "passed", "error", "result", "state_diff", "terminated", "truncated",
               "tool_calls", "tool_errors", "run_id", "run_dir")
#: Reward components, copied into the ending metadata when the env reports them.
OPTIONAL_ENDING_KEYS = ("reward_components", "required_fraction", "optional_fraction")


def ending_metadata(info: dict[str, Any], terminated: bool, truncated: bool) -> dict[str, Any]:
    """The ending step's ``info`` as hub metadata: :data:`ENDING_KEYS` (``run_id``/``run_dir``
    ``None`` when not recorded) and those of :data:`OPTIONAL_ENDING_KEYS` that ``info`` has."""
    meta: dict[str, Any] = {key: info.get(key) for key in ENDING_KEYS}
    meta["terminated"], meta["truncated"] = terminated, truncated
    for key in OPTIONAL_ENDING_KEYS:
        if key in info:
            meta[key] = info[key]
    return meta


def _parsed(text: str) -> Any:
    """The env's own observation text as JSON data: orjson's parse (fast), or the strict
    parser's where orjson stops (an integer past 64 bits)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads_strict(text)


@dataclass(frozen=True)
class HubStart:
    """What :meth:`HubEpisode.reset` gives: the ``instruction``, the task's ``tools`` (MCP form,
    ``submit_answer`` last) and the reset ``info`` (with ``run_id``/``run_dir`` when recorded)."""

    instruction: str
    tools: list[dict[str, Any]]
    info: dict[str, Any]


@dataclass(frozen=True)
class HubStep:
    """One step's outcome.

    Attributes:
        observation: the Gymnasium observation text (the compact JSON of the tool result, or the
            end-of-episode text).
        output: the tool's ``output`` (any JSON value); ``None`` on the ending step.
        is_error: the tool result is an error (silo-format §3.3).
        reward: 0.0 until the ending step, then the verifier's reward (``result.json``'s).
        done: the episode ended (``terminated or truncated``).
        terminated, truncated: as Gymnasium reports them (``truncated``: a limit fired or the
            episode was abandoned).
        info: the step's info.
        ending: :func:`ending_metadata` on the ending step, else ``None``.
    """

    observation: str
    output: Any
    is_error: bool
    reward: float
    done: bool
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    ending: dict[str, Any] | None


class HubEpisode:
    """One hub session's episodes of one silo environment (a new world at every reset).

    Args:
        environment: the environment name.
        path: its directory (a bundled world); ``None`` resolves the name (silo-format §2.2).
        runs_dir: where each episode's run directory goes; ``None`` records nothing.
        max_tool_calls, timeout_ms: the episode limits (silo-format §5.2).
        reward_mode: ``"fraction"`` or ``"binary"``.
        variants: a reset given no variant draws one from its seed (docs/variants.md).

    Raises:
        SiloError: the environment's loading errors (silo-format §2.4).
    """

    def __init__(self, environment: str, *, path: str | os.PathLike[str] | None = None,
                 runs_dir: str | os.PathLike[str] | None = None, max_tool_calls: int = 100,
                 timeout_ms: int = 120000, reward_mode: str = "fraction", variants: bool = False) -> None:
        self.silo = SiloEnv(environment, max_tool_calls=max_tool_calls, timeout_ms=timeout_ms,
                            reward_mode=reward_mode,  # type: ignore[arg-type]
                            path=None if path is None else os.fspath(path), variants=variants)
        self.runs_dir = None if runs_dir is None else Path(os.path.abspath(runs_dir))
        self.env: SiloEnv | RecordRun = RecordRun(self.silo, runs_dir=self.runs_dir) if self.runs_dir else self.silo
        self.last: HubStep | None = None
        self.start: HubStart | None = None

    @property
    def running(self) -> bool:
        """An episode was reset and has not ended."""
        episode = self.silo.episode
        return episode is not None and not episode.done

    def past_deadline(self) -> bool:
        """The running episode's deadline (``timeout_ms`` after its reset) has passed."""
        episode = self.silo.episode
        return episode is not None and not episode.done and time.monotonic() >= episode.deadline

    def expire(self) -> None:
        """Record the ``timeout`` limit now (the next call ends the episode as ``timeout``), as a
        deadline that passed does; a replay uses it to end where the live episode ended."""
        self.silo.expire()

    def tools(self) -> list[dict[str, Any]]:
        """The environment's tools in MCP form (the same for every task), ``submit_answer`` last."""
        return [*self.silo.fresh_tool_list(), copy.deepcopy(SUBMIT_ANSWER_TOOL)]

    def reset(self, *, task_id: str | None = None, seed: int | None = None, variant: int | None = None) -> HubStart:
        """Start an episode on a fresh world: ``task_id`` (``None``: drawn from ``seed``), ``variant``
        (``None``: the canonical world). A running episode is first ended as ``SiloEnv.reset``
        ends it.

        Raises:
            SiloError: ``task_not_found``, ``variant_unsupported``,
                ``variant_preconditions_unmet`` (see ``SiloEnv.reset``).
        """
        options: dict[str, Any] = {}
        if task_id is not None:
            options["task_id"] = task_id
        if variant is not None:
            options["variant"] = variant
        instruction, info = self.env.reset(seed=seed, options=options or None)
        tools = [dict(tool) for tool in info["tools"]]
        tools.append(copy.deepcopy(SUBMIT_ANSWER_TOOL))
        self.last = None
        self.start = HubStart(instruction, tools, dict(info))
        return self.start

    def step(self, action: Any) -> HubStep:
        """One Gymnasium action (``{"tool", "input"}``, ``{"answer"}`` or its JSON text).

        Raises:
            gymnasium.error.ResetNeeded: before ``reset`` or after the episode ended.
            VerifierError: grading failed on the ending step.
        """
        obs, reward, terminated, truncated, info = self.env.step(action)
        done = bool(terminated or truncated)
        if done:
            step = self._ending(obs, float(reward), bool(terminated), bool(truncated), info)
        else:
            result = _parsed(obs)
            output = result.get("output") if isinstance(result, dict) else result
            step = HubStep(obs, output, bool(info.get("is_error")), 0.0, False, False, False, info, None)
        self.last = step
        return step

    def call(self, tool: str, arguments: Any) -> HubStep:
        """A tool call; ``submit_answer`` with ``{"answer": value}`` ends the episode with that answer.
        ``submit_answer`` with other arguments is refused with an ``invalid_input`` error, without
        counting a call or tracing it (it is not a tool of the task), as ``silo-gym serve`` does.

        Raises:
            gymnasium.error.ResetNeeded: before ``reset`` or after the episode ended.
        """
        if tool == SUBMIT_ANSWER:
            if isinstance(arguments, dict) and set(arguments) == {"answer"}:
                return self.answer(arguments["answer"])
            if not self.running:
                raise ResetNeeded("No episode is running: call reset() first (or again, after the episode ended).")
            keys = sorted(arguments) if isinstance(arguments, dict) else type(arguments).__name__
            output = {"code": "invalid_input",
                      "message": f'{SUBMIT_ANSWER} takes exactly one argument, "answer" (any JSON value); got {keys}.'}
            info = dict(self.last.info) if self.last is not None else {}
            return HubStep(dumps_compact({"output": output, "isError": True}), output, True, 0.0, False, False, False,
                           info, None)
        return self.step({"tool": tool, "input": arguments})

    def answer(self, value: Any) -> HubStep:
        """End the episode with ``value`` as the final answer (graded and recorded)."""
        return self.step({"answer": value})

    def abandon(self, message: str) -> HubStep | None:
        """End a running episode as ``agent_error`` with ``message`` (graded and recorded, even
        when it received no action); ``None`` when none is running."""
        if not self.running:
            return None
        obs, reward, terminated, truncated, info = self.silo.abort(message)
        step = self._ending(obs, float(reward), bool(terminated), bool(truncated), info)
        self.last = step
        return step

    def _ending(self, obs: str, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]) -> HubStep:
        if isinstance(self.env, RecordRun) and "run_dir" not in info:  # ended on the unwrapped env
            info = {**info, "run_id": self.env.run_id, "run_dir": self.env.run_dir}
        return HubStep(obs, None, False, reward, True, terminated, truncated, info,
                       ending_metadata(info, terminated, truncated))

    def close(self, message: str = "The hub session closed before the episode ended.") -> None:
        """:meth:`abandon` a running episode with ``message``, then close the env."""
        try:
            self.abandon(message)
        finally:
            self.env.close()
