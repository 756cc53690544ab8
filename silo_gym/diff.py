"""The state diff: what an episode changed in the world (silo-format §8, written as §6.3).

``diff_state(initial, final)`` is shallow: it works per top-level key of the final state and
reports ids, never field paths. Scalars that changed go to ``scalars``; dicts and lists of rows
are compared record by record with the canonical compact serializer (§7.2), which is sensitive
to key order and writes ``140000`` and ``140000.0`` the same way (§14.4, §14.1).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from .jsonfmt import PREPARE_FAILED, canonical, prepare_canonical, prepared_bytes, raw_compact
from .snapshot import dumps_plain

__all__ = ["ABSENT", "EMPTY_DIFF_BYTES", "diff_plain_initial", "diff_state", "js_strict_equal", "key_by_id"]


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


def _index_by_id(rows: list[Any]) -> dict[Any, int]:
    """:func:`key_by_id`, with each key mapped to the index of the row it ends up holding."""
    out: dict[Any, int] = {}
    for i, row in enumerate(rows):
        if isinstance(row, dict):
            rid = row.get("id")
            if isinstance(rid, str):
                out[rid] = i
                continue
        out[str(i)] = i
    return out


def key_by_id(rows: list[Any]) -> dict[Any, Any]:
    """Key a list of rows by id (silo-format §8).

    A row that is a dict whose ``"id"`` is a ``str`` is keyed by that id; any other row by its
    index as a string (``"0"``, ``"1"``, ...). When a key repeats, the later row replaces the
    earlier one and the key keeps the position where it first appeared (plain dict assignment).
    """
    return {k: rows[i] for k, i in _index_by_id(rows).items()}


def _record_map(coll: Any, prepared: Any) -> dict[Any, tuple[Any, Any]]:
    """Collection key -> (record, its prepared form or ``PREPARE_FAILED``), in collection order."""
    if isinstance(coll, list):
        if prepared is PREPARE_FAILED:
            return {k: (coll[i], PREPARE_FAILED) for k, i in _index_by_id(coll).items()}
        return {k: (coll[i], prepared[i]) for k, i in _index_by_id(coll).items()}
    if prepared is PREPARE_FAILED:
        return {k: (v, PREPARE_FAILED) for k, v in coll.items()}
    return {k: (v, prepared[k]) for k, v in coll.items()}


def _record_bytes(record: Any, prepared: Any) -> bytes:
    """``canonical(record)``, from its prepared form when orjson can write that."""
    if prepared is not PREPARE_FAILED:
        out = prepared_bytes(prepared)
        if out is not None:
            return out
    return canonical(record)


def _collection_entry(before: Any, after: Any) -> dict[str, list[Any]] | None:
    """``{"added", "removed", "changed"}`` for one collection, or ``None`` when nothing changed.

    ``changed`` compares each common record's :func:`~silo_gym.jsonfmt.canonical` bytes (§8).
    Each side is walked once (float formatting, :func:`silo_gym.jsonfmt.prepare_canonical`); records are
    then written from that prepared tree, which gives the same bytes as ``canonical(record)``.
    """
    if before is after:
        return None
    # Plain orjson bytes (floats not yet JavaScript-formatted, so cheap) decide whether to try the
    # fast path; when they differ the collection has almost surely changed.
    raw_before = raw_compact(before)
    likely_same = raw_before is not None and raw_before == raw_compact(after)
    prep_before = prepare_canonical(before)
    prep_after = prepare_canonical(after)
    if likely_same and prep_before is not PREPARE_FAILED and prep_after is not PREPARE_FAILED:
        # Fast path: the same canonical bytes for the whole collection mean the same keys in the
        # same order with the same canonical bytes per record (a list and a dict never share
        # bytes). Only trusted when orjson wrote both sides (str keys only, no lone surrogates,
        # no huge ints), so each record's embedded bytes are its own canonical bytes.
        whole_before = prepared_bytes(prep_before)
        if whole_before is not None and whole_before == prepared_bytes(prep_after):
            return None
    before_map = _record_map(before, prep_before)
    after_map = _record_map(after, prep_after)
    added = [k for k in after_map if k not in before_map]
    removed = [k for k in before_map if k not in after_map]
    changed = []
    for k, (a, pa) in after_map.items():
        if k in before_map:
            b, pb = before_map[k]
            if b is not a and _record_bytes(b, pb) != _record_bytes(a, pa):
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
    return _diff(initial, final, _collection_entry, None)


def diff_plain_initial(initial: dict[str, Any], final: Any, initial_bytes: dict[str, bytes]) -> dict[str, Any]:
    """:func:`diff_state` for an ``initial`` world that is plain JSON (restored from orjson bytes),
    given ``initial_bytes[key]``, the orjson bytes each top-level value was restored from.

    Gives exactly :func:`diff_state`'s result at a cost that follows what changed: a top-level
    value whose orjson bytes and value are both unchanged is skipped, and changed collections are
    compared record by record with :func:`_same_as_plain` instead of being walked whole.
    """
    try:
        return _diff(initial, final, _collection_entry_plain, initial_bytes)
    except Exception:  # a value whose == raises (a numpy array...): the general path settles it
        return diff_state(initial, final)


def _same_as_plain(plain: Any, value: Any) -> bool:
    """``canonical(plain) == canonical(value)`` for a ``plain`` JSON value (dicts, lists, str,
    int, finite float, bool, None only).

    Equal orjson bytes alone are not proof: orjson writes enums and UUIDs by their value and NaN as
    null. Python equality alone is not proof either: it ignores key order and ``True == 1``. Both
    together are: a value orjson writes like ``plain`` and that also compares equal to it holds no
    enum, UUID, NaN or tuple (none equals a plain JSON value), the same keys in the same order and
    the same types as far as JSON tells. Anything else is settled by the canonical bytes.
    """
    try:
        if plain == value and dumps_plain(value) == dumps_plain(plain) is not None:
            return True
    except RecursionError:
        pass
    return canonical(plain) == canonical(value)


def _unchanged_key(plain: Any, value: Any, plain_bytes: bytes) -> tuple[bool, bytes | None]:
    """Whether a top-level value is unchanged by the proof of :func:`_same_as_plain` (bytes first:
    one ``orjson.dumps`` of the final world is the floor of ending an episode), and ``value``'s
    orjson bytes when computed. ``False`` means "maybe changed", left to the exact per-key rules."""
    if type(plain) is not type(value):
        return False, None
    value_bytes = dumps_plain(value)
    if value_bytes != plain_bytes:
        return False, value_bytes
    try:
        return bool(plain == value), value_bytes
    except RecursionError:
        return False, value_bytes


def _differing(before: list[Any], after: list[Any], lo: int, hi: int, out: list[int]) -> None:
    """Indexes in ``[lo, hi)`` where ``before[i] != after[i]``, found by halving: equal halves are
    settled by one C-level list comparison, so the cost is the records compared, not a Python step
    per record."""
    if before[lo:hi] == after[lo:hi]:
        return
    if hi - lo <= 8:
        out.extend(i for i in range(lo, hi) if before[i] != after[i])
        return
    mid = (lo + hi) // 2
    _differing(before, after, lo, mid, out)
    _differing(before, after, mid, hi, out)


def _without(items: list[Any], drop: list[int]) -> list[Any]:
    """``items`` without the (sorted, few) indexes in ``drop``, by slices (C speed)."""
    out: list[Any] = []
    start = 0
    for i in drop:
        out += items[start:i]
        start = i + 1
    out += items[start:]
    return out


def _collection_entry_plain(before: Any, after: Any, before_bytes: bytes | None = None,
                            after_bytes: bytes | None = None) -> dict[str, list[Any]] | None:
    """:func:`_collection_entry` for a plain ``before`` (see :func:`diff_plain_initial`).

    Records equal in Python are proven canonical-equal in bulk: ``after`` with its differing
    records put back to their ``before`` form must write ``before_bytes`` (``before``'s orjson
    bytes), or, with records added or removed, ``before`` with the differing records taken from
    ``after`` must write ``after_bytes``; else one ``orjson.dumps`` of each side's list of them.
    Only records that differ, or a batch whose bytes disagree, are settled one by one. The usual shapes (same keys in the same order, records added at the end) are handled
    with list operations at C speed, so the cost follows the collection's size at C speed and its
    changes at Python speed.
    """
    before_map = key_by_id(before) if isinstance(before, list) else before
    after_map = key_by_id(after) if isinstance(after, list) else after
    before_keys = list(before_map)
    after_keys = list(after_map)
    n = len(before_keys)
    if after_keys[:n] == before_keys:  # same keys, same order, perhaps with new ones at the end
        common, added, removed = before_keys, after_keys[n:], []
        old = list(before_map.values())
        new = list(after_map.values())[:n] if added else list(after_map.values())
    else:
        added = [k for k in after_keys if k not in before_map]
        removed = [k for k in before_keys if k not in after_map]
        common = [k for k in after_keys if k in before_map]
        old = [before_map[k] for k in common]
        new = [after_map[k] for k in common]
    found: list[int] = []
    try:
        _differing(old, new, 0, len(common), found)
    except RecursionError:
        found = list(range(len(common)))
    if len(found) < len(common):
        same: bool | None = None
        if before is before_map and after is after_map and common is before_keys:
            if not added and before_bytes is not None:  # same keys: undo the differing records
                reverted = new[:]
                for i in found:
                    reverted[i] = old[i]
                same = dumps_plain(dict(zip(common, reverted, strict=True))) == before_bytes
            elif after_bytes is not None:  # records added: redo the differing ones on before
                patched = dict(zip(common, old, strict=True))
                for i in found:
                    patched[common[i]] = new[i]
                for k in added:
                    patched[k] = after_map[k]
                same = dumps_plain(patched) == after_bytes
        if same is None:
            new_bytes = dumps_plain(_without(new, found) if found else new)
            same = new_bytes is not None and new_bytes == dumps_plain(_without(old, found) if found else old)
        if not same:  # some record differs in key order, bool/int or float form
            found = list(range(len(common)))
    changed = [common[i] for i in found if not _same_as_plain(old[i], new[i])]
    if added or removed or changed:
        return {"added": added, "removed": removed, "changed": changed}
    return None


def _copied(value: Any) -> Any:
    """A deep copy of a container (the value itself when too deep to copy), else the value."""
    if not isinstance(value, (dict, list)):
        return value
    try:
        return copy.deepcopy(value)
    except RecursionError:
        return value


def _diff(initial: Any, final: Any, collection_entry: Any, initial_bytes: dict[str, bytes] | None) -> dict[str, Any]:
    scalars: list[dict[str, Any]] = []
    collections: dict[Any, dict[str, list[Any]]] = {}
    if not isinstance(initial, dict) or not isinstance(final, dict):
        return {"scalars": scalars, "collections": collections}
    for key, after in final.items():
        before = initial.get(key, ABSENT)
        after_bytes = None
        if initial_bytes is not None and before is not ABSENT and key in initial_bytes:
            unchanged, after_bytes = _unchanged_key(before, after, initial_bytes[key])
            if unchanged:
                continue  # nothing under this key changed (no scalar entry, no collection entry)
        is_collection = isinstance(after, dict) and isinstance(before, (dict, list))
        if not is_collection and not (isinstance(before, list) and isinstance(after, list)):
            if isinstance(after, _SCALAR_TYPES) and not js_strict_equal(before, after):
                entry: dict[str, Any] = {"field": key}
                if before is not ABSENT:
                    # a container taken whole is copied: the diff must not change with its world
                    entry["from"] = _copied(before)
                entry["to"] = after
                scalars.append(entry)
            continue
        change = (collection_entry(before, after) if initial_bytes is None
                  else collection_entry(before, after, initial_bytes.get(key), after_bytes))
        if change is not None:
            collections[key] = change
    return {"scalars": scalars, "collections": collections}
