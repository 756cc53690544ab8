"""Account tools: the companies the team sells to."""

from __future__ import annotations

from typing import Any

from silo_gym import kit

from ..state import State
from .contract import C
from .helpers import (
    ACCOUNT,
    ACCOUNTS,
    CONTACTS,
    OPPORTUNITIES,
    account_summary,
    assert_assignable,
    contact_summary,
    opportunity_summary,
)

TIERS = ("enterprise", "mid_market", "smb")


@ACCOUNT.list
def list_accounts() -> dict[str, kit.Filter]:
    """List customer accounts (companies), sorted by id, one page at a time, optionally filtered by owner,
    tier or industry. Each entry gives id, name, industry, tier, ownerId, ownerName, website and
    createdDate. Read-only."""
    return {
        "ownerId": kit.Filter(kit.String("Only accounts owned by this user id."), link="ownerId"),
        "tier": kit.Filter(kit.Enum(TIERS, "Only accounts of this size tier."), field="tier"),
        "industry": kit.Filter(
            kit.String("Only accounts whose industry contains this text (case-insensitive)."),
            field="industry",
            match="contains",
        ),
    }


@ACCOUNT.list
def search_accounts() -> dict[str, kit.Filter]:
    """Find accounts whose id, name, industry or website contains the query text (case-insensitive). Returns a
    page of account summaries sorted by id. Read-only."""
    return {
        "query": kit.search_filter(
            "Text to look for, for example part of a company name.",
            lambda s, a: (a["id"], a["name"], a["industry"], a["website"]),
        )
    }


@ACCOUNT.get("The account's id, for example ACC-001.")
def get_account(state: State, account: kit.Record) -> Any:
    """Get one account by id, together with all of its contacts and all of its opportunities (open, won and
    lost), each list sorted by id. Read-only."""
    out = account_summary(state, account)
    out["contacts"] = [contact_summary(state, c) for c in CONTACTS.linked(state, "accountId", account["id"])]
    out["opportunities"] = [
        opportunity_summary(state, o) for o in OPPORTUNITIES.linked(state, "accountId", account["id"])
    ]
    return out


@ACCOUNT.create(
    {
        "name": kit.String("Company name.", required=True),
        "industry": kit.String("Industry the company works in, for example Software.", required=True),
        "tier": kit.Enum(TIERS, "Size tier of the company.", required=True),
        "ownerId": kit.String("Id of the active user who will own the account.", required=True),
        "website": kit.String("Company website domain, for example acme.example.com. Optional."),
    },
)
def create_account(state: State, acting: kit.Record, args: kit.Args) -> Any:
    """Create a new customer account (company). The account gets the next ACC- id and today's date as
    createdDate. The owner must be an active user. Writes one audit entry. Returns {"created": <account
    summary>}."""
    owner_id = C.read_string(args, "ownerId")
    assert_assignable(state, owner_id)
    account = {
        "id": ACCOUNTS.new_id(state),
        "name": C.read_string(args, "name"),
        "industry": C.read_string(args, "industry"),
        "tier": C.read_enum(args, "tier", TIERS),
        "ownerId": owner_id,
        "website": C.read_optional_string(args, "website"),
        "createdDate": state["now"],
    }
    return account, f"Created {account['name']}."


@ACCOUNT.change(
    "Id of the account to change.",
    {
        "industry": kit.String("New industry."),
        "tier": kit.Enum(TIERS, "New size tier."),
        "website": kit.String("New website domain."),
        "ownerId": kit.String("Id of the active user who should own the account from now on."),
    },
)
def update_account(state: State, acting: kit.Record, account: kit.Record, args: kit.Args) -> str:
    """Change an account's industry, tier, website or owner. Only the fields you pass are changed; the name
    cannot be changed. A new owner must be an active user. Writes one audit entry. Returns {"updated":
    <account summary>}."""
    industry = C.read_optional_string(args, "industry")
    tier = C.read_optional_enum(args, "tier", TIERS)
    website = C.read_optional_string(args, "website")
    owner_id = C.read_optional_string(args, "ownerId")
    if owner_id is not None:
        assert_assignable(state, owner_id)
    kit.set_given(account, {"industry": industry, "tier": tier, "website": website})
    if owner_id is not None:
        ACCOUNTS.set_link(state, account, "ownerId", owner_id)
    return f"Updated {account['name']}."
