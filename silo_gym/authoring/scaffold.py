"""Scaffolding: new environments from templates, tool and verifier stubs (silo-format §12.4, §12.5).

``init_environment`` copies a template into a staging directory, writes the manifest and renames
the directory into place in one ``os.rename``; on any failure the staging directory is removed.
``scaffold_tool`` and ``scaffold_verifier`` write a stub module and register it, which is the only
edit silo_gym ever makes to Python source; nothing is written unless every step succeeded.
``interactive_init`` is the prompt of ``silo-gym init`` on a terminal (silo-format §10.2).
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import importlib
import keyword
import os
import re
import secrets
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import SiloError, SiloErrorCode, SiloGymError
from ..formats import display_path
from ..jsonfmt import dumps_pretty_bytes
from ..kit.version import KIT_VERSION
from ..loader import open_environment, shipped_environments_dir
from ..names import check_safe_name
from ..registration import gym_id_problem
from ..suggest import did_you_mean
from .store import EnvironmentRef, TaskStore, atomic_write, check_writable

__all__ = [
    "NOT_IMPLEMENTED_TOOL",
    "NOT_IMPLEMENTED_VERIFIER",
    "STUB_CHECK_LABEL",
    "TEMPLATES",
    "TEMPLATE_VERSION",
    "TOOL_PACKS",
    "InitResult",
    "PromptAborted",
    "RemovalResult",
    "ScaffoldResult",
    "describe_init",
    "find_state_type",
    "init_environment",
    "interactive_init",
    "module_identifier",
    "register",
    "remove_tool",
    "remove_verifier",
    "scaffold_tool",
    "scaffold_verifier",
    "split_list",
    "template_dir",
    "tool_stub",
    "unregister",
    "verifier_stub",
]

#: What the stubs of silo-format §12.5 say; ``env validate`` looks for them (tool_not_implemented,
#: verifier_not_implemented).
NOT_IMPLEMENTED_TOOL = 'Tool "{name}" is not implemented yet.'
NOT_IMPLEMENTED_VERIFIER = 'Verifier "{id}" is not implemented yet.'
STUB_CHECK_LABEL = "TODO: define success condition"
#: The Silo format version this package implements (the kit's version), written as ``templateVersion``.
TEMPLATE_VERSION = KIT_VERSION
DEFAULT_ENTRYPOINT = "./__init__.py"
#: Template id -> label (silo-format §12.4).
TEMPLATES: dict[str, str] = {"blank": "Blank", "crm": "CRM", "project": "Project tracking", "erp": "ERP"}
#: Tool packs offered at ``init``; recorded in the manifest and otherwise unused.
TOOL_PACKS: tuple[str, ...] = ("calendar", "email", "crm-contacts", "browser", "files")

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


def split_list(text: str | None) -> list[str]:
    """Split a comma-separated flag value, trim the items and drop the empty ones."""
    if not text:
        return []
    return [item.strip() for item in text.split(",") if item.strip()]


def template_dir(template: str) -> Path:
    """The directory a template is copied from: ``blank`` ships in ``silo_gym/templates``; ``crm``
    is the shipped demo environment, ``project`` the shipped project environment and ``erp`` the
    shipped ERP environment."""
    if template == "crm":
        return shipped_environments_dir() / "demo"
    if template in ("project", "erp"):
        return shipped_environments_dir() / template
    return Path(__file__).resolve().parent.parent / "templates" / template


def _project_environments(cwd: str | os.PathLike[str] | None) -> Path:
    return (Path(cwd) if cwd is not None else Path.cwd()) / ".silo" / "environments"


def _existing(environments: Path, name: str) -> str | None:
    """The entry of the project's environments whose name equals ``name`` case-insensitively."""
    try:
        children = sorted(os.listdir(environments))
    except OSError:
        return None
    for child in children:
        if not child.startswith(".") and child.lower() == name.lower():
            return child
    return None


@dataclass(frozen=True)
class InitResult:
    """A scaffolded environment: its name, template, tool packs and absolute directory."""

    name: str
    template: str
    tools: list[str]
    directory: Path


def _check_template(template: str) -> None:
    if template not in TEMPLATES:
        raise SiloError(
            "template_not_found",
            f'Unknown template "{template}". Available: {", ".join(TEMPLATES)}.',
            {"template": template, "available": list(TEMPLATES)},
        )


