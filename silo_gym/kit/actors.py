"""The actor of a write tool: who is making the change, read from the input and checked."""

from __future__ import annotations

from typing import Any

from .collections import Collection
from .guards import not_allowed
from .params import DEFAULT_CONTRACT, Args, Contract, Prop

__all__ = ["Actor"]


class Actor:
    """``actorUserId``-style input: the id of an active record of ``collection``.

    Args:
        collection: where actors live (users, members).
        key: the input key, also the audit entries' actor field.
        description: the property's description.
        inactive_message: the ``not_allowed`` message for an inactive actor; ``{id}`` and
            ``{name}`` are the record's.
        active_field: the record's flag (a record without it counts as active).
    """

    def __init__(
        self,
        collection: Collection,
        key: str,
        description: str,
        *,
        inactive_message: str = '{label} "{id}" ({name}) is deactivated and cannot act.',
        active_field: str = "active",
        contract: Contract = DEFAULT_CONTRACT,
    ) -> None:
        self.collection = collection
        self.key = key
        self.description = description
        self.inactive_message = inactive_message
        self.active_field = active_field
        self.contract = contract

    def prop(self) -> Prop:
        """The property (the last of every write tool's schema, by convention)."""
        return self.contract.string_prop(self.description)

    def read(self, state: Any, args: Args) -> dict[str, Any]:
        """The acting record.

        Raises:
            ToolError: ``invalid_input`` (missing), ``not_found``, ``not_allowed`` (inactive).
        """
        return self.require_active(state, self.contract.read_string(args, self.key), self.inactive_message)

    def require_active(self, state: Any, record_id: str, message: str) -> dict[str, Any]:
        """The record with this id, which must be active (``message`` as for ``inactive_message``)."""
        record = self.collection.require(state, record_id)
        if not record.get(self.active_field, True):
            raise not_allowed(
                message.format(label=self.collection.label, id=record["id"], name=record.get("name"))
            )
        return record
