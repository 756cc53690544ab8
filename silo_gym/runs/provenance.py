"""What a run was made from: the package version and a hash of the environment's content.

``run.json`` and the trace's ``run_start`` carry both in ``config`` (``siloGymVersion``,
``environmentHash``), so ``silo-gym replay`` can refuse a run recorded against other data,
tasks or tool schemas (our rule, issue 15).
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..jsonfmt import canonical
from ..tools import tool_list
from ..version import __version__

if TYPE_CHECKING:
    from ..loader import Environment

__all__ = ["__version__", "environment_hash", "environment_hash_of"]

_tools_by_module: weakref.WeakKeyDictionary[ModuleType, list[dict[str, Any]]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def environment_hash_of(environment: Environment, tools: list[dict[str, Any]]) -> str:
    """``"sha256:<hex>"`` over the environment's top-level ``data/*.json`` files (their bytes, read
    now), its tasks (their JSON forms as loaded, silo-format §2.6) and ``tools`` (the tool list:
    name, description, inputSchema). Tool code is not hashed: replay catches a changed tool as a
    divergence.

    Raises:
        OSError: a data file cannot be read.
    """
    data_dir = environment.path / "data"
    data: dict[str, str] = {}
    if data_dir.is_dir():
        for file in sorted(p for p in data_dir.iterdir() if p.name.endswith(".json") and p.is_file()):
            data[file.name] = hashlib.sha256(file.read_bytes()).hexdigest()
    content = {"data": data, "tasks": [t.to_json() for t in environment.tasks], "tools": tools}
    return "sha256:" + hashlib.sha256(canonical(content)).hexdigest()


def environment_hash(environment: Environment) -> str:
    """The content hash of an opened environment (see :func:`environment_hash_of`).

    The tool list comes from ``bind_tools(create_state())`` of a throwaway canonical world, built
    once per loaded module; the data and task files are read on every call, so callers that hash
    often (an env at every recorded reset) keep the value.
    """
    module = environment.module
    with _lock:
        tools = _tools_by_module.get(module)
    if tools is None:
        tools = tool_list(module.bind_tools(environment.create_state()))
        with _lock:
            _tools_by_module[module] = tools
    return environment_hash_of(environment, tools)
