"""One MCP client session's episode: a recorded ``SiloEnv`` driven by the agent runner's rules.

An MCP client plays a task the way a Silo agent function does (silo-format §5.6): it calls tools
until it submits its answer. So each session's episode goes through the env's episode control
(gym-api.md, "Episode control and events"): ``call_tool`` for every tool call, ``expire`` at the
deadline, ``finish`` when the answer arrives (or when the session closes, or at deadline + grace),
never ``step``. ``RecordRun`` writes the run directory from the env's events, so a run played over
MCP has the same four artifacts, byte for byte, as the same calls made through Gymnasium.

Nothing here imports the MCP SDK; :mod:`silo_gym.serve.server` maps these results onto MCP.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..env import SiloEnv
from ..episode import Episode, not_recordable_reason
from ..errors import RunLimitError, SiloError, VerifierError
from ..plain_json import answer_not_recordable
from ..runner import GRACE_MS, LOCK_WAIT_S
from ..wrappers.record import RecordRun

__all__ = [
    "SUBMIT_ANSWER",
    "SUBMIT_ANSWER_TOOL",
    "EpisodeSettings",
    "ServedEpisode",
    "ToolReply",
    "check_servable",
]

#: The tool an MCP client calls to submit its final answer (it ends the episode).
SUBMIT_ANSWER = "submit_answer"

#: Its MCP tool definition: any JSON value as ``answer`` (gym-api.md: ``{"answer": <any JSON value>}``).
SUBMIT_ANSWER_TOOL: dict[str, Any] = {
    "name": SUBMIT_ANSWER,
    "description": (
        "Submit your final answer and end the episode. The answer may be any JSON value (usually the "
        "text of your reply). The episode is graded at once and this call returns the verifier's "
        "result; after it, every tool call is refused."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {"answer": {"description": "Your final answer: any JSON value."}},
        "required": ["answer"],
        "additionalProperties": False,
    },
}

#: How long closing a session waits for a tool call in progress before ending the run ungraded.
ABANDON_WAIT_S = 1.0

#: Why an episode ended without an answer, by cause (``error`` of ``result.json``).
SESSION_CLOSED = "The MCP session closed before an answer was submitted."
SERVER_STOPPED = "The MCP server stopped before an answer was submitted."


@dataclass(frozen=True)
class EpisodeSettings:
    """How every session's episode is built.

    Attributes:
        environment: the environment name (silo-format §2.2), resolved against ``cwd``.
        task_id: the task every session plays.
        runs_dir: where run directories go (absolute).
        max_tool_calls: the tool-call budget (silo-format §5.2).
        timeout_ms: the deadline in ms from the episode's start (the session's first request).
        variant: passed as ``reset(options={"variant": variant})`` when not None.
        cwd: the project root used to resolve ``environment``.
    """

    environment: str
    task_id: str
    runs_dir: Path
    max_tool_calls: int = 100
    timeout_ms: int = 120000
    variant: int | None = None
    cwd: str | None = None

    def make_env(self) -> SiloEnv:
        return SiloEnv(self.environment, self.task_id, max_tool_calls=self.max_tool_calls,
                       timeout_ms=self.timeout_ms, cwd=self.cwd)

    def reset_options(self) -> dict[str, Any] | None:
        return {"variant": self.variant} if self.variant is not None else None


def check_servable(env: SiloEnv) -> None:
    """Refuse an environment whose own tools would clash with :data:`SUBMIT_ANSWER`.

    Raises:
        SiloError: ``tool_name_reserved`` naming the environment and the tool.
    """
    if any(tool["name"] == SUBMIT_ANSWER for tool in env.fresh_tool_list()):
        raise SiloError(
            "tool_name_reserved",
            f'Environment "{env.environment_name}" has its own tool named "{SUBMIT_ANSWER}", which the MCP '
            f"server reserves for the final answer. Rename that tool to serve this environment over MCP.",
            {"environment": env.environment_name, "tool": SUBMIT_ANSWER},
        )


@dataclass(frozen=True)
class ToolReply:
    """What one MCP tool call answers: the payload (shown to the client as compact JSON) and
    whether it is an error (MCP's ``isError``). ``result`` is the ``result.json`` dict after a
    graded submission, else None."""

    payload: Any
    is_error: bool
    result: dict[str, Any] | None = None


class ServedEpisode:
    """A session's episode: ``RecordRun(SiloEnv)`` reset at construction, so the run directory
    and the deadline start with the session's first request.

    Thread-safe: calls are serialised by the episode's lock (silo-format §5.2); the deadline timer
    calls ``expire``; at deadline + grace (:data:`silo_gym.runner.GRACE_MS`) an episode with no
    answer ends as ``timeout``, as the runner abandons an agent that did not return (§5.3). Once
    it ended, the env and its world are let go (a long-running server keeps only the reason), and
    every later call is refused.
    """

    def __init__(self, settings: EpisodeSettings) -> None:
        self.settings = settings
        env = settings.make_env()
        recorder = RecordRun(env, runs_dir=settings.runs_dir)
        self.instruction, info = recorder.reset(options=settings.reset_options())
        self.run_id: str = info["run_id"]
        self.run_dir: str = info["run_dir"]
        episode = env.episode
        assert episode is not None
        self._env: SiloEnv | None = env
        self._recorder: RecordRun | None = recorder
        self._episode: Episode | None = episode
        self._ended_reason: str | None = None
        self._lock = threading.Lock()  # one ending, then the release
        timeout_s = min(settings.timeout_ms / 1000.0, threading.TIMEOUT_MAX)
        self._deadline = threading.Timer(timeout_s, episode.expire)
        self._overdue = threading.Timer(min(timeout_s + GRACE_MS / 1000.0, threading.TIMEOUT_MAX), self._give_up)
        for timer in (self._deadline, self._overdue):
            timer.daemon = True
            timer.start()

    @property
    def done(self) -> bool:
        return self._ended_reason is not None

    @property
    def env(self) -> SiloEnv | None:
        """The episode's env while it runs; ``None`` once it ended (its world is let go)."""
        return self._env

    def call_tool(self, name: str, arguments: dict[str, Any] | None) -> ToolReply:
        """Run one tool call the runner's way (silo-format §5.2); a refused call is an error reply
        ``{"code": <reason>, "message": ...}``, and a finished episode refuses every call."""
        episode = self._episode
        if episode is None:
            return self._ended()
        try:
            result = episode.call_tool(name, arguments)
        except RunLimitError as exc:
            if episode.done:  # it ended meanwhile
                return self._ended(episode)
            return ToolReply({"code": exc.reason, "message": exc.message}, True)
        return ToolReply(result["output"], "isError" in result)

    def submit_call(self, arguments: dict[str, Any] | None) -> ToolReply:
        """One call of :data:`SUBMIT_ANSWER` with these arguments. Once the episode ended it is
        refused like every other call, whatever its arguments; before that, arguments other than
        exactly ``answer`` are refused without ending the episode or counting a call (it is not a
        tool of the task, so nothing is traced and the agent may try again); else :meth:`submit`."""
        if self.done:
            return self._ended()
        arguments = arguments or {}
        if set(arguments) != {"answer"}:
            return ToolReply({"code": "invalid_input",
                              "message": f'{SUBMIT_ANSWER} takes exactly one argument, "answer" (any JSON value); '
                                         f"received {sorted(arguments) or 'none'}."}, True)
        problem = answer_not_recordable(arguments["answer"])
        if problem is not None:  # refused like malformed arguments: the episode goes on
            return ToolReply({"code": "invalid_input", "message": not_recordable_reason(problem)}, True)
        return self.submit(arguments["answer"])

    def submit(self, answer: Any) -> ToolReply:
        """End the episode with ``answer`` (silo-format §5.3, runner: the agent returned) and grade it.

        The reply's payload is the ``result.json`` dict; a limit that fired earlier stays the
        termination reason. Grading that fails answers an error reply with the verifier's message.
        """
        with self._lock:
            if self._env is None:
                return self._ended()
            try:
                *_, info = self._env.finish(answer)
            except VerifierError as exc:
                return ToolReply({"code": exc.code, "message": exc.message}, True)
            finally:
                self._release()
        return ToolReply(info["result"], False, info["result"])

    def abandon(self, message: str) -> None:
        """End an unanswered episode as ``agent_error`` with ``message`` (the session closed, the
        server stopped); the run is graded and recorded in full, unless a tool call is still
        running after :data:`ABANDON_WAIT_S`: then it ends ungraded (silo-format §5.3, amended).
        Does nothing once it ended."""
        self._end(message, "agent_error", ABANDON_WAIT_S)

    def _give_up(self) -> None:
        self._end(f"Agent did not submit an answer within {self.settings.timeout_ms} ms.", "timeout", LOCK_WAIT_S)

    def _end(self, error: str, reason: str, wait_s: float) -> None:
        """Grade and record the end; a tool call still running after ``wait_s`` may still change
        the world, so then the run ends ungraded, as the runner does at deadline + grace."""
        with self._lock:
            env, episode = self._env, self._episode
            if env is None or episode is None:
                return
            try:
                env.end_unless_stuck(
                    error, reason=reason, wait_s=wait_s,
                    stuck_error=lambda tool: (f'Tool "{tool}"' if tool is not None else "A tool call")
                    + f" was still running when the episode ended: {error}")
            except VerifierError:
                pass  # recorded without result.json (silo-format §6.6); no one is left to tell
            finally:
                self._release()

    def _release(self) -> None:
        """After the end: keep the reason, let the env, its world and the timers go."""
        end = self._episode.end if self._episode is not None else None
        self._ended_reason = end.reason if end is not None else "agent_error"
        self._deadline.cancel()
        self._overdue.cancel()
        self._env = self._recorder = self._episode = None

    def _ended(self, episode: Episode | None = None) -> ToolReply:
        reason = self._ended_reason
        if reason is None:
            end = episode.end if episode is not None else None
            reason = end.reason if end is not None else "agent_error"
        return ToolReply({"code": reason, "message": f"Run ended: {reason}. Open a new MCP session to play "
                                                      "the task again."}, True)


def default_runs_dir(runs_dir: str | os.PathLike[str] | None, cwd: str | None = None) -> Path:
    """``runs_dir`` made absolute, or ``<cwd>/.silo/runs`` (silo-format §6.1)."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    return Path(os.path.abspath(base / runs_dir)) if runs_dir is not None else base / ".silo" / "runs"
