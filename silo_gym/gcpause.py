"""Python's cyclic garbage collector held off while a world is built or restored.

Building a world allocates one container per record and field, and every one of them survives:
with the collector on, CPython runs a young collection every few hundred of them and, as the
survivors pile up, full collections that walk every live object, so a world of a million
containers costs twice its parsing (measured on the 100x ERP world). A world holds no reference
cycles to collect, so nothing is lost by holding the collector off until it is built.

:data:`gc_paused` is a re-entrant, thread-safe context manager: the collector is off while any
thread is inside it, and on again when the last one leaves, unless it was already off on entry
(a program that turned it off itself keeps it off).
"""

from __future__ import annotations

import gc
import threading
from types import TracebackType

__all__ = ["gc_paused"]


class _GcPause:
    """The context manager behind :data:`gc_paused` (one per process)."""

    __slots__ = ("_lock", "_depth", "_resume")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._resume = False

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._depth += 1

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._resume:
                gc.enable()


#: ``with gc_paused: ...`` runs the block with the cyclic collector off (see the module text).
gc_paused = _GcPause()
