"""User tools: the sales team, their quotas and their standing."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State, open_pipeline_for, quota_attainment_percent, won_amount_for
from .helpers import OPPORTUNITIES, USER, user_summary

ROLES = ("rep", "manager")


@USER.list
def list_users() -> dict[str, kit.Filter]:
    """List CRM users (the sales manager and the reps), sorted by id, one page at a time. Each entry gives id,
    name, email, role, managerId, quota (USD) and whether the user is active. Deactivated users have left
    the company: they cannot act and cannot own records. Read-only."""
    return {
        "role": kit.Filter(kit.Enum(ROLES, "Only return users with this role."), field="role"),
        "activeOnly": kit.Filter(
            kit.Boolean("When true, leave out deactivated users.", default=False), test=lambda s, user, v: user["active"]
        ),
    }


@USER.get("The user's id, for example USR-002.")
def get_user(state: State, user: kit.Record) -> Any:
    """Get one user by id, with their performance: openPipeline (total amount of the open opportunities they
    own), closedWon (total amount of their won opportunities) and quotaAttainmentPercent (closedWon as a
    percentage of quota, one decimal; null when the quota is zero). Read-only."""
    # The helpers read only the opportunities: give them the user's own, in the world's order
    # (so the sums add up in the same order), instead of the whole world.
    owned = OPPORTUNITIES.linked(state, "ownerId", user["id"], sort=False)
    mine = {"opportunities": {o["id"]: o for o in owned}}
    out = user_summary(user)
    out["openPipeline"] = open_pipeline_for(mine, user["id"])
    out["closedWon"] = won_amount_for(mine, user["id"])
    out["quotaAttainmentPercent"] = quota_attainment_percent(mine, user)
    return out
