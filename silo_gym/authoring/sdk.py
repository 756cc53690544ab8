"""The project API (silo-format §12.6): the command line's authoring features, from Python.

    silo = Silo.open("path/to/project")
    env = silo.environments.create("shop")
    env.data.add("orders", [{"id": "O-1", "status": "pending"}])   # -> "data/orders.json"
    env.validate().ok                                               # -> True

``Silo.open(cwd)`` captures the project directory; nothing later reads the process's current
directory. The stores are the ones the command line uses, so both can work on one project.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import SiloError
from ..loader import list_environments, open_environment
from ..models import ValidationReport
from ..tools import tool_list
from .scaffold import init_environment, scaffold_tool, scaffold_verifier
from .store import DataStore, EnvironmentRef, TaskStore, resolve_environment
from .validate import validate

__all__ = ["Environments", "Silo", "SiloEnvironment", "ToolsApi", "VerifiersApi"]


class ToolsApi:
    """``env.tools``: list the bound tools, scaffold a new one."""

    def __init__(self, env: EnvironmentRef) -> None:
        self._env = env

    def list(self) -> list[dict[str, Any]]:
        """Open the environment fresh and return ``bind_tools(create_state())`` as
        ``[{"name", "description", "inputSchema"}]``."""
        opened = open_environment(self._env.name, self._env.project_root, fresh=True)
        return tool_list(opened.module.bind_tools(opened.create_state()))

    def scaffold(self, name: str, description: str | None = None, state_type: str | None = None) -> str:
        """Write a tool stub and register it (silo-format §12.5); returns the module's relative path."""
        return scaffold_tool(self._env, name, description, state_type).created


class VerifiersApi:
    """``env.verifiers``: list the registered verifiers, scaffold a new one."""

    def __init__(self, env: EnvironmentRef) -> None:
        self._env = env

    def list(self) -> list[dict[str, Any]]:
        """The ``verifiers`` export as ``[{"id", "taskId", "name"}]`` (the code is imported fresh)."""
        opened = open_environment(self._env.name, self._env.project_root, fresh=True)
        return [
            {"id": getattr(v, "id", None), "taskId": getattr(v, "task_id", None), "name": getattr(v, "name", None)}
            for v in opened.module.verifiers
        ]

    def scaffold(self, id: str, task_id: str, name: str | None = None, state_type: str | None = None) -> str:
        """Write a failing verifier stub and register it; returns the module's relative path."""
        return scaffold_verifier(self._env, id, task_id, name, state_type).created


class SiloEnvironment:
    """One environment of a project: ``name``, ``cwd``, ``data``, ``tasks``, ``tools``,
    ``verifiers`` and ``validate()`` (silo-format §12.6)."""

    def __init__(self, ref: EnvironmentRef) -> None:
        self._ref = ref
        self.name = ref.name
        self.cwd = ref.project_root
        self.path = ref.path
        self.data = DataStore(ref)
        self.tasks = TaskStore(ref)
        self.tools = ToolsApi(ref)
        self.verifiers = VerifiersApi(ref)

    @property
    def read_only(self) -> bool:
        """True for an environment shipped with the package (writes raise ``environment_read_only``)."""
        return self._ref.shipped

    def validate(self) -> ValidationReport:
        """The validation report of silo-format §9."""
        return validate(self.name, self.cwd)

    def __repr__(self) -> str:
        return f"SiloEnvironment({self.name!r}, path={str(self.path)!r})"


class Environments:
    """``silo.environments``: list, create and open environments."""

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd

    def list(self) -> list[str]:
        """The known environment names, lower-cased and sorted (silo-format §2.2)."""
        return list_environments(self._cwd)

    def create(self, name: str, template: str = "blank", tools: Iterable[str] = ()) -> SiloEnvironment:
        """Scaffold ``.silo/environments/<name>`` (silo-format §12.4) and open it."""
        init_environment(name, template, tools, self._cwd)
        return self.open(name)

    def open(self, name: str) -> SiloEnvironment:
        """Resolve an environment (``unsafe_name``, ``environment_not_found``); imports no code."""
        return SiloEnvironment(resolve_environment(name, self._cwd))


class Silo:
    """A Silo project rooted at ``cwd`` (silo-format §12.6)."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.environments = Environments(cwd)

    @classmethod
    def open(cls, cwd: str | os.PathLike[str] | None = None) -> Silo:
        """Open the project in ``cwd`` (default: the current directory, captured now).

        Raises:
            SiloError: ``environment_not_found`` with ``Project directory "<cwd>" was not found.``
                (details ``{cwd}``) when ``cwd`` is not an existing directory.
        """
        if cwd is None:
            return cls(Path(os.getcwd()))
        if not Path(cwd).is_dir():
            shown = os.fspath(cwd)
            raise SiloError("environment_not_found", f'Project directory "{shown}" was not found.', {"cwd": shown})
        return cls(Path(os.path.abspath(cwd)))

    def environment(self, name: str) -> SiloEnvironment:
        """Short for ``silo.environments.open(name)``."""
        return self.environments.open(name)

    def __repr__(self) -> str:
        return f"Silo({str(self.cwd)!r})"
