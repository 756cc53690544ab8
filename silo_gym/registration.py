"""Environments and tasks -> Gymnasium ids (gym-api.md, "Ids and registration").

Every task is registered as ``silo/<environment>-<TASK id>`` and every environment with tasks as
``silo/<environment>``. Registration reads only manifests and ``tasks/*.json``: it imports no
environment code. Specs are inserted in O(1) each (Gymnasium's own ``register`` scans the whole
registry per call, which is quadratic for many ids).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from gymnasium.envs.registration import ENV_ID_RE, EnvSpec, registry

from .errors import SiloError, SiloRegistrationWarning
from .loader import environment_roots, list_locations, read_manifest_raw, scan_tasks
from .names import check_safe_name, is_safe_name

__all__ = ["NAMESPACE", "environment_ids", "register_all", "register_environment", "registered_environments"]

NAMESPACE = "silo"
ENTRY_POINT = "silo_gym.env:SiloEnv"
VECTOR_ENTRY_POINT = "silo_gym.vector:make_vector_env"

#: lower-cased environment name -> (directory, registered ids)
_registered: dict[str, tuple[Path, list[str]]] = {}


def registered_environments() -> dict[str, tuple[Path, list[str]]]:
    """A copy of what this process registered: name -> (directory, ids)."""
    return {k: (p, list(ids)) for k, (p, ids) in _registered.items()}


def _check_id(env_id: str) -> None:
    match = ENV_ID_RE.fullmatch(env_id)
    if match is None or match.group("version") is not None or match.group("namespace") != NAMESPACE:
        if match is not None and match.group("version") is not None:
            reason = f'it ends in "-v{match.group("version")}", which Gymnasium reads as a version'
        else:
            reason = "it is not a valid Gymnasium id"
        raise SiloError("task_invalid", f'Cannot register "{env_id}": {reason}.', {"id": env_id})


def gym_id_problem(environment: str, task_id: str | None = None) -> str | None:
    """Why ``silo/<environment>`` (or ``silo/<environment>-<task_id>``) cannot be registered with
    Gymnasium, or ``None``: a name that Gymnasium reads as a version (``-v<digits>`` at the end)
    or that its id grammar refuses would make registration skip the whole environment."""
    env_id = f"{NAMESPACE}/{environment.lower()}" + (f"-{task_id}" if task_id is not None else "")
    try:
        _check_id(env_id)
    except SiloError as exc:
        return exc.message
    return None


def environment_ids(name: str, env_dir: Path) -> tuple[list[str], list[tuple[str, str | None]]]:
    """The ids an environment directory registers, checked; raises ``SiloError`` on any problem.

    Returns ``(ids, [(id, task_id or None), ...])``.
    """
    check_safe_name(name, "environment")
    read_manifest_raw(env_dir)  # invalid_json surfaces here
    tasks = scan_tasks(name, env_dir)
    if not tasks:
        return [], []
    pairs: list[tuple[str, str | None]] = [(f"{NAMESPACE}/{name}", None)]
    pairs += [(f"{NAMESPACE}/{name}-{t['id']}", t["id"]) for t in tasks]
    for env_id, _ in pairs:
        _check_id(env_id)
    return [p[0] for p in pairs], pairs


def _versioned_names() -> set[tuple[str | None, str]]:
    return {(s.namespace, s.name) for s in registry.values() if s.version is not None}


def _insert(name: str, env_dir: Path, pairs: list[tuple[str, str | None]],
            versioned: set[tuple[str | None, str]], replaces: frozenset[str] = frozenset()) -> None:
    """Register every pair, or none: all ids are checked before the first is inserted.

    An id that is already registered (by another environment, or outside silo_gym) is a clash,
    unless it is in ``replaces`` (this environment's own ids, re-registered with ``override``).
    """
    specs = []
    for env_id, task_id in pairs:
        spec = EnvSpec(
            id=env_id,
            entry_point=ENTRY_POINT,
            vector_entry_point=VECTOR_ENTRY_POINT,
            kwargs={"environment": name, "task_id": task_id, "path": str(env_dir)},
            # SiloEnv enforces reset-before-step itself (ResetNeeded with the spec's messages) and
            # passes check_env for every id (tested), so gym.make adds no wrapper to each step;
            # gym.make(id, disable_env_checker=False) still applies Gymnasium's passive checker.
            order_enforce=False,
            disable_env_checker=True,
        )
        if (spec.namespace, spec.name) in versioned:
            raise SiloError("task_invalid", f'Cannot register "{env_id}": a versioned id of that name exists.',
                            {"id": env_id})
        if env_id in registry and env_id not in replaces:
            owner = registry[env_id].kwargs.get("path", registry[env_id].entry_point)
            raise SiloError("task_invalid", f'Cannot register "{env_id}": that id is already registered ({owner}).',
                            {"id": env_id})
        specs.append(spec)
    for spec in specs:
        registry[spec.id] = spec


def _unregister(name: str) -> None:
    old = _registered.pop(name, None)
    if old is not None:
        for env_id in old[1]:
            registry.pop(env_id, None)


def register_all(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """Register every known environment (gym-api.md search order); never raises for disk content.

    A broken environment is skipped with one ``SiloRegistrationWarning`` naming its path and why.
    Returns the ids registered by this call.
    """
    versioned = _versioned_names()
    added: list[str] = []
    for root, shipped in environment_roots(cwd):
        # A directory whose name is not safe is never an environment; say so (hidden ones and
        # Python's own directories such as __pycache__ stay quiet).
        try:
            children = sorted(os.listdir(root))
        except OSError:
            continue
        if not shipped and "silo.environment.json" in children:
            # The usual slip: SILO_GYM_PATH (or .silo/environments) naming one environment
            # instead of the directory that holds it; its data/, tasks/... would be read as
            # environments and nothing would be registered, silently.
            warnings.warn(f"{root} is an environment directory, but it is listed where directories OF "
                          f"environments go (SILO_GYM_PATH, .silo/environments); list its parent, "
                          f"{root.parent}, instead.", SiloRegistrationWarning, stacklevel=2)
            continue
        for child in children:
            if child.startswith((".", "__")) or is_safe_name(child) or not (root / child).is_dir():
                continue
            try:
                check_safe_name(child, "environment")
            except SiloError as exc:
                warnings.warn(f"silo_gym skipped the environment at {root / child}: {exc}",
                              SiloRegistrationWarning, stacklevel=2)
    for loc in list_locations(cwd):
        if loc.name in _registered:
            continue
        try:
            ids, pairs = environment_ids(loc.name, loc.path)
        except (SiloError, OSError) as exc:
            warnings.warn(f"silo_gym skipped the environment at {loc.path}: {exc}", SiloRegistrationWarning,
                          stacklevel=2)
            continue
        if not ids:
            continue
        try:
            _insert(loc.name, loc.path, pairs, versioned)
        except SiloError as exc:
            warnings.warn(f"silo_gym skipped the environment at {loc.path}: {exc}", SiloRegistrationWarning,
                          stacklevel=2)
            continue
        _registered[loc.name] = (loc.path, ids)
        added += ids
    return added


def register_environment(path: str | os.PathLike[str], *, override: bool = False) -> list[str]:
    """Register one environment directory at run time; returns the ids it registered.

    The environment's name is its lower-cased directory name. An environment with no tasks
    registers nothing.

    Raises:
        SiloError: ``environment_not_found`` when ``path`` is not a directory; ``unsafe_name``,
            ``invalid_json``, ``task_invalid`` as in silo-format §2.3/§2.5;
            ``environment_already_exists`` on a name clash unless ``override=True``.
    """
    if not os.fspath(path):
        raise SiloError("environment_not_found", "register_environment() needs an environment directory; got an empty path.",
                        {"environment": "", "available": []})
    env_dir = Path(os.path.abspath(path))
    if not env_dir.is_dir():
        raise SiloError("environment_not_found", f'Environment directory "{path}" was not found.',
                        {"environment": str(path), "available": []})
    name = env_dir.name.lower()
    ids, pairs = environment_ids(name, env_dir)
    if name in _registered and not override:
        existing = _registered[name][0]
        raise SiloError(
            "environment_already_exists",
            f'Environment "{name}" already exists (as "{existing}").',
            {"environment": name, "existing": str(existing)},
        )
    own = frozenset(_registered[name][1]) if name in _registered else frozenset()
    if ids:
        _insert(name, env_dir, pairs, _versioned_names(), replaces=own)  # raises before any change
    for env_id in own - set(ids):
        registry.pop(env_id, None)
    _registered.pop(name, None)
    if not ids:
        return []
    _registered[name] = (env_dir, ids)
    return ids

