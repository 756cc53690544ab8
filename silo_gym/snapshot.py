"""Exact snapshots of a world, and the orjson writing rules the episode's end relies on.

The initial world of an episode is kept serialised (silo-format §5.1 step 6): as one orjson text
per top-level key when the world round-trips exactly through orjson, else as pickle bytes. The
same "plain" orjson writing (:func:`dumps_plain`) lets :func:`silo_gym.diff.diff_plain_initial`
tell unchanged parts of the final world from their bytes.
"""

from __future__ import annotations

import pickle
from typing import Any, Final

import orjson

from .gcpause import gc_paused

__all__ = ["PLAIN_OPTIONS", "Snapshot", "dumps_plain", "restore_state", "round_trips_exactly", "snapshot_state"]

#: orjson refusing (TypeError) dates, dataclasses and subclasses of str/int/dict/list, which it
#: would otherwise write in a form other than the canonical one (silo-format §7.3).
PLAIN_OPTIONS: Final = (
    orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def dumps_plain(value: Any) -> bytes | None:
    """orjson bytes of ``value`` written with :data:`PLAIN_OPTIONS`, or ``None`` when orjson
    refuses it (an unsupported type, a huge int, too deep)."""
    try:
        return orjson.dumps(value, option=PLAIN_OPTIONS)
    except (TypeError, OverflowError, RecursionError):
        return None


def round_trips_exactly(value: Any, depth: int = 0) -> bool:
    """True when an orjson round trip gives back exactly ``value``: only ``dict`` (str keys),
    ``list``, ``str``, ``int`` in 64 bits, finite ``float``, ``bool`` and ``None``, exact types."""
    t = type(value)
    if t is str or t is bool or value is None:
        return True
    if t is int:
        return -(2**63) <= value < 2**64
    if t is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if depth > 200:
        return False
    if t is dict:
        return all(type(k) is str and round_trips_exactly(v, depth + 1) for k, v in value.items())
    if t is list:
        return all(round_trips_exactly(v, depth + 1) for v in value)
    return False


class Snapshot:
    """An exact serialised copy of a world (silo-format §5.1 step 6).

    ``parts``: one orjson text per top-level key (a dict world that round-trips exactly), which
    the end of an episode compares against; else ``blob``: pickle protocol 5 bytes (NaN, tuples,
    big ints, a non-dict world).
    """

    __slots__ = ("parts", "blob")

    def __init__(self, parts: dict[str, bytes] | None, blob: bytes | None) -> None:
        self.parts = parts
        self.blob = blob

    @classmethod
    def take(cls, state: Any, exact: bool) -> Snapshot:
        """Snapshot ``state``; ``exact`` says it round-trips exactly through orjson
        (:func:`round_trips_exactly`, which the caller may have decided once for worlds known to
        share their value types)."""
        if exact and type(state) is dict:
            parts: dict[str, bytes] = {}
            for key, value in state.items():
                data = dumps_plain(value)
                if data is None:
                    break
                parts[key] = data
            else:
                return cls(parts, None)
        return cls(None, pickle.dumps(state, protocol=5))

    def restore(self) -> Any:
        """A fresh object tree equal to the snapshot (built with the cyclic collector held off,
        :mod:`silo_gym.gcpause`)."""
        with gc_paused:
            if self.parts is not None:
                loads = orjson.loads
                return {k: loads(b) for k, b in self.parts.items()}
            assert self.blob is not None
            return pickle.loads(self.blob)


def snapshot_state(state: Any) -> Snapshot:
    """An exact snapshot of any world (exactness decided for this world)."""
    return Snapshot.take(state, round_trips_exactly(state))


def restore_state(snapshot: Snapshot) -> Any:
    """A fresh object tree from :func:`snapshot_state`."""
    return snapshot.restore()
