"""One trial of an evaluation, as measured: its row (``silo_gym.data.collect``) joined with what
its run directory recorded.

From ``result.json``: the reward, ``passed``, the termination reason, the tool calls and errors
(the rewards of an evaluation are these, never recomputed). From ``trace.jsonl``:

- each ``tool_result`` that is an error, by its code: ``invalid_action`` (a malformed call: not
  a tool-call object, arguments that are not a JSON object or not plain JSON), ``tool_not_found``
  (an unknown tool), ``invalid_input`` (arguments that break the tool's input schema);
- each ``model_step`` (a model turn): whether a ``tool_call`` followed before the next turn or
  the end (a turn without one is a reply with no tool call: for ``ChatPolicy`` the answer), the
  tokens of its ``usage`` (in: ``prompt_tokens`` or ``input_tokens``, plus Anthropic's
  ``cache_creation_input_tokens`` and ``cache_read_input_tokens``; out: ``completion_tokens``
  or ``output_tokens``), and its ``latencyMs``.

A failed row (every attempt failed: a model that hung past ``episode_timeout_s``, HTTP errors
past the retries) has no run: it is a trial with no reward and a ``failure`` kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .worlds import EvalError

__all__ = ["Trial", "failure_kind", "trial_of"]

_MALFORMED = "invalid_action"
_UNKNOWN_TOOL = "tool_not_found"
_INVALID_INPUT = "invalid_input"


@dataclass
class Trial:
    """One played trial. ``reward`` is ``None`` for a failed episode (then ``failure`` is
    ``"timeout"`` or ``"error"`` and ``error`` says what happened)."""

    environment: str
    task_id: str
    trial: int
    variant: int | None
    run_id: str | None
    reward: float | None
    passed: bool
    termination_reason: str | None
    tool_calls: int = 0
    tool_errors: int = 0
    malformed_calls: int = 0
    unknown_tools: int = 0
    invalid_arguments: int = 0
    model_turns: int = 0
    turns_without_tool_call: int = 0
    calls_with_usage: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    retries: int = 0
    error: str | None = None
    failure: str | None = None
    reward_components: dict[str, Any] | None = None

    @property
    def graded(self) -> bool:
        return self.reward is not None

    @property
    def answer_only(self) -> bool:
        """Ended with an answer and not one tool call."""
        return self.graded and self.tool_calls == 0 and self.termination_reason == "completed"

    def summary(self) -> dict[str, Any]:
        """The trial as ``eval.json`` lists it (no run id, no times: the same every run)."""
        out: dict[str, Any] = {
            "trial": self.trial,
            "variant": self.variant,
            "reward": self.reward,
            "passed": self.passed,
            "termination_reason": self.termination_reason,
            "tool_calls": self.tool_calls,
            "tool_errors": self.tool_errors,
        }
        if self.failure is not None:
            out["failure"] = self.failure
            out["error"] = self.error
        if self.reward_components is not None:
            out["reward_components"] = self.reward_components
        return out


def failure_kind(error: str | None) -> str:
    """``"timeout"`` for an episode stopped by ``episode_timeout_s``, else ``"error"``."""
    return "timeout" if error is not None and error.startswith("Episode timed out") else "error"


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _tokens(usage: Any) -> tuple[int, int] | None:
    if not isinstance(usage, dict):
        return None
    if "prompt_tokens" in usage or "completion_tokens" in usage:
        return _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
    if "input_tokens" in usage or "output_tokens" in usage:
        cached = _int(usage.get("cache_creation_input_tokens")) + _int(usage.get("cache_read_input_tokens"))
        return _int(usage.get("input_tokens")) + cached, _int(usage.get("output_tokens"))
    return None


def _event(line: bytes) -> dict[str, Any]:
    event = orjson.loads(line)
    if not isinstance(event, dict):
        raise ValueError("a trace line is not a JSON object")
    return event


def _read_trace_into(trial: Trial, path: Path) -> None:
    """Count what the trace of one run holds (module docs). Only the lines that matter are
    parsed: an error result, a model turn; a call is known by its type alone (every line of a
    trace starts ``{"seq":N,"type":"...``, silo-format §6.5), so reading stays a small part of
    an evaluation's cost."""
    open_turn = False
    for line in path.read_bytes().splitlines():
        head = line[:40]
        if b'"type":"tool_call"' in head:
            open_turn = False
        elif b'"type":"tool_result"' in head:
            if b'"isError":true' not in line:
                continue
            event = _event(line)
            if event.get("isError") is True:
                output = event.get("output")
                code = output.get("code") if isinstance(output, dict) else None
                if code == _MALFORMED:
                    trial.malformed_calls += 1
                elif code == _UNKNOWN_TOOL:
                    trial.unknown_tools += 1
                elif code == _INVALID_INPUT:
                    trial.invalid_arguments += 1
        elif b'"type":"model_step"' in head:
            event = _event(line)
            if open_turn:
                trial.turns_without_tool_call += 1
            open_turn = True
            trial.model_turns += 1
            tokens = _tokens(event.get("usage"))
            if tokens is not None:
                trial.calls_with_usage += 1
                trial.tokens_in += tokens[0]
                trial.tokens_out += tokens[1]
            latency = event.get("latencyMs")
            if isinstance(latency, (int, float)) and not isinstance(latency, bool) and latency >= 0:
                trial.latencies_ms.append(float(latency))
    if open_turn:
        trial.turns_without_tool_call += 1


def trial_of(row: dict[str, Any], variant: int | None, runs_dir: Path | None) -> Trial:
    """The :class:`Trial` of one collect row; its run is read from ``runs_dir/<run_id>``.

    Raises:
        EvalError: the row was played but its run directory, ``result.json`` or trace cannot be
            read (moved or deleted while the evaluation ran, or between an interruption and
            ``resume``).
    """
    environment, task_id, index = row["environment"], row["task_id"], row["episode"]
    if row["reward"] is None:
        return Trial(environment, task_id, index, variant, None, None, False, None,
                     retries=_int(row.get("retries")), error=row.get("error"), failure=failure_kind(row.get("error")),
                     reward_components=None)
    run_id = row["run_id"]
    components = row.get("reward_components")
    if runs_dir is None or not isinstance(run_id, str):
        raise EvalError(f"Trial {index} of {environment}/{task_id} has no run directory (run_id {run_id!r}); an "
                        "evaluation reads every reward from its run's result.json.")
    run_dir = runs_dir / run_id
    try:
        result = orjson.loads((run_dir / "result.json").read_bytes())
    except (OSError, ValueError) as exc:
        raise EvalError(f"Cannot read {run_dir / 'result.json'} (trial {index} of {environment}/{task_id}): "
                        f"{getattr(exc, 'strerror', None) or exc}. Its run directory was moved or changed; "
                        "evaluate again into a new directory.") from None
    if not isinstance(result, dict) or not isinstance(result.get("reward"), (int, float)):
        raise EvalError(f"{run_dir / 'result.json'} holds no reward; it is not a run's result.json.")
    trial = Trial(environment, task_id, index, variant, run_id, float(result["reward"]), result.get("passed") is True,
                  result.get("terminationReason"), _int(result.get("toolCalls")), _int(result.get("toolErrors")),
                  retries=_int(row.get("retries")),
                  reward_components=dict(components) if isinstance(components, dict) else None)
    try:
        _read_trace_into(trial, run_dir / "trace.jsonl")
    except (OSError, ValueError) as exc:
        raise EvalError(f"Cannot read {run_dir / 'trace.jsonl'} (trial {index} of {environment}/{task_id}): "
                        f"{getattr(exc, 'strerror', None) or exc}.") from None
    return trial
