"""Id sequences and the audit log.

A world keeps ``state["sequences"]`` (an id prefix to the last number issued) and
``state["auditLog"]`` (a list of entries). New ids are ``<prefix>-<n>``, ``n`` zero-padded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["AuditLog", "format_id", "next_id"]

State = dict[str, Any]


def format_id(prefix: str, n: int, pad: int = 3) -> str:
    """``<prefix>-<n zero-padded to at least pad digits>``: ``format_id("ACC", 7)`` is ``ACC-007``."""
    return f"{prefix}-{str(n).rjust(pad, '0')}"


def next_id(state: State, prefix: str, pad: int = 3, sequences: str = "sequences") -> str:
    """Advance ``state[sequences][prefix]`` (a new prefix is added at the end, starting at 1)
    and return the formatted id."""
    table = state[sequences]
    n = table.get(prefix, 0) + 1
    table[prefix] = n
    return format_id(prefix, n, pad)


class AuditLog:
    """How a world writes audit entries: ``{id, at, <actor_field>, action, entityType, entityId,
    detail}`` appended to ``state[collection]``, stamped with ``state["now"]`` and the next
    ``<prefix>`` id.

    Args:
        actor_field: the key naming who acted (``actorUserId``).
        collection: the state key of the list.
        prefix, pad: the entries' id prefix and padding.
        clock: the state key of "now".
    """

    def __init__(
        self,
        actor_field: str,
        *,
        collection: str = "auditLog",
        prefix: str = "AUD",
        pad: int = 4,
        clock: str = "now",
    ) -> None:
        self.actor_field = actor_field
        self.collection = collection
        self.prefix = prefix
        self.pad = pad
        self.clock = clock

    def record(
        self,
        state: State,
        actor: str | Mapping[str, Any],
        action: str,
        entity_type: str,
        entity_id: str,
        detail: str,
    ) -> dict[str, Any]:
        """Append one entry and return it; ``actor`` is an id or a record with an ``id``."""
        actor_id = actor if isinstance(actor, str) else actor["id"]
        entry = {
            "id": next_id(state, self.prefix, self.pad),
            "at": state[self.clock],
            self.actor_field: actor_id,
            "action": action,
            "entityType": entity_type,
            "entityId": entity_id,
            "detail": detail,
        }
        state[self.collection].append(entry)
        return entry
