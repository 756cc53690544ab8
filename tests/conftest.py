"""Shared test setup.

``SILO_GYM_PATH`` points at ``tests/envs`` before ``silo_gym`` is imported, so the two small test
environments register as ``silo/orders-TASK-001`` and ``silo/inventory-TASK-001``.
"""

from __future__ import annotations

import atexit
import json
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import textwrap
from collections.abc import Callable
from typing import Any

TESTS_DIR = pathlib.Path(__file__).resolve().parent
ENVS_DIR = TESTS_DIR / "envs"
REPO_ROOT = TESTS_DIR.parent

os.environ["SILO_GYM_PATH"] = str(ENVS_DIR)

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

import silo_gym  # noqa: E402, F401  (registers silo/orders-* and silo/inventory-*)

# Tests write nothing into the repository: no .hypothesis/ example database, and Hypothesis's
# other storage (its constants cache) goes to a temporary directory removed at exit.
settings.register_profile("silo_gym", database=None)
settings.load_profile("silo_gym")
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="silo-gym-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)
atexit.register(shutil.rmtree, _HYPOTHESIS_HOME, True)

#: Under `make test` (and so CI) a test whose optional extra is missing fails instead of
#: skipping silently; a developer running pytest by hand still gets the skip.
REQUIRE_EXTRAS = os.environ.get("SILO_GYM_REQUIRE_EXTRAS") == "1"


def _missing_extra(report: Any) -> bool:
    return bool(report.skipped) and "could not import" in str(report.longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_EXTRAS and _missing_extra(report):
        report.outcome = "failed"
        report.longrepr = f"an optional extra is missing under SILO_GYM_REQUIRE_EXTRAS=1: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_EXTRAS and _missing_extra(report):
        report.outcome = "failed"
        report.longrepr = f"an optional extra is missing under SILO_GYM_REQUIRE_EXTRAS=1: {report.longrepr}"

_MISSING: Any = object()

#: A working little world: a counter, a label and a list of rows with string ids.
DEFAULT_INIT = '''
from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers


def create_state():
    return {
        "now": "2026-09-15",
        "count": 0,
        "label": "start",
        "rows": [{"id": "A", "n": 1}, {"id": "B", "n": 2}],
    }


def bind_tools(state):
    return _bind(state, tools)
'''

#: Tools covering every result kind of silo-format §3.2-3.5.
DEFAULT_TOOLS = '''
import time

from silo_gym import ToolError, define_tool


def _bump(state, input):
    state["count"] += input.get("by", 1)
    return {"count": state["count"]}


def _peek(state, input):
    return {"count": state["count"], "label": state["label"]}


def _rename(state, input):
    state["label"] = input["label"]
    return None


def _fail(state, input):
    raise ToolError("not_allowed", "Nope.", {"why": ["a", 1.0]})


def _crash(state, input):
    raise RuntimeError("boom")


def _setty(state, input):
    return {1, 2}


def _big(state, input):
    return "x" * input["n"]


def _slow(state, input):
    time.sleep(input.get("seconds", 0.05))
    return "slept"


_OBJ = {"type": "object", "properties": {}, "additionalProperties": False}

tools = [
    define_tool(name="bump", description="Add to the counter.",
                input_schema={"type": "object", "properties": {"by": {"type": "integer"}},
                              "additionalProperties": False},
                run=_bump),
    define_tool(name="peek", description="Read the counter.", input_schema=_OBJ, run=_peek),
    define_tool(name="rename", description="Set the label.",
                input_schema={"type": "object", "properties": {"label": {"type": "string"}},
                              "required": ["label"], "additionalProperties": False},
                run=_rename),
    define_tool(name="fail", description="Raise a ToolError.", input_schema=_OBJ, run=_fail),
    define_tool(name="crash", description="Raise a plain exception.", input_schema=_OBJ, run=_crash),
    define_tool(name="setty", description="Return a set.", input_schema=_OBJ, run=_setty),
    define_tool(name="big", description="Return a long string.",
                input_schema={"type": "object", "properties": {"n": {"type": "integer"}},
                              "required": ["n"], "additionalProperties": False},
                run=_big),
    define_tool(name="slow", description="Sleep a little.",
                input_schema={"type": "object", "properties": {"seconds": {"type": "number"}},
                              "additionalProperties": False},
                run=_slow),
]
'''

#: VER-001 passes when the counter is 1; one optional check on the label.
DEFAULT_VERIFIERS = '''
from silo_gym import check, define_verifier, optional


def _check(final, initial, context):
    return [
        check("count is 1", final["count"] == 1, f"count = {final['count']}"),
        optional("label kept", final["label"] == initial["label"], context.agent_output),
    ]


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="Counter at one", check=_check)]
'''

DEFAULT_TASK = {
    "id": "TASK-001",
    "title": "Bump once",
    "instruction": "Bump the counter exactly once.",
    "verifierId": "VER-001",
    "difficulty": "easy",
    "entities": [],
}


def _write(path: pathlib.Path, content: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content, indent=2), encoding="utf-8")


