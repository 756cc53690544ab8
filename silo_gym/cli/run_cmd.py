"""``silo-gym run`` (silo-format §10.3) and ``silo-gym list`` (§10.2, our rule)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import SiloError
from ..jsonfmt import dumps_pretty
from ..loader import discover_tasks, find_environment, list_locations
from ..registration import environment_ids
from ..rounding import to_fixed
from ..runner import RunResult, run_task
from ..wrappers.record import new_run_id
from .parser import Commands, count, non_negative

__all__ = ["DEFAULT_AGENT", "format_single_run", "format_summary", "register"]

#: The agent ``silo-gym run`` plays when ``--agent`` is not given (silo-format §10.3, our rule).
DEFAULT_AGENT = "./silo.agent.py"


def _rel(path: str) -> str:
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return absolute.as_posix()


_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f)}


def _line(label: str, value: Any) -> str:
    # Agent-written text (errors, labels) never drives the terminal: control characters such as
    # ESC are shown escaped.
    return f"{label + ':':<13}" + str(value).translate(_CONTROL)


def _calls(r: RunResult) -> tuple[int, int, str]:
    """``(tool calls, tool errors, termination reason)``, also for an ungraded run (no result)."""
    if r.result is not None:
        return r.result["toolCalls"], r.result["toolErrors"], r.result["terminationReason"]
    return int(r.run.get("toolCallCount", 0)), r.tool_errors, str(r.run.get("terminationReason"))


def _verdict(r: RunResult) -> str:
    return "UNGRADED" if r.passed is None else ("PASS" if r.passed else "FAIL")


def _reward_text(reward: float | None) -> str:
    return "none" if reward is None else to_fixed(reward, 2)


def _agent_traceback(r: RunResult) -> str | None:
    """The traceback the trace's ``run_end`` holds when the agent raised (our rule), else None."""
    return next((e.get("traceback") for e in r.trace if e.get("type") == "run_end"), None) or None


def _raised_type(traceback_text: str, error: str) -> str | None:
    """The type of the exception at the end of a formatted traceback whose text is ``error`` (the
    run's error is ``str(exc)``, or the type's name when that is empty: silo-format §5.3), or None
    when the traceback does not end with it."""
    body = traceback_text.rstrip("\n")
    if body.endswith(": " + error):
        name = body[: -len(error) - 2].rsplit("\n", 1)[-1]
        if name and not name[0].isspace() and " " not in name:
            return name
    if body.rsplit("\n", 1)[-1] == error:  # an exception with no text: the type alone
        return error
    return None


def _error_lines(r: RunResult, error: str, verbose: bool) -> list[str]:
    """``Error:`` of the report. An exception the agent raised (a traceback in ``run_end``; a
    limit's ``RunLimitError`` passed through is the limit's message) is shown with its type, and
    without ``verbose`` a line says how to see its traceback."""
    tb = _agent_traceback(r)
    name = _raised_type(tb, error) if tb is not None else None
    if name is None or name.rsplit(".", 1)[-1] == "RunLimitError":
        return [_line("Error", error)]
    lines = [_line("Error", error if name == error else f"{name}: {error}")]
    if not verbose:
        lines.append(" " * 13 + "(the agent raised this; run with --verbose for its traceback)")
    return lines


