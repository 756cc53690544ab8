"""JSON Pointer (RFC 6901) and local ``$ref`` lookup: the one resolver for validation and spaces.

Used to find the schema node a validation error points at (:mod:`silo_gym.validation.messages`)
and to follow a schema's local ``$ref`` when drawing samples (:mod:`silo_gym.spaces.sampling`).
Only references inside the document are resolved (``#``, ``#/$defs/x``); anything else, such as
a remote URI, an ``$anchor`` name or an ``$id``-relative reference, resolves to nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

__all__ = ["MISSING", "resolve", "resolve_pointer", "resolve_ref"]


class _Missing:
    """What a lookup returns when the pointer leads nowhere (``None`` is a valid JSON value)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


def resolve(document: Any, tokens: Iterable[str | int]) -> Any:
    """The node reached from ``document`` by ``tokens`` (object keys and array indices, already
    unescaped), or :data:`MISSING`.

    A ``str`` token names an object member, or an array element when it is a decimal index
    (``"0"``, not ``"00"``); an ``int`` token names an array element, or an object member whose
    key is its decimal text.
    """
    node = document
    for token in tokens:
        if isinstance(node, dict):
            key = token if isinstance(token, str) else str(token)
            if key not in node:
                return MISSING
            node = node[key]
        elif isinstance(node, (list, tuple)):
            if isinstance(token, int) and not isinstance(token, bool):
                index = token
            elif isinstance(token, str) and token.isdigit() and (token == "0" or token[0] != "0"):
                index = int(token)
            else:
                return MISSING
            if not 0 <= index < len(node):
                return MISSING
            node = node[index]
        else:
            return MISSING
    return node


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The node ``pointer`` (a JSON Pointer string, ``""`` or ``/a/0/b~1c``) names, or :data:`MISSING`."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        return MISSING
    return resolve(document, (part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")))


def resolve_ref(document: Any, ref: Any) -> Any:
    """The target of a local ``$ref`` (``"#"``, ``"#/$defs/name"``, percent-encoding allowed), or
    :data:`MISSING` for a reference that is not local or leads nowhere."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return MISSING
    return resolve_pointer(document, unquote(ref[1:]))