def _populate(staging: Path, name: str, template: str, tools: list[str]) -> None:
    """Copy the template into ``staging`` (which exists) and write the manifest."""
    shutil.copytree(template_dir(template), staging, ignore=_IGNORE, dirs_exist_ok=True)
    if template == "blank":
        # Packaging may drop dot files; the template's empty directories keep a .gitkeep.
        for sub in ("data", "tasks"):
            (staging / sub).mkdir(exist_ok=True)
            keep = staging / sub / ".gitkeep"
            if not any((staging / sub).iterdir()):
                keep.touch()
    manifest = {
        "name": name,
        "template": template,
        "templateVersion": TEMPLATE_VERSION,
        "entrypoint": DEFAULT_ENTRYPOINT,
        "tools": list(tools),
    }
    (staging / "silo.environment.json").write_bytes(dumps_pretty_bytes(manifest))


def init_environment(
    name: str,
    template: str = "blank",
    tools: Iterable[str] = (),
    cwd: str | os.PathLike[str] | None = None,
) -> InitResult:
    """Scaffold ``.silo/environments/<name>`` from a template (silo-format §12.4).

    Raises:
        SiloError: ``unsafe_name``, ``template_not_found``, ``environment_already_exists``
            (details ``{environment, existing}``); an ``OSError`` propagates after the staging
            directory was removed.
    """
    check_safe_name(name, "environment")
    problem = gym_id_problem(name)
    if problem is not None:  # registration would skip it: no Gymnasium id for any of its tasks
        raise SiloError("unsafe_name", f'Environment name "{name}" cannot be used: {problem} Choose a name that '
                        'does not end in "-v<digits>".', {"kind": "environment", "name": name})
    _check_template(template)
    packs = list(tools)
    environments = _project_environments(cwd)
    existing = _existing(environments, name)
    if existing is not None:
        raise SiloError(
            "environment_already_exists",
            f'Environment "{name}" already exists (as "{existing}").',
            {"environment": name, "existing": existing},
        )
    created_parents = [p for p in (environments.parent, environments) if not p.exists()]
    target = environments / name
    staging: Path | None = None
    try:
        environments.mkdir(parents=True, exist_ok=True)
        staging = _make_staging(environments)
        _populate(staging, name, template, packs)
        os.rename(staging, target)
    except BaseException:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        for parent in reversed(created_parents):  # leave nothing behind that this call made
            with contextlib.suppress(OSError):
                parent.rmdir()
        raise
    return InitResult(name=name, template=template, tools=packs, directory=target)


def _make_staging(environments: Path) -> Path:
    for _ in range(100):
        suffix = "".join(secrets.choice(_ALPHABET) for _ in range(8))
        staging = environments / f".staging-{suffix}"
        try:
            staging.mkdir()
        except FileExistsError:
            continue
        return staging
    raise FileExistsError(f"Could not create a staging directory in {environments}")


# --- tools and verifiers -------------------------------------------------------------------------


