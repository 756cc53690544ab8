"""Small environments written from Python strings, and directory snapshots."""

from __future__ import annotations

import textwrap
from pathlib import Path

NAME = "world"

MANIFEST = (
    '{"name": "world", "template": null, "templateVersion": "0.3.0", '
    '"entrypoint": "./__init__.py", "tools": []}\n'
)

INIT = """
from silo_gym import bind_tools as _bind

from .environment import create_state
from .tools import tools
from .verifiers import verifiers


def bind_tools(state):
    return _bind(state, tools)
"""

ENVIRONMENT = """
import copy

SEED = {"items": {"I-1": {"id": "I-1", "qty": 1}}, "log": []}


def create_state():
    return copy.deepcopy(SEED)
"""

TOOLS_HEAD = """
from silo_gym import define_tool

SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "string"}},
    "required": ["id"],
    "additionalProperties": False,
}


def _get(state, input):
    return state["items"][input["id"]]


get_item = define_tool(name="get_item", description="Read an item.", input_schema=SCHEMA, run=_get)
"""

VERIFIERS_HEAD = """
from silo_gym import check, define_verifier


def _check(final_state, initial_state, context):
    return [check("qty is 1", final_state["items"]["I-1"]["qty"] == 1)]


ver_001 = define_verifier(id="VER-001", task_id="TASK-001", name="Item intact", check=_check)
"""

TASK_001 = '{"id": "TASK-001", "title": "Keep it", "instruction": "Do nothing.", "verifierId": "VER-001"}\n'


def base_files() -> dict[str, str | None]:
    """A small environment that validates with no finding."""
    return {
        "silo.environment.json": MANIFEST,
        "__init__.py": INIT,
        "environment.py": ENVIRONMENT,
        "state.py": "State = dict\n",
        "data/items.json": '[{"id": "I-1", "qty": 1}]\n',
        "tasks/TASK-001.json": TASK_001,
        "tools/__init__.py": TOOLS_HEAD + "\ntools = [get_item]\n",
        "verifiers/__init__.py": VERIFIERS_HEAD + "\nverifiers = [ver_001]\n",
    }


def write_env(root: Path, changes: dict[str, str | None] | None = None, name: str = NAME) -> Path:
    """Write ``base_files()`` updated with ``changes`` (``None`` removes a file) into
    ``<root>/.silo/environments/<name>``; returns the environment directory."""
    files = base_files()
    files.update(changes or {})
    env_dir = root / ".silo" / "environments" / name
    env_dir.mkdir(parents=True)
    for rel, text in files.items():
        if text is None:
            continue
        path = env_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return env_dir


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (``None`` for directories)."""
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts:
            continue
        out[path.relative_to(root).as_posix()] = None if path.is_dir() else path.read_bytes()
    return out


def demo_verifiers_written() -> bool:
    """True once the shipped demo's ``verifiers = [...]`` list is not empty (parsed, not imported)."""
    import ast

    from silo_gym.loader import shipped_environments_dir

    registry = shipped_environments_dir() / "demo" / "verifiers" / "__init__.py"
    try:
        tree = ast.parse(registry.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return False
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if any(isinstance(t, ast.Name) and t.id == "verifiers" for t in targets) and isinstance(value, ast.List):
            return bool(value.elts)
    return False
