"""``ResetInfo``: the reset ``info`` dict, whose tool list is copied only when someone reads it.

gym-api.md asks that no object be shared between episodes; it does not ask for an eager copy. The
tool list is the one large entry (42 schemas, 35 KB on the demo world), and many training loops
never read it, so ``info["tools"]`` holds the pre-serialised list (an ``orjson.Fragment``) until
the first read through any dict method turns it into a fresh list. orjson writes the fragment's
bytes as they are, so even ``orjson.dumps(info)`` of an unread info gives the right JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

__all__ = ["ResetInfo"]

_Fragment = orjson.Fragment


class ResetInfo(dict):  # type: ignore[type-arg]
    """A ``dict`` whose ``"tools"`` value may still be pending (see the module docstring).

    Every way of reading values (``[]``, ``get``, ``items``, ``values``, iteration, ``copy``,
    ``==``, ``repr``, ``pickle``, ``copy.deepcopy``, ``dict(info)``, ``{**info}``) sees a fresh
    ``list`` of tool dicts, made once per info.
    """

    __slots__ = ()

    def _ready(self) -> None:
        tools = dict.get(self, "tools")
        if type(tools) is _Fragment:
            dict.__setitem__(self, "tools", orjson.loads(orjson.dumps(tools)))  # dumps gives the bytes back

    def tools_json(self) -> bytes | None:
        """The compact JSON of ``"tools"`` while it is still pending, without making the list
        (``None`` once it was read or when there is none): a policy that only needs the list's
        identity, such as a cache key for its converted form, reads this instead."""
        tools = dict.get(self, "tools")
        return orjson.dumps(tools) if type(tools) is _Fragment else None

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        if type(value) is _Fragment:
            self._ready()
            return dict.__getitem__(self, key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __iter__(self) -> Iterator[Any]:
        # Overriding __iter__ also makes dict(info) and {**info} go through __getitem__.
        return dict.__iter__(self)

    def items(self):  # type: ignore[no-untyped-def, override]
        self._ready()
        return dict.items(self)

    def values(self):  # type: ignore[no-untyped-def, override]
        self._ready()
        return dict.values(self)

    def copy(self) -> dict[str, Any]:  # type: ignore[override]
        self._ready()
        return dict(dict.items(self))

    def pop(self, key: Any, *default: Any) -> Any:
        self._ready()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[Any, Any]:
        self._ready()
        return dict.popitem(self)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._ready()
        return dict.setdefault(self, key, default)

    def __eq__(self, other: object) -> bool:
        self._ready()
        if isinstance(other, ResetInfo):
            other._ready()
        return dict.__eq__(self, other)  # type: ignore[no-any-return]

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._ready()
        return dict.__repr__(self)

    def __or__(self, other: Any) -> Any:
        self._ready()
        return dict.__or__(self, other)

    def __ror__(self, other: Any) -> Any:
        self._ready()
        return dict.__ror__(self, other)

    def __reduce_ex__(self, protocol: Any) -> Any:
        self._ready()
        return dict, (dict(dict.items(self)),)
