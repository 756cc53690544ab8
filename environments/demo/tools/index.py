"""Ids in order and links by value for the CRM tools: ``silo_gym.kit.index`` (a ``relatedTo``
link counts by the related record's id)."""

from silo_gym.kit.index import MAX_INDEXES, forget, indexed, linked_ids, ordered_ids, relinked

__all__ = ["MAX_INDEXES", "forget", "indexed", "linked_ids", "ordered_ids", "relinked"]
