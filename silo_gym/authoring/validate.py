"""Validation of an environment (silo-format §9).

``validate(environment, cwd=None)`` runs the checks of §9.2 in order and returns a
:class:`~silo_gym.models.ValidationReport`. It raises only ``unsafe_name`` and
``environment_not_found`` (for a name that does not resolve); every other problem, however the
environment is broken, becomes a finding. The environment's code is always imported fresh
(``open_environment(name, cwd, fresh=True)``), so edits made since the last load are seen.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType
from typing import Any

from ..jsonfmt import loads_strict
from ..loader import Environment, find_environment, open_environment
from ..models import Counts, Finding, ValidationReport
from ..registration import gym_id_problem
from ..world import world_snapshot, world_type_problem
from .scaffold import NOT_IMPLEMENTED_TOOL, NOT_IMPLEMENTED_VERIFIER
from .validate_variants import VARIANT_FINDING_CODES, check_variants

__all__ = ["FINDING_CODES", "format_report", "validate"]

#: Every finding code, in the order the checks run (silo-format §9.2 and our additions:
#: tool_name_llm_incompatible, tool_not_implemented, verifier_not_implemented, and the variant
#: findings of validate_variants, docs/variants.md; docs/authoring.md).
FINDING_CODES: tuple[str, ...] = (
    "data_dir_missing",
    "data_invalid_json",
    "runtime_load_failed",
    "manifest_missing",
    "create_state_failed",
    "state_shared_between_calls",
    "tool_unnamed",
    "tool_duplicate_name",
    "tool_name_llm_incompatible",
    "tool_no_description",
    "tool_schema_invalid",
    "tool_not_implemented",
    "bind_tools_failed",
    "verifier_duplicate_id",
    "verifier_orphan",
    "verifier_task_mismatch",
    "verifier_not_implemented",
    "task_verifier_unresolved",
    "gym_id_invalid",
    *VARIANT_FINDING_CODES,
    "no_tasks",
    "no_tools",
    "typecheck_config_invalid",
    "typecheck",
)

#: Exceptions a check turns into a finding. ``SystemExit`` raised by environment code is a finding
#: too; ``KeyboardInterrupt`` still stops the program.
_CAUGHT = (Exception, SystemExit)


def _message(exc: BaseException) -> str:
    """An exception's message: ``str(exc)``, or its class name when that is empty."""
    text = str(exc)
    return text if text else type(exc).__name__


def _callable_with(fn: Any, n: int) -> bool:
    """True when ``fn`` can be called with ``n`` positional arguments (silo-format §9.2).

    A callable whose signature cannot be inspected passes.
    """
    if not callable(fn):
        return False
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    try:
        signature.bind(*([None] * n))
    except TypeError:
        return False
    return True


def _first_shared_path(first: Any, second: Any) -> str | None:
    """The path of the first dict or list of ``second`` that is also an object inside ``first``.

    ``second`` is walked depth-first in key and index order; the path starts at ``state`` and adds
    ``.<key>`` for dict keys and ``[<i>]`` for list items. Returns ``None`` when nothing is shared.
    """
    owned: set[int] = set()
    stack: list[Any] = [first]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in owned:
                continue
            owned.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    seen: set[int] = set()
    walk: list[tuple[Any, str]] = [(second, "state")]
    while walk:
        node, path = walk.pop()
        if not isinstance(node, (dict, list)):
            continue
        if id(node) in owned:
            return path
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            children = [(v, f"{path}.{k}") for k, v in node.items()]
        else:
            children = [(v, f"{path}[{i}]") for i, v in enumerate(node)]
        walk.extend(reversed(children))
    return None


def _python_files(env_dir: Path) -> Iterator[tuple[Path, str]]:
    """Every ``*.py`` under ``env_dir`` in path order, skipping ``__pycache__`` and dot directories.

    Yields ``(absolute path, POSIX path relative to env_dir)``.
    """
    found: list[tuple[tuple[str, ...], Path]] = []
    for root, dirs, files in os.walk(env_dir):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for file_name in files:
            if file_name.endswith(".py"):
                path = Path(root) / file_name
                found.append((path.relative_to(env_dir).parts, path))
    for parts, path in sorted(found, key=lambda item: item[0]):
        yield path, "/".join(parts)


