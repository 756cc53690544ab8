"""Paging: ``{"total", "count", "offset", "results"}`` pages cut with ``limit``/``offset``.

:func:`page_ids` is the O(page) form: it takes the matching ids already in order and projects only
the page's records, so a page costs its size whatever the world's size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .params import DEFAULT_CONTRACT, Args, Contract

__all__ = ["page", "page_ids", "page_of"]


def page_of(total: int, offset: int, results: list[Any]) -> dict[str, Any]:
    """The page object: ``{"total", "count", "offset", "results"}``."""
    return {"total": total, "count": len(results), "offset": offset, "results": results}


def page(
    items: Iterable[Any], args: Args, contract: Contract = DEFAULT_CONTRACT, *, sort_by_id: bool = False
) -> dict[str, Any]:
    """One page of ``items`` (in the order given, or sorted by ``id`` when ``sort_by_id``)."""
    limit, offset = contract.read_paging(args)
    ordered = sorted(items, key=lambda item: item["id"]) if sort_by_id else list(items)
    return page_of(len(ordered), offset, ordered[offset : offset + limit])


def page_ids(
    ids: Sequence[str],
    records: Mapping[str, Any],
    args: Args,
    project: Callable[[Any], Any],
    contract: Contract = DEFAULT_CONTRACT,
) -> dict[str, Any]:
    """One page of the records ``ids`` names (already in the list's order): the same result as
    :func:`page` over the projected records, but only the page's records are projected."""
    limit, offset = contract.read_paging(args)
    chosen = ids[offset : offset + limit]
    return page_of(len(ids), offset, [project(records[i]) for i in chosen])
