"""The tool contract of the CRM world (demo-crm.md §6.1-6.3) on ``silo_gym.kit``.

``C`` holds the world's wording and reading rules (the kit's defaults: an enum or a date must
be an exact string). Its readers and property builders are also this module's names
(``read_string``, ``enum_prop``, ...), so ``from .contract import read_string`` reads as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from silo_gym import kit

__all__ = ["C", "LIMIT_DEFAULT", "LIMIT_MAX", "actor_prop", "paginate", "paginate_ids", "schema"]

C = kit.Contract()
LIMIT_DEFAULT, LIMIT_MAX = C.limit_default, C.limit_max
schema = kit.schema


def __getattr__(name: str) -> Any:
    """``read_*`` and ``*_prop``: the bound readers and property builders of :data:`C`."""
    if name.startswith("read_") or name.endswith("_props") or name.endswith("_prop"):
        return getattr(C, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ACTOR_DESCRIPTION = (
    "Id of the user performing this change (for example USR-002). The user must exist and be "
    "active; the change is recorded in the audit log under this id."
)


def actor_prop() -> dict[str, Any]:
    """``actorUserId``: the last property of every mutating tool."""
    return C.string_prop(ACTOR_DESCRIPTION)


def paginate(items: Iterable[dict[str, Any]], args: dict[str, Any]) -> dict[str, Any]:
    """Sort by ``id``, cut one page with ``limit``/``offset``, and wrap it with the totals."""
    return kit.page(items, args, C, sort_by_id=True)


def paginate_ids(
    ids: Sequence[str], records: dict[str, Any], args: dict[str, Any], project: Callable[[Any], dict[str, Any]]
) -> dict[str, Any]:
    """:func:`paginate` over the records ``ids`` names (already in id order), projecting only the page."""
    return kit.page_ids(ids, records, args, project, C)
