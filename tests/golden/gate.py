"""The shipped environments' regression gates (silo-format §1.2 invariant 7: regression oracles).

``result.json`` and ``state-diff.json`` hold no timestamps, run ids or durations, so the same
agent behaviour on the same environment gives byte-identical files in any process, on any day.
The golden copies under ``tests/golden/<world>/`` (``demo``: the CRM, demo-crm.md; ``project``: the
project-tracking world, project-world.md) pin those bytes for:

- ``solver/<TASK>/``: the world's reference solver (``examples/agents/crm_solver.py``,
  ``examples/agents/project_solver.py``) on each task;
- ``do-nothing/<TASK>/``: an agent that answers ``""`` at once, on each task;
- ``tool-path/``: a scripted call sequence on one task through every tool-call outcome (read,
  write, read back, an undeclared argument, a missing required argument, an unknown tool, an
  invalid action shape; the project path also a refused call), then an answer. Besides the two
  files it pins the trace's ``tool_call``/``tool_result`` events with ``at`` and ``durationMs``
  removed (``tool-events.jsonl``, one compact JSON object per line).

One gate is a :class:`Gate`. :func:`check_against_golden` runs it on an env made by any factory
(``gym.make`` of the shipped world, a drifted copy, ...) and returns the mismatches, so the
positive tests and the drift tests run the same code. :func:`check_runner_against_golden` does
the same through ``silo_gym.run_task`` with the Silo-style agent form.

Re-record with ``python tests/golden/record_golden.py [demo|project ...]`` (see its docstring).
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import json
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym

import silo_gym
from silo_gym.wrappers import RecordRun

GOLDEN_DIR = Path(__file__).resolve().parent
REPO_ROOT = GOLDEN_DIR.parents[1]
DEMO_DIR = REPO_ROOT / "environments" / "demo"
SOLVER_PATH = REPO_ROOT / "examples" / "agents" / "crm_solver.py"
PROJECT_DIR = REPO_ROOT / "environments" / "project"
PROJECT_SOLVER_PATH = REPO_ROOT / "examples" / "agents" / "project_solver.py"
ERP_DIR = REPO_ROOT / "environments" / "erp"
ERP_SOLVER_PATH = REPO_ROOT / "examples" / "agents" / "erp_solver.py"

TASK_IDS = tuple(f"TASK-00{n}" for n in range(1, 7))
PROJECT_TASK_IDS = tuple(f"TASK-{n:03d}" for n in range(1, 16))
ERP_TASK_IDS = tuple(f"TASK-{n:03d}" for n in range(1, 19))
EPISODE_FILES = ("result.json", "state-diff.json")
TOOL_EVENTS_FILE = "tool-events.jsonl"

EnvFactory = Callable[[str], gym.Env[Any, Any]]

# ---------------------------------------------------------------------------------------------
# Agents: each in its Gymnasium-policy form and its Silo-agent form
# ---------------------------------------------------------------------------------------------


def load_solver(environment: str = "demo") -> Any:
    """A world's reference solver module, loaded once per process from its file."""
    name = f"_{environment}_solver_for_golden_gates"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, WORLDS[environment].solver_path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


