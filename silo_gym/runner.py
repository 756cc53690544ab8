"""``run_task``: a Silo-style agent function driving one task (silo-format §5.6).

The runner builds ``RecordRun(SiloEnv(...))`` and gives the agent the episode's ``call_tool``; it
never calls ``step``. When the agent settles it calls the env's ``finish`` following the
runner's table of silo-format §5.3, so the Gymnasium env and the runner share one set of rules.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import inspect
import itertools
import os
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .env import TERMINATION_REASONS, SiloEnv
from .episode import Episode, not_recordable_reason
from .errors import RunLimitError, SiloError
from .loader import SourceOnlyLoader
from .plain_json import answer_not_recordable
from .verifiers import VerifierOutcome
from .wrappers.record import RecordRun

if TYPE_CHECKING:
    from .models import Task

__all__ = ["GRACE_MS", "RunResult", "load_agent", "run_task"]

#: How long past the deadline the runner waits for an agent before abandoning it (our rule).
GRACE_MS = 2000
#: At deadline + grace, how long the runner waits for a tool call the agent may be inside of
#: before ending the run ungraded (silo-format §5.3, amended), in seconds.
LOCK_WAIT_S = 0.05

_agent_counter = itertools.count(1)


@dataclass
class RunResult:
    """What ``run_task`` returns (silo-format §5.6).

    ``passed``, ``reward``, ``verifier``, ``result`` and ``state_diff`` are ``None`` for a run that
    was not graded: the agent was stuck inside a tool call at deadline + grace (silo-format §5.3,
    amended), so no reward is reported for a world the call may still be changing.
    """

    run: dict[str, Any]
    task: Task
    agent_output: Any
    passed: bool | None
    reward: float | None
    verifier: VerifierOutcome | None
    tool_errors: int
    trace: list[dict[str, Any]] = field(default_factory=list)
    run_dir: str = ""
    error: str | None = None
    result: dict[str, Any] | None = field(default_factory=dict)
    state_diff: dict[str, Any] | None = field(default_factory=dict)


def _split_agent_spec(spec: str) -> tuple[str, str]:
    head, sep, tail = spec.rpartition(":")
    if sep and tail.isidentifier() and head.endswith(".py"):
        return head, tail
    return spec, "agent"


def load_agent(spec: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None) -> Callable[..., Any]:
    """Import an agent from ``path/to/file.py[:name]`` under a private module name (§5.6).

    Raises:
        SiloError: ``agent_invalid`` when the import fails or the name is missing or not callable.
    """
    text = os.fspath(spec)
    file_part, name = _split_agent_spec(text)
    path = Path(file_part)
    if not path.is_absolute():
        path = (Path(cwd) if cwd is not None else Path.cwd()) / path
    module_name = f"_silo_agent_{next(_agent_counter)}"
    try:
        if not path.is_file():
            raise FileNotFoundError(f"No such file: {path}")
        # Compiled from source (never a stale .pyc), so an edited agent file is seen at once.
        module_spec = importlib.util.spec_from_file_location(
            module_name, path, loader=SourceOnlyLoader(module_name, str(path)))
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module
        module_spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(module_name, None)
        raise SiloError("agent_invalid", f'Agent "{text}" could not be imported: {type(exc).__name__}: {exc}',
                        {"agent": text}) from exc
    fn = getattr(module, name, None)
    if not callable(fn):
        raise SiloError("agent_invalid", f'Agent "{text}" must define a callable named "{name}".', {"agent": text})
    return fn  # type: ignore[no-any-return]


def _call_agent(agent: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    if inspect.iscoroutinefunction(agent):
        return asyncio.run(agent(*args))
    value = agent(*args)
    if inspect.iscoroutine(value):
        return asyncio.run(value)
    return value


def run_task(
    environment: str,
    task_id: str,
    agent: Callable[..., Any] | str | os.PathLike[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    max_tool_calls: int = 100,
    timeout_ms: int = 120000,
    runs_dir: str | os.PathLike[str] | None = None,
    variant: int | None = None,
) -> RunResult:
    """Run a Silo-style agent on one task and record the run (silo-format §5.6, gym-api.md).

    ``agent(task, tools, call_tool, signal)`` is called with the instruction, a fresh copy of the
    tool list, ``call_tool(name, input=None) -> tool result dict`` (raises ``RunLimitError`` once
    a limit fired) and a ``threading.Event`` set when a limit fires. It returns
    ``{"output": answer}``; ``async def`` agents run on their own event loop. The agent runs on a
    worker thread; ``run_task`` returns at the latest ``timeout_ms`` + 2000 ms after the start.

    Args:
        agent: a callable, or ``"path/to/file.py[:name]"`` (name defaults to ``agent``), resolved
            against ``cwd`` when relative.
        runs_dir: defaults to ``<cwd>/.silo/runs``.
        variant: play variant ``variant`` of the task's world (docs/variants.md); ``None`` plays
            the canonical world.

    Raises:
        SiloError: setup errors of silo-format §5.1 (``environment_not_found``,
            ``task_not_found``, ``verifier_not_found``, ``agent_invalid``, ``variant_unsupported``,
            ``variant_preconditions_unmet``, ...).
        VerifierError: grading failed (``run.json`` and ``state-diff.json`` are still written).
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    env = SiloEnv(environment, task_id, max_tool_calls=max_tool_calls, timeout_ms=timeout_ms, cwd=cwd)
    agent_path: str | None = None
    if callable(agent):
        agent_fn = agent
    else:
        agent_path = os.fspath(agent)
        agent_fn = load_agent(agent_path, cwd)
    recorder = RecordRun(env, runs_dir=runs_dir if runs_dir is not None else base / ".silo" / "runs",
                         agent_path=agent_path)
    trace: list[dict[str, Any]] = []
    run_json: dict[str, Any] = {}

    def collect(event: dict[str, Any]) -> None:
        if event["type"] == "episode_end":
            run_json.update(event["run"])
        else:  # a snapshot: events hold the agent's own input and output objects
            trace.append(copy.deepcopy(event))

    env.add_listener(collect)
    instruction, info = recorder.reset(options={"variant": variant} if variant is not None else None)
    episode = env.episode
    assert episode is not None

    drive_agent(env, instruction, agent_fn)
    end = episode.end
    assert end is not None
    outcome = end.outcome
    return RunResult(
        run=run_json,
        task=episode.task,
        agent_output=end.raw_output,
        passed=outcome.passed if outcome is not None else None,
        reward=outcome.reward if outcome is not None else None,
        verifier=outcome,
        tool_errors=episode.tool_errors,
        trace=trace,
        run_dir=recorder.run_dir or "",
        error=end.error,
        result=end.result,
        state_diff=end.state_diff,
    )