def module_identifier(name: str) -> str:
    """The module name and identifier for a tool name or verifier id (silo-format §12.5).

    ``get_profits`` -> ``get_profits``; ``VER-001`` -> ``ver_001``; ``1st`` -> ``_1st``;
    ``class`` -> ``class_``.
    """
    parts = [p.lower() for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    result = "_".join(parts)
    if result[:1].isdigit():
        result = "_" + result
    if keyword.iskeyword(result):
        result += "_"
    return result


def find_state_type(env_dir: Path) -> str:
    """The State type of ``state.py``, found without importing it (silo-format §12.5).

    A top-level class or assignment named ``State``, else the first one whose name ends in
    ``State``.

    Raises:
        SiloError: ``state_type_not_found``.
    """
    names: list[str] = []
    try:
        tree = ast.parse((env_dir / "state.py").read_bytes())
    except (OSError, SyntaxError, ValueError):
        tree = None
    if tree is not None:
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                names.append(node.name)
            elif isinstance(node, ast.Assign):
                names += [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.append(node.target.id)
            elif type(node).__name__ == "TypeAlias":  # ``type State = ...`` (Python 3.12)
                alias = getattr(node, "name", None)
                if isinstance(alias, ast.Name):
                    names.append(alias.id)
    if "State" in names:
        return "State"
    for candidate in names:
        if candidate.endswith("State"):
            return candidate
    raise SiloError(
        "state_type_not_found",
        "No State type found in state.py; pass --state <TypeName>.",
        {"file": "state.py"},
    )


def _py_string(text: str) -> str:
    """A Python string literal for ``text``: double-quoted, or single-quoted when that needs fewer
    escapes (as ruff's formatter chooses)."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    out = [quote]
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + quote)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF or ch in "\u2028\u2029\x85":
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append(quote)
    return "".join(out)


def tool_stub(name: str, identifier: str, state_type: str, description: str | None = None) -> str:
    """The source of a tool stub (silo-format §12.5): ruff-clean, within 88 columns except for
    long names and descriptions."""
    text = description if description is not None else f"TODO: describe what {name} does."
    return (
        f'"""Tool {name}."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from typing import Any\n"
        "\n"
        "from silo_gym import ToolError, define_tool\n"
        "\n"
        f"from ..state import {state_type}\n"
        "\n"
        "\n"
        f"def _run(state: {state_type}, input: dict[str, Any]) -> Any:\n"
        "    raise ToolError(\n"
        '        "invalid_state",\n'
        f"        {_py_string(NOT_IMPLEMENTED_TOOL.format(name=name))},\n"
        "    )\n"
        "\n"
        "\n"
        f"{identifier} = define_tool(\n"
        f"    name={_py_string(name)},\n"
        f"    description={_py_string(text)},\n"
        "    input_schema={\n"
        '        "type": "object",\n'
        '        "properties": {},\n'
        '        "required": [],\n'
        '        "additionalProperties": False,\n'
        "    },\n"
        "    run=_run,\n"
        ")\n"
    )


def verifier_stub(verifier_id: str, task_id: str, identifier: str, state_type: str,
                  name: str | None = None) -> str:
    """The source of a verifier stub (silo-format §12.5). Its single required check fails."""
    text = name if name is not None else f"TODO: name what {verifier_id} proves."
    return (
        f'"""Verifier {verifier_id} for task {task_id}."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from silo_gym import VerifierCheck, VerifierContext, check, define_verifier\n"
        "\n"
        f"from ..state import {state_type}\n"
        "\n"
        "\n"
        "def _check(\n"
        f"    final_state: {state_type},\n"
        f"    initial_state: {state_type},\n"
        "    context: VerifierContext,\n"
        ") -> list[VerifierCheck]:\n"
        "    return [\n"
        "        check(\n"
        f"            {_py_string(STUB_CHECK_LABEL)},\n"
        "            False,\n"
        f"            {_py_string(NOT_IMPLEMENTED_VERIFIER.format(id=verifier_id))},\n"
        "        ),\n"
        "    ]\n"
        "\n"
        "\n"
        f"{identifier} = define_verifier(\n"
        f"    id={_py_string(verifier_id)},\n"
        f"    task_id={_py_string(task_id)},\n"
        f"    name={_py_string(text)},\n"
        "    check=_check,\n"
        ")\n"
    )


#: Scaffolded code keeps within ruff's default line length.
_LINE_LENGTH = 88


def _natural_compare(a: str, b: str) -> int:
    """Compare module names as ruff's import sorting does (natural order, case-insensitive, the
    rules of strnatcmp): digit runs compare by value (``ver_2`` < ``ver_10``), except that a run
    with a leading zero compares digit by digit (``ver_010`` < ``ver_9``). Returns -1, 0 or 1."""
    a, b = a.lower(), b.lower()
    i = j = 0
    while i < len(a) and j < len(b):
        ca, cb = a[i], b[j]
        if ca.isdigit() and cb.isdigit():
            ra = re.match(r"[0-9]*", a[i:]).group(0)  # type: ignore[union-attr]
            rb = re.match(r"[0-9]*", b[j:]).group(0)  # type: ignore[union-attr]
            if ca == "0" or cb == "0":  # left-aligned: the first differing digit decides
                for da, db in zip(ra, rb, strict=False):
                    if da != db:
                        return -1 if da < db else 1
                if len(ra) != len(rb):
                    return -1 if len(ra) < len(rb) else 1
            elif len(ra) != len(rb):  # right-aligned: the longer number is the larger
                return -1 if len(ra) < len(rb) else 1
            elif ra != rb:
                return -1 if ra < rb else 1
            i, j = i + len(ra), j + len(rb)
            continue
        if ca != cb:
            return -1 if ca < cb else 1
        i, j = i + 1, j + 1
    return (len(a) - i > 0) - (len(b) - j > 0)


class _Source:
    """A registry's text with the positions ``ast`` reports (1-based lines as Python counts them:
    ``\n``, ``\r\n`` or ``\r``; columns in UTF-8 bytes) turned into character offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def line_start(self, line: int) -> int:
        return self.starts[line - 1] if line - 1 < len(self.starts) else len(self.text)

    def line_end(self, line: int) -> int:
        """The offset just past line ``line``'s terminator (the end of the text for the last line)."""
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def offset(self, line: int, byte_col: int) -> int:
        start = self.line_start(line)
        raw = self.text[start:self.line_end(line)].encode("utf-8")
        return start + len(raw[:byte_col].decode("utf-8", "replace"))

    def start_of(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end_of(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    def blank_before(self, offset: int) -> bool:
        """True when only spaces or tabs precede ``offset`` on its line."""
        return not self.text[self.line_start(self.line_of(offset)):offset].strip(" \t")


def _import_edit(tree: ast.Module, src: _Source, module: str, identifier: str) -> tuple[int, str]:
    """Where ``from .<module> import <identifier>`` goes, and its text, so that ruff's import
    sorting accepts the result: among the top-level ``from .x import`` lines in natural order;
    else after the last top-level relative import; else after the last top-level import, as a new
    section after a blank line; else after the module docstring; else at the top."""
    text = f"from .{module} import {identifier}\n"
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    relative = [n for n in imports if isinstance(n, ast.ImportFrom) and n.level > 0]
    for node in relative:
        if node.level == 1 and _natural_compare(node.module or "", module) > 0:
            return src.line_start(node.lineno), text
    separator = "\n"  # a new import section starts after a blank line
    anchor: ast.stmt | None = None
    if relative:
        anchor, separator = relative[-1], ""
    elif imports:
        anchor = imports[-1]
    elif tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant) \
            and isinstance(tree.body[0].value.value, str):
        anchor = tree.body[0]  # the module docstring
    if anchor is None:
        return 0, text + "\n"
    offset = src.line_end(anchor.end_lineno or anchor.lineno)
    newline = "" if src.text[:offset].endswith(("\n", "\r")) else "\n"
    following = src.text[offset:].split("\n", 1)[0].strip()
    after = "\n" if following and not following.startswith(("import ", "from ", "#")) else ""
    return offset, newline + separator + text + after


def _append_edits(src: _Source, node: ast.List, identifier: str) -> list[tuple[int, int, str]]:
    """Edits ``(start, end, replacement)`` that make ``identifier`` the list's last item. A list
    written on several lines gets one item per line, a trailing comma and ``]`` on its own line;
    a one-line list stays on one line while it fits in 88 columns."""
    text = src.text
    open_at, close_at = src.start_of(node), src.end_of(node) - 1
    first_line = text[src.line_start(node.lineno):src.line_end(node.lineno)]
    indent = first_line[:len(first_line) - len(first_line.lstrip(" \t"))]
    item_indent = indent + "    "
    if not node.elts:
        if not text[open_at + 1:close_at].strip():
            return [(open_at + 1, close_at, f"\n{item_indent}{identifier},\n{indent}")]
        if src.blank_before(close_at):  # only comments inside, "]" on its own line
            return [(src.line_start(src.line_of(close_at)), src.line_start(src.line_of(close_at)),
                     f"{item_indent}{identifier},\n")]
        return [(close_at, close_at, f"\n{item_indent}{identifier},\n{indent}")]
    last = node.elts[-1]
    last_end = src.end_of(last)
    gap = text[last_end:close_at]
    comma = last_end + len(gap) - len(gap.lstrip(" \t")) if gap.lstrip(" \t").startswith(",") else None
    if node.lineno == node.end_lineno:
        line = first_line.rstrip("\r\n")
        if len(line) + len(identifier) + 2 <= _LINE_LENGTH:
            return [(close_at, close_at, f" {identifier}" if comma is not None else f", {identifier}")]
        items = [text[src.start_of(e):src.end_of(e)] for e in node.elts] + [identifier]
        return [(open_at + 1, close_at, "".join(f"\n{item_indent}{item}," for item in items) + f"\n{indent}")]
    last_start = src.start_of(last)
    if src.blank_before(last_start):
        item_indent = text[src.line_start(last.lineno):last_start]
    edits: list[tuple[int, int, str]] = []
    if comma is None:
        edits.append((last_end, last_end, ","))
    if src.blank_before(close_at):  # "]" on its own line: the item goes on the line before it
        at = src.line_start(src.line_of(close_at))
        edits.append((at, at, f"{item_indent}{identifier},\n"))
    else:  # "    b,]" or "    b]": the item on its own line, then "]" on its own line
        after = comma + 1 if comma is not None else last_end
        kept = text[after:close_at].rstrip()  # a comment stays on the last item's line
        edits.append((after, close_at, f"{kept}\n{item_indent}{identifier},\n{indent}"))
    return edits


def register(source: str, list_name: str, module: str, identifier: str, relpath: str) -> str:
    """Return ``source`` with ``identifier`` imported and appended to the list (silo-format §12.5
    steps 3-6; amended by issue 10: entries keep the order they were added in, and the result is
    code that ruff accepts).

    The import goes among the ``from .x import`` lines in sorted order, or starts a new section
    after the other imports; the identifier becomes the list's last item (one item per line with
    a trailing comma in a list written on several lines).

    Raises:
        SiloError: ``registry_not_found`` when no ``<list_name> = [`` line exists;
            ``already_registered`` when the identifier already occurs as a whole word.
        SyntaxError: the registry is not valid Python.
    """
    match = re.search(rf"^{list_name}\s*(:[^=]*)?=\s*\[", source, re.MULTILINE)
    if match is None:
        raise SiloError(
            "registry_not_found",
            f'No "{list_name} = [" list found in {relpath}.',
            {"file": relpath, "list": list_name},
        )
    if re.search(rf"(?<![A-Za-z0-9_]){re.escape(identifier)}(?![A-Za-z0-9_])", source):
        raise SiloError(
            "already_registered",
            f'"{identifier}" is already registered in {relpath}.',
            {"file": relpath, "identifier": identifier},
        )
    tree = ast.parse(source, relpath)
    src = _Source(source)
    bracket = match.end() - 1
    lists = [n for n in ast.walk(tree) if isinstance(n, ast.List) and src.start_of(n) == bracket]
    if not lists:
        raise SiloError(
            "registry_not_found",
            f'No "{list_name} = [" list found in {relpath}.',
            {"file": relpath, "list": list_name},
        )
    at, text = _import_edit(tree, src, module, identifier)
    edits = [(at, at, text), *_append_edits(src, lists[0], identifier)]
    # Apply from the end so that earlier offsets stay valid.
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        source = source[:start] + replacement + source[end:]
    return source


@dataclass(frozen=True)
class ScaffoldResult:
    """A scaffolded tool or verifier: the created module and the registry, relative to the
    environment directory, and the identifier."""

    created: str
    registered_in: str
    identifier: str


def _scaffold(env: EnvironmentRef, kind: str, name: str, state_type: str | None,
              render: Callable[[str, str], str]) -> ScaffoldResult:
    package = "tools" if kind == "tool" else "verifiers"
    check_writable(env)
    if state_type is not None:
        check_safe_name(state_type, "stateType")
    identifier = module_identifier(name)
    created = f"{package}/{identifier}.py"
    module_path = env.path / package / f"{identifier}.py"
    if module_path.exists():
        label = "Tool" if kind == "tool" else "Verifier"
        code: SiloErrorCode = "tool_already_exists" if kind == "tool" else "verifier_already_exists"
        raise SiloError(
            code,
            f'{label} file "{created}" already exists.',
            {"file": created, "name": name},
        )
    registry_rel = f"{package}/__init__.py"
    registry_path = env.path / package / "__init__.py"
    try:
        raw = registry_path.read_bytes()
    except OSError:
        raise SiloError(
            "registry_not_found",
            f'No "{package} = [" list found in {registry_rel}.',
            {"file": registry_rel, "list": package},
        ) from None
    source = raw.decode("utf-8")
    updated = register(source, package, identifier, identifier, registry_rel)
    resolved_state = state_type if state_type is not None else find_state_type(env.path)
    stub = render(identifier, resolved_state)
    # Every step succeeded: write the module, then the registry (the module is removed again if
    # the registry cannot be written).
    with open(module_path, "x", encoding="utf-8", newline="") as handle:
        handle.write(stub)
    try:
        atomic_write(registry_path, updated.encode("utf-8"))
    except BaseException:
        with contextlib.suppress(OSError):
            module_path.unlink()
        raise
    return ScaffoldResult(created=created, registered_in=registry_rel, identifier=identifier)


def scaffold_tool(env: EnvironmentRef, name: str, description: str | None = None,
                  state_type: str | None = None) -> ScaffoldResult:
    """Write ``tools/<module>.py`` with a stub and register it in ``tools/__init__.py``.

    Raises:
        SiloError: ``environment_read_only``, ``unsafe_name``, ``tool_already_exists``,
            ``registry_not_found``, ``already_registered``, ``state_type_not_found``.
    """
    check_safe_name(name, "tool")

    def render(identifier: str, state: str) -> str:
        return tool_stub(name, identifier, state, description)

    return _scaffold(env, "tool", name, state_type, render)


def scaffold_verifier(env: EnvironmentRef, verifier_id: str, task_id: str, name: str | None = None,
                      state_type: str | None = None) -> ScaffoldResult:
    """Write ``verifiers/<module>.py`` with a failing stub and register it.

    Raises:
        SiloError: ``environment_read_only``, ``unsafe_name``, ``verifier_already_exists``,
            ``registry_not_found``, ``already_registered``, ``state_type_not_found``.
    """
    check_safe_name(verifier_id, "verifier")
    check_safe_name(task_id, "task")

    def render(identifier: str, state: str) -> str:
        return verifier_stub(verifier_id, task_id, identifier, state, name)

    return _scaffold(env, "verifier", verifier_id, state_type, render)


# --- removing a tool or a verifier (the reverse of the above) -------------------------------------


def _whole_lines(src: _Source, start: int, end: int) -> tuple[int, int] | None:
    """``(line start, next line start)`` around ``text[start:end]`` when nothing but blanks, a
    comma and a comment share its lines; else None."""
    text = src.text
    head = text[src.line_start(src.line_of(start)):start]
    tail_end = src.line_end(src.line_of(end)) if end > start else end
    tail = text[end:tail_end].rstrip("\r\n")
    if head.strip(" \t") or re.fullmatch(r"[ \t]*,?[ \t]*(#.*)?", tail) is None:
        return None
    return src.line_start(src.line_of(start)), tail_end


def _removal_from_list(src: _Source, node: ast.List, index: int) -> tuple[int, int, str]:
    """The edit that drops item ``index`` of ``node``: its whole line when it stands alone on
    one, else the item and the comma that separates it from its neighbour."""
    item = node.elts[index]
    start, end = src.start_of(item), src.end_of(item)
    lines = _whole_lines(src, start, end)
    if lines is not None:
        return lines[0], lines[1], ""
    if index + 1 < len(node.elts):  # "a, b, c" -> "a, c": up to the next item
        return start, src.start_of(node.elts[index + 1]), ""
    if index > 0:  # the last item: from the end of the one before it
        return src.end_of(node.elts[index - 1]), end, ""
    close_at = src.end_of(node) - 1  # the only item, on the bracket's line: "[x]" or "[x,]"
    return src.start_of(node) + 1, close_at, ""


def _import_statement(module: str, names: list[str], indent: str = "") -> str:
    """``from .<module> import a, b`` as ruff's import sorting writes it (one per line in
    parentheses past 88 columns)."""
    line = f"{indent}from .{module} import {', '.join(names)}"
    if len(line) <= _LINE_LENGTH:
        return line + "\n"
    return f"{indent}from .{module} import (\n" + "".join(f"{indent}    {n},\n" for n in names) + f"{indent})\n"


def unregister(source: str, list_name: str, identifier: str, relpath: str) -> tuple[str, str]:
    """Return ``(source without identifier, the module it was imported from)``: ``identifier``
    taken out of the ``<list_name> = [...]`` list and out of its ``from .<module> import`` line
    (the line goes when it imported nothing else). The reverse of :func:`register`, for
    registries written the way it writes them.

    Raises:
        SiloError: ``registry_not_found`` when no ``<list_name> = [`` list exists;
            ``not_registered`` when the list does not hold ``identifier`` as a plain name, or no
            top-level ``from .<module> import <identifier>`` imports it.
        SyntaxError: the registry is not valid Python.
    """
    tree = ast.parse(source, relpath)
    src = _Source(source)
    lists = [n.value for n in tree.body
             if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(n.value, ast.List)
             and any(isinstance(t, ast.Name) and t.id == list_name
                     for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    if not lists:
        raise SiloError("registry_not_found", f'No "{list_name} = [" list found in {relpath}.',
                        {"file": relpath, "list": list_name})
    node = lists[0]
    indexes = [i for i, e in enumerate(node.elts) if isinstance(e, ast.Name) and e.id == identifier]
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module
               and any(a.name == identifier and a.asname in (None, identifier) for a in n.names)]
    if not indexes or not imports:
        where = "in the list" if not indexes else "by a \"from .<module> import\" line"
        raise SiloError(
            "not_registered",
            f'"{identifier}" is not registered {where} of {relpath} the way "add" registers it; '
            f"remove it from {relpath} by hand.",
            {"file": relpath, "identifier": identifier},
        )
    statement = imports[0]
    module = str(statement.module)
    inside = source[src.start_of(node) + 1:src.end_of(node) - 1]
    if len(indexes) == len(node.elts) and "#" not in inside:
        edits = [(src.start_of(node), src.end_of(node), "[]")]  # the list is empty again
    else:
        edits = [_removal_from_list(src, node, i) for i in indexes]
    kept = [a.name if a.asname is None else f"{a.name} as {a.asname}" for a in statement.names
            if not (a.name == identifier and a.asname in (None, identifier))]
    first, after = src.line_start(statement.lineno), src.line_end(statement.end_lineno or statement.lineno)
    if not kept and statement.lineno > 1:
        before = src.line_start(statement.lineno - 1)
        if not source[before:first].strip() and not source[after:src.line_end(src.line_of(after))].strip():
            first = before  # an import section of its own (as add starts one): its blank line goes too
    edits.append((first, after, _import_statement(module, kept) if kept else ""))
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        source = source[:start] + replacement + source[end:]
    return source, module


@dataclass(frozen=True)
class RemovalResult:
    """A removed tool or verifier: the identifier taken out of the registry (relative to the
    environment directory), the module file deleted (``None`` when it was kept because it was not
    the one ``add`` writes, or it still defines registered items) and warnings."""

    identifier: str
    registered_in: str
    removed: str | None
    kept: str | None
    warnings: list[str]


def _registry_entries(env: EnvironmentRef, package: str) -> list[tuple[str, object]]:
    """``(identifier, object)`` of each plain name in the environment's ``<package>`` list, read
    from a fresh load of its code (so an entry is found by the tool's name or the verifier's id)."""
    opened = open_environment(env.name, env.project_root, fresh=True)
    root = opened.module.__name__.partition(".")[0]
    registry = sys.modules.get(f"{root}.{package}") or importlib.import_module(f"{root}.{package}")
    source = (env.path / package / "__init__.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.List):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == package for t in targets):
                names = [e.id for e in node.value.elts if isinstance(e, ast.Name)]
                break
    return [(name, getattr(registry, name, None)) for name in names]


def _remove(env: EnvironmentRef, kind: str, wanted: str, key: Callable[[object], object],
            not_found: Callable[[list[str]], SiloError]) -> RemovalResult:
    package = "tools" if kind == "tool" else "verifiers"
    check_writable(env)
    registry_rel = f"{package}/__init__.py"
    registry_path = env.path / package / "__init__.py"
    try:
        source = registry_path.read_bytes().decode("utf-8")
    except OSError:
        raise SiloError("registry_not_found", f'No "{package} = [" list found in {registry_rel}.',
                        {"file": registry_rel, "list": package}) from None
    entries = _registry_entries(env, package)
    matches = [ident for ident, obj in entries if key(obj) == wanted]
    if not matches:
        raise not_found([str(key(obj)) for _, obj in entries if key(obj) is not None])
    identifier = matches[0]
    updated, module = unregister(source, package, identifier, registry_rel)
    module_rel = f"{package}/{module}.py"
    module_path = env.path / package / f"{module}.py"
    still_used = re.search(rf"^\s*from \.{re.escape(module)} import\b", updated, re.MULTILINE) is not None
    delete = module == identifier and module_path.is_file() and not still_used
    atomic_write(registry_path, updated.encode("utf-8"))
    if delete:
        module_path.unlink()
    return RemovalResult(identifier=identifier, registered_in=registry_rel, removed=module_rel if delete else None,
                         kept=None if delete or not module_path.is_file() else module_rel, warnings=[])


def remove_tool(env: EnvironmentRef, name: str) -> RemovalResult:
    """Take the tool named ``name`` out of ``tools/__init__.py`` and delete ``tools/<module>.py``
    when it is the module ``tool add`` wrote for it (the reverse of :func:`scaffold_tool`).

    Raises:
        SiloError: ``environment_read_only``; ``unsafe_name``; ``tool_not_found`` (no registered
            tool has that name; the message lists the names and suggests the closest);
            ``registry_not_found``; ``not_registered`` (listed in a way ``tool add`` does not
            write: remove it by hand); ``runtime_contract_invalid`` (the code does not import).
    """
    check_safe_name(name, "tool")

    def not_found(names: list[str]) -> SiloError:
        return SiloError("tool_not_found",
                         f'No registered tool is named "{name}" in environment "{env.name}".'
                         f'{did_you_mean(name, names)} Tools: {", ".join(names) or "none"}.',
                         {"environment": env.name, "name": name, "available": names})

    return _remove(env, "tool", name, lambda obj: getattr(obj, "name", None), not_found)


def remove_verifier(env: EnvironmentRef, verifier_id: str) -> RemovalResult:
    """Take the verifier ``verifier_id`` out of ``verifiers/__init__.py`` and delete its module
    when ``verifier add`` wrote it (the reverse of :func:`scaffold_verifier`). A warning names
    each task that still names the verifier (``env validate`` reports them until they change).

    Raises:
        SiloError: as :func:`remove_tool`, with ``verifier_not_found`` for an unknown id.
    """
    check_safe_name(verifier_id, "verifier")

    def not_found(ids: list[str]) -> SiloError:
        return SiloError("verifier_not_found",
                         f'No registered verifier has the id "{verifier_id}" in environment "{env.name}".'
                         f'{did_you_mean(verifier_id, ids)} Verifiers: {", ".join(ids) or "none"}.',
                         {"environment": env.name, "verifierId": verifier_id, "available": ids})

    result = _remove(env, "verifier", verifier_id, lambda obj: getattr(obj, "id", None), not_found)
    for task in TaskStore(env).list():
        if task.verifier_id == verifier_id:
            result.warnings.append(f'Task "{task.id}" still names verifier "{verifier_id}"; give it another '
                                   f'with "silo-gym task update {task.id} --env {env.name} --verifier <id>", '
                                   "or remove it.")
    return result


# --- the interactive prompt ----------------------------------------------------------------------

_PROMPT_NAME = re.compile(r"[a-zA-Z0-9_-]+")


class PromptAborted(SiloGymError):
    """The input ended before the prompt was answered."""


def _ask(question: str, stdin: IO[str], stdout: IO[str]) -> str:
    stdout.write(question)
    stdout.flush()
    line = stdin.readline()
    if line == "":
        stdout.write("\n")
        raise PromptAborted("Missing <name>.")
    return line.strip()


def _suggest(environments: Path, name: str) -> str:
    n = 2
    while _existing(environments, f"{name}-{n}") is not None:
        n += 1
    return f"{name}-{n}"


def interactive_init(
    stdin: IO[str],
    stdout: IO[str],
    cwd: str | os.PathLike[str] | None = None,
    template: str | None = None,
    tools: list[str] | None = None,
) -> InitResult:
    """Ask for a name, a template and tool packs, then scaffold (silo-format §10.2).

    The name must match ``^[a-zA-Z0-9_-]+$``; when it collides case-insensitively with an
    existing environment, the first free ``<name>-2``, ``<name>-3``, ... is offered and an empty
    answer accepts it. ``template`` and ``tools``, when given, skip their questions.

    Raises:
        PromptAborted: the input ended.
    """
    if template is not None:
        _check_template(template)
    environments = _project_environments(cwd)
    default: str | None = None
    while True:
        question = f"Environment name [{default}]: " if default else "Environment name: "
        answer = _ask(question, stdin, stdout)
        if answer == "" and default:
            answer = default
        if not _PROMPT_NAME.fullmatch(answer):
            stdout.write("Use letters, digits, \"_\" and \"-\" only.\n")
            continue
        try:
            check_safe_name(answer, "environment")
        except SiloError as exc:
            stdout.write(exc.message + "\n")
            continue
        existing = _existing(environments, answer)
        if existing is not None:
            default = _suggest(environments, answer)
            stdout.write(f'Environment "{answer}" already exists (as "{existing}"). Suggested: {default}\n')
            continue
        break
    if template is None:
        ids = list(TEMPLATES)
        stdout.write("Templates:\n")
        for i, tid in enumerate(ids, 1):
            stdout.write(f"  {i}) {tid}  {TEMPLATES[tid]}\n")
        while True:
            choice = _ask(f"Template [{ids[0]}]: ", stdin, stdout)
            if choice == "":
                template = ids[0]
                break
            lowered = choice.lower()
            if choice.isdigit() and 1 <= int(choice) <= len(ids):
                template = ids[int(choice) - 1]
                break
            picked = [tid for tid in ids if lowered in (tid, TEMPLATES[tid].lower())]
            if picked:
                template = picked[0]
                break
            stdout.write(f"Choose one of: {', '.join(ids)}.\n")
    if tools is None:
        tools = []
        while True:
            yes_no = _ask("Add tool packs? (y/N): ", stdin, stdout).lower()
            if yes_no in ("", "n", "no"):
                break
            if yes_no in ("y", "yes"):
                tools = split_list(_ask(f"Tool packs ({', '.join(TOOL_PACKS)}), comma-separated: ", stdin, stdout))
                break
            stdout.write("Answer y or n.\n")
    return init_environment(answer, template, tools, cwd)


def describe_init(result: InitResult, cwd: str | os.PathLike[str] | None = None) -> tuple[str, dict[str, object]]:
    """The text line and the JSON object ``silo-gym init`` prints for a result."""
    directory = display_path(result.directory, cwd)
    text = f'Created environment "{result.name}" from {TEMPLATES[result.template]} at {directory}'
    payload: dict[str, object] = {
        "ok": True,
        "name": result.name,
        "template": result.template,
        "tools": list(result.tools),
        "directory": directory,
    }
    return text, payload