def format_single_run(r: RunResult, verbose: bool = False) -> str:
    """The single-run text report of silo-format §10.3.

    A run that was not graded (a tool call still running at deadline + grace, §5.3 amended)
    shows ``Result: UNGRADED`` and ``Reward: none``, and no check counts. When the agent raised,
    ``Error:`` names the exception's type beside its text (``KeyError: 'users'``, not ``'users'``)
    and, unless ``verbose`` (which prints the traceback), says how to see the traceback.
    """
    res = r.result
    calls, errors, reason = _calls(r)
    lines = [_line("Task", f"{r.task.id} — {r.task.title}")]
    variant = r.run.get("config", {}).get("variant")
    if variant is not None:  # docs/variants.md: which world was played
        lines.append(_line("Variant", variant))
    lines += [
        _line("Result", _verdict(r)),
        _line("Reward", _reward_text(r.reward)),
        _line("Duration", f"{to_fixed(r.run.get('durationMs', 0) / 1000, 1)}s"),
        _line("Tool calls", calls),
        _line("Successful", calls - errors),
        _line("Errors", errors),
    ]
    if res is not None:
        lines.append(_line("Checks", f"{res['checksPassed']} / {res['checksPassed'] + res['checksFailed']}"))
        lines.append(_line("Required", f"{res['requiredPassed']} / {res['requiredTotal']}"))
    if reason != "completed":
        lines.append(_line("Ended early", reason))
    if r.error is not None:
        lines += _error_lines(r, r.error, verbose)
    if res is not None and res["failedRequired"]:
        lines.append("Failed:")
        lines += [f"  - {label}".translate(_CONTROL) for label in res["failedRequired"]]
    lines.append(_line("Run saved", _rel(r.run_dir)))
    return "\n".join(lines) + "\n"


def summary_json(group_id: str, task_id: str, results: list[RunResult]) -> dict[str, Any]:
    """The ``--json`` summary object of silo-format §10.3 (means are plain numbers).

    An ungraded run has ``passed`` and ``reward`` null, counts as not passed, and is left out of
    the reward figures (which are null when no run was graded).
    """
    rewards = [r.reward for r in results if r.reward is not None]
    calls = [_calls(r)[0] for r in results]
    return {
        "groupId": group_id,
        "taskId": task_id,
        "runs": [
            {
                "runId": r.run.get("runId"),
                "runDir": r.run_dir,
                "passed": r.passed,
                "reward": r.reward,
                "toolCalls": _calls(r)[0],
                "toolErrors": _calls(r)[1],
                "terminationReason": _calls(r)[2],
                "error": r.error,
            }
            for r in results
        ],
        "passed": sum(1 for r in results if r.passed),
        "total": len(results),
        "meanReward": sum(rewards) / len(rewards) if rewards else None,
        "bestReward": max(rewards) if rewards else None,
        "worstReward": min(rewards) if rewards else None,
        "meanToolCalls": sum(calls) / len(calls),
    }


def format_summary(summary: dict[str, Any], results: list[RunResult]) -> str:
    """The multi-run text summary of silo-format §10.3."""
    task = results[0].task
    lines = [
        "Silo Runs",
        _line("Task", f"{task.id} — {task.title}"),
        _line("Group", summary["groupId"]),
        _line("Rollouts", summary["total"]),
        _line("Passed", f"{summary['passed']} / {summary['total']}"),
        _line("Mean reward", _reward_text(summary["meanReward"])),
        _line("Best", _reward_text(summary["bestReward"])),
        _line("Worst", _reward_text(summary["worstReward"])),
        _line("Mean calls", to_fixed(summary["meanToolCalls"], 1)),
    ]
    for i, r in enumerate(results, 1):
        calls, _, reason = _calls(r)
        lines.append(
            f"run {i}  {_verdict(r)}  reward {_reward_text(r.reward)} · "
            f"{calls} calls · {reason} · {r.run.get('runId')}"
        )
    return "\n".join(lines) + "\n"