def _syntax_problem(path: Path, rel: str) -> str | None:
    """Compile one file without running it; ``<relpath>:<line>:<col> <message>`` on failure."""
    try:
        source = path.read_bytes()
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = exc.lineno if exc.lineno is not None else 1
        col = exc.offset if exc.offset is not None and exc.offset > 0 else 1
        return f"{rel}:{line}:{col} {exc.msg}"
    except _CAUGHT as exc:  # unreadable file, null bytes on older Pythons, ...
        return f"{rel}:1:1 {_message(exc)}"
    return None


#: Tool names that OpenAI and Anthropic tool calling accept.
_LLM_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _constants(fn: Any) -> set[Any]:
    """The string constants in a function's code, nested functions included (empty when ``fn``
    has no Python code): how a scaffold stub is recognised without calling it."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    found: set[Any] = set()
    stack = [code] if isinstance(code, CodeType) else []
    while stack:
        current = stack.pop()
        for const in current.co_consts:
            if isinstance(const, CodeType):
                stack.append(const)
            elif isinstance(const, str):
                found.add(const)
    return found


def _is_verifier(item: Any) -> bool:
    """An item made with ``define_verifier()``: string ``id``, ``task_id``, ``name``, callable ``check``."""
    try:
        return (
            isinstance(getattr(item, "id", None), str)
            and isinstance(getattr(item, "task_id", None), str)
            and isinstance(getattr(item, "name", None), str)
            and callable(getattr(item, "check", None))
        )
    except _CAUGHT:
        return False


class _Run:
    """The state of one validation run."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.findings: list[Finding] = []
        self.counts: Counts = {"data": 0, "tasks": 0, "tools": 0, "verifiers": 0}

    def error(self, code: str, message: str) -> None:
        self.findings.append(Finding(level="error", code=code, message=message))

    def warning(self, code: str, message: str) -> None:
        self.findings.append(Finding(level="warning", code=code, message=message))

    def guard(self, fn: Callable[[], None], code: str, prefix: str = "") -> None:
        """Run one check; an unexpected exception becomes an error finding with ``code``."""
        try:
            fn()
        except _CAUGHT as exc:
            self.error(code, prefix + _message(exc))


def validate(environment: str, cwd: str | os.PathLike[str] | None = None) -> ValidationReport:
    """Validate an environment by the checks of silo-format §9.2, in order.

    Args:
        environment: the environment name (resolved as in silo-format §2.2).
        cwd: the project root; defaults to the current directory.

    Returns:
        The report: ``environment`` (the name as given), ``ok`` (no error finding), ``findings``
        (``level``, ``code``, ``message``) and ``counts`` (``data``, ``tasks``, ``tools``,
        ``verifiers``).

    Raises:
        SiloError: ``unsafe_name`` or ``environment_not_found``, and nothing else.
    """
    location = find_environment(environment, cwd)
    env_dir = location.path
    run = _Run(environment)

    # 1-2. data/
    def check_data() -> None:
        data_dir = env_dir / "data"
        try:
            names = sorted(n for n in os.listdir(data_dir) if n.endswith(".json"))
        except OSError:
            run.warning("data_dir_missing", "No data/ directory.")
            return
        for file_name in names:
            path = data_dir / file_name
            if not path.is_file():
                continue
            try:
                loads_strict(path.read_bytes())
            except _CAUGHT as exc:
                run.error("data_invalid_json", f"data/{file_name} is not valid JSON: {_message(exc)}")
            else:
                run.counts["data"] += 1

    run.guard(check_data, "data_invalid_json")

    # 3. open the environment
    env: Environment | None = None
    try:
        env = open_environment(environment, cwd, fresh=True)
    except _CAUGHT as exc:
        run.error("runtime_load_failed", _message(exc))

    bound: list[Any] = []
    verifier_items: list[tuple[int, Any]] = []
    if env is not None:
        opened = env
        run.counts["tasks"] = len(opened.tasks)

        # Gymnasium ids (our rule): registration skips an environment with an id it cannot take
        for task_id in [None, *(t.id for t in opened.tasks)]:
            problem = gym_id_problem(location.name, task_id)
            if problem is not None:
                run.error("gym_id_invalid", f"{problem} import silo_gym skips this environment; rename the "
                          + ("environment." if task_id is None else f'task "{task_id}".'))

        # 4. manifest
        if not opened.manifest_present:
            run.warning("manifest_missing", "No silo.environment.json; defaults were used.")

        # 5-11. state and tools
        _check_state_and_tools(run, opened, bound)

        # 12-15. verifiers
        _check_verifiers(run, opened, verifier_items)

        # variants (docs/variants.md): sampled worlds, their integrity and the task hooks
        check_variants(run, opened)

    # 16-17.
    if run.counts["tasks"] == 0:
        run.warning("no_tasks", "No tasks defined, so this environment cannot be run yet.")
    if run.counts["tools"] == 0:
        run.warning("no_tools", "No tools registered, so the agent cannot observe or change anything.")

    # 19. typecheck (18, typecheck_config_invalid, is never emitted)
    def check_syntax() -> None:
        for path, rel in _python_files(env_dir):
            problem = _syntax_problem(path, rel)
            if problem is not None:
                run.error("typecheck", problem)

    run.guard(check_syntax, "typecheck")
    if env is not None:
        _check_signatures(run, bound, verifier_items)

    ok = not any(f.level == "error" for f in run.findings)
    return ValidationReport(environment=environment, ok=ok, findings=run.findings, counts=run.counts.copy())