def drive_agent(
    env: SiloEnv,
    instruction: str,
    agent: Callable[..., Any],
    call_tool: Callable[..., dict[str, Any]] | None = None,
) -> bool:
    """Run a Silo agent on the env's current episode and end it by the runner's rules (§5.3).

    The agent runs on a daemon thread with ``call_tool`` (default: the episode's own, bound to
    this episode so an abandoned agent can never reach a later one); a timer calls ``expire``
    at the deadline; after ``timeout_ms`` + :data:`GRACE_MS` the agent is abandoned. Returns
    True when the agent returned normally (its output was recorded as the answer).

    Raises:
        VerifierError: grading failed.
    """
    episode = env.episode
    assert episode is not None
    call = call_tool if call_tool is not None else episode.call_tool
    timeout_ms = env.timeout_ms
    outcome: dict[str, Any] = {}

    def worker() -> None:
        try:
            outcome["value"] = _call_agent(agent, (instruction, env.fresh_tool_list(), call, episode.signal))
        except BaseException as exc:  # settle on anything the agent raised
            outcome["exc"] = exc

    thread = threading.Thread(target=worker, name=f"silo-agent-{episode.task.id}", daemon=True)
    # threading refuses waits beyond TIMEOUT_MAX (about 292 years); a longer budget never fires.
    timer = threading.Timer(min(timeout_ms / 1000.0, threading.TIMEOUT_MAX), episode.expire)
    timer.daemon = True
    try:
        timer.start()
        thread.start()
        thread.join(min((timeout_ms + GRACE_MS) / 1000.0, threading.TIMEOUT_MAX))
    except BaseException as exc:  # Ctrl-C or a termination signal while the agent runs
        timer.cancel()
        # The run is ended and recorded (never left half-written), then the interruption goes on.
        if not episode.done:
            episode.signal.set()
            why = type(exc).__name__
            env.end_unless_stuck(
                f"Run interrupted ({why}) while the agent was running.", reason="agent_error",
                wait_s=LOCK_WAIT_S, stuck_error=lambda tool: f'Run interrupted ({why}) while tool "{tool}" was running.')
        raise
    timer.cancel()
    _settle(env, episode, thread, outcome, timeout_ms)
    return not thread.is_alive() and "exc" not in outcome


