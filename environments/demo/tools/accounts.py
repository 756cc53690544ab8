"""Account tools: the companies the team sells to."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State, next_id
from .contract import C, actor_prop, schema
from .helpers import (
    ACCOUNTS,
    account_summary,
    actor,
    assert_assignable,
    audit,
    contact_summary,
    opportunity_summary,
)
from .index import linked_ids, relinked

TIERS = ("enterprise", "mid_market", "smb")


list_accounts = kit.list_tool(
    name="list_accounts",
    description=(
        "List customer accounts (companies), sorted by id, one page at a time, optionally filtered "
        "by owner, tier or industry. Each entry gives id, name, industry, tier, ownerId, ownerName, "
        "website and createdDate. Read-only."
    ),
    collection=ACCOUNTS,
    summary=account_summary,
    filters={
        "ownerId": kit.Filter(kit.String("Only accounts owned by this user id."), link="ownerId"),
        "tier": kit.Filter(kit.Enum(TIERS, "Only accounts of this size tier."), field="tier"),
        "industry": kit.Filter(
            kit.String("Only accounts whose industry contains this text (case-insensitive)."),
            field="industry",
            match="contains",
        ),
    },
    contract=C,
)


search_accounts = kit.list_tool(
    name="search_accounts",
    description=(
        "Find accounts whose id, name, industry or website contains the query text "
        "(case-insensitive). Returns a page of account summaries sorted by id. Read-only."
    ),
    collection=ACCOUNTS,
    summary=account_summary,
    filters={"query": kit.search_filter(
        "Text to look for, for example part of a company name.", lambda s, a: (a["id"], a["name"], a["industry"], a["website"])
    )},
    contract=C,
)


def _get_account(state: State, args: dict[str, Any]) -> Any:
    account = ACCOUNTS.require(state, C.read_string(args, "accountId"))
    out = account_summary(state, account)
    contacts, opportunities = state["contacts"], state["opportunities"]
    out["contacts"] = [
        contact_summary(state, contacts[i]) for i in sorted(linked_ids(contacts, "accountId", account["id"]))
    ]
    out["opportunities"] = [
        opportunity_summary(state, opportunities[i])
        for i in sorted(linked_ids(opportunities, "accountId", account["id"]))
    ]
    return out


get_account = kit.read_tool(
    name="get_account",
    description=(
        "Get one account by id, together with all of its contacts and all of its opportunities "
        "(open, won and lost), each list sorted by id. Read-only."
    ),
    input_schema=schema(
        {"accountId": C.string_prop("The account's id, for example ACC-001.")}, required=["accountId"]
    ),
    run=_get_account,
)


def _create_account(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    account_id = next_id(state, "ACC")
    account = {
        "id": account_id,
        "name": C.read_string(args, "name"),
        "industry": C.read_string(args, "industry"),
        "tier": C.read_enum(args, "tier", TIERS),
        "ownerId": owner_id,
        "website": C.read_optional_string(args, "website"),
        "createdDate": state["now"],
    }
    state["accounts"][account_id] = account
    audit(state, acting, "create_account", "account", account_id, f"Created {account['name']}.")
    return {"created": account_summary(state, account)}


create_account = kit.write_tool(
    name="create_account",
    description=(
        "Create a new customer account (company). The account gets the next ACC- id and today's "
        "date as createdDate. The owner must be an active user. Writes one audit entry. Returns "
        '{"created": <account summary>}.'
    ),
    input_schema=schema(
        {
            "name": C.string_prop("Company name."),
            "industry": C.string_prop("Industry the company works in, for example Software."),
            "tier": C.enum_prop(TIERS, "Size tier of the company."),
            "ownerId": C.string_prop("Id of the active user who will own the account."),
            "website": C.string_prop("Company website domain, for example acme.example.com. Optional."),
            "actorUserId": actor_prop(),
        },
        required=["name", "industry", "tier", "ownerId", "actorUserId"],
    ),
    run=_create_account,
)


def _update_account(state: State, args: dict[str, Any]) -> Any:
    acting = actor(state, args)
    account = ACCOUNTS.require(state, C.read_string(args, "accountId"))
    industry = C.read_optional_string(args, "industry")
    tier = C.read_optional_enum(args, "tier", TIERS)
    website = C.read_optional_string(args, "website")
    owner_id = C.read_optional_string(args, "ownerId")
    if owner_id is not None:
        assert_assignable(state, owner_id)
    if industry is not None:
        account["industry"] = industry
    if tier is not None:
        account["tier"] = tier
    if website is not None:
        account["website"] = website
    if owner_id is not None:
        old_owner_id = account["ownerId"]
        account["ownerId"] = owner_id
        relinked(state["accounts"], account["id"], "ownerId", old_owner_id)
    audit(state, acting, "update_account", "account", account["id"], f"Updated {account['name']}.")
    return {"updated": account_summary(state, account)}


update_account = kit.write_tool(
    name="update_account",
    description=(
        "Change an account's industry, tier, website or owner. Only the fields you pass are "
        "changed; the name cannot be changed. A new owner must be an active user. Writes one audit "
        'entry. Returns {"updated": <account summary>}.'
    ),
    input_schema=schema(
        {
            "accountId": C.string_prop("Id of the account to change."),
            "industry": C.string_prop("New industry."),
            "tier": C.enum_prop(TIERS, "New size tier."),
            "website": C.string_prop("New website domain."),
            "ownerId": C.string_prop("Id of the active user who should own the account from now on."),
            "actorUserId": actor_prop(),
        },
        required=["accountId", "actorUserId"],
    ),
    run=_update_account,
)
