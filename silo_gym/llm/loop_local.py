"""``LoopLocal``: one object per running event loop (an HTTP client's connection pool belongs to
the loop it was opened on), picklable so that policies holding one travel to Ray workers."""

from __future__ import annotations

import asyncio
import inspect
import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["LoopLocal"]

T = TypeVar("T")


class LoopLocal(Generic[T]):
    """``get()`` returns the object ``make()`` built for the running loop (built on first use);
    ``await aclose()`` closes and forgets the running loop's one. Pickling keeps ``make`` only."""

    def __init__(self, make: Callable[[], T]) -> None:
        self.make = make
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = weakref.WeakKeyDictionary()

    def get(self) -> T:
        loop = asyncio.get_running_loop()
        found = self._by_loop.get(loop)
        if found is None:
            found = self._by_loop[loop] = self.make()
        return found

    def peek(self) -> T | None:
        """The running loop's object, or ``None`` when none was built."""
        return self._by_loop.get(asyncio.get_running_loop())

    def forget(self) -> None:
        self._by_loop.pop(asyncio.get_running_loop(), None)

    async def aclose(self) -> None:
        """Close (``close()`` / ``aclose()``, awaited when async) the running loop's object."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        found = self._by_loop.pop(loop, None)
        if found is None:
            return
        close = getattr(found, "aclose", None) or getattr(found, "close", None)
        if callable(close):
            result = close()
            if inspect.isawaitable(result):
                await result

    def __reduce__(self) -> Any:
        return (LoopLocal, (self.make,))