def _settle(env: SiloEnv, episode: Episode, thread: threading.Thread, outcome: dict[str, Any],
            timeout_ms: int) -> None:
    """Apply the runner's table of silo-format §5.3 through the env's ``finish``."""
    if thread.is_alive():
        # A tool call holds the episode lock while it runs; one that has not returned by now may
        # still change the world, so the run ends without grading (silo-format §5.3, amended).
        env.end_unless_stuck(
            f"Agent did not return within {timeout_ms} ms.", reason="timeout", wait_s=LOCK_WAIT_S,
            stuck_error=lambda tool: f'Tool "{tool}" did not return within {timeout_ms} ms.')
        return
    exc = outcome.get("exc")
    if exc is None:
        value = outcome.get("value")
        problem = answer_not_recordable(value["output"]) if isinstance(value, Mapping) and "output" in value else None
        if problem is not None:  # graded as one value, recorded as another: never
            env.finish(None, error=f"Agent returned an output that {not_recordable_reason(problem, 'output')}",
                       reason="agent_error")
        elif isinstance(value, Mapping) and "output" in value:
            env.finish(value["output"])
        else:  # a bare answer would otherwise be graded as no answer at all
            env.finish(None, error=_bad_return(value), reason="agent_error")
        return
    trace_text = "".join(traceback.format_exception(exc))
    if isinstance(exc, RunLimitError) and exc.reason in TERMINATION_REASONS:
        env.finish(None, error=exc.message if isinstance(exc.message, str) else _message(exc), reason=exc.reason,
                   traceback=trace_text)
        return
    # Any other failure is agent_error; a BaseException (KeyboardInterrupt, SystemExit) from the
    # agent thread still propagates (§14.7), after the run is graded and recorded in full.
    env.finish(None, error=_message(exc), reason="agent_error", traceback=trace_text)
    if not isinstance(exc, Exception):
        raise exc


def _bad_return(value: Any) -> str:
    """The error for an agent that returned something other than ``{"output": <answer>}``."""
    if isinstance(value, Mapping):
        keys = ", ".join(f'"{k}"' for k in list(value)[:5]) or "no keys"
        got = f"a mapping without \"output\" (keys: {keys})"
    elif value is None:
        got = "None"
    else:
        got = f"a {type(value).__name__} ({_preview(value)})"
    return f'Agent returned {got}; an agent must return {{"output": <answer>}}.'


def _preview(value: Any, limit: int = 60) -> str:
    try:
        text = repr(value)
    except Exception:
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(exc: BaseException) -> str:
    """``str(exc)``, or the class name when it is empty or cannot be built (our rule)."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    return text or type(exc).__name__