#: TASK-003 driven through every kind of tool-call outcome; the last action is the answer.
TOOL_PATH_TASK = "TASK-003"
TOOL_PATH_ACTIONS: tuple[dict[str, Any], ...] = (
    # 1. read
    {"tool": "get_opportunity", "input": {"opportunityId": "OPP-007"}},
    # 2. write
    {"tool": "close_opportunity_won",
     "input": {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"}},
    # 3. read back
    {"tool": "get_opportunity", "input": {"opportunityId": "OPP-007"}},
    # 4. write (creates ACT-016)
    {"tool": "log_activity",
     "input": {"type": "note", "subject": "Contract signed", "relatedType": "opportunity",
               "relatedId": "OPP-007", "ownerId": "USR-005", "notes": "Signed copy came back today.",
               "actorUserId": "USR-005"}},
    # 5. read back
    {"tool": "get_activity", "input": {"activityId": "ACT-016"}},
    # 6. an undeclared argument
    {"tool": "get_opportunity", "input": {"opportunityId": "OPP-007", "includeHistory": True}},
    # 7. a required argument left out
    {"tool": "close_opportunity_lost", "input": {"opportunityId": "OPP-008", "actorUserId": "USR-005"}},
    # 8. an unknown tool
    {"tool": "book_meeting", "input": {"opportunityId": "OPP-007"}},
    # 9. an invalid action shape ("input" is not an object)
    {"tool": "get_opportunity", "input": "OPP-007"},
    # 10. a tool call with no input at all (valid: the input defaults to {})
    {"tool": "get_current_date"},
    {"answer": "OPP-007 is closed won at 118000 and the signed contract is noted."},
)


#: Project TASK-006 driven through every kind of tool-call outcome; the last action is the answer.
PROJECT_TOOL_PATH_TASK = "TASK-006"
PROJECT_TOOL_PATH_ACTIONS: tuple[dict[str, Any], ...] = (
    # 1. read
    {"tool": "get_sprint", "input": {"sprintId": "SPR-003"}},
    # 2. write
    {"tool": "move_work_item_to_sprint",
     "input": {"workItemId": "WI-008", "sprintId": "SPR-003", "actorMemberId": "MEM-001"}},
    # 3. read back
    {"tool": "get_sprint", "input": {"sprintId": "SPR-003"}},
    # 4. write (creates CMT-004)
    {"tool": "add_comment",
     "input": {"workItemId": "WI-008", "body": "Pulled into the next sprint.", "actorMemberId": "MEM-001"}},
    # 5. read back
    {"tool": "list_comments", "input": {"workItemId": "WI-008"}},
    # 6. an undeclared argument
    {"tool": "get_sprint", "input": {"sprintId": "SPR-003", "verbose": True}},
    # 7. a required argument left out
    {"tool": "move_work_item_to_sprint", "input": {"workItemId": "WI-009", "actorMemberId": "MEM-001"}},
    # 8. an unknown tool
    {"tool": "plan_sprint", "input": {"sprintId": "SPR-003"}},
    # 9. an invalid action shape ("input" is not an object)
    {"tool": "get_sprint", "input": "SPR-003"},
    # 10. a tool call with no input at all (valid: the input defaults to {})
    {"tool": "get_current_date"},
    # 11. a call the tool refuses (a dependency is unfinished), with details
    {"tool": "set_work_item_status",
     "input": {"workItemId": "WI-004", "status": "WFS-006", "actorMemberId": "MEM-001"}},
    # 12. write
    {"tool": "move_work_item_to_sprint",
     "input": {"workItemId": "WI-009", "sprintId": "SPR-003", "actorMemberId": "MEM-001"}},
    {"answer": "WI-008 and WI-009 are now in SPR-003."},
)


#: ERP TASK-013 driven the way the reference's tool-path gate drives it (erp-tools.md §9): a read,
#: a write, a read back, an undeclared argument, a missing required argument, an unknown tool.
ERP_TOOL_PATH_TASK = "TASK-013"
ERP_TOOL_PATH_ACTIONS: tuple[dict[str, Any], ...] = (
    {"tool": "get_vendor_invoice", "input": {"vendorInvoiceId": "VINV-103"}},
    {"tool": "update_vendor_invoice_line",
     "input": {"vendorInvoiceId": "VINV-103", "lineId": "VINV-103-L1", "unitPrice": 82, "actorUserId": "USR-006"}},
    {"tool": "get_vendor_invoice", "input": {"vendorInvoiceId": "VINV-103"}},
    {"tool": "list_audit_events", "input": {"entityId": "VINV-103"}},
    {"tool": "get_vendor_invoice", "input": {}},
    {"tool": "definitely_not_a_tool", "input": {"foo": 1}},
    {"answer": "tools=185 read:ok write:ok reread:ok undeclared-arg:rejected missing-required:rejected "
               "unknown-tool:rejected"},
)


@dataclass(frozen=True)
class World:
    """A shipped environment under golden gates: its solver, tasks and tool path."""

    name: str
    env_dir: Path
    solver_path: Path
    task_ids: tuple[str, ...]
    tool_path_task: str
    tool_path_actions: tuple[dict[str, Any], ...]


WORLDS: dict[str, World] = {
    "demo": World("demo", DEMO_DIR, SOLVER_PATH, TASK_IDS, TOOL_PATH_TASK, TOOL_PATH_ACTIONS),
    "project": World("project", PROJECT_DIR, PROJECT_SOLVER_PATH, PROJECT_TASK_IDS, PROJECT_TOOL_PATH_TASK,
                     PROJECT_TOOL_PATH_ACTIONS),
    "erp": World("erp", ERP_DIR, ERP_SOLVER_PATH, ERP_TASK_IDS, ERP_TOOL_PATH_TASK, ERP_TOOL_PATH_ACTIONS),
}


class _ScriptPolicy:
    """Gymnasium policy replaying a fixed list of actions, whatever it observes."""

    def __init__(self, actions: tuple[dict[str, Any], ...]) -> None:
        self._actions = actions
        self._next = 0

    def __call__(self, observation: Any, info: dict[str, Any]) -> dict[str, Any]:
        if "call_id" not in info:  # a reset starts the script again
            self._next = 0
        action = self._actions[self._next]
        self._next += 1
        return action


def _script_agent(actions: tuple[dict[str, Any], ...]) -> Callable[..., dict[str, Any]]:
    """The Silo-agent form of a script: every tool action through ``call_tool``, then the answer."""

    def agent(task: str, tools: list[dict[str, Any]], call_tool: Callable[..., Any],
              signal: threading.Event) -> dict[str, Any]:
        for action in actions:
            if "answer" in action:
                return {"output": action["answer"]}
            call_tool(action["tool"], action.get("input"))
        raise AssertionError("the script has no answer")

    return agent


def _do_nothing_agent(task: str, tools: list[dict[str, Any]], call_tool: Callable[..., Any],
                      signal: threading.Event) -> dict[str, Any]:
    return {"output": ""}


def gym_policy(agent: str, environment: str = "demo") -> Callable[[Any, dict[str, Any]], dict[str, Any]]:
    """A fresh Gymnasium policy ``policy(observation, info) -> action`` for ``agent`` on a world."""
    if agent == "solver":
        return load_solver(environment).make_policy()
    if agent == "do-nothing":
        return _ScriptPolicy(({"answer": ""},))
    if agent == "tool-path":
        return _ScriptPolicy(WORLDS[environment].tool_path_actions)
    raise ValueError(f"unknown agent {agent!r}")


def silo_agent(agent: str, environment: str = "demo") -> Callable[..., dict[str, Any]]:
    """The Silo-style agent ``agent(task, tools, call_tool, signal)`` for ``agent`` on a world."""
    if agent == "solver":
        return load_solver(environment).agent
    if agent == "do-nothing":
        return _do_nothing_agent
    if agent == "tool-path":
        return _script_agent(WORLDS[environment].tool_path_actions)
    raise ValueError(f"unknown agent {agent!r}")


# ---------------------------------------------------------------------------------------------
# Gates
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gate:
    """One golden episode: an agent on a task, and the files it pins."""

    agent: str
    task_id: str
    environment: str = "demo"

    @property
    def rel_dir(self) -> str:
        """The golden directory, relative to ``tests/golden``."""
        if self.agent == "tool-path":
            return f"{self.environment}/tool-path"
        return f"{self.environment}/{self.agent}/{self.task_id}"

    @property
    def files(self) -> tuple[str, ...]:
        if self.agent == "tool-path":
            return (*EPISODE_FILES, TOOL_EVENTS_FILE)
        return EPISODE_FILES

    def __str__(self) -> str:
        prefix = "" if self.environment == "demo" else f"{self.environment}/"
        return f"{prefix}{self.agent}/{self.task_id}"


def gates(environment: str) -> tuple[Gate, ...]:
    """Every gate of a world: solver and do-nothing episodes on each task, then the tool path."""
    world = WORLDS[environment]
    episodes = tuple(Gate(agent, task_id, environment) for agent in ("solver", "do-nothing")
                     for task_id in world.task_ids)
    return (*episodes, Gate("tool-path", world.tool_path_task, environment))


EPISODE_GATES = tuple(Gate(agent, task_id) for agent in ("solver", "do-nothing") for task_id in TASK_IDS)
TOOL_PATH_GATE = Gate("tool-path", TOOL_PATH_TASK)
ALL_GATES = (*EPISODE_GATES, TOOL_PATH_GATE)
PROJECT_GATES = gates("project")
PROJECT_TOOL_PATH_GATE = PROJECT_GATES[-1]
ERP_GATES = gates("erp")
ERP_TOOL_PATH_GATE = ERP_GATES[-1]


@dataclass(frozen=True)
class Mismatch:
    """A produced file whose bytes differ from its golden copy (``None`` = file absent)."""

    path: str  # relative to tests/golden, e.g. "demo/solver/TASK-003/result.json"
    expected: bytes | None
    actual: bytes | None

    def diff(self) -> str:
        """A unified diff of the JSON text, golden first."""
        expected = [] if self.expected is None else self.expected.decode("utf-8", "replace").splitlines(True)
        actual = [] if self.actual is None else self.actual.decode("utf-8", "replace").splitlines(True)
        lines = list(difflib.unified_diff(expected, actual, f"golden/{self.path}", f"produced/{self.path}"))
        if not lines:  # same text lines: the difference is in line endings or a final newline
            return f"{self.path}: same lines, different bytes ({self.expected!r} vs {self.actual!r})\n"
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)

    def __str__(self) -> str:
        if self.expected is None:
            return f"{self.path}: no golden file (re-record with tests/golden/record_golden.py)"
        if self.actual is None:
            return f"{self.path}: the episode did not produce this file"
        return f"{self.path} differs from its golden copy:\n{self.diff()}"


def report(mismatches: list[Mismatch]) -> str:
    """All mismatches as one readable text (for assertion messages)."""
    return "\n".join(str(m) for m in mismatches)


def tool_events(trace_text: bytes) -> bytes:
    """The trace's ``tool_call``/``tool_result`` lines with ``at`` and ``durationMs`` removed,
    re-serialised in the compact form (silo-format §7.2), one per line."""
    out = []
    for line in trace_text.decode("utf-8").splitlines():
        event = json.loads(line)
        if event.get("type") not in ("tool_call", "tool_result"):
            continue
        kept = {k: v for k, v in event.items() if k not in ("at", "durationMs")}
        out.append(silo_gym.dumps_compact(kept) + "\n")
    return "".join(out).encode("utf-8")


def artifact_bytes(gate: Gate, run_dir: str | os.PathLike[str]) -> dict[str, bytes]:
    """The bytes a gate pins, read from one run directory."""
    run = Path(run_dir)
    produced: dict[str, bytes] = {}
    for name in gate.files:
        if name == TOOL_EVENTS_FILE:
            produced[name] = tool_events((run / "trace.jsonl").read_bytes())
        elif (run / name).is_file():
            produced[name] = (run / name).read_bytes()
    return produced


def run_gym(env_factory: EnvFactory, gate: Gate, runs_dir: str | os.PathLike[str]) -> dict[str, bytes]:
    """Run ``gate``'s agent in its Gymnasium-policy form on ``RecordRun(env_factory(task_id))``."""
    env = RecordRun(env_factory(gate.task_id), runs_dir=runs_dir)
    try:
        policy = gym_policy(gate.agent, gate.environment)
        observation, info = env.reset(seed=0)
        run_dir = info["run_dir"]
        while True:
            observation, _reward, terminated, truncated, info = env.step(policy(observation, info))
            if terminated or truncated:
                break
    finally:
        env.close()
    return artifact_bytes(gate, run_dir)


def run_runner(environment: str, gate: Gate, runs_dir: str | os.PathLike[str],
               cwd: str | os.PathLike[str] | None = None) -> dict[str, bytes]:
    """Run ``gate``'s agent in its Silo-agent form through ``silo_gym.run_task``."""
    result = silo_gym.run_task(environment, gate.task_id, silo_agent(gate.agent, gate.environment), cwd=cwd,
                               runs_dir=runs_dir)
    return artifact_bytes(gate, result.run_dir)


def compare(gate: Gate, produced: dict[str, bytes], golden_dir: Path = GOLDEN_DIR,
            files: tuple[str, ...] | None = None) -> list[Mismatch]:
    """Byte-compare produced files with the golden copies; one :class:`Mismatch` per differing file."""
    mismatches = []
    for name in files or gate.files:
        rel = f"{gate.rel_dir}/{name}"
        golden_path = golden_dir / rel
        expected = golden_path.read_bytes() if golden_path.is_file() else None
        actual = produced.get(name)
        if expected != actual:
            mismatches.append(Mismatch(rel, expected, actual))
    return mismatches


def check_against_golden(env_factory: EnvFactory, gate: Gate, *, runs_dir: str | os.PathLike[str],
                         golden_dir: Path = GOLDEN_DIR) -> list[Mismatch]:
    """Run one gate on ``env_factory(task_id)`` (Gymnasium form, recorded by ``RecordRun``) and
    return the files that differ from the golden copies (empty when the gate holds)."""
    return compare(gate, run_gym(env_factory, gate, runs_dir), golden_dir)


#: The runner's ``tool_call.input`` for an invalid action is the ``input`` it was given, where the
#: Gymnasium env records the whole action as received (gym-api.md), so the runner is held to the
#: two episode files only on the tool path.
RUNNER_FILES = EPISODE_FILES


def check_runner_against_golden(environment: str, gate: Gate, *, runs_dir: str | os.PathLike[str],
                                cwd: str | os.PathLike[str] | None = None,
                                golden_dir: Path = GOLDEN_DIR) -> list[Mismatch]:
    """The same gate through ``silo_gym.run_task`` with the Silo-style agent form."""
    return compare(gate, run_runner(environment, gate, runs_dir, cwd), golden_dir, RUNNER_FILES)


def demo_factory(task_id: str) -> gym.Env[Any, Any]:
    """``gym.make("silo/demo-<task>")``: the shipped demo as registered on ``import silo_gym``."""
    return gym.make(f"silo/demo-{task_id}")


def project_factory(task_id: str) -> gym.Env[Any, Any]:
    """``gym.make("silo/project-<task>")``: the shipped project world as registered."""
    return gym.make(f"silo/project-{task_id}")


def erp_factory(task_id: str) -> gym.Env[Any, Any]:
    """``gym.make("silo/erp-<task>")``: the shipped ERP world as registered."""
    return gym.make(f"silo/erp-{task_id}")


FACTORIES: dict[str, EnvFactory] = {"demo": demo_factory, "project": project_factory, "erp": erp_factory}


def registered_demo_dir() -> Path:
    """The directory ``silo/demo-*`` ids point at (the gates assume the repository's demo)."""
    return registered_dir("demo")


def registered_dir(environment: str) -> Path:
    """The directory ``silo/<environment>-*`` ids point at (the gates assume the repository's)."""
    world = WORLDS[environment]
    return Path(gym.spec(f"silo/{environment}-{world.task_ids[0]}").kwargs["path"])


@contextlib.contextmanager
def drifted_copies(project: Path, source: Path, name: str,
                   drifts: dict[str, Callable[[Path], None]]) -> Iterator[Callable[[str], Path]]:
    """``make(kind)``: a copy of the world ``source`` at ``<project>/.silo/environments/<name>``
    with the drift ``drifts[kind]`` applied, registered as ``silo/<name>-*``; returns the copy's
    directory. Its ids are unregistered on exit. Gate factories use :func:`drift_factory`."""

    def make(kind: str) -> Path:
        copy_dir = project / ".silo" / "environments" / name
        shutil.copytree(source, copy_dir, ignore=shutil.ignore_patterns("__pycache__"))
        drifts[kind](copy_dir)
        ids = silo_gym.register_environment(copy_dir, override=True)
        assert f"silo/{name}-TASK-001" in ids
        return copy_dir

    try:
        yield make
    finally:
        for env_id in [k for k in gym.registry if k == f"silo/{name}" or k.startswith(f"silo/{name}-")]:
            del gym.registry[env_id]
        silo_gym.registration._registered.pop(name, None)


def drift_factory(name: str) -> EnvFactory:
    """The gate env factory of the drifted copy ``name`` (:func:`drifted_copies`)."""
    return lambda task_id: gym.make(f"silo/{name}-{task_id}")
