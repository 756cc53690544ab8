"""Finding and opening environments, reading manifests, discovering tasks (silo-format §2).

Search order for known environments (gym-api.md, "Ids and registration"): each ``SILO_GYM_PATH``
entry (a directory *of* environments), then ``<cwd>/.silo/environments``, then the environments
shipped with the package. The first match by lower-cased name wins.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import itertools
import json
import os
import re
import sys
import threading
import weakref
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .errors import SiloError
from .formats import check_task, display_path, invalid_json, read_json_file
from .names import check_safe_name, is_safe_name
from .suggest import did_you_mean

if TYPE_CHECKING:  # pydantic is imported on first use, so `import silo_gym` stays fast
    from .models import Manifest, Task

__all__ = [
    "Environment",
    "accepts_variant",
    "EnvironmentLocation",
    "available_text",
    "discover_tasks",
    "environment_roots",
    "find_environment",
    "list_environments",
    "list_locations",
    "open_environment",
    "open_environment_at",
    "read_manifest",
    "shipped_environments_dir",
]

MANIFEST_FILE = "silo.environment.json"


def shipped_environments_dir() -> Path:
    """The environments shipped with the package: ``silo_gym/environments`` in a wheel, or the
    repository's top-level ``environments/`` in an editable install."""
    inside = Path(__file__).resolve().parent / "environments"
    if inside.is_dir():
        return inside
    return Path(__file__).resolve().parent.parent / "environments"


@dataclass(frozen=True)
class EnvironmentLocation:
    """Where an environment lives: its lower-cased ``name``, its directory, and whether it was
    found through the shipped step of the search order (then it is read-only, silo-format §10.1)."""

    name: str
    path: Path
    shipped: bool


try:
    #: Relative ``SILO_GYM_PATH`` entries are resolved against the cwd at import (gym-api.md).
    _IMPORT_CWD: Path | None = Path.cwd()
except OSError:  # the cwd was deleted: fall back to the cwd of each call
    _IMPORT_CWD = None


