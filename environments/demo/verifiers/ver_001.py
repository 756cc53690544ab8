"""VER-001 (TASK-001): LEAD-004 converted into a fresh account, a contact and a deal at the amount
and close date the task gives (demo-crm.md §9.2): $140,000 closing 2026-06-30 in the canonical
world, a variant's own figures otherwise (``scenario.task_parameters``)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from .shared import show

LEAD_ID = "LEAD-004"


def _record(state: Any, collection: str, record_id: Any) -> dict | None:
    """The record ``state[collection][record_id]``, or ``None`` when the id is null or dangles."""
    if not isinstance(record_id, str):
        return None
    records = state.get(collection) if isinstance(state, dict) else None
    found = records.get(record_id) if isinstance(records, dict) else None
    return found if isinstance(found, dict) else None


def _amount_of(opp: dict) -> Any:
    money = opp.get("amount")
    return money.get("amount") if isinstance(money, dict) else None


def _check(final: Any, initial: Any, context: Any) -> list:
    terms = task_parameters("TASK-001", initial)  # the task's own figures, read from its world
    want_amount, want_close = terms["amount"], terms["closeDate"]
    lead = _record(final, "leads", LEAD_ID)
    account_id = lead.get("convertedAccountId") if lead else None
    contact_id = lead.get("convertedContactId") if lead else None
    opp_id = lead.get("convertedOpportunityId") if lead else None
    account = _record(final, "accounts", account_id)
    contact = _record(final, "contacts", contact_id)
    opp = _record(final, "opportunities", opp_id)

    # 1. The lead is converted.
    status = lead.get("status") if lead else None
    status_detail = (
        f"{LEAD_ID} status is {show(status)}; expected converted"
        if lead
        else f"{LEAD_ID} is missing from the final state"
    )

    # 2. The converted opportunity exists.
    if opp:
        opp_detail = f"convertedOpportunityId is {opp_id}"
    elif opp_id is not None:
        opp_detail = f"convertedOpportunityId is {show(opp_id)}, which matches no opportunity"
    else:
        opp_detail = "convertedOpportunityId is null"

    # 3. Amount.
    amount = _amount_of(opp) if opp else None
    amount_ok = (
        opp is not None
        and isinstance(amount, int | float)
        and not isinstance(amount, bool)
        and amount == want_amount
    )
    amount_detail = (
        f"amount is {show(amount)}; expected {show(want_amount)}"
        if opp
        else f"no converted opportunity; expected an amount of {show(want_amount)}"
    )

    # 4. Close date.
    close = opp.get("expectedCloseDate") if opp else None
    close_detail = (
        f"expectedCloseDate is {show(close)}; expected {want_close}"
        if opp
        else f"no converted opportunity; expected a close date of {want_close}"
    )

    # 5. Source lead.
    source = opp.get("sourceLeadId") if opp else None
    source_detail = (
        f"sourceLeadId is {show(source)}; expected {LEAD_ID}"
        if opp
        else f"no converted opportunity; expected sourceLeadId {LEAD_ID}"
    )

    # 6. Contact belongs to the converted account.
    contact_ok = contact is not None and account is not None and contact.get("accountId") == account.get("id")
    account_text = (
        f"converted account is {account_id}"
        if account
        else f"converted account {show(account_id)} was not found"
        if account_id is not None
        else "convertedAccountId is null"
    )
    if contact:
        contact_text = f"contact {contact_id} points to account {show(contact.get('accountId'))}"
    elif contact_id is not None:
        contact_text = f"converted contact {show(contact_id)} was not found"
    else:
        contact_text = "convertedContactId is null"
    contact_detail = f"{contact_text}; {account_text}"

    # 7. Opportunity is on the converted account.
    opp_account_ok = opp is not None and account is not None and opp.get("accountId") == account.get("id")
    opp_account_text = (
        f"opportunity {opp_id} is on account {show(opp.get('accountId'))}"
        if opp
        else "no converted opportunity"
    )
    opp_account_detail = f"{opp_account_text}; {account_text}"

    # 8. The account is new (not in the initial state).
    initial_accounts = initial.get("accounts") if isinstance(initial, dict) else None
    initial_accounts = initial_accounts if isinstance(initial_accounts, dict) else {}
    existed = isinstance(account_id, str) and account_id in initial_accounts
    fresh_ok = account_id is not None and not existed
    fresh_detail = f"convertedAccountId is {show(account_id)}; in the initial state: {show(existed)}"

    # 9. The new deal is open.
    opp_status = opp.get("status") if opp else None
    open_detail = (
        f"opportunity status is {show(opp_status)}; expected open" if opp else "no converted opportunity"
    )

    # 10. The new deal is owned by the lead's initial owner.
    initial_lead = _record(initial, "leads", LEAD_ID)
    expected_owner = initial_lead.get("ownerId") if initial_lead else None
    owner = opp.get("ownerId") if opp else None
    owner_ok = opp is not None and expected_owner is not None and owner == expected_owner
    owner_detail = (
        f"opportunity owner is {show(owner)}; expected {show(expected_owner)}"
        if opp
        else f"no converted opportunity; expected owner {show(expected_owner)}"
    )

    return [
        check(f"{LEAD_ID} is converted", lead is not None and status == "converted", status_detail),
        check("The conversion created an opportunity", opp is not None, opp_detail),
        check(f"The new opportunity is worth {show(want_amount)}", amount_ok, amount_detail),
        check(
            f"The new opportunity is expected to close on {want_close}",
            opp is not None and close == want_close,
            close_detail,
        ),
        check(
            f"The new opportunity records {LEAD_ID} as its source",
            opp is not None and source == LEAD_ID,
            source_detail,
        ),
        check("The new contact belongs to the converted account", contact_ok, contact_detail),
        check("The new opportunity sits on the converted account", opp_account_ok, opp_account_detail),
        optional("The conversion created a fresh account", fresh_ok, fresh_detail),
        optional("The new opportunity is open", opp is not None and opp_status == "open", open_detail),
        optional("The new opportunity keeps the lead's owner", owner_ok, owner_detail),
    ]


ver_001 = define_verifier(
    id="VER-001",
    task_id="TASK-001",
    name="Qualified lead LEAD-004 converted with a new account and deal",
    check=_check,
)
