"""The kit's version and the ``templateVersion`` check.

The kit follows semantic versioning, and its version is the ``templateVersion`` that
``silo-gym init`` writes into a new world's manifest (the Silo format version the package
implements). A world made for ``M.m.p`` runs on kit ``M.x.y`` with ``(x, y) >= (m, p)``; while
the major version is 0, a minor step may break worlds, so the minor must match as well.
"""

from __future__ import annotations

import re

from ..errors import SiloError

__all__ = ["KIT_VERSION", "check_template_version", "compatible", "is_version"]

#: The kit's semantic version, also every new world's ``templateVersion``.
KIT_VERSION = "0.3.0"

_SEMVER = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)")


def _parse(version: str) -> tuple[int, int, int]:
    match = _SEMVER.fullmatch(version) if isinstance(version, str) else None
    if match is None:
        raise SiloError(
            "runtime_contract_invalid", f'templateVersion must look like "1.0.0", not {version!r}.'
        )
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def is_version(text: object) -> bool:
    """``text`` is a ``MAJOR.MINOR.PATCH`` string."""
    return isinstance(text, str) and _SEMVER.fullmatch(text) is not None


def compatible(template_version: str, kit_version: str = KIT_VERSION) -> bool:
    """A world made for ``template_version`` runs on ``kit_version``."""
    made, have = _parse(template_version), _parse(kit_version)
    if made[0] != have[0] or (made[0] == 0 and made[1] != have[1]):
        return False
    return made[1:] <= have[1:]


def check_template_version(
    template_version: str, world: str = "this world", kit_version: str = KIT_VERSION
) -> None:
    """Refuse a world made for a kit this one cannot run.

    Raises:
        SiloError: ``runtime_contract_invalid``, naming both versions and what to do.
    """
    if not compatible(template_version, kit_version):
        raise SiloError(
            "runtime_contract_invalid",
            f"{world} was made with silo_gym.kit {template_version}, but this silo_gym ships kit "
            f"{kit_version}, which cannot run it. Install a silo_gym whose kit runs "
            f"{template_version}, or update the world to kit {kit_version} and its templateVersion.",
            {"templateVersion": template_version, "kitVersion": kit_version},
        )