def _check_state_and_tools(run: _Run, env: Environment, bound: list[Any]) -> None:
    """Checks 5-11: ``create_state()`` twice, sharing, ``bind_tools(state)`` and each bound tool."""
    create_state = env.module.create_state
    states: list[Any] = []
    for _ in range(2):
        try:
            state = create_state()
        except _CAUGHT as exc:
            run.error("create_state_failed", f"create_state() threw: {_message(exc)}")
            return
        if state is None:
            run.error("create_state_failed", "create_state() returned None; it must return the world state.")
            return
        problem = world_type_problem(state)  # what reset refuses (our rule)
        if problem is not None:
            run.error("create_state_failed", f"create_state() {problem}.")
            return
        states.append(state)
    _, problem = world_snapshot(states[0])  # reset refuses it too; the tools can still be checked
    if problem is not None:
        run.error("create_state_failed", f"create_state() {problem}.")

    # 6. shared between calls
    try:
        shared = _first_shared_path(states[0], states[1])
    except _CAUGHT as exc:  # pragma: no cover - the walk only touches dicts and lists
        run.error("state_shared_between_calls", _message(exc))
        shared = None
    if shared is not None:
        run.error(
            "state_shared_between_calls",
            f"create_state() returned objects shared between calls (first at {shared}); "
            "each call must build a fresh world.",
        )

    # 11 (computed first, reported after 7-10: without a list there are no tools to check)
    try:
        result = env.module.bind_tools(states[0])
    except _CAUGHT as exc:
        run.error("bind_tools_failed", f"bind_tools(state) threw: {_message(exc)}")
        return
    if not isinstance(result, (list, tuple)):
        run.error("bind_tools_failed", f"bind_tools(state) returned {type(result).__name__}, not a list of tools.")
        return
    bound.extend(result)
    run.counts["tools"] = len(result)

    # 7-10, per tool in bound order
    seen: set[str] = set()
    for tool in bound:
        try:
            _check_tool(run, tool, seen)
        except _CAUGHT as exc:
            run.error("tool_schema_invalid", f"A bound tool could not be inspected: {_message(exc)}")


def _check_tool(run: _Run, tool: Any, seen: set[str]) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    name = getattr(tool, "name", None)
    if not isinstance(name, str):
        run.error("tool_unnamed", "A bound tool has no name.")
        return
    if name in seen:
        run.error("tool_duplicate_name", f'Tool name "{name}" is registered more than once.')
    seen.add(name)
    if _LLM_TOOL_NAME.fullmatch(name) is None:
        run.warning(
            "tool_name_llm_incompatible",
            f'Tool name "{name}" would be refused by OpenAI and Anthropic tool calling, which accept '
            '1 to 64 letters, digits, "_" and "-".',
        )
    description = getattr(tool, "description", None)
    if not isinstance(description, str) or description == "":
        run.warning("tool_no_description", f'Tool "{name}" has no description; the agent sees this.')
    schema = getattr(tool, "input_schema", None)
    reason: str | None = None
    if not isinstance(schema, dict):
        reason = "it is not a JSON object"
    else:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            reason = exc.message
        except _CAUGHT as exc:
            reason = _message(exc)
        if reason is None:  # meta-valid, but the validator every call uses may still refuse it
            reason = _validator_schema_error(tool, schema)
    if reason is not None:
        run.error("tool_schema_invalid", f'Tool "{name}" has an invalid inputSchema: {reason}.')
    source = getattr(tool, "source", None)
    run_fn = getattr(source, "run", None) if source is not None else getattr(tool, "execute", None)
    if NOT_IMPLEMENTED_TOOL.format(name=name) in _constants(run_fn):
        run.warning(
            "tool_not_implemented",
            f'Tool "{name}" is still the scaffold\'s stub: its run raises "not implemented yet". '
            "Implement run(state, input).",
        )


