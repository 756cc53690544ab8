"""The tool contract of the project world (project-world.md §6.1-6.3) on ``silo_gym.kit``.

``C`` holds the world's wording and reading rules: an enum or a date is first read as a trimmed
non-empty string, and every boolean defaults to ``false``. Its readers and property builders are
also this module's names (``read_string``, ``enum_prop``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from silo_gym import kit

__all__ = [
    "ACTOR_DESCRIPTION",
    "C",
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "actor_prop",
    "paginate",
    "paginate_ids",
    "schema",
    "state_id_prop",
]

C = kit.Contract(
    enum_reads_string=True,
    date_reads_string=True,
    boolean_default=False,
    limit_description="Largest number of results to return on this page.",
    offset_description="How many results (in the tool's stated order) to skip before this page begins.",
)
LIMIT_DEFAULT, LIMIT_MAX = C.limit_default, C.limit_max
schema = kit.schema
ACTOR_DESCRIPTION = (
    "Id of the member making this change (for example MEM-002). The member must exist and be "
    "active; the change is written to the audit log under this id."
)


def __getattr__(name: str) -> Any:
    """``read_*``, ``*_prop`` and ``paging_props``: the bound readers and builders of :data:`C`."""
    if name.startswith("read_") or name.endswith("_prop") or name.endswith("_props"):
        return getattr(C, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def state_id_prop(description: str) -> dict[str, Any]:
    """A workflow state id: a plain string (not an enum), looked up by the tool."""
    return C.string_prop(description)


def actor_prop() -> dict[str, Any]:
    """``actorMemberId``: the last property of every mutating tool."""
    return C.string_prop(ACTOR_DESCRIPTION)


def paginate_ids(
    ids: Sequence[str], records: dict[str, Any], args: dict[str, Any], project: Callable[[Any], Any]
) -> dict[str, Any]:
    """:func:`paginate` over the records ``ids`` names (in the list's order), projecting only the page."""
    return kit.page_ids(ids, records, args, project, C)


def paginate(items: list[Any], args: dict[str, Any]) -> dict[str, Any]:
    """One page of ``items``, in the order the tool built them, with the totals (§6.2)."""
    return kit.page(items, args, C)
