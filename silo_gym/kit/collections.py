"""Collections: a world's record kinds declared once, with their id prefix and links.

A collection lives in the state as a dict keyed by each record's ``id`` (insertion order is the
order records were added). Declaring it gives O(1) lookups with the world's not-found message,
new ids from the world's sequences, ids in id order and link buckets kept by
:mod:`silo_gym.kit.index` (a page of a list costs the page, not the world).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from . import index
from .guards import NOT_FOUND_MESSAGE, not_found
from .ledger import next_id

__all__ = ["Collection", "Record", "World"]

State = dict[str, Any]
#: One stored record: a JSON object keyed by field name.
Record = dict[str, Any]


class Collection:
    """One record kind.

    Args:
        key: the state key (``"accounts"``).
        prefix: the id prefix (``"ACC"``); ``None`` for a collection the tools never add to.
        label: the kind in messages (``"Account"``): ``Account "ACC-9" was not found.``
        links: fields (or dotted paths such as ``relatedTo.id``) whose values point at records of
            other collections; each gets a bucket index on first use.
        pad: the digits of a new id's number.
        not_found_message: the not-found template (``{label}``, ``{id}``).
        fields: the record's fields in stored order (the record kind's one declaration; checked
            by :meth:`shape_problems`); empty when not declared.
    """

    def __init__(
        self,
        key: str,
        prefix: str | None,
        label: str,
        *,
        links: Sequence[str] = (),
        pad: int = 3,
        not_found_message: str = NOT_FOUND_MESSAGE,
        fields: Sequence[str] = (),
    ) -> None:
        self.key = key
        self.prefix = prefix
        self.label = label
        self.links = tuple(links)
        self.pad = pad
        self.not_found_message = not_found_message
        self.fields = tuple(fields)

    def __repr__(self) -> str:
        return f"Collection({self.key!r}, {self.prefix!r})"

    # -- reading --------------------------------------------------------------------------

    def records(self, state: State) -> dict[str, Record]:
        """``state[key]``."""
        return state[self.key]  # type: ignore[no-any-return]

    def get(self, state: State, record_id: Any) -> Record | None:
        """The record with this id, or ``None`` (O(1))."""
        return state[self.key].get(record_id)  # type: ignore[no-any-return]

    def require(self, state: State, record_id: Any) -> Record:
        """The record with this id.

        Raises:
            ToolError: ``not_found`` with the collection's message.
        """
        record = state[self.key].get(record_id)
        if record is None:
            raise not_found(self.label, record_id, self.not_found_message)
        return record  # type: ignore[no-any-return]

    def require_given(self, state: State, record_id: Any) -> Record | None:
        """The record with this id, or ``None`` when the id is ``None`` (an optional link that,
        when given, must name a record).

        Raises:
            ToolError: ``not_found`` with the collection's message.
        """
        return None if record_id is None else self.require(state, record_id)

    def field_of(self, state: State, record_id: Any, field: str = "name") -> Any:
        """``record[field]`` of the record with this id; ``None`` when the id is ``None`` or
        names no record (for summaries that show a linked record's name)."""
        if record_id is None:
            return None
        record = state[self.key].get(record_id)
        return None if record is None else record[field]

    def ids(self, state: State) -> list[str]:
        """Every id in id order (the index's own list: read it, do not change it)."""
        return index.ordered_ids(state[self.key])

    def linked_ids(self, state: State, field: str, value: Hashable, *, sort: bool = False) -> list[str]:
        """Ids of the records whose ``field`` equals ``value``: in insertion order, or in id
        order when ``sort`` (a new list; O(bucket))."""
        found = index.linked_ids(state[self.key], field, value)
        if sort:
            found.sort()
        return found

    def ids_where(self, state: State, links: Mapping[str, Hashable | None]) -> list[str]:
        """Ids, in id order, of the records whose link fields equal the given values (a ``None``
        value is not applied; none given: every id). Served from the smallest bucket, so it costs
        the bucket, not the collection. The result may be the index's own list: do not change it."""
        wanted = [(f, v) for f, v in links.items() if v is not None]
        if not wanted:
            return self.ids(state)
        records = state[self.key]
        buckets = [(index.linked_ids(records, f, v), f) for f, v in wanted]
        buckets.sort(key=lambda pair: len(pair[0]))
        ids, _ = buckets[0]
        for field, value in wanted:
            if field != buckets[0][1]:
                ids = [i for i in ids if index.link_of(records[i], field) == value]
        ids.sort()
        return ids

    def linked(self, state: State, field: str, value: Hashable, *, sort: bool = True) -> list[Record]:
        """The records whose ``field`` equals ``value``, in id order (``sort=False``: insertion
        order)."""
        records = state[self.key]
        return [records[i] for i in self.linked_ids(state, field, value, sort=sort)]

    def select(
        self, state: State, keep: Callable[[Record], bool], ids: Iterable[str] | None = None
    ) -> list[str]:
        """The ids (of ``ids``, else all in id order) whose record passes ``keep``."""
        records = state[self.key]
        return [i for i in (self.ids(state) if ids is None else ids) if keep(records[i])]

    def shape_problems(self, state: State) -> list[str]:
        """One sentence per record whose keys are not :attr:`fields` in that order (``[]`` when
        no fields are declared, or every record has exactly them)."""
        if not self.fields:
            return []
        return [
            f"{self.key}[{record_id}] has the fields {list(record)}, not {list(self.fields)}."
            for record_id, record in state[self.key].items()
            if tuple(record) != self.fields
        ]

    # -- changing -------------------------------------------------------------------------

    def new_id(self, state: State) -> str:
        """The next id of this collection's prefix (advances the world's sequence)."""
        if self.prefix is None:
            raise ValueError(f"collection {self.key!r} has no id prefix")
        return next_id(state, self.prefix, self.pad)

    def add(self, state: State, record: Record) -> Record:
        """Store ``record`` under its ``id`` (at the end) and return it."""
        state[self.key][record["id"]] = record
        return record

    def set_link(self, state: State, record: Record, field: str, value: Any) -> None:
        """Change a link field of a stored record and move it between buckets."""
        old = record[field]
        record[field] = value
        index.relinked(state[self.key], record["id"], field, old)

    def relinked(self, state: State, record_id: str, field: str, old: Any) -> None:
        """Tell the index that ``record_id``'s ``field`` just changed from ``old``."""
        index.relinked(state[self.key], record_id, field, old)


class World:
    """The collections of one world, by state key; verifiers and variants read them from here."""

    def __init__(self, *collections: Collection) -> None:
        self.collections: dict[str, Collection] = {c.key: c for c in collections}

    def __getitem__(self, key: str) -> Collection:
        return self.collections[key]

    def keys(self) -> list[str]:
        """The state keys, in declaration order."""
        return list(self.collections)

    def prefixes(self) -> Mapping[str, str]:
        """Id prefix to state key, for the collections that have one."""
        return {c.prefix: c.key for c in self.collections.values() if c.prefix is not None}