def write_env_dir(
    parent: str | os.PathLike[str],
    name: str = "widgets",
    *,
    manifest: Any = _MISSING,
    init: str | None = DEFAULT_INIT,
    tools: str | None = DEFAULT_TOOLS,
    verifiers: str | None = DEFAULT_VERIFIERS,
    tasks: dict[str, Any] | None = None,
    files: dict[str, Any] | None = None,
) -> pathlib.Path:
    """Write an environment directory ``<parent>/<name>`` and return its path.

    ``manifest``: missing by default (every default applies); a ``str``/``bytes`` is written as
    is, anything else as JSON. ``init``/``tools``/``verifiers``: Python source of
    ``__init__.py``, ``tools/__init__.py`` and ``verifiers/__init__.py`` (``None`` leaves the file
    out). ``tasks``: file name -> content (``str``/``bytes`` raw, else JSON); defaults to one
    ``TASK-001.json``; ``{}`` writes an empty ``tasks/``. ``files``: extra relative paths.
    """
    env_dir = pathlib.Path(parent) / name
    env_dir.mkdir(parents=True, exist_ok=True)
    if manifest is not _MISSING:
        _write(env_dir / "silo.environment.json", manifest)
    for rel, source in (("__init__.py", init), ("tools/__init__.py", tools),
                        ("verifiers/__init__.py", verifiers)):
        if source is not None:
            _write(env_dir / rel, textwrap.dedent(source))
    tasks = {"TASK-001.json": DEFAULT_TASK} if tasks is None else tasks
    (env_dir / "tasks").mkdir(exist_ok=True)
    for file_name, content in tasks.items():
        _write(env_dir / "tasks" / file_name, content)
    for rel, content in (files or {}).items():
        _write(env_dir / rel, textwrap.dedent(content) if isinstance(content, str) else content)
    return env_dir


@pytest.fixture
def make_env_dir() -> Callable[..., pathlib.Path]:
    """Factory: ``make_env_dir(tmp_path, name="widgets", manifest=..., init=..., tools=...,
    verifiers=..., tasks={...}, files={...})`` writes a small environment (see ``write_env_dir``)."""
    return write_env_dir


@pytest.fixture
def runs_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """A fresh runs directory (not yet created: RecordRun creates it)."""
    return tmp_path / "runs"


def listing(root: str | os.PathLike[str]) -> list[str]:
    """Every path under ``root`` (relative, POSIX), sorted; for before/after comparisons."""
    base = pathlib.Path(root)
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*"))


@pytest.fixture
def tree_listing() -> Callable[[str | os.PathLike[str]], list[str]]:
    return listing


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child Python: this one plus ``extra``, with bytecode off."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def sigint_as_default() -> None:
    """``preexec_fn`` for a child that a test interrupts with SIGINT: a process inherits an ignored
    SIGINT (from a worker started in the background, or a library that set SIG_IGN), and Python
    then installs no KeyboardInterrupt handler, so the child would never see the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


_WATCHED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> Any:
    """Each test starts with the SIGINT/SIGTERM handlers the one before it found: a test (or a
    library it drives) that leaves its own handler behind must not change how later tests, or the
    children they start, take a signal."""
    before = {sig: signal.getsignal(sig) for sig in _WATCHED_SIGNALS}
    yield
    for sig, handler in before.items():
        if signal.getsignal(sig) is not handler and handler is not None:
            signal.signal(sig, handler)


@pytest.fixture
def child_env() -> Callable[..., dict[str, str]]:
    return subprocess_env


PYTHON = sys.executable
