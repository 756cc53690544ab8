"""Ids in order and links by value, per collection of a world, kept in step with the tools.

A paged list or a lookup by id then costs what its page or the record's own links cost, not what
the world costs: a page is a slice of the ids in order, and "the contacts of ACC-001" is one
bucket of the ``accountId`` index of ``contacts``.

What an index relies on, and how each use checks it (in O(1), or O(links) for a bucket):

- A collection is a dict keyed by each record's ``id``, so its keys sorted are the id order.
- Records are only added at the end or left alone. Each use compares the collection's length and
  last record (the object itself) with what the index last saw: records added since are folded
  in (O(added)); any other change (a record deleted, or replaced by another object) rebuilds the
  index. The one change this misses needs deletions that put the very same last record object
  back at the end. The index is found by the collection's identity, so a new world (a new dict)
  starts a new index.
- After a tool changes a link field of an existing record, it calls :func:`relinked`, which moves
  the record between buckets. Each bucket read also checks that its records still carry the
  value (rebuilding the index when one does not), so code that edits a link field directly is
  caught when the record is read through its old link. A record such code moves *into* a link
  is not seen: outside the tools, call :func:`relinked` after changing a link field, or
  :func:`forget` (a world edited before its first tool call needs neither).

Indexes are built lazily, on the first use in a world, and at most :data:`MAX_INDEXES` are kept
(the oldest is dropped, to be rebuilt if its world is used again). Nothing is stored in the world.
"""

from __future__ import annotations

import threading
from bisect import insort
from collections.abc import Hashable
from itertools import islice
from typing import Any

__all__ = ["MAX_INDEXES", "forget", "indexed", "link_of", "linked_ids", "ordered_ids", "relinked"]

Records = dict[str, Any]

#: How many collections (of any worlds) keep an index at once.
MAX_INDEXES = 64


def link_of(record: dict[str, Any], field: str) -> Hashable:
    """A record's link value: ``record[field]`` (for a dotted path such as ``relatedTo.id``, each
    key in turn); a value that is an object (a reference ``{"type", "id"}``) counts by its ``id``."""
    value: Any = record
    for key in field.split(".") if "." in field else (field,):
        value = value[key]
    if type(value) is dict:
        return value["id"]
    return value


class _Index:
    """One collection's ids in order and its link buckets (ids in insertion order, per value)."""

    __slots__ = ("count", "last_key", "last_record", "ids", "links", "positions")

    def __init__(self, records: Records) -> None:
        ids = list(records)
        self.count = len(ids)
        self.last_key: str | None = ids[-1] if ids else None
        self.last_record: Any = records[ids[-1]] if ids else None
        ids.sort()  # linear when already in order, as data files and next_id keep it
        self.ids = ids
        self.links: dict[str, dict[Hashable, list[str]]] = {}
        self.positions: dict[str, int] | None = None

    def current(self, records: Records) -> bool:
        """Bring the index up to date with records added at the end since; ``False`` when the
        collection changed in any other way (then the index must be rebuilt)."""
        grown = len(records) - self.count
        if grown < 0:
            return False
        if self.count == 0:
            added = list(records)
        else:
            tail = list(islice(reversed(records), grown + 1))
            if tail[-1] != self.last_key or records[self.last_key] is not self.last_record:  # type: ignore[index]
                return False
            if not grown:
                return True
            added = tail[-2::-1]
        if added:
            self._add(records, added)
        return True

    def _add(self, records: Records, added: list[str]) -> None:
        ids = self.ids
        for key in added:
            if not ids or ids[-1] < key:
                ids.append(key)
            else:
                insort(ids, key)
            record = records[key]
            for field, buckets in self.links.items():
                buckets.setdefault(link_of(record, field), []).append(key)
            if self.positions is not None:
                self.positions[key] = len(self.positions)
        self.count += len(added)
        self.last_key = added[-1]
        self.last_record = records[added[-1]]

    def buckets(self, records: Records, field: str) -> dict[Hashable, list[str]]:
        found = self.links.get(field)
        if found is None:
            found = {}
            get = found.get
            dotted = "." in field
            for key, record in records.items():  # once per world and field: keep the loop lean
                value = link_of(record, field) if dotted else record[field]
                if type(value) is dict:
                    value = value["id"]
                bucket = get(value)
                if bucket is None:
                    found[value] = [key]
                else:
                    bucket.append(key)
            self.links[field] = found
        return found

    def position_of(self, records: Records) -> dict[str, int]:
        if self.positions is None:
            self.positions = {key: i for i, key in enumerate(records)}
        return self.positions


_indexes: dict[int, _Index] = {}
_lock = threading.Lock()  # worlds in other threads share the table of indexes, not an index


def _index(records: Records) -> _Index:
    found = _indexes.get(id(records))
    if found is not None and found.current(records):
        return found
    made = _Index(records)
    with _lock:
        _indexes.pop(id(records), None)
        while len(_indexes) >= MAX_INDEXES:
            del _indexes[next(iter(_indexes))]
        _indexes[id(records)] = made
    return made


def ordered_ids(records: Records) -> list[str]:
    """The collection's ids in id order (the index's own list: read it, do not change it)."""
    return _index(records).ids


def linked_ids(records: Records, field: str, value: Hashable) -> list[str]:
    """The ids of the records whose ``field`` (a key, or a dotted path such as ``relatedTo.id``;
    an object value counts by its ``id``) equals ``value``, in the collection's order (a new list)."""
    index = _index(records)
    keys = index.buckets(records, field).get(value, [])
    for key in keys:
        record = records.get(key)
        if record is None or link_of(record, field) != value:
            # Changed behind the tools' back: index this link again from the records.
            del index.links[field]
            keys = index.buckets(records, field).get(value, [])
            break
    return list(keys)


def relinked(records: Records, key: str, field: str, old: Any) -> None:
    """Record that ``records[key][field]`` was just changed from ``old``: the record moves to the
    bucket of its new value. Every change of a link field of an existing record is followed by
    this call (a no-op when no index of that field exists yet)."""
    value = link_of(records[key], field)
    found = _indexes.get(id(records))
    if found is None or field not in found.links or old == value:
        return
    index = _index(records)  # folds in records added since; a rebuilt index has no buckets yet
    buckets = index.links.get(field)
    if buckets is None:
        return
    before = buckets.get(old)
    if before is not None and key in before:
        before.remove(key)
        if not before:
            del buckets[old]
    after = buckets.setdefault(value, [])
    if key not in after:
        after.append(key)
        if len(after) > 1:
            after.sort(key=index.position_of(records).__getitem__)


def forget(state: dict[str, Any]) -> None:
    """Drop the indexes of every collection of ``state`` (after changing it outside the tools)."""
    with _lock:
        for value in state.values():
            if isinstance(value, dict):
                _indexes.pop(id(value), None)


def indexed() -> int:
    """How many collections have an index now (at most :data:`MAX_INDEXES`)."""
    return len(_indexes)
