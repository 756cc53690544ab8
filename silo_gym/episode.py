"""One episode's rules (silo-format §5), shared by every driver.

The Gymnasium ``step``, the agent runner's ``call_tool`` and the recorder all go through one
:class:`Episode`: limits (deadline, then budget), counting, execution, the four termination
reasons, grading, the state diff, and the trace events emitted to listeners. Nothing here is
Gymnasium-specific.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .diff import diff_plain_initial, diff_state
from .errors import RunLimitError, VerifierError
from .jsonfmt import is_json_compatible, loads_strict, text_form
from .plain_json import (
    MAX_NESTING,
    NotPlain,
    answer_not_recordable,
    bounded,
    describe_path,
    first_not_plain,
    object_not_plain,
)
from .rounding import js_round
from .snapshot import Snapshot
from .tools import Tool
from .validation import type_name
from .verifiers import VerifierContext, VerifierOutcome
from .version import __version__

if TYPE_CHECKING:
    from .models import Task

__all__ = [
    "ACCEPTED_SHAPES",
    "PLAIN_INPUT",
    "RECORDABLE_ANSWER",
    "TRACED_DEPTH",
    "Episode",
    "EpisodeEnd",
    "Listener",
    "ParsedAction",
    "iso_now",
    "not_plain_reason",
    "not_recordable_reason",
    "parse_action",
    "recorded_not_plain_reason",
]

ACCEPTED_SHAPES = (
    'Expected {"tool": "<name>", "input": {...}} or {"answer": <any JSON value>}, as a dict or a JSON string.'
)

#: What a tool input may hold (rule 8 of gym-api.md "One episode", amended): the sentence after
#: the reason of an input that is not plain JSON.
PLAIN_INPUT = (
    "Tool inputs hold only objects (dict) with string keys, arrays (list), strings, integers, "
    f"finite numbers (float), booleans and null (None), nested at most {MAX_NESTING} deep."
)

#: What an answer may hold (our rule): the sentence after the reason of an answer its record cannot
#: carry.
RECORDABLE_ANSWER = (
    "An answer may be any JSON value, with finite numbers only (JSON has no NaN or infinities) and "
    f"nested at most {MAX_NESTING} deep."
)

#: Containers kept below the root of an action traced as received (an invalid one): every place a
#: refusal names lies within :data:`~silo_gym.plain_json.MAX_NESTING` + 1 levels, and the trace
#: stays readable (readers of JSON stop near 1,000 levels).
TRACED_DEPTH = MAX_NESTING + 3

#: A listener receives every trace event dict (with ``seq``, ``type``, ``at``), then one end
#: notification ``{"type": "episode_end", "result": dict | None, "stateDiff": dict | None, "run": dict}``
#: (``None``: grading failed or the world was not graded), or ``{"type": "episode_discarded"}`` for
#: an episode closed before it received anything (nothing of it is to be kept).
Listener = Callable[[dict[str, Any]], None]


# (second, date part) and (millisecond, full text): each replaced whole, so threads never see
# a half-updated cache.
_iso_second: tuple[int, str] = (-1, "")
_iso_milli: tuple[int, str] = (-1, "")


def iso_now() -> str:
    """The wall clock as UTC ISO-8601 with milliseconds and ``Z`` (silo-format §6.4)."""
    global _iso_second, _iso_milli
    ms = time.time_ns() // 1_000_000
    last = _iso_milli
    if last[0] == ms:  # events of one step mostly share a millisecond
        return last[1]
    secs = ms // 1000
    second = _iso_second
    if second[0] != secs:  # the date part is formatted once per second
        second = _iso_second = (secs, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)))
    text = f"{second[1]}.{ms - secs * 1000:03d}Z"
    _iso_milli = (ms, text)
    return text


class FloatFreeEvent(dict):  # type: ignore[type-arg]
    """A trace event known to hold no float, so a recorder may serialise it directly."""

    __slots__ = ()


class ParsedAction(tuple):  # type: ignore[type-arg]
    """An action after the shape checks of gym-api.md "One episode".

    ``kind`` is ``"tool"``, ``"answer"`` or ``"invalid"``; ``reason`` is set for invalid actions;
    ``traced_tool`` / ``traced_input`` are what the trace's ``tool_call`` records. A tuple, since
    one is built on every step.
    """

    __slots__ = ()

    def __new__(cls, kind: str, tool: Any = None, input: Any = None, answer: Any = None,
                reason: str | None = None, traced_tool: Any = None, traced_input: Any = None) -> ParsedAction:
        return tuple.__new__(cls, (kind, tool, input, answer, reason, traced_tool, traced_input))

    kind = property(itemgetter(0))
    tool = property(itemgetter(1))
    input = property(itemgetter(2))
    answer = property(itemgetter(3))
    reason = property(itemgetter(4))
    traced_tool = property(itemgetter(5))
    traced_input = property(itemgetter(6))


_new_parsed = tuple.__new__


def _invalid(reason: str, received: Any, parsed: Any) -> ParsedAction:
    tool = parsed.get("tool") if isinstance(parsed, dict) else None
    return ParsedAction("invalid", reason=reason, traced_tool=tool if isinstance(tool, str) else None,
                        traced_input=bounded(received, TRACED_DEPTH))


def not_plain_reason(problem: NotPlain) -> str:
    """The ``invalid_action`` reason for a tool input that is not plain JSON (rule 8)."""
    return f'"{describe_path(problem.path)}" must be plain JSON data, received {problem.what}. {PLAIN_INPUT}'


def not_recordable_reason(problem: NotPlain, root: str = "answer") -> str:
    """The reason an answer (``root``: ``"answer"``, or ``"output"`` for a Silo agent's return) is
    refused: ``"answer.x" cannot be recorded: received NaN.`` and :data:`RECORDABLE_ANSWER`."""
    return f'"{describe_path(problem.path, root)}" cannot be recorded: received {problem.what}. {RECORDABLE_ANSWER}'


def recorded_not_plain_reason(message: str) -> str | None:
    """The reason inside a recorded ``invalid_action`` message when it is rule 8's (an input not
    plain JSON) or an answer's that cannot be recorded, else ``None``.

    A replay cannot derive it again from the trace: the trace wrote the refused value by
    silo-format §7.3 (``NaN`` as ``null``, a tuple as a list), which is plain.
    """
    for head, rule in (('"input', PLAIN_INPUT), ('"answer', RECORDABLE_ANSWER)):
        tail = f" {rule} {ACCEPTED_SHAPES}"
        if message.startswith(head) and message.endswith(tail):
            return message[: -len(ACCEPTED_SHAPES) - 1]
    return None


def parse_action(action: Any) -> ParsedAction:
    """Check an action's shape in the spec's order (gym-api.md, "One episode"); never raises.

    After the spec's seven rules comes ours (rule 8, docs/spec-amendments.md): a tool call's
    ``input`` must be plain JSON data (:mod:`silo_gym.plain_json`), so the trace, which writes
    it as JSON, records exactly what the tool's validation and ``run`` receive.
    """
    if type(action) is dict:  # the common well-formed tool call, decided at once
        tool = action.get("tool")
        size = len(action)
        if type(tool) is str and (size == 1 or (size == 2 and "input" in action)):
            tool_input = action.get("input")
            if tool_input is None or (type(tool_input) is dict and object_not_plain(tool_input) is None):
                return _new_parsed(ParsedAction, ("tool", tool, tool_input, None, None, tool, tool_input))
    value = action
    if isinstance(action, str):
        try:
            value = loads_strict(action)
        except (ValueError, RecursionError):
            return _invalid("The action is not valid JSON.", action, None)
    if not isinstance(value, dict):
        return _invalid(f"The action is {type_name(value)}, not an object.", action, None)
    has_tool = "tool" in value
    has_answer = "answer" in value
    if has_tool and has_answer:
        return _invalid('The action has both "tool" and "answer".', action, value)
    if not has_tool and not has_answer:
        return _invalid('The action has neither "tool" nor "answer".', action, value)
    allowed = ("tool", "input") if has_tool else ("answer",)
    unknown = [k for k in value if k not in allowed]
    if unknown:
        return _invalid(f"The action has unknown keys: {', '.join(str(k) for k in unknown)}.", action, value)
    if has_answer:
        problem = answer_not_recordable(value["answer"])
        if problem is not None:  # it would be graded as one value and recorded as another
            return _invalid(not_recordable_reason(problem), action, value)
        return ParsedAction("answer", answer=value["answer"])
    tool = value["tool"]
    if not isinstance(tool, str):
        return _invalid(f'"tool" must be a string, received {type_name(tool)}.', action, value)
    tool_input = value.get("input")
    if tool_input is not None and not isinstance(tool_input, dict):
        return _invalid(f'"input" must be an object or null, received {type_name(tool_input)}.', action, value)
    problem = None if tool_input is None else first_not_plain(tool_input)
    if problem is not None:
        return _invalid(not_plain_reason(problem), action, value)
    return ParsedAction("tool", tool=tool, input=tool_input, traced_tool=tool, traced_input=tool_input)


class EpisodeEnd:
    """What ``finish`` produced: the reason, error, outcome (None when grading failed or the world
    was not graded), the ``result.json`` dict (None likewise) and the state diff (None when the
    world was not graded: a tool call was still running, silo-format §5.3 amended)."""

    __slots__ = ("reason", "error", "raw_output", "outcome", "result", "state_diff", "grading_error")

    def __init__(self, reason: str, error: str | None, raw_output: Any, outcome: VerifierOutcome | None,
                 result: dict[str, Any] | None, state_diff: dict[str, Any] | None,
                 grading_error: VerifierError | None) -> None:
        self.reason = reason
        self.error = error
        self.raw_output = raw_output
        self.outcome = outcome
        self.result = result
        self.state_diff = state_diff
        self.grading_error = grading_error


def result_dict(outcome: VerifierOutcome, tool_calls: int, tool_errors: int, reason: str,
                raw_output: Any, error: str | None) -> dict[str, Any]:
    """``result.json`` with its thirteen keys in order (silo-format §6.2)."""
    checks = [c.to_json() for c in outcome.checks]
    passed_count = sum(1 for c in outcome.checks if c.passed)
    return {
        "passed": outcome.passed,
        "reward": outcome.reward,
        "requiredPassed": outcome.required_passed,
        "requiredTotal": outcome.required_total,
        "failedRequired": list(outcome.failed_required),
        "checksPassed": passed_count,
        "checksFailed": len(outcome.checks) - passed_count,
        "toolCalls": tool_calls,
        "toolErrors": tool_errors,
        "terminationReason": reason,
        "agentOutput": raw_output,
        "error": error,
        "checks": checks,
    }


class Episode:
    """One attempt at one task: a fresh world, tool calls, one end, one grading (silo-format §5).

    Created by ``SiloEnv.reset``. Calls are serialised by ``lock``; ``signal`` is set when a limit
    fires. Events are built only when there are listeners, so an unrecorded episode pays nothing.
    """

    def __init__(
        self,
        *,
        environment: str,
        task: Task,
        verifier: Any,
        state: Any,
        snapshot: Snapshot,
        tools: list[Any],
        max_tool_calls: int,
        timeout_ms: int,
        listeners: list[tuple[Listener, str | None, str | None]],
        variant: int | None = None,
        environment_hash: str | None = None,
    ) -> None:
        self.environment = environment
        self.task = task
        self.verifier = verifier
        self.state = state
        self._snapshot = snapshot
        self.tools = tools
        self.tool_map = {t.name: t for t in tools}  # later duplicates win (§3.2)
        self.max_tool_calls = max_tool_calls
        self.timeout_ms = timeout_ms
        self.variant = variant
        self.environment_hash = environment_hash
        self.tool_calls = 0
        self.tool_errors = 0
        self.limit_reason: str | None = None
        self.limit_message: str | None = None
        self.signal = threading.Event()
        self.lock = threading.RLock()
        #: The call executing now, read without the lock by a runner deciding whether its agent
        #: is stuck inside a tool (silo-format §5.3, amended); see :attr:`running_tool`.
        self.running: ParsedAction | None = None
        self._emit_lock = threading.Lock()  # seq stays whole if a stuck tool returns late
        self._limit_lock = threading.Lock()  # the first limit wins, whatever thread fires it
        #: Whether the episode received anything from an agent (a call, an answer, a model turn);
        #: ``close()`` discards an episode that did not (gym-api.md, amended).
        self.acted = False
        self.done = False
        self.end: EpisodeEnd | None = None
        self.listeners = [fn for fn, _, _ in listeners]
        self.run_id = next((rid for _, rid, _ in listeners if rid is not None), None)
        self.agent_path = next((ap for _, _, ap in listeners if ap is not None), None)
        self._seq = 0
        self.started_at = iso_now()
        self.started = time.monotonic()
        self.deadline = self.started + timeout_ms / 1000.0
        if self.listeners:
            self.emit("run_start", {
                "runId": self.run_id,
                "environment": environment,
                "task": task.to_json(),
                "config": self.config(),
                "tools": [t.name for t in tools],
            })

    # -- events ----------------------------------------------------------------------------

    def config(self) -> dict[str, Any]:
        """``config`` of ``run.json`` and ``run_start`` (silo-format §6.4; ``variant`` and the
        provenance keys are our rule: docs/variants.md, replay)."""
        return {
            "maxToolCalls": self.max_tool_calls,
            "timeoutMs": self.timeout_ms,
            "agentPath": self.agent_path,
            "variant": self.variant,
            "siloGymVersion": __version__,
            "environmentHash": self.environment_hash,
        }

    def emit(self, type_: str, fields: dict[str, Any], float_free: bool = False) -> None:
        """Build one trace event (silo-format §6.5) and hand it to every listener.

        Nothing is emitted once the end notification went out (a tool that returns after its run
        was ended without grading is not traced).
        """
        with self._emit_lock:
            if self.listeners:
                self._emit_to(self.listeners, type_, fields, float_free)

    def _emit_to(self, listeners: list[Listener], type_: str, fields: dict[str, Any],
                 float_free: bool = False) -> None:
        """:meth:`emit` to ``listeners``; the caller holds ``_emit_lock``."""
        self._seq += 1
        event = (FloatFreeEvent if float_free else dict)(seq=self._seq, type=type_, at=iso_now())
        event.update(fields)
        for fn in listeners:
            fn(event)

    # -- limits (silo-format §5.2) -------------------------------------------------------------

    def fire(self, reason: str) -> None:
        """Record a limit; the first one wins (silo-format §5.3), and set ``signal``."""
        with self._limit_lock:
            if self.limit_reason is None:
                self.limit_message = (
                    "Run ended: timeout." if reason == "timeout"
                    else f"Tool call limit exceeded ({self.max_tool_calls})."
                )
                self.limit_reason = reason
        self.signal.set()

    def check_limits(self) -> str | None:
        """Steps 2–3 of silo-format §5.2: the limit that refuses this call, or None.

        A limit that already fired (``expire()``) refuses every later call.
        """
        if self.limit_reason is not None:
            return self.limit_reason
        if time.monotonic() >= self.deadline:
            self.fire("timeout")
            return "timeout"
        if self.tool_calls >= self.max_tool_calls:
            self.fire("max_tool_calls")
            return "max_tool_calls"
        return None

    # -- one call (silo-format §5.2 steps 4–6) -----------------------------------------------------

    def run_call(self, parsed: ParsedAction) -> tuple[dict[str, Any], int, bool]:
        """Count, trace, execute and record one call that passed the limit checks.

        Returns ``(tool result dict, call_id, whether the result may hold a float)``.
        """
        self.tool_calls += 1
        self.acted = True
        call_id = self.tool_calls
        kind, tool_name, tool_input, _, reason, traced_tool, traced_input = parsed  # one unpack: hot path
        listening = bool(self.listeners)
        if listening:
            self.emit("tool_call", {"callId": call_id, "tool": traced_tool, "input": traced_input})
            t0 = time.perf_counter()
        self.running = parsed
        if kind == "invalid":
            result: dict[str, Any] = {
                "output": {"code": "invalid_action", "message": f"{reason} {ACCEPTED_SHAPES}"},
                "isError": True,
            }
            has_float = False
        else:
            tool = self.tool_map.get(tool_name)
            if tool is None:
                result = {
                    "output": {"code": "tool_not_found", "message": f'Unknown tool "{tool_name}".'},
                    "isError": True,
                }
                has_float = False
            elif type(tool) is Tool:
                result, has_float = tool.execute_tracked(tool_input)
            else:  # a tool object not made by bind_tools
                result, has_float = tool.execute(tool_input), True
        self.running = None
        is_error = "isError" in result
        if is_error:
            self.tool_errors += 1
        if listening:
            self.emit("tool_result", {
                "callId": call_id,
                "tool": traced_tool,
                "output": result["output"],
                "isError": is_error,
                "durationMs": js_round((time.perf_counter() - t0) * 1000.0),
            }, float_free=not has_float)
        return result, call_id, has_float

    def call_tool(self, name: Any, input: Any = None) -> dict[str, Any]:
        """The runner's path (silo-format §5.2, runner branch). A name that is not a string, an
        input that is not a dict or null, or one that is not plain JSON (rule 8 of
        :func:`parse_action`) is an invalid action, traced as given.

        Raises:
            RunLimitError: when a limit already fired, fires now, or the episode has ended.
        """
        with self.lock:
            if self.done:
                reason = self.end.reason if self.end is not None else "agent_error"
                raise RunLimitError(reason, f"Run ended: {reason}.")
            if self.limit_reason is not None:
                raise RunLimitError(self.limit_reason, f"Run ended: {self.limit_reason}.")
            fired = self.check_limits()
            if fired is not None:
                raise RunLimitError(fired, self.limit_message or fired)
            if not isinstance(name, str):
                parsed = ParsedAction("invalid", reason=f'"tool" must be a string, received {type_name(name)}.',
                                      traced_tool=None, traced_input=bounded(input, TRACED_DEPTH))
            elif input is not None and not isinstance(input, dict):
                parsed = ParsedAction("invalid",
                                      reason=f'"input" must be an object or null, received {type_name(input)}.',
                                      traced_tool=name, traced_input=bounded(input, TRACED_DEPTH))
            elif input is not None and (problem := first_not_plain(input)) is not None:
                parsed = ParsedAction("invalid", reason=not_plain_reason(problem), traced_tool=name,
                                      traced_input=bounded(input, TRACED_DEPTH))
            else:
                parsed = ParsedAction("tool", tool=name, input=input, traced_tool=name, traced_input=input)
            return self.run_call(parsed)[0]

    def expire(self) -> None:
        """The runner's deadline timer: record ``timeout`` unless a limit fired, set ``signal``.

        The signal is set at once, and the limit recorded without waiting for a tool call that
        holds the episode lock (silo-format §5.3): the timer never blocks on a stuck tool.
        """
        self.signal.set()
        if not self.done:
            self.fire("timeout")

    # -- the end (silo-format §5.5) --------------------------------------------------------

    def _state_diff(self, initial: Any) -> dict[str, Any]:
        """The state diff of the initial world against the final state (silo-format §8).

        ``initial`` is the restored snapshot, untouched by anyone yet. With per-key orjson bytes
        (the usual case), keys whose bytes and values are unchanged are skipped without walking
        them, and changed collections are compared record by record (``diff_plain_initial``).
        """
        if self._snapshot.parts is not None:
            return diff_plain_initial(initial, self.state, self._snapshot.parts)
        return diff_state(initial, self.state)

    def _run_end_fields(self, reason: str, error: str | None, traceback: str | None) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "terminationReason": reason,
            "error": error,
            "toolCalls": self.tool_calls,
            "toolErrors": self.tool_errors,
            "durationMs": js_round((time.monotonic() - self.started) * 1000.0),
        }
        if traceback is not None:  # our rule: the agent's traceback, when it raised
            fields["traceback"] = traceback
        return fields

    def _agent_end_events(self, reason: str, error: str | None, text: str, traceback: str | None) -> None:
        """``agent_output`` and ``run_end`` (silo-format §5.5 step 2)."""
        self.emit("agent_output", {"output": text}, float_free=True)
        self.emit("run_end", self._run_end_fields(reason, error, traceback), float_free=True)

    def _run_dict(self, reason: str) -> dict[str, Any]:
        """``run.json`` with its twelve keys in order (silo-format §6.4), taken now."""
        finished_at = iso_now()
        return {
            "runId": self.run_id,
            "environment": self.environment,
            "taskId": self.task.id,
            "task": self.task.to_json(),
            "verifierId": self.task.verifier_id,
            "verifierName": getattr(self.verifier, "name", None),
            "config": self.config(),
            "startedAt": self.started_at,
            "finishedAt": finished_at,
            "durationMs": js_round((time.monotonic() - self.started) * 1000.0),
            "terminationReason": reason,
            "toolCallCount": self.tool_calls,
        }

    def _notify_end(self, result: dict[str, Any] | None, state_diff: dict[str, Any] | None,
                    reason: str) -> None:
        """The one end notification, then no listener hears anything more of this episode."""
        with self._emit_lock:
            listeners, self.listeners = self.listeners, []
            if listeners:
                end_note = {"type": "episode_end", "result": result, "stateDiff": state_diff,
                            "run": self._run_dict(reason)}
                for fn in listeners:
                    fn(end_note)

    def finish(self, output: Any, *, error: str | None = None, reason: str | None = None,
               traceback: str | None = None) -> EpisodeEnd:
        """End the episode: fix the reason, grade, diff, notify listeners (silo-format §5.5).

        ``traceback``: the agent's formatted traceback, recorded in ``run_end`` (our rule).

        Raises:
            VerifierError: when grading failed, after the end was recorded.
        """
        with self.lock:
            if self.done:
                raise RuntimeError("episode already finished")
            self.done = True
            self.acted = True
            final_reason = self.limit_reason or reason or ("completed" if error is None else "agent_error")
            raw_output = output if is_json_compatible(output) else None
            try:
                end = self._grade(final_reason, raw_output, text_form(output), error, traceback)
            except BaseException:
                # A listener that cannot write (a full disk, §6.6) or an interruption: the
                # episode still ends, never half-open, and the error propagates.
                if self.end is None:
                    self.end = EpisodeEnd(final_reason, error, raw_output, None, None, None, None)
                with self._emit_lock:
                    self.listeners = []
                raise
            if end.grading_error is not None:
                raise end.grading_error
            return end

    def _grade(self, final_reason: str, raw_output: Any, text: str, error: str | None,
               traceback: str | None) -> EpisodeEnd:
        """§5.5 steps 2-6 for :meth:`finish`: events, the diff, grading, the end notification."""
        listening = bool(self.listeners)
        if listening:
            self._agent_end_events(final_reason, error, text, traceback)
        initial = self._snapshot.restore()
        # The diff is taken before grading, from the pristine restored world, so the verifier can
        # be handed that same world (one restore per episode end).
        state_diff = self._state_diff(initial)
        outcome: VerifierOutcome | None = None
        grading_error: VerifierError | None = None
        try:
            outcome = self.verifier.check(self.state, initial, VerifierContext(text, self.task))
            if not isinstance(outcome, VerifierOutcome):  # a verifier object not made with define_verifier
                raise TypeError(f"check() returned {type(outcome).__name__}, not a VerifierOutcome")
        except VerifierError as exc:
            grading_error = exc
            outcome = None
        except Exception as exc:  # a verifier object not made with define_verifier
            grading_error = VerifierError(
                f'Verifier "{getattr(self.verifier, "id", "?")}" failed: {str(exc) or type(exc).__name__}',
                {"verifierId": getattr(self.verifier, "id", None), "taskId": self.task.id},
            )
            grading_error.__cause__ = exc
            outcome = None
        result = None
        if outcome is not None:
            result = result_dict(outcome, self.tool_calls, self.tool_errors, final_reason, raw_output, error)
            if listening:
                self.emit("verifier_result", {
                    "verifierId": outcome.verifier_id,
                    "passed": outcome.passed,
                    "reward": outcome.reward,
                    "checks": result["checks"],
                })
        self.end = EpisodeEnd(final_reason, error, raw_output, outcome, result, state_diff, grading_error)
        if listening:
            self._notify_end(result, state_diff, final_reason)
        self.listeners = []
        return self.end

    def discard(self) -> None:
        """End an episode that received nothing from an agent without grading or recording it:
        listeners get ``{"type": "episode_discarded"}`` (``RecordRun`` removes the run
        directory), so counting run directories counts episodes played."""
        with self.lock:
            if self.done:
                return
            self.done = True
            self.signal.set()
            with self._emit_lock:
                listeners, self.listeners = self.listeners, []
            for fn in listeners:
                fn({"type": "episode_discarded"})

    def end_ungraded(self, error: str, *, reason: str = "timeout") -> EpisodeEnd:
        """End the episode without grading or diffing it: a tool call is still running and may
        still change the world (silo-format §5.3, amended). Never waits for ``lock``.

        The reason is the first limit that fired, else ``reason``. The trace gets ``run_end``;
        ``run.json`` is written; there is no ``result.json`` and no ``state-diff.json``. The
        listeners are taken away and told in one hold of the event lock, so a stuck tool that
        returns meanwhile adds nothing after ``run_end``.
        """
        with self._emit_lock:
            self.done = True  # later calls from the agent are refused
            self.signal.set()
            final_reason = self.limit_reason or reason
            listeners, self.listeners = self.listeners, []
            self.end = EpisodeEnd(final_reason, error, None, None, None, None, None)
            if listeners:
                self._emit_to(listeners, "run_end", self._run_end_fields(final_reason, error, None), True)
                end_note = {"type": "episode_end", "result": None, "stateDiff": None,
                            "run": self._run_dict(final_reason)}
                for fn in listeners:
                    fn(end_note)
        return self.end