def run_command(args: argparse.Namespace) -> int:
    env_name: str = args.env
    task_id: str = args.task
    agent: str = args.agent or DEFAULT_AGENT
    runs: int = args.runs
    max_calls: int = args.max_tool_calls
    timeout_ms: int = args.timeout_ms
    as_json: bool = args.json
    progress = None
    if runs > 1 and not as_json and sys.stderr.isatty():
        from tqdm import tqdm

        progress = tqdm(total=runs, desc=f"{env_name}/{task_id}", file=sys.stderr, unit="run")
    results: list[RunResult] = []
    with _tool_tracebacks(args.verbose):
        for _ in range(runs):
            results.append(run_task(env_name, task_id, agent, max_tool_calls=max_calls, timeout_ms=timeout_ms,
                                    variant=args.variant))
            if progress is not None:
                progress.update(1)
    if progress is not None:
        progress.close()
    group_id = new_run_id("grp")
    summary = summary_json(group_id, task_id, results)
    if as_json:
        sys.stdout.write(dumps_pretty(summary))
    elif runs == 1:
        sys.stdout.write(format_single_run(results[0], verbose=args.verbose))
    else:
        sys.stdout.write(format_summary(summary, results))
    if args.verbose:
        for r in results:
            tb = _agent_traceback(r)
            if tb:
                sys.stderr.write(f"Agent traceback ({r.run.get('runId')}):\n{tb}")
    return 0 if all(r.passed for r in results) else 1


@contextlib.contextmanager
def _tool_tracebacks(verbose: bool) -> Iterator[None]:
    """With ``--verbose``, print the traceback of every tool that raised something other than a
    ``ToolError`` (the agent saw only its type and message, as ``tool_crashed``) to stderr."""
    if not verbose:
        yield
        return
    logger = logging.getLogger("silo_gym.tools")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def list_command(args: argparse.Namespace) -> int:
    """Known environments and the Gymnasium ids they register (our rule, silo-format §10.2).

    An environment that registration would skip is left out with a warning on stderr (with
    ``--env`` it is an error); one without tasks is listed with no id (``gymId`` null).
    """
    only: str | None = args.env
    locations = [find_environment(only)] if only else list_locations()
    rows: list[dict[str, Any]] = []
    for loc in locations:
        try:
            _, pairs = environment_ids(loc.name, loc.path)
            tasks = discover_tasks(loc.name, loc.path) if pairs else []
        except SiloError as exc:
            if only:
                raise
            sys.stderr.write(f"warning: skipped {loc.path}: {exc}\n")
            continue
        rows.append({
            "environment": loc.name,
            "gymId": f"silo/{loc.name}" if pairs else None,
            "path": str(loc.path),
            "tasks": [
                {"taskId": t.id, "title": t.title, "difficulty": t.difficulty, "gymId": f"silo/{loc.name}-{t.id}"}
                for t in tasks
            ],
        })
    if args.json:
        sys.stdout.write(dumps_pretty(rows))
        return 0
    for row in rows:
        sys.stdout.write(f"{row['environment']}\t{row['gymId'] or '-'}\t{row['path']}\n")
        for t in row["tasks"]:
            sys.stdout.write(f"  {t['taskId']}\t{t['gymId']}\t{t['title']}\n")
    return 0


def register(commands: Commands) -> None:
    """``silo-gym list`` and ``silo-gym run``."""
    about = "list the known environments, their tasks and Gymnasium ids"
    p = commands.add_parser("list", help=about, description=about)
    p.add_argument("--env", metavar="E", help="list only this environment")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(handler=list_command)

    about = "play an agent on a task, grade it and save the run"
    p = commands.add_parser("run", help=about, description=about)
    p.add_argument("--env", metavar="E", required=True, help="environment name")
    p.add_argument("--task", metavar="T", required=True, help="task id")
    p.add_argument("--agent", metavar="PATH", default=DEFAULT_AGENT,
                   help="agent file, path.py or path.py:name (a function or factory)")
    p.add_argument("--runs", metavar="N", type=count, default=1,
                   help="rollouts, one after another, each on a fresh world")
    p.add_argument("--max-tool-calls", metavar="N", type=non_negative, default=100,
                   help="tool calls allowed per run")
    p.add_argument("--timeout-ms", metavar="MS", type=non_negative, default=120000,
                   help="time allowed per run, in milliseconds")
    p.add_argument("--variant", metavar="K", type=non_negative, default=None,
                   help="play variant K of the task's world (docs/variants.md); default: the canonical world")
    p.add_argument("--verbose", action="store_true",
                   help="print the traceback of an agent (kept in the trace's run_end), a tool or a "
                        "verifier that raised")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=run_command)
