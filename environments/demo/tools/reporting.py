"""Reporting tools (read-only): pipeline, forecast, rep performance and stalled deals."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import (
    STALE_STAGE_DAYS,
    State,
    days_in_stage,
    is_stale,
    open_pipeline_for,
    quota_attainment_percent,
    stages_in_order,
    sum_money,
    weighted_amount,
    won_amount_for,
)
from .contract import C, schema
from .helpers import USERS


def _pipeline_summary(state: State, args: dict[str, Any]) -> Any:
    owner_id = C.read_optional_string(args, "ownerId")
    if owner_id is not None:
        USERS.require(state, owner_id)
    open_opps = [
        o
        for o in state["opportunities"].values()
        if o["status"] == "open" and (owner_id is None or o["ownerId"] == owner_id)
    ]
    by_stage = []
    for stage in stages_in_order(state):
        if stage["isClosed"]:
            continue
        in_stage = [o for o in open_opps if o["stageId"] == stage["id"]]
        by_stage.append(
            {
                "stageId": stage["id"],
                "stageName": stage["name"],
                "probability": stage["probability"],
                "count": len(in_stage),
                "amount": sum_money(o["amount"]["amount"] for o in in_stage),
                "weightedAmount": sum_money(weighted_amount(state, o)["amount"] for o in in_stage),
            }
        )
    return {
        "ownerId": owner_id,
        "openCount": len(open_opps),
        "totalAmount": sum_money(o["amount"]["amount"] for o in open_opps),
        "totalWeightedAmount": sum_money(weighted_amount(state, o)["amount"] for o in open_opps),
        "byStage": by_stage,
    }


pipeline_summary = kit.read_tool(
    name="pipeline_summary",
    description=(
        "Summarise the open pipeline, for the whole team or one owner: the number of open deals, "
        "their total amount and total probability-weighted amount (USD), and a breakdown for every "
        "open stage in pipeline order (count, amount, weighted amount; stages with no deals are "
        "listed with zeros). Read-only."
    ),
    input_schema=schema({"ownerId": C.string_prop("Only count deals owned by this user id (must exist).")}),
    run=_pipeline_summary,
)


def _forecast_report(state: State, args: dict[str, Any]) -> Any:
    owner_id = C.read_optional_string(args, "ownerId")
    closing_by = C.read_optional_date(args, "closingOnOrBefore")
    include_closed = C.read_boolean(args, "includeClosed", False)
    selected = [
        o
        for o in sorted(state["opportunities"].values(), key=lambda o: o["id"])
        if (o["status"] == "open" or (include_closed and o["status"] == "won"))
        and (owner_id is None or o["ownerId"] == owner_id)
        and (closing_by is None or o["expectedCloseDate"] <= closing_by)
    ]
    rows = [
        {
            "id": o["id"],
            "name": o["name"],
            "ownerId": o["ownerId"],
            "stageId": o["stageId"],
            "amount": o["amount"],
            "weightedAmount": weighted_amount(state, o),
            "expectedCloseDate": o["expectedCloseDate"],
        }
        for o in selected
    ]
    return {
        "ownerId": owner_id,
        "closingOnOrBefore": closing_by,
        "includeClosed": include_closed,
        "count": len(rows),
        "totalAmount": sum_money(r["amount"]["amount"] for r in rows),
        "weightedAmount": sum_money(r["weightedAmount"]["amount"] for r in rows),
        "opportunities": rows,
    }


forecast_report = kit.read_tool(
    name="forecast_report",
    description=(
        "Revenue forecast over the open opportunities (plus won ones when includeClosed is true; "
        "lost deals are never included), optionally for one owner and/or only deals expected to "
        "close on or before a date. Returns the count, totalAmount and weightedAmount (each deal's "
        "amount times its stage probability, summed; USD) and the deals themselves sorted by id. "
        "Read-only."
    ),
    input_schema=schema(
        {
            "ownerId": C.string_prop("Only deals owned by this user id."),
            "closingOnOrBefore": C.date_prop(
                "Only deals whose expected close date is on or before this date, YYYY-MM-DD."
            ),
            "includeClosed": C.boolean_prop(
                "Also include won deals (counted at 100%). Lost deals are never included.", default=False
            ),
        }
    ),
    run=_forecast_report,
)


def _rep_performance(state: State, args: dict[str, Any]) -> Any:
    active_only = C.read_boolean(args, "activeOnly", False)
    results = [
        {
            "userId": u["id"],
            "name": u["name"],
            "active": u["active"],
            "quota": u["quota"],
            "closedWon": won_amount_for(state, u["id"]),
            "openPipeline": open_pipeline_for(state, u["id"]),
            "quotaAttainmentPercent": quota_attainment_percent(state, u),
        }
        for u in sorted(state["users"].values(), key=lambda u: u["id"])
        if u["role"] == "rep" and (not active_only or u["active"])
    ]
    return {"activeOnly": active_only, "results": results}


rep_performance = kit.read_tool(
    name="rep_performance",
    description=(
        "Performance of every sales rep (role rep), sorted by user id: quota, closedWon (total of "
        "won deals), openPipeline (total of open deals) and quotaAttainmentPercent (closedWon as a "
        "percentage of quota, one decimal; null when the quota is zero). Deactivated reps are "
        "included unless activeOnly is true. Read-only."
    ),
    input_schema=schema(
        {"activeOnly": C.boolean_prop("When true, leave out deactivated reps.", default=False)}
    ),
    run=_rep_performance,
)


def _stale_opportunities(state: State, args: dict[str, Any]) -> Any:
    threshold = C.read_optional_number(args, "thresholdDays", integer=True, minimum=1, default=STALE_STAGE_DAYS)
    owner_id = C.read_optional_string(args, "ownerId")
    if owner_id is not None:
        USERS.require(state, owner_id)
    stale = [
        o
        for o in state["opportunities"].values()
        if is_stale(state, o, threshold) and (owner_id is None or o["ownerId"] == owner_id)  # type: ignore[arg-type]
    ]
    counts: dict[str, int] = {}
    for o in stale:
        counts[o["ownerId"]] = counts.get(o["ownerId"], 0) + 1
    count_by_owner = [
        {"userId": user_id, "name": USERS.field_of(state, user_id), "count": n}
        for user_id, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    rows = [
        {
            "id": o["id"],
            "name": o["name"],
            "ownerId": o["ownerId"],
            "ownerName": USERS.field_of(state, o["ownerId"]),
            "stageId": o["stageId"],
            "amount": o["amount"],
            "daysInStage": days_in_stage(state, o),
            "expectedCloseDate": o["expectedCloseDate"],
        }
        for o in stale
    ]
    rows.sort(key=lambda r: (-r["daysInStage"], r["id"]))
    return {
        "thresholdDays": threshold,
        "ownerId": owner_id,
        "count": len(rows),
        "totalAmount": sum_money(o["amount"]["amount"] for o in stale),
        "countByOwner": count_by_owner,
        "opportunities": rows,
    }


stale_opportunities = kit.read_tool(
    name="stale_opportunities",
    description=(
        "Find stalled deals: open opportunities that have stayed in their current stage for more "
        "than thresholdDays days (default 30), for the whole team or one owner. Returns the count, "
        "their total amount (USD), countByOwner (how many stalled deals each owner has, most first) "
        "and the deals sorted by days in stage, longest first. Read-only."
    ),
    input_schema=schema(
        {
            "thresholdDays": C.integer_prop(
                "A deal counts as stalled when it has been in its stage for more than this many days.",
                minimum=1,
                default=STALE_STAGE_DAYS,
            ),
            "ownerId": C.string_prop("Only deals owned by this user id (must exist)."),
        }
    ),
    run=_stale_opportunities,
)
