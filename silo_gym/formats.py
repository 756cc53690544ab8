"""The rules of Silo's JSON files that need no pydantic: reading a file (``invalid_json`` with the
place of the problem), the task-file rules (silo-format §2.5), the task's JSON form (§2.6) and the
manifest's defaults (§2.3), and the range of variant numbers (docs/variants.md).

Registration uses these directly, so ``import silo_gym`` never imports pydantic; the models of
:mod:`silo_gym.models` run the same rules when they validate a loaded file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import SiloError
from .jsonfmt import loads_strict
from .names import is_safe_name

__all__ = [
    "DEFAULT_ENTRYPOINT",
    "REQUIRED_TASK_FIELDS",
    "VARIANT_LIMIT",
    "check_task",
    "display_path",
    "invalid_json",
    "manifest_json_form",
    "read_json_file",
    "task_json_form",
]

DEFAULT_ENTRYPOINT = "./__init__.py"
#: The task-file fields that must be non-empty strings, in the order they are checked (§2.5 step 3).
REQUIRED_TASK_FIELDS = ("id", "title", "instruction", "verifierId")
#: Variant numbers are ints with ``0 <= k < VARIANT_LIMIT`` (docs/variants.md, our rule): a
#: variant fits the int64 of data rows and vector infos, and every JSON reader reads it back.
VARIANT_LIMIT = 2**63


def display_path(path: str | os.PathLike[str], project_root: str | os.PathLike[str] | None = None) -> str:
    """POSIX path relative to the project root when inside it, else absolute (silo-format §2.3)."""
    root = Path(project_root) if project_root is not None else Path.cwd()
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return absolute.as_posix()


def invalid_json(shown: str, exc: ValueError) -> SiloError:
    """The ``invalid_json`` error of a file that does not parse (silo-format §2.3, §11).

    The message names the file, the line and column (1-based, in characters) and the parser's
    reason: ``<path> is not valid JSON at line <l>, column <c>: <reason>.``; details are
    ``{path, line, column}``. ``exc`` is a parser's error: ``json.JSONDecodeError`` (orjson's is
    one, and :func:`~silo_gym.jsonfmt.loads_strict` raises only that) or any ``ValueError``.
    """
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if not isinstance(line, int) or not isinstance(column, int):
        return SiloError("invalid_json", f"{shown} is not valid JSON: {exc}.", {"path": shown})
    reason = getattr(exc, "msg", None) or str(exc)
    return SiloError(
        "invalid_json",
        f"{shown} is not valid JSON at line {line}, column {column}: {reason}.",
        {"path": shown, "line": line, "column": column},
    )


def read_json_file(path: str | os.PathLike[str], project_root: str | os.PathLike[str] | None = None) -> Any:
    """Parse a JSON file strictly (a manifest, a task, a dataset, a run artifact).

    Raises:
        SiloError: ``invalid_json`` naming the file (relative to ``project_root``, default the
            current directory, when inside it), line and column; see :func:`invalid_json`.
        OSError: the file cannot be read.
    """
    raw = Path(path).read_bytes()
    try:
        return loads_strict(raw)
    except ValueError as exc:
        raise invalid_json(display_path(path, project_root), exc) from exc


def check_task(raw: Any, env_name: str, file_name: str) -> dict[str, Any]:
    """Check one parsed task file by silo-format §2.5 steps 2–4; returns it unchanged.

    Raises:
        SiloError: ``task_invalid`` with the messages and details of §2.5.
    """
    if not isinstance(raw, dict):
        raise SiloError(
            "task_invalid",
            f'Task file "{file_name}" in environment "{env_name}" is not a JSON object.',
            {"environment": env_name, "file": file_name},
        )
    for field_name in REQUIRED_TASK_FIELDS:
        value = raw.get(field_name)
        if not isinstance(value, str) or not value.strip():
            raise SiloError(
                "task_invalid",
                f'Task file "{file_name}" in environment "{env_name}" is missing a non-empty "{field_name}".',
                {"environment": env_name, "file": file_name, "field": field_name},
            )
    if not is_safe_name(raw["id"]):
        raise SiloError(
            "task_invalid",
            f'Task file "{file_name}" in environment "{env_name}" has an unsafe id "{raw["id"]}".',
            {"environment": env_name, "file": file_name, "field": "id"},
        )
    return raw


def task_json_form(raw: dict[str, Any]) -> dict[str, Any]:
    """The JSON form of a checked task file (silo-format §2.6): the four strings unchanged,
    ``difficulty`` trimmed (``"unspecified"`` when missing, not a string or empty), ``entities``
    the string items of a list (else ``[]``); any other key dropped."""
    difficulty = raw.get("difficulty")
    entities = raw.get("entities")
    return {
        "id": raw["id"],
        "title": raw["title"],
        "instruction": raw["instruction"],
        "verifierId": raw["verifierId"],
        "difficulty": difficulty.strip() if isinstance(difficulty, str) and difficulty.strip() else "unspecified",
        "entities": [e for e in entities if isinstance(e, str)] if isinstance(entities, list) else [],
    }


def manifest_json_form(raw: Any, directory_name: str) -> dict[str, Any]:
    """A parsed manifest (any JSON value; ``None`` for a missing file) with the defaults of
    silo-format §2.3: a value that is not an object counts as missing, a key of the wrong type
    takes its default, ``name`` is trimmed (the directory name when empty), ``tools`` keeps its
    string items."""
    if not isinstance(raw, dict):
        raw = {}
    name = raw.get("name")
    template = raw.get("template")
    version = raw.get("templateVersion")
    entry = raw.get("entrypoint")
    tools = raw.get("tools")
    return {
        "name": name.strip() if isinstance(name, str) and name.strip() else directory_name,
        "template": template if isinstance(template, str) else None,
        "templateVersion": version if isinstance(version, str) else None,
        "entrypoint": entry if isinstance(entry, str) and entry.strip() else DEFAULT_ENTRYPOINT,
        "tools": [t for t in tools if isinstance(t, str)] if isinstance(tools, list) else [],
    }
