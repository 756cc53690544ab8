"""The kit's version and the ``templateVersion`` check.

The kit follows semantic versioning: a world made for kit ``M.m.p`` works with any kit ``M.x.y``
where ``x >= m`` (same major version, at least the minor it was made with).
"""

from __future__ import annotations

import re

from ..errors import SiloError

__all__ = ["KIT_VERSION", "check_template_version", "compatible"]

#: The kit's own semantic version (moves with the package: a breaking kit change is a major step).
KIT_VERSION = "1.0.0"

_SEMVER = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)")


def _parse(version: str) -> tuple[int, int, int]:
    match = _SEMVER.fullmatch(version) if isinstance(version, str) else None
    if match is None:
        raise SiloError(
            "runtime_contract_invalid", f'templateVersion must look like "1.0.0", not {version!r}.'
        )
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def compatible(template_version: str, kit_version: str = KIT_VERSION) -> bool:
    """A world made for ``template_version`` runs on ``kit_version``."""
    made, have = _parse(template_version), _parse(kit_version)
    return made[0] == have[0] and made[1:] <= have[1:]


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
            f"{kit_version}; install a silo_gym whose kit is {_parse(template_version)[0]}.x "
            f"(at least {template_version}) or update the world.",
            {"templateVersion": template_version, "kitVersion": kit_version},
        )