def environment_roots(cwd: str | os.PathLike[str] | None = None) -> list[tuple[Path, bool]]:
    """The directories of environments, in search order, as ``(directory, shipped)`` pairs.

    ``cwd`` is the project root (``<cwd>/.silo/environments``); relative ``SILO_GYM_PATH``
    entries are resolved against the process's cwd when silo_gym was imported.
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    entry_base = _IMPORT_CWD if _IMPORT_CWD is not None else Path.cwd()
    roots: list[tuple[Path, bool]] = []
    for entry in os.environ.get("SILO_GYM_PATH", "").split(os.pathsep):
        if entry:
            p = Path(entry)
            roots.append(((p if p.is_absolute() else entry_base / p), False))
    roots.append((base / ".silo" / "environments", False))
    roots.append((shipped_environments_dir(), True))
    return roots


def list_locations(cwd: str | os.PathLike[str] | None = None) -> list[EnvironmentLocation]:
    """Every known environment, first match by lower-cased name, sorted by name (code point)."""
    found: dict[str, EnvironmentLocation] = {}
    for root, shipped in environment_roots(cwd):
        try:
            children = sorted(os.listdir(root))
        except OSError:
            continue
        if not shipped and "silo.environment.json" in children:
            continue  # one environment listed as a directory of them: its folders are not environments
        for child in children:
            if child.startswith(".") or not is_safe_name(child):
                continue
            path = root / child
            if not path.is_dir():
                continue
            key = child.lower()
            if key not in found:
                found[key] = EnvironmentLocation(key, path.resolve(), shipped)
    return [found[k] for k in sorted(found)]


def list_environments(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """The known environment names, lower-cased, each once, sorted (silo-format §2.2)."""
    return [loc.name for loc in list_locations(cwd)]


def find_environment(name: str, cwd: str | os.PathLike[str] | None = None) -> EnvironmentLocation:
    """Resolve an environment name (silo-format §2.2).

    Raises:
        SiloError: ``unsafe_name`` for a name that is not safe (checked before any file access);
            ``environment_not_found`` with details ``{environment, available}``.
    """
    check_safe_name(name, "environment")
    locations = list_locations(cwd)
    for loc in locations:
        if loc.name == name.lower():
            return loc
    available = [loc.name for loc in locations]
    if available:
        message = f'Environment "{name}" was not found.{did_you_mean(name, available)} Available: {", ".join(available)}.'
    else:
        message = f'Environment "{name}" was not found. Create it with "silo-gym init {name}".'
    raise SiloError("environment_not_found", message, {"environment": name, "available": available})


def _data_file_error(env_dir: Path, failed: ValueError) -> SiloError | None:
    """The ``invalid_json`` error of the ``data/*.json`` file behind ``failed``, a parser's error
    raised by environment code: the file whose text is the error's ``doc`` (json and orjson keep
    it), with the error's own line and column; else the first file, in file-name order, that does
    not parse strictly; ``None`` when every file parses."""
    data_dir = env_dir / "data"
    try:
        paths = [data_dir / n for n in sorted(os.listdir(data_dir)) if n.endswith(".json")]
    except OSError:
        return None
    doc = getattr(failed, "doc", None)
    if isinstance(doc, str):
        for path in paths:
            try:
                if path.read_bytes().decode("utf-8", "replace") == doc:
                    return invalid_json(display_path(path), failed)
            except OSError:
                continue
    for path in paths:
        try:
            read_json_file(path)
        except SiloError as exc:
            return exc
        except OSError:
            continue
    return None


def read_manifest(
    env_dir: Path, project_root: str | os.PathLike[str] | None = None
) -> tuple[Manifest, bool]:
    """Read ``silo.environment.json`` with silo-format §2.3 defaults; returns (manifest, present).

    Raises:
        SiloError: ``invalid_json`` when the file does not parse.
    """
    from .models import Manifest

    raw, present = read_manifest_raw(env_dir, project_root)
    return Manifest.from_raw(raw, env_dir.name), present


def read_manifest_raw(env_dir: Path, project_root: str | os.PathLike[str] | None = None) -> tuple[Any, bool]:
    """The parsed manifest file (any JSON value; ``None`` when absent) and whether it exists.

    Raises:
        SiloError: ``invalid_json`` when the file does not parse.
    """
    path = env_dir / MANIFEST_FILE
    if not path.is_file():
        return None, False
    return read_json_file(path, project_root), True


def discover_tasks(
    env_name: str, env_dir: Path, project_root: str | os.PathLike[str] | None = None
) -> list[Task]:
    """Discover ``tasks/*.json`` by silo-format §2.5, sorted by id.

    Raises:
        SiloError: ``invalid_json`` or ``task_invalid`` (details as in the spec).
    """
    from .models import Task

    return [Task.from_file(raw, env_name, file_name) for file_name, raw in _task_files(env_name, env_dir, project_root)]


def scan_tasks(
    env_name: str, env_dir: Path, project_root: str | os.PathLike[str] | None = None
) -> list[dict[str, Any]]:
    """:func:`discover_tasks` without building ``Task`` objects: the checked task-file objects,
    sorted by id (registration needs only the ids, and this keeps pydantic out of the import).

    Raises:
        SiloError: ``invalid_json`` or ``task_invalid``.
    """
    return [raw for _, raw in _task_files(env_name, env_dir, project_root)]


def _task_files(
    env_name: str, env_dir: Path, project_root: str | os.PathLike[str] | None
) -> list[tuple[str, dict[str, Any]]]:
    """``(file name, checked task-file object)`` of every task file, sorted by id (§2.5)."""
    tasks_dir = env_dir / "tasks"
    try:
        names = sorted(n for n in os.listdir(tasks_dir) if n.endswith(".json") and (tasks_dir / n).is_file())
    except OSError:
        return []
    tasks = [(file_name, check_task(read_json_file(tasks_dir / file_name, project_root), env_name, file_name))
             for file_name in names]
    # Duplicates are step 4: only after every file passed step 3.
    seen: dict[str, str] = {}
    for file_name, task in tasks:
        tid = task["id"]
        if tid in seen:
            raise SiloError(
                "task_invalid",
                f'Task id "{tid}" is declared twice in environment "{env_name}": {seen[tid]} and {file_name}.',
                {"environment": env_name, "id": tid, "files": [seen[tid], file_name]},
            )
        seen[tid] = file_name
    tasks.sort(key=lambda pair: pair[1]["id"])
    return tasks


def parse_task(raw: Any, env_name: str, file_name: str) -> Task:
    """Check one parsed task file by silo-format §2.5 steps 2–4 and build the task (§2.6).

    Raises:
        SiloError: ``task_invalid``.
    """
    from .models import Task

    return Task.from_file(raw, env_name, file_name)


@dataclass(frozen=True)
class Environment:
    """An opened environment (silo-format §2.4 step 7)."""

    name: str
    path: Path
    manifest: Manifest
    manifest_present: bool
    entrypoint: Path
    module: ModuleType
    tasks: tuple[Task, ...]
    shipped: bool = False

    def task(self, task_id: str) -> Task:
        """The task with this id. Raises ``task_not_found`` (silo-format §5.1)."""
        if not self.tasks:
            raise SiloError(
                "task_not_found",
                f'No tasks found in environment "{self.name}". Add a task before running.',
                {"environment": self.name, "taskId": task_id},
            )
        for t in self.tasks:
            if t.id == task_id:
                return t
        available = [t.id for t in self.tasks]
        raise SiloError(
            "task_not_found",
            f'Task "{task_id}" was not found in {self.name}.{did_you_mean(task_id, available, TASK_ID_CUTOFF)} '
            f'{available_text(available)}',
            {"environment": self.name, "taskId": task_id, "available": available},
        )

    @property
    def verifiers(self) -> list[Any]:
        return list(self.module.verifiers)

    def create_state(self, variant: int | None = None) -> Any:
        """A fresh world: the entrypoint's ``create_state()``, or ``create_state(variant=variant)``
        for a variant of the world (docs/variants.md).

        Raises:
            SiloError: ``invalid_json`` naming the file, line and column when ``create_state()``
                raised a JSON parser's error (``json.JSONDecodeError``, which orjson's is too, or
                ``UnicodeDecodeError``) and a ``data/*.json`` file is the one that does not parse;
                the original exception is chained as the cause.
            Exception: whatever ``create_state()`` raised otherwise.
        """
        try:
            if variant is None:
                return self.module.create_state()
            return self.module.create_state(variant=variant)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            problem = _data_file_error(self.path, exc)
            if problem is None:
                raise
            raise problem from exc


def accepts_variant(create_state: Any) -> bool:
    """True when ``create_state`` has a parameter named ``variant`` (docs/variants.md)."""
    try:
        return "variant" in inspect.signature(create_state).parameters
    except (TypeError, ValueError):  # a callable whose signature cannot be read
        return False


#: How alike a task id must be to one that exists to be suggested ("TASK-01" for "TASK-001", not
#: "TASK-002"): task ids differ in a digit by design.
TASK_ID_CUTOFF = 0.9


def available_text(ids: list[str], limit: int = 20) -> str:
    """``Available: a, b.`` for a ``task_not_found`` message (at most ``limit`` ids, then how many
    more), or ``It has no tasks.``"""
    if not ids:
        return "It has no tasks."
    shown = ", ".join(ids[:limit])
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"Available: {shown}{more}."


_cache: dict[str, ModuleType] = {}
_cache_lock = threading.Lock()
_load_counter = itertools.count(1)
_PRIVATE_PACKAGE = re.compile(r"\b_silo_env_\w*_\d+\.?")


def resolve_entrypoint(env_name: str, env_dir: Path, entrypoint: str) -> Path:
    """Join and lexically normalise the entrypoint; refuse one outside the directory (§2.4 step 3)."""
    base = os.path.abspath(env_dir)
    joined = os.path.normpath(os.path.join(base, entrypoint))
    try:
        rel = os.path.relpath(joined, base)
    except ValueError:  # another drive
        rel = ".."
    if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        raise SiloError(
            "entrypoint_outside_environment",
            f'Entrypoint "{entrypoint}" of environment "{env_name}" is outside the environment directory.',
            {"environment": env_name, "entrypoint": entrypoint},
        )
    return Path(joined)


class _NoBytecodeWriteLoader(importlib.machinery.SourceFileLoader):
    """Loads environment code without writing ``__pycache__``: running an environment writes
    nothing into its directory (which may be inside site-packages). An existing ``.pyc``, such as
    one compiled at install, is still used."""

    def set_data(self, path: str, data: Any, *, _mode: int = 0o666) -> None:
        return None


class _SourceOnlyLoader(_NoBytecodeWriteLoader):
    """Compiles from the source file, never from ``__pycache__``, and writes no bytecode.

    A ``.pyc`` is trusted when the source's size and mtime in whole seconds match, so an edit of
    the same size within one second would otherwise load the old code into a fresh load.
    """

    def path_stats(self, path: str) -> Any:
        raise OSError("fresh environment loads compile from source")  # SourceLoader skips the .pyc


#: Private package name of each environment load -> the loader class of its modules.
_package_loaders: dict[str, type[importlib.machinery.SourceFileLoader]] = {}


#: Loads superseded by a later fresh load of the same entrypoint, by private package name: their
#: modules, held weakly, out of ``sys.modules`` (so loads do not pile up there, about 30 modules
#: each for a shipped world) but importable again by code of that load that imports lazily.
_evicted: dict[str, dict[str, weakref.ref[ModuleType]]] = {}
#: The entry module of each evicted load -> its package: a submodule entrypoint keeps its
#: package (and through it, its sibling modules) alive as long as it is itself in use.
_packages_of: weakref.WeakKeyDictionary[ModuleType, ModuleType] = weakref.WeakKeyDictionary()


def _forget(pkg_name: str) -> None:
    _evicted.pop(pkg_name, None)
    _package_loaders.pop(pkg_name, None)


def _evict(entry_module: ModuleType) -> None:
    """Take the modules of ``entry_module``'s load out of ``sys.modules`` (see :data:`_evicted`)."""
    pkg_name = entry_module.__name__.partition(".")[0]
    package = sys.modules.get(pkg_name)
    if package is None or pkg_name in _evicted:
        return
    names = [k for k in list(sys.modules) if k == pkg_name or k.startswith(pkg_name + ".")]
    _evicted[pkg_name] = {name: weakref.ref(sys.modules[name]) for name in names}
    if entry_module is not package:
        _packages_of[entry_module] = package
    weakref.finalize(package, _forget, pkg_name)
    for name in names:
        sys.modules.pop(name, None)


class _RestoreLoader(importlib.abc.Loader):
    """Hands back an evicted load's package as it is (nothing runs again) and puts its modules
    back into ``sys.modules``, for a lazy ``from .x import y`` inside that load's code."""

    def __init__(self, pkg_name: str) -> None:
        self.pkg_name = pkg_name
        self.original: ModuleSpec | None = None

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        refs = _evicted.pop(self.pkg_name, {})
        package = refs[self.pkg_name]() if self.pkg_name in refs else None
        if package is None:
            raise ImportError(f"the environment load {self.pkg_name} is gone")
        self.original = getattr(package, "__spec__", None)
        for name, ref in refs.items():
            module = ref()
            if module is not None and name != self.pkg_name:
                sys.modules.setdefault(name, module)
        return package

    def exec_module(self, module: ModuleType) -> None:
        if self.original is not None:  # the import machinery set our spec on it: give its own back
            module.__spec__ = self.original


class _EnvironmentFinder(importlib.abc.MetaPathFinder):
    """Finds the submodules of an environment load like ``PathFinder`` does, with its loader
    class; and an evicted load's package again (:class:`_RestoreLoader`)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> ModuleSpec | None:
        if path is None and fullname in _evicted:
            package_ref = _evicted[fullname].get(fullname)
            package = package_ref() if package_ref is not None else None
            if package is None:
                return None
            restored = ModuleSpec(fullname, _RestoreLoader(fullname), is_package=True)
            restored.submodule_search_locations = list(getattr(package, "__path__", []))
            return restored
        loader_cls = _package_loaders.get(fullname.partition(".")[0]) if path is not None else None
        if loader_cls is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = loader_cls(spec.loader.name, spec.loader.path)
        return spec


_finder = _EnvironmentFinder()


def _import_package(env_dir: Path, entry: Path, fresh: bool = True) -> ModuleType:
    """Import the environment directory as a package under a fresh private name (§2.4 step 4).

    A ``fresh`` load compiles every module from source, so it sees edited code. No load writes
    bytecode into the environment directory.
    """
    safe = "".join(c if c.isalnum() else "_" for c in env_dir.name)
    pkg_name = f"_silo_env_{safe}_{next(_load_counter)}"
    init = env_dir / "__init__.py"
    loader_cls = _SourceOnlyLoader if fresh else _NoBytecodeWriteLoader
    _package_loaders[pkg_name] = loader_cls
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    if init.is_file():
        loader = loader_cls(pkg_name, str(init))
        spec = importlib.util.spec_from_file_location(pkg_name, init, loader=loader,
                                                      submodule_search_locations=[str(env_dir)])
    else:
        spec = ModuleSpec(pkg_name, None, is_package=True)
        spec.submodule_search_locations = [str(env_dir)]
    if spec is None:
        raise ImportError(f"cannot import {env_dir}")
    package = importlib.util.module_from_spec(spec)
    sys.modules[pkg_name] = package
    try:
        if spec.loader is not None:
            spec.loader.exec_module(package)
        rel = entry.relative_to(os.path.abspath(env_dir))
        if rel == Path("__init__.py"):
            if not init.is_file():
                raise FileNotFoundError(f"No such file: {entry}")
            return package
        if not entry.is_file():
            raise FileNotFoundError(f"No such file: {entry}")
        parts = list(rel.with_suffix("").parts) if rel.suffix == ".py" else list(rel.parts)
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        return importlib.import_module(".".join([pkg_name, *parts]))
    except BaseException:
        for key in [k for k in sys.modules if k == pkg_name or k.startswith(pkg_name + ".")]:
            del sys.modules[key]
        _package_loaders.pop(pkg_name, None)
        raise


def load_module(env_name: str, env_dir: Path, entry: Path, *, fresh: bool) -> ModuleType:
    """Import the entrypoint; cached per process by entrypoint path unless ``fresh`` (§2.4)."""
    key = str(entry)
    if not fresh:
        with _cache_lock:
            cached = _cache.get(key)
        if cached is not None:
            return cached
    try:
        module = _import_package(env_dir, entry, fresh)
    except Exception as exc:
        # Module names inside the environment are shown as the author wrote them, without the
        # private package name each load gets (`_silo_env_<name>_<n>.`).
        text = _PRIVATE_PACKAGE.sub(lambda m: "" if m.group().endswith(".") else "the environment's package",
                                    f"{type(exc).__name__}: {exc}")
        raise SiloError(
            "runtime_contract_invalid",
            f'Environment "{env_name}" could not be imported: {text}',
            {"environment": env_name, "entrypoint": str(entry)},
        ) from exc
    with _cache_lock:
        if fresh:
            previous = _cache.get(key)
            _cache[key] = module
            if previous is not None and previous is not module:
                _evict(previous)  # the superseded load leaves sys.modules
        else:
            cached = _cache.setdefault(key, module)
            if cached is not module:  # another thread's load won the race: ours is not kept
                _evict(module)
            module = cached
    return module


def check_contract(env_name: str, module: ModuleType) -> None:
    """The three exports of silo-format §2.4 step 5, in order."""
    problems = (
        ("create_state", callable(getattr(module, "create_state", None)),
         f'Environment "{env_name}" does not export create_state().'),
        ("bind_tools", callable(getattr(module, "bind_tools", None)),
         f'Environment "{env_name}" does not export bind_tools().'),
        ("verifiers", isinstance(getattr(module, "verifiers", None), (list, tuple)),
         f'Environment "{env_name}" does not export a verifiers list.'),
    )
    for missing, ok, message in problems:
        if not ok:
            raise SiloError("runtime_contract_invalid", message, {"environment": env_name, "missing": missing})


def _check_template_version(name: str, template_version: str) -> None:
    """Refuse a world whose manifest names a kit version this package cannot run (a value that
    is not ``MAJOR.MINOR.PATCH`` is only recorded, as silo-format §2.3 has it)."""
    from .kit.version import check_template_version, is_version

    if is_version(template_version):
        check_template_version(template_version, f'Environment "{name}"')


def open_environment_at(
    name: str,
    path: str | os.PathLike[str],
    *,
    fresh: bool = True,
    shipped: bool = False,
    project_root: str | os.PathLike[str] | None = None,
) -> Environment:
    """Open the environment in directory ``path`` under the name ``name`` (§2.4 steps 2–7)."""
    env_dir = Path(os.path.abspath(path))
    if not env_dir.is_dir():
        raise SiloError(
            "environment_not_found",
            f'Environment "{name}" was not found. Create it with "silo-gym init {name}".',
            {"environment": name, "available": []},
        )
    manifest, present = read_manifest(env_dir, project_root)
    if manifest.templateVersion is not None:
        _check_template_version(name, manifest.templateVersion)
    entry = resolve_entrypoint(name, env_dir, manifest.entrypoint)
    module = load_module(name, env_dir, entry, fresh=fresh)
    check_contract(name, module)
    tasks = discover_tasks(name, env_dir, project_root)
    return Environment(
        name=name,
        path=env_dir,
        manifest=manifest,
        manifest_present=present,
        entrypoint=entry,
        module=module,
        tasks=tuple(tasks),
        shipped=shipped,
    )


def open_environment(
    name: str, cwd: str | os.PathLike[str] | None = None, fresh: bool = True
) -> Environment:
    """Open an environment by name (silo-format §2.4).

    ``fresh=True`` imports its code under a new private module name (seeing edited code);
    ``fresh=False`` reuses the per-process cached module. Opening never calls ``create_state()``
    or ``bind_tools()``.

    Raises:
        SiloError: ``unsafe_name``, ``environment_not_found``, ``invalid_json``,
            ``entrypoint_outside_environment``, ``runtime_contract_invalid``, ``task_invalid``.
    """
    loc = find_environment(name, cwd)
    return open_environment_at(name, loc.path, fresh=fresh, shipped=loc.shipped, project_root=cwd)
