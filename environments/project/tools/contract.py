"""The tool contract of the project world (project-world.md §6.1-6.3) on ``silo_gym.kit``.

``C`` holds the world's wording and reading rules: an enum or a date is first read as a trimmed
non-empty string, and every boolean defaults to ``false``. Its readers and property builders are
also this module's names (``read_string``, ``enum_prop``, ...). ``paginate(items, args)`` cuts one
page of items in the order the tool built them (§6.2); ``paginate_ids(ids, records, args, project)``
pages ids in the list's order, projecting only the page's records.
"""

from __future__ import annotations

from functools import partial

from silo_gym import kit

__all__ = ["ACTOR_DESCRIPTION", "C", "LIMIT_DEFAULT", "LIMIT_MAX", "paginate", "paginate_ids", "schema"]

C = kit.Contract(
    enum_reads_string=True,
    date_reads_string=True,
    boolean_default=False,
    limit_description="Largest number of results to return on this page.",
    offset_description="How many results (in the tool's stated order) to skip before this page begins.",
)
LIMIT_DEFAULT, LIMIT_MAX = C.limit_default, C.limit_max
schema = kit.schema
__getattr__ = C.exported
paginate = partial(kit.page, contract=C)
paginate_ids = partial(kit.page_ids, contract=C)
ACTOR_DESCRIPTION = (
    "Id of the member making this change (for example MEM-002). The member must exist and be "
    "active; the change is written to the audit log under this id."
)
