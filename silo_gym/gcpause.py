"""Python's cyclic garbage collector held off while a world is built or restored.

Building a world allocates one container per record and field, and every one of them survives:
with the collector on, CPython runs a young collection every few hundred of them and, as the
survivors pile up, full collections that walk every live object, so a world of a million
containers costs twice its parsing (measured on the 100x ERP world). Even held off, the
collector would scan the whole new world as young objects at its next run, right after the reset
(a quarter of a 1x ERP reset in a profile). A world holds no reference cycles to collect, so:

:data:`gc_paused` is a re-entrant, thread-safe context manager: the collector is off while any
thread is inside it. On entry the young generations are collected as CPython would collect them
(``gc.collect(1)``: the program's garbage freed, its survivors aged and counted, a few µs), so
what the block allocates is all that is young; when the last thread leaves, that moves to the
oldest generation unscanned (``gc.freeze(); gc.unfreeze()``, which also restarts the young
count), and the collector is on again. A world moved there dies by reference counting when its
episode is replaced. A program that turned the collector off itself keeps it off, and one that
froze objects of its own (``gc.freeze()``) keeps them frozen (the move is then skipped).

One limit: ``gc.disable()`` called by another thread while a world is being built is undone when
the build ends (the collector is process-wide); disable it before the first reset instead.
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
                if self._resume:
                    # The program's young objects age as CPython ages them (garbage freed, the
                    # rest counted into the oldest generation), before the move at the end.
                    gc.collect(1)
                gc.disable()
            self._depth += 1

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._resume:
                if gc.get_freeze_count() == 0:
                    # What the block built goes straight to the oldest generation, unscanned (and
                    # the young generation's count starts again from 0): a world has no cycles,
                    # so scanning it as young objects, right after, would find nothing to free.
                    # Skipped where the program froze objects of its own (gc.freeze()), which
                    # this unfreeze would let go.
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()


#: ``with gc_paused: ...`` runs the block with the cyclic collector off (see the module text).
gc_paused = _GcPause()