def _validator_schema_error(tool: Any, schema: dict[str, Any]) -> str | None:
    """Why the compiled validator cannot use a meta-valid schema (a ``$ref`` that resolves
    nowhere, a pattern that is not ECMA-262), else None; every call would answer invalid_input
    (silo-format §3.3). A bound tool's own cached validator is used, so nothing compiles twice."""
    from ..validation import compile_schema

    source = getattr(tool, "source", None)
    compiled = getattr(source, "validator", None) if getattr(source, "input_schema", None) is schema else None
    if compiled is None:
        compiled = compile_schema(schema)
    return compiled.schema_error


def _check_verifiers(run: _Run, env: Environment, items: list[tuple[int, Any]]) -> None:
    """Checks 12-15. ``items`` receives ``(index, item)`` of every list item, for check 19(c)."""
    try:
        exported = list(env.module.verifiers)
    except _CAUGHT as exc:  # pragma: no cover - the contract check made sure it is a list
        run.error("runtime_load_failed", _message(exc))
        return
    run.counts["verifiers"] = len(exported)
    items.extend(enumerate(exported))
    tasks = {t.id: t for t in env.tasks}
    seen: set[str] = set()
    for _, item in items:
        if not _is_verifier(item):
            continue
        vid, task_id = item.id, item.task_id
        if vid in seen:
            run.error("verifier_duplicate_id", f'Verifier id "{vid}" is registered more than once.')
        seen.add(vid)
        task = tasks.get(task_id)
        if task is None:
            # An error, not the reference's warning: the verifier can never grade anything (issue 10).
            run.error("verifier_orphan", f'Verifier "{vid}" is for task "{task_id}", which does not exist.')
        elif task.verifier_id != vid:
            run.error(
                "verifier_task_mismatch",
                f'Verifier "{vid}" is for task "{task_id}", but that task names verifier "{task.verifier_id}".',
            )
        check_fn = getattr(item, "check_fn", None) or item.check
        if NOT_IMPLEMENTED_VERIFIER.format(id=vid) in _constants(check_fn):
            run.warning(
                "verifier_not_implemented",
                f'Verifier "{vid}" is still the scaffold\'s stub: its check always fails. '
                "Implement check(final_state, initial_state, context).",
            )
    for task in env.tasks:
        if task.verifier_id not in seen:
            run.error(
                "task_verifier_unresolved",
                f'Task "{task.id}" names verifier "{task.verifier_id}", which is not registered.',
            )


def _check_signatures(run: _Run, bound: list[Any], items: list[tuple[int, Any]]) -> None:
    """Check 19(b) and 19(c)."""
    for tool in bound:
        try:
            name = getattr(tool, "name", None)
            if not isinstance(name, str):
                continue
            source = getattr(tool, "source", None)
            fn = getattr(source, "run", None) if source is not None else getattr(tool, "execute", None)
            if not _callable_with(fn, 2):
                run.error("typecheck", f'Tool "{name}": run must be callable as run(state, input).')
        except _CAUGHT as exc:
            run.error("typecheck", _message(exc))
    for index, item in items:
        try:
            if not _is_verifier(item):
                run.error("typecheck", f"verifiers[{index}] is not a verifier made with define_verifier().")
                continue
            fn = getattr(item, "check_fn", None)
            if fn is None:
                fn = item.check
            if not _callable_with(fn, 3):
                run.error(
                    "typecheck",
                    f'Verifier "{item.id}": check must be callable as check(final_state, initial_state, context).',
                )
        except _CAUGHT as exc:
            run.error("typecheck", _message(exc))


def format_report(report: ValidationReport) -> str:
    """The text output of silo-format §9.3: one line per finding, then the summary line."""
    lines = [f"{f.level.upper()}\t{f.code}\t{f.message}" for f in report.findings]
    c = report.counts
    status = "OK" if report.ok else "FAILED"
    lines.append(
        f"{status}\t{report.environment}\tdata={c.get('data', 0)} tasks={c.get('tasks', 0)} "
        f"tools={c.get('tools', 0)} verifiers={c.get('verifiers', 0)}"
    )
    return "\n".join(lines) + "\n"
