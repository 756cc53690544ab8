"""A world's canonical seed: built once per process, handed out as fresh copies.

The assembled world is kept as one compact JSON text per top-level key, and every ``create``
parses them again, so each world is brand new and shares no dict or list with any other call
(orjson keeps key order, ints as ints and floats as floats). The same texts are the exact
snapshot an episode keeps of its initial world (silo-format §5.1 step 6), so a reset of the
canonical world need not serialise it again (:attr:`StateMaker.canonical_parts
<silo_gym.kit.StateMaker.canonical_parts>`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..snapshot import dumps_plain

__all__ = ["CanonicalWorld", "SeedWorld"]


class CanonicalWorld:
    """The canonical world that ``build()`` assembles, built on first use (thread-safe).

    Args:
        build: returns the world, a dict of JSON values; called once per process.
    """

    def __init__(self, build: Callable[[], dict[str, Any]]) -> None:
        self.build = build
        self._parts: dict[str, bytes] | None = None
        self._lock = threading.Lock()

    def parts(self) -> dict[str, bytes]:
        """The world as ``{top-level key: compact orjson text of its value}``, in key order.

        The same dict every call: read it, never change it.

        Raises:
            TypeError: ``build()`` returned no dict, or a value that is not plain JSON (a set, a
                date, a non-string key, an int beyond 64 bits), naming the top-level key.
        """
        parts = self._parts
        if parts is None:
            with self._lock:
                if self._parts is None:
                    self._parts = _texts(self.build())
                parts = self._parts
        return parts

    def create(self) -> dict[str, Any]:
        """A fresh copy of the canonical world."""
        loads = orjson.loads
        return {key: loads(text) for key, text in self.parts().items()}


def _texts(world: Any) -> dict[str, bytes]:
    if not isinstance(world, dict):
        kind = "None" if world is None else f"a {type(world).__name__}"
        raise TypeError(f"The world's build() returned {kind}, not a world: it must return a dict of "
                        "the world's top-level keys.")
    texts: dict[str, bytes] = {}
    for key, value in world.items():
        text = dumps_plain(value) if isinstance(key, str) else None
        if text is None:
            raise TypeError(f"The world's top-level key {key!r} does not hold plain JSON (dicts with str "
                            "keys, lists, str, int within 64 bits, float, bool, None): a world holds "
                            "JSON-compatible values only.")
        texts[key] = text
    return texts


class SeedWorld(CanonicalWorld):
    """The canonical world of ``data_dir``: ``{"now": now, <collection>: {id: record}...,
    <table>: <file as is>...}`` in that key order.

    Args:
        data_dir: the world's ``data/`` directory.
        now: the simulated date, the world's first key.
        collections: data files (``<name>.json``, JSON arrays of records) keyed by each record's id.
        tables: data files kept as they are (an audit log list, a sequences object).
    """

    def __init__(
        self, data_dir: Path, now: str, collections: Sequence[str], tables: Sequence[str] = ("auditLog", "sequences")
    ) -> None:
        super().__init__(self._assemble)
        self.data_dir = Path(data_dir)
        self.now = now
        self.collections = tuple(collections)
        self.tables = tuple(tables)

    def _read(self, name: str) -> Any:
        return orjson.loads((self.data_dir / f"{name}.json").read_bytes())

    def _assemble(self) -> dict[str, Any]:
        world: dict[str, Any] = {"now": self.now}
        for key in self.collections:
            world[key] = {record["id"]: record for record in self._read(key)}
        for key in self.tables:
            world[key] = self._read(key)
        return world
