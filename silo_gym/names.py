"""Safe names for environments, datasets, tasks, tools and verifiers (silo-format §12.1)."""

from __future__ import annotations

import re

from .errors import SiloError

__all__ = ["check_safe_name", "is_safe_name", "SAFE_NAME_KINDS"]

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_DEVICE = re.compile(r"(?:CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])(?:\..*)?", re.IGNORECASE | re.DOTALL)
_STATE_TYPE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_NAME_LENGTH = 100

SAFE_NAME_KINDS = ("environment", "dataset", "task", "tool", "verifier")

_KIND_LABEL = {
    "environment": "Environment",
    "dataset": "Dataset",
    "task": "Task",
    "tool": "Tool",
    "verifier": "Verifier",
    "stateType": "StateType",
}


def is_safe_name(name: object) -> bool:
    """True for ``^[A-Za-z0-9][A-Za-z0-9._-]*$`` (whole string), at most 100 characters, and not a
    Windows device name (silo-format §12.1)."""
    return (
        isinstance(name, str)
        and len(name) <= MAX_NAME_LENGTH
        and _SAFE.fullmatch(name) is not None
        and _DEVICE.fullmatch(name) is None
    )


def check_safe_name(name: object, kind: str) -> str:
    """Return ``name`` when safe, else raise ``unsafe_name`` with details ``{kind, name}``.

    ``kind`` is ``environment``, ``dataset``, ``task``, ``tool``, ``verifier`` or ``stateType``
    (the last uses the identifier pattern ``^[A-Za-z_][A-Za-z0-9_]*$``).
    """
    ok = (
        isinstance(name, str) and _STATE_TYPE.fullmatch(name) is not None
        if kind == "stateType"
        else is_safe_name(name)
    )
    if not ok and kind == "stateType":
        raise SiloError(
            "unsafe_name",
            f'State type name "{name}" is not allowed: use a Python identifier '
            '(letters, digits and "_", not starting with a digit).',
            {"kind": kind, "name": name},
        )
    if not ok:
        label = _KIND_LABEL.get(kind, kind[:1].upper() + kind[1:])
        raise SiloError(
            "unsafe_name",
            f'{label} name "{name}" is not allowed: use letters, digits, ".", "_" and "-", '
            "starting with a letter or digit.",
            {"kind": kind, "name": name},
        )
    return name  # type: ignore[return-value]
