"""The dataset store and the task store of an environment directory (silo-format §12.2, §12.3).

Both stores work on the files only: they never import the environment's code. Every write is
atomic (a temporary file in the same directory, then ``os.replace``) and uses the pretty JSON form
of silo-format §7.1. Writing into an environment found through the shipped step of the search
order is refused with ``environment_read_only`` (silo-format §10.1). The command line and the
project API (:mod:`silo_gym.authoring.sdk`) share these classes.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SiloError
from ..formats import display_path, read_json_file
from ..jsonfmt import dumps_pretty_bytes, is_json_compatible
from ..loader import TASK_ID_CUTOFF, available_text, find_environment, parse_task, read_manifest
from ..models import Task
from ..names import check_safe_name
from ..registration import gym_id_problem
from ..suggest import did_you_mean

__all__ = [
    "DataStore",
    "EnvironmentRef",
    "TaskStore",
    "atomic_write",
    "check_writable",
    "resolve_environment",
]

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class EnvironmentRef:
    """A resolved environment: the ``name`` as given, its directory, whether it was found through
    the shipped step (then it is read-only) and the project root used for displayed paths."""

    name: str
    path: Path
    shipped: bool
    project_root: Path | None = None


def resolve_environment(name: str, cwd: str | os.PathLike[str] | None = None) -> EnvironmentRef:
    """Resolve an environment name (silo-format §2.2) without importing its code.

    Raises:
        SiloError: ``unsafe_name`` or ``environment_not_found``.
    """
    location = find_environment(name, cwd)
    return EnvironmentRef(name, location.path, location.shipped, Path(cwd) if cwd is not None else None)


def check_writable(env: EnvironmentRef) -> None:
    """Refuse an environment shipped with the package (silo-format §10.1).

    Raises:
        SiloError: ``environment_read_only`` with details ``{environment}``.
    """
    if not env.shipped:
        return
    template = "crm"
    with contextlib.suppress(Exception):
        manifest, _ = read_manifest(env.path, env.project_root)
        if manifest.template:
            template = manifest.template
    raise SiloError(
        "environment_read_only",
        f'Environment "{env.name}" is shipped with silo_gym and cannot be edited; '
        f'copy it with "silo-gym init <new-name> --template {template}".',
        {"environment": env.name},
    )


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file named ``.<name>.<random>.tmp`` in the
    same directory, flushed to disk, then renamed over ``path`` with ``os.replace``. The temporary
    file is removed on any failure."""
    suffix = "".join(secrets.choice(_ALPHABET) for _ in range(8))
    temp = path.parent / f".{path.name}.{suffix}.tmp"
    try:
        with open(temp, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _remove_gitkeep(directory: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (directory / ".gitkeep").unlink()


def _json_bytes(value: Any, path: Path, project_root: Path | None) -> bytes:
    if not is_json_compatible(value):
        shown = display_path(path, project_root)
        raise SiloError("invalid_json", f"{shown} is not valid JSON.", {"path": shown})
    return dumps_pretty_bytes(value)


class DataStore:
    """Datasets: ``data/<name>.json``, any JSON value (silo-format §12.2).

    Write methods return the file's POSIX path relative to the environment directory.
    """

    def __init__(self, env: EnvironmentRef) -> None:
        self.env = env

    @property
    def directory(self) -> Path:
        return self.env.path / "data"

    def _file(self, name: str) -> tuple[Path, str]:
        check_safe_name(name, "dataset")
        return self.directory / f"{name}.json", f"data/{name}.json"

    def _not_found(self, name: str) -> SiloError:
        return SiloError(
            "data_not_found",
            f'Dataset "{name}" was not found in environment "{self.env.name}".',
            {"environment": self.env.name, "name": name},
        )

    def list(self) -> list[dict[str, Any]]:
        """The datasets, sorted by file: ``[{"name", "file", "bytes"}]``."""
        try:
            names = sorted(os.listdir(self.directory))
        except OSError:
            return []
        entries: list[dict[str, Any]] = []
        for file_name in names:
            path = self.directory / file_name
            if not file_name.endswith(".json") or file_name.startswith(".") or not path.is_file():
                continue
            entries.append({"name": file_name[: -len(".json")], "file": f"data/{file_name}",
                            "bytes": path.stat().st_size})
        return entries

    def get(self, name: str) -> Any:
        """The parsed dataset.

        Raises:
            SiloError: ``unsafe_name``, ``data_not_found``, ``invalid_json``.
        """
        path, _ = self._file(name)
        if not path.is_file():
            raise self._not_found(name)
        return read_json_file(path, self.env.project_root)

    def _write(self, name: str, value: Any, mode: str) -> str:
        path, rel = self._file(name)
        check_writable(self.env)
        exists = path.is_file()
        if mode == "add" and exists:
            raise SiloError(
                "data_already_exists",
                f'Dataset "{name}" already exists in environment "{self.env.name}" ({rel}).',
                {"environment": self.env.name, "name": name, "file": rel},
            )
        if mode == "update" and not exists:
            raise self._not_found(name)
        data = _json_bytes(value, path, self.env.project_root)
        self.directory.mkdir(exist_ok=True)
        atomic_write(path, data)
        _remove_gitkeep(self.directory)
        return rel

    def add(self, name: str, value: Any) -> str:
        """Create a dataset; ``data_already_exists`` when it exists."""
        return self._write(name, value, "add")

    def update(self, name: str, value: Any) -> str:
        """Replace a dataset; ``data_not_found`` when it does not exist."""
        return self._write(name, value, "update")

    def put(self, name: str, value: Any) -> str:
        """Create or replace a dataset."""
        return self._write(name, value, "put")

    def remove(self, name: str) -> str:
        """Delete a dataset; ``data_not_found`` when it does not exist."""
        path, rel = self._file(name)
        check_writable(self.env)
        if not path.is_file():
            raise self._not_found(name)
        path.unlink()
        return rel


def _task_raw(task: Any) -> Any:
    if isinstance(task, Task):
        return task.to_json()
    if isinstance(task, Mapping):
        return dict(task)
    return task


class TaskStore:
    """Tasks: one ``tasks/*.json`` file each (silo-format §12.3).

    Tasks are checked with the rules of silo-format §2.5 before anything is written, and files
    hold the task's JSON form (§2.6). Write methods return the file's POSIX path relative to the
    environment directory (``tasks/<file>``).
    """

    def __init__(self, env: EnvironmentRef) -> None:
        self.env = env

    @property
    def directory(self) -> Path:
        return self.env.path / "tasks"

    def _scan(self) -> list[tuple[str, Task]]:
        """Every task file as ``(file name, task)`` in file-name order (silo-format §2.5 rules)."""
        try:
            names = sorted(
                n for n in os.listdir(self.directory) if n.endswith(".json") and (self.directory / n).is_file()
            )
        except OSError:
            return []
        found: list[tuple[str, Task]] = []
        seen: dict[str, str] = {}
        for file_name in names:
            raw = read_json_file(self.directory / file_name, self.env.project_root)
            task = parse_task(raw, self.env.name, file_name)
            if task.id in seen:
                raise SiloError(
                    "task_invalid",
                    f'Task id "{task.id}" is declared twice in environment "{self.env.name}": '
                    f"{seen[task.id]} and {file_name}.",
                    {"environment": self.env.name, "id": task.id, "files": [seen[task.id], file_name]},
                )
            seen[task.id] = file_name
            found.append((file_name, task))
        return found

    def _find(self, task_id: str) -> tuple[str, Task] | None:
        for file_name, task in self._scan():
            if task.id == task_id:
                return file_name, task
        return None

    def _not_found(self, task_id: str) -> SiloError:
        available = sorted(task.id for _, task in self._scan())
        return SiloError(
            "task_not_found",
            f'Task "{task_id}" was not found in environment "{self.env.name}".'
            f'{did_you_mean(task_id, available, TASK_ID_CUTOFF)} {available_text(available)}',
            {"environment": self.env.name, "taskId": task_id, "available": available},
        )

    def list(self) -> list[Task]:
        """The tasks from ``tasks/*.json``, sorted by id."""
        return sorted((task for _, task in self._scan()), key=lambda t: t.id)

    def get(self, task_id: str) -> Task:
        """The task with this id.

        Raises:
            SiloError: ``unsafe_name`` (kind ``task``), ``task_not_found``.
        """
        check_safe_name(task_id, "task")
        hit = self._find(task_id)
        if hit is None:
            raise self._not_found(task_id)
        return hit[1]

    def file_of(self, task_id: str) -> str:
        """The relative path of the file that declares ``task_id`` (``task_not_found`` if none)."""
        check_safe_name(task_id, "task")
        hit = self._find(task_id)
        if hit is None:
            raise self._not_found(task_id)
        return f"tasks/{hit[0]}"

    def _check(self, task: Any) -> Task:
        """Check a task against silo-format §2.5 (steps 2-4) as it would be written."""
        raw = _task_raw(task)
        raw_id = raw.get("id") if isinstance(raw, dict) else None
        file_name = f"{raw_id if isinstance(raw_id, str) else ''}.json"
        return parse_task(raw, self.env.name, file_name)

    def _write(self, task: Any, mode: str) -> str:
        check_writable(self.env)
        parsed = self._check(task)
        problem = gym_id_problem(self.env.name, parsed.id)
        if problem is not None:  # registration would skip the whole environment
            raise SiloError(
                "task_invalid",
                f'Task id "{parsed.id}" cannot be used: {problem} Choose an id that does not end in "-v<digits>".',
                {"environment": self.env.name, "file": f"{parsed.id}.json", "field": "id"},
            )
        hit = self._find(parsed.id)
        if mode == "add" and hit is not None:
            raise SiloError(
                "task_already_exists",
                f'Task "{parsed.id}" already exists in environment "{self.env.name}" ({hit[0]}).',
                {"environment": self.env.name, "id": parsed.id, "file": hit[0]},
            )
        if mode == "update" and hit is None:
            raise self._not_found(parsed.id)
        if hit is not None:
            file_name = hit[0]
        else:
            file_name = f"{parsed.id}.json"
            path = self.directory / file_name
            if path.exists():  # our rule: never overwrite a file that holds another task
                other = path.is_file() and read_json_file(path, self.env.project_root)
                other_id = other.get("id") if isinstance(other, dict) else None
                raise SiloError(
                    "task_invalid",
                    f'Task file "{file_name}" in environment "{self.env.name}" already holds task "{other_id}".',
                    {"environment": self.env.name, "file": file_name, "field": "id"},
                )
        path = self.directory / file_name
        data = dumps_pretty_bytes(parsed.to_json())
        self.directory.mkdir(exist_ok=True)
        atomic_write(path, data)
        _remove_gitkeep(self.directory)
        return f"tasks/{file_name}"

    def add(self, task: Any) -> str:
        """Write a new task to ``tasks/<id>.json``; ``task_already_exists`` when the id is declared."""
        return self._write(task, "add")

    def update(self, task: Any) -> str:
        """Rewrite the file that declares the task's id; ``task_not_found`` when none does."""
        return self._write(task, "update")

    def put(self, task: Any) -> str:
        """Add or update."""
        return self._write(task, "put")

    def remove(self, task_id: str) -> str:
        """Delete the file that declares ``task_id``; ``task_not_found`` when none does."""
        check_safe_name(task_id, "task")
        check_writable(self.env)
        hit = self._find(task_id)
        if hit is None:
            raise self._not_found(task_id)
        (self.directory / hit[0]).unlink()
        return f"tasks/{hit[0]}"
