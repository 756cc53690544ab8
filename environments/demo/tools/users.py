"""User tools: the sales team, their quotas and their standing."""

from __future__ import annotations

from typing import Any

from silo_gym import define_tool

from ..state import State, open_pipeline_for, quota_attainment_percent, won_amount_for
from .contract import (
    boolean_prop,
    enum_prop,
    paginate,
    paging_props,
    read_boolean,
    read_optional_enum,
    read_string,
    schema,
    string_prop,
)
from .helpers import require_user, user_summary

ROLES = ("rep", "manager")


def _list_users(state: State, args: dict[str, Any]) -> Any:
    role = read_optional_enum(args, "role", ROLES)
    active_only = read_boolean(args, "activeOnly", False)
    users = [
        user_summary(u)
        for u in state["users"].values()
        if (role is None or u["role"] == role) and (not active_only or u["active"])
    ]
    return paginate(users, args)


list_users = define_tool(
    name="list_users",
    description=(
        "List CRM users (the sales manager and the reps), sorted by id, one page at a time. Each "
        "entry gives id, name, email, role, managerId, quota (USD) and whether the user is active. "
        "Deactivated users have left the company: they cannot act and cannot own records. Read-only."
    ),
    input_schema=schema(
        {
            "role": enum_prop(ROLES, "Only return users with this role."),
            "activeOnly": boolean_prop("When true, leave out deactivated users.", default=False),
            **paging_props(),
        }
    ),
    run=_list_users,
)


def _get_user(state: State, args: dict[str, Any]) -> Any:
    user = require_user(state, read_string(args, "userId"))
    out = user_summary(user)
    out["openPipeline"] = open_pipeline_for(state, user["id"])
    out["closedWon"] = won_amount_for(state, user["id"])
    out["quotaAttainmentPercent"] = quota_attainment_percent(state, user)
    return out


get_user = define_tool(
    name="get_user",
    description=(
        "Get one user by id, with their performance: openPipeline (total amount of the open "
        "opportunities they own), closedWon (total amount of their won opportunities) and "
        "quotaAttainmentPercent (closedWon as a percentage of quota, one decimal; null when the "
        "quota is zero). Read-only."
    ),
    input_schema=schema({"userId": string_prop("The user's id, for example USR-002.")}, required=["userId"]),
    run=_get_user,
)
