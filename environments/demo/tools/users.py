"""User tools: the sales team, their quotas and their standing."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State, open_pipeline_for, quota_attainment_percent, won_amount_for
from .contract import C, schema
from .helpers import (
    USERS,
    user_summary,
)
from .index import linked_ids

ROLES = ("rep", "manager")


list_users = kit.list_tool(
    name="list_users",
    description=(
        "List CRM users (the sales manager and the reps), sorted by id, one page at a time. Each "
        "entry gives id, name, email, role, managerId, quota (USD) and whether the user is active. "
        "Deactivated users have left the company: they cannot act and cannot own records. Read-only."
    ),
    collection=USERS,
    summary=lambda state, user: user_summary(user),
    filters={
        "role": kit.Filter(kit.Enum(ROLES, "Only return users with this role."), field="role"),
        "activeOnly": kit.Filter(
            kit.Boolean("When true, leave out deactivated users.", default=False), test=lambda s, user, v: user["active"]
        ),
    },
    contract=C,
)


def _get_user(state: State, args: dict[str, Any]) -> Any:
    user = USERS.require(state, C.read_string(args, "userId"))
    # The helpers read only the opportunities: give them the user's own, in the world's order
    # (so the sums add up in the same order), instead of the whole world.
    opportunities = state["opportunities"]
    mine = {"opportunities": {i: opportunities[i] for i in linked_ids(opportunities, "ownerId", user["id"])}}
    out = user_summary(user)
    out["openPipeline"] = open_pipeline_for(mine, user["id"])
    out["closedWon"] = won_amount_for(mine, user["id"])
    out["quotaAttainmentPercent"] = quota_attainment_percent(mine, user)
    return out


get_user = kit.read_tool(
    name="get_user",
    description=(
        "Get one user by id, with their performance: openPipeline (total amount of the open "
        "opportunities they own), closedWon (total amount of their won opportunities) and "
        "quotaAttainmentPercent (closedWon as a percentage of quota, one decimal; null when the "
        "quota is zero). Read-only."
    ),
    input_schema=schema({"userId": C.string_prop("The user's id, for example USR-002.")}, required=["userId"]),
    run=_get_user,
)
