"""The tool contract of the CRM world (demo-crm.md §6.1-6.3) on ``silo_gym.kit``.

``C`` holds the world's wording and reading rules (the kit's defaults: an enum or a date must
be an exact string). Its readers and property builders are also this module's names
(``read_string``, ``enum_prop``, ...), so ``from .contract import read_string`` reads as before.
``paginate(items, args)`` sorts by ``id`` and cuts one page; ``paginate_ids(ids, records, args,
project)`` pages ids already in id order, projecting only the page's records.
"""

from __future__ import annotations

from functools import partial

from silo_gym import kit

__all__ = ["ACTOR_DESCRIPTION", "C", "LIMIT_DEFAULT", "LIMIT_MAX", "paginate", "paginate_ids", "schema"]

C = kit.Contract()
LIMIT_DEFAULT, LIMIT_MAX = C.limit_default, C.limit_max
schema = kit.schema
__getattr__ = C.exported
paginate = partial(kit.page, contract=C, sort_by_id=True)
paginate_ids = partial(kit.page_ids, contract=C)

ACTOR_DESCRIPTION = (
    "Id of the user performing this change (for example USR-002). The user must exist and be "
    "active; the change is recorded in the audit log under this id."
)
