"""User tools: the sales team, their quotas and their standing."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State, open_pipeline_for, quota_attainment_percent, won_amount_for
from .contract import C, paginate_ids, schema
from .helpers import require_user, user_summary
from .index import linked_ids, ordered_ids

ROLES = ("rep", "manager")


def _list_users(state: State, args: dict[str, Any]) -> Any:
    role = C.read_optional_enum(args, "role", ROLES)
    active_only = C.read_boolean(args, "activeOnly", False)
    users = state["users"]
    ids = ordered_ids(users)
    if role is not None or active_only:
        ids = [i for i in ids if (role is None or users[i]["role"] == role) and (not active_only or users[i]["active"])]
    return paginate_ids(ids, users, args, user_summary)


list_users = kit.read_tool(
    name="list_users",
    description=(
        "List CRM users (the sales manager and the reps), sorted by id, one page at a time. Each "
        "entry gives id, name, email, role, managerId, quota (USD) and whether the user is active. "
        "Deactivated users have left the company: they cannot act and cannot own records. Read-only."
    ),
    input_schema=schema(
        {
            "role": C.enum_prop(ROLES, "Only return users with this role."),
            "activeOnly": C.boolean_prop("When true, leave out deactivated users.", default=False),
            **C.paging_props(),
        }
    ),
    run=_list_users,
)


def _get_user(state: State, args: dict[str, Any]) -> Any:
    user = require_user(state, C.read_string(args, "userId"))
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
