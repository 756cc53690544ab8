"""The state diff: what an episode changed in the world (silo-format §8, written as §6.3).

``diff_state(initial, final)`` is shallow: it works per top-level key of the final state and
reports ids, never field paths. Scalars that changed go to ``scalars``; dicts and lists of rows
are compared record by record with the canonical compact serializer (§7.2), which is sensitive
to key order and writes ``140000`` and ``140000.0`` the same way (§14.4, §14.1).
"""

from __future__ import annotations

from typing import Any, Final

from .jsonfmt import _orjson_compact, canonical

__all__ = ["ABSENT", "EMPTY_DIFF_BYTES", "diff_state", "js_strict_equal", "key_by_id"]


class _Absent:
    """The marker for a key missing from the initial state (silo-format §8 ``ABSENT``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()

# ``dumps_pretty(diff_state(s, s))``: the whole ``state-diff.json`` of an episode that changed
# nothing (silo-format §6.3).
EMPTY_DIFF_BYTES: Final = b'{\n  "scalars": [],\n  "collections": {}\n}\n'

_SCALAR_TYPES = (str, int, float, bool)


def js_strict_equal(a: Any, b: Any) -> bool:
    """JavaScript's ``===`` on state values (silo-format §8, §14.2).

    Two ``bool``s are equal only if they are the same, and a ``bool`` never equals a non-bool
    (``1 !== true``); two numbers compare numerically (``1 === 1.0``; ``NaN`` equals nothing);
    two ``str``s compare by value; ``None`` equals only ``None``; :data:`ABSENT` equals only
    :data:`ABSENT`. A dict or list never equals a scalar, and two containers are equal only when
    they are the same object (JavaScript compares objects by reference).
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    if isinstance(a, str) and isinstance(b, str):
        return bool(a == b)
    return a is b


def key_by_id(rows: list[Any]) -> dict[Any, Any]:
    """Key a list of rows by id (silo-format §8).

    A row that is a dict whose ``"id"`` is a ``str`` is keyed by that id; any other row by its
    index as a string (``"0"``, ``"1"``, ...). When a key repeats, the later row replaces the
    earlier one and the key keeps the position where it first appeared (plain dict assignment).
    """
    out: dict[Any, Any] = {}
    for i, row in enumerate(rows):
        if isinstance(row, dict):
            rid = row.get("id")
            if isinstance(rid, str):
                out[rid] = row
                continue
        out[str(i)] = row
    return out


def _collection_entry(before: Any, after: Any) -> dict[str, list[Any]] | None:
    """``{"added", "removed", "changed"}`` for one collection, or ``None`` when nothing changed."""
    # Fast path: the same canonical bytes for the whole collection mean the same keys in the same
    # order with the same canonical bytes per record (a list and a dict never share bytes). Only
    # trusted when the orjson path wrote both sides (str keys only, no lone surrogates, no huge
    # ints, shallow enough), so each record's embedded bytes are its own canonical bytes.
    if before is after:
        return None
    whole_before = _orjson_compact(before)
    if whole_before is not None and whole_before == _orjson_compact(after):
        return None
    before_map = key_by_id(before) if isinstance(before, list) else before
    after_map = key_by_id(after) if isinstance(after, list) else after
    added = [k for k in after_map if k not in before_map]
    removed = [k for k in before_map if k not in after_map]
    changed = []
    for k, a in after_map.items():
        if k in before_map:
            b = before_map[k]
            if b is not a and canonical(b) != canonical(a):
                changed.append(k)
    if added or removed or changed:
        return {"added": added, "removed": removed, "changed": changed}
    return None


def diff_state(initial: Any, final: Any) -> dict[str, Any]:
    """The shallow state diff ``{"scalars": [...], "collections": {...}}`` (silo-format §8, §6.3).

    For each top-level key of ``final``, in ``final``'s order (keys only in ``initial`` are
    ignored), with ``before = initial.get(key, ABSENT)``:

    - a collection is ``after`` a dict with ``before`` a dict or list, or both lists; lists are
      keyed with :func:`key_by_id`. Its entry ``{"added", "removed", "changed"}`` lists keys in
      ``after``'s order (``removed`` in ``before``'s order); ``changed`` compares
      :func:`~silo_gym.jsonfmt.canonical` bytes. The entry appears only when something changed.
    - otherwise, when ``after`` is a ``str``/``int``/``float``/``bool`` and not
      :func:`js_strict_equal` to ``before``, a scalar entry ``{"field", "from", "to"}``;
      ``from`` is left out when the key was absent and may be a dict, list or ``None``.
    - anything else records nothing: a value that turned into ``None``, a dict that turned into a
      list, a scalar that turned into a dict or list, a new key holding a dict or list.

    If either state is not a dict the diff is empty (our rule). Never raises on JSON-compatible
    states.
    """
    scalars: list[dict[str, Any]] = []
    collections: dict[Any, dict[str, list[Any]]] = {}
    if not isinstance(initial, dict) or not isinstance(final, dict):
        return {"scalars": scalars, "collections": collections}
    for key, after in final.items():
        before = initial.get(key, ABSENT)
        is_collection = isinstance(after, dict) and isinstance(before, (dict, list))
        if not is_collection and not (isinstance(before, list) and isinstance(after, list)):
            if isinstance(after, _SCALAR_TYPES) and not js_strict_equal(before, after):
                entry: dict[str, Any] = {"field": key}
                if before is not ABSENT:
                    entry["from"] = before
                entry["to"] = after
                scalars.append(entry)
            continue
        change = _collection_entry(before, after)
        if change is not None:
            collections[key] = change
    return {"scalars": scalars, "collections": collections}
