"""A world's canonical seed: its data files read once per process, handed out as fresh copies.

The assembled world is kept as compact JSON bytes and every :meth:`SeedWorld.create` parses them
again, so each world is brand new and shares no dict or list with any other call (orjson keeps
key order, ints as ints and floats as floats).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

__all__ = ["SeedWorld"]


class SeedWorld:
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
        self.data_dir = Path(data_dir)
        self.now = now
        self.collections = tuple(collections)
        self.tables = tuple(tables)
        self._seed: bytes | None = None
        self._lock = threading.Lock()

    def _read(self, name: str) -> Any:
        return orjson.loads((self.data_dir / f"{name}.json").read_bytes())

    def seed(self) -> bytes:
        """The canonical world as compact JSON bytes (read on first use)."""
        seed = self._seed
        if seed is None:
            with self._lock:
                if self._seed is None:
                    world: dict[str, Any] = {"now": self.now}
                    for key in self.collections:
                        world[key] = {record["id"]: record for record in self._read(key)}
                    for key in self.tables:
                        world[key] = self._read(key)
                    self._seed = orjson.dumps(world)
                seed = self._seed
        return seed

    def create(self) -> dict[str, Any]:
        """A fresh copy of the canonical world."""
        return orjson.loads(self.seed())  # type: ignore[no-any-return]
