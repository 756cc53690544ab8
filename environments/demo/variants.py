"""The CRM variant generator: ``create_state(k)`` for an int ``k >= 0`` (docs/variants.md).

A variant is a whole new sales team and book of business built around the ids the tasks name:
LEAD-004 is a qualified lead of a company that is not yet a customer, USR-004 is a departed rep
who still owns open deals, USR-003 is an active rep, OPP-007 is an open deal of an active rep,
and USR-001 manages the team. Around them everything a policy must read changes: every name,
company, title, phone and e-mail; quotas and amounts; owners; which deals are open, won or lost
and in which stage; when each deal entered its stage (so who has the most stalled deals); close
dates; stage probabilities; how many accounts, contacts, leads, deals and activities exist.

Determinism: one ``random.Random(k)`` drives every draw, pools are tuples, nothing iterates a
set or reads the clock, so variant ``k`` is the same world, byte for byte, in every process.
Every call builds new dicts and lists (silo-format §1.2.1).

The generator builds worlds that meet every task's preconditions (``preconditions.py``) by
construction where it can: the top stalled-deal count is never tied at the threshold the
team's TASK-005 asks for, OPP-007's quoted amount differs from the signed figure TASK-003 gives,
at most one active rep has no won deal. What it cannot arrange cheaply (a tie in quota
attainment, by chance) the preconditions catch, and the environment moves to the next variant.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date
from typing import Any

from . import variant_pools as pools
from .scenario import task_parameters
from .state import State

__all__ = ["build_variant"]

NOW = "2026-03-16"
_NOW_ORDINAL = date.fromisoformat(NOW).toordinal()
#: ``NOW + n`` days as ``YYYY-MM-DD`` for n in [-1000, 400], by index: NOW..NOW+400 first, then
#: NOW-1000..NOW-1, so a negative offset indexes from the end. ``_day(n)`` is one C-level lookup.
_DATES = tuple(date.fromordinal(_NOW_ORDINAL + n).isoformat() for n in [*range(0, 401), *range(-1000, 0)])
_day = _DATES.__getitem__

_TIERS = ("enterprise", "mid_market", "smb")
_OPEN_STAGES = ("STG-001", "STG-002", "STG-003", "STG-004")
_ACTIVITY_TYPES = ("call", "email", "meeting", "note")
#: Stage names and, for the open stages, the probabilities a variant picks from (ascending).
_STAGES = (
    ("STG-001", "Prospecting", (5, 10, 15)),
    ("STG-002", "Discovery", (20, 25, 30)),
    ("STG-003", "Proposal", (40, 50, 60)),
    ("STG-004", "Negotiation", (65, 75, 85)),
)
#: Won deals per active rep: mostly one, sometimes none or two.
_WON_COUNTS = (0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2)
#: Other leads' statuses (LEAD-004 is always qualified; converted leads are made separately).
_LEAD_STATUSES = ("new", "new", "new", "working", "working", "working", "qualified", "disqualified", "disqualified")


def _draws(seed: int) -> tuple[Callable[[], float], Callable[[Any], Any], Callable[[int, int], int], Callable[[list[Any]], None]]:
    """``(random, pick, between, shuffle)`` over one ``random.Random(seed)``.

    They use its ``random()`` only: ``pick(seq)``, ``between(low, high)`` (inclusive) and the
    in-place Fisher-Yates ``shuffle`` are a few times faster than ``choice``/``randint``/
    ``shuffle``, which spend most of their time in ``_randbelow``; a variant reset builds a world.
    """
    r = random.Random(seed).random

    def pick(seq: Any) -> Any:
        return seq[int(r() * len(seq))]

    def between(low: int, high: int) -> int:
        return low + int(r() * (high - low + 1))

    def shuffle(items: list[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = int(r() * (i + 1))
            items[i], items[j] = items[j], items[i]

    return r, pick, between, shuffle


#: (name, lower-case name) of every first and last name a person can have.
_FIRSTS = tuple((first, first.lower()) for first, _ in pools.FIRST_NAMES)
_LASTS = tuple((last, last.lower()) for last in pools.LAST_NAMES)
#: Every (company word, name without suffix, website slug, industry).
_COMPANIES = tuple(
    (word, f"{word} {noun}", (word + noun).lower().replace(" ", ""), industry)
    for word in pools.COMPANY_WORDS
    for noun, industry in pools.SECTORS
)
_PHONES = tuple(f"+1-{area}-555-01{n:02d}" for area in pools.AREA_CODES for n in range(100))
_N_FIRSTS, _N_LASTS, _N_COMPANIES, _N_PHONES = len(_FIRSTS), len(_LASTS), len(_COMPANIES), len(_PHONES)
#: ``<role> <area>`` titles, plus the plain ones at about one in five.
_TITLES = tuple(f"{role} {area}" for role in pools.TITLE_ROLES for area in pools.TITLE_AREAS) + (
    pools.PLAIN_TITLES * 3
)
_N_TITLES = len(_TITLES)


def _ids(prefix: str, width: int = 3) -> tuple[str, ...]:
    """``<prefix>-000`` ... ``<prefix>-099``: ids by number, formatted once."""
    return tuple(f"{prefix}-{n:0{width}d}" for n in range(100))


_USR, _ACC, _CON, _LEAD, _OPP, _ACT = (_ids(p) for p in ("USR", "ACC", "CON", "LEAD", "OPP", "ACT"))


class _Namer:
    """Unique people, companies and phone numbers for one world. Picks index the pools with
    ``random()`` directly: this is the generator's hottest code."""

    def __init__(self, r: Callable[[], float]) -> None:
        self.random = r
        self.people: set[str] = set()
        self.user_names: list[str] = []
        self.words: set[str] = set()
        self.phones: set[str] = set()

    def person(self) -> tuple[str, str, str]:
        """``(first name, last name, e-mail local part)`` of someone not yet in this world."""
        r, people = self.random, self.people
        while True:
            first, first_lower = _FIRSTS[int(r() * _N_FIRSTS)]
            last, last_lower = _LASTS[int(r() * _N_LASTS)]
            local = f"{first_lower}.{last_lower}"
            if local not in people:
                people.add(local)
                return first, last, local

    def user(self) -> tuple[str, str, str]:
        """A person whose name is not inside another user's name, nor the other way round
        (answers are graded by case-insensitive substring)."""
        while True:
            person = self.person()
            full = f"{person[0]} {person[1]}".lower()
            if not any(full in other or other in full for other in self.user_names):
                self.user_names.append(full)
                return person

    def company(self) -> tuple[str, str, str, str]:
        """``(name, company word, website slug, industry)``; the company word is unique."""
        r, words = self.random, self.words
        while True:
            word, name, slug, industry = _COMPANIES[int(r() * _N_COMPANIES)]
            if word not in words:
                break
        words.add(word)
        if r() < 0.3:
            name = f"{name} {pools.COMPANY_SUFFIXES[int(r() * len(pools.COMPANY_SUFFIXES))]}"
        return name, word, slug, industry

    def phone(self) -> str:
        r, phones = self.random, self.phones
        while True:
            phone = _PHONES[int(r() * _N_PHONES)]
            if phone not in phones:
                phones.add(phone)
                return phone

    def title(self) -> str:
        return _TITLES[int(self.random() * _N_TITLES)]


def build_variant(variant: int) -> State:
    """Variant ``variant`` of the CRM world: a fresh ``State`` with the canonical keys in the
    canonical order.

    Raises:
        ValueError: ``variant`` is not an int >= 0 (a bool is refused).
    """
    if isinstance(variant, bool) or not isinstance(variant, int) or variant < 0:
        raise ValueError(f"variant must be an int >= 0 or None, not {variant!r}")
    chance, pick, between, shuffle = _draws(variant)
    namer = _Namer(chance)
    person, phone, title = namer.person, namer.phone, namer.title

    # --- users: a manager and five or six reps; USR-004 has left -----------------------------
    user_ids = list(_USR[1 : 7 + (chance() < 0.35)])
    users: dict[str, Any] = {}
    for uid in user_ids:
        first, last, local = namer.user()
        manager = uid == "USR-001"
        users[uid] = {
            "id": uid,
            "name": f"{first} {last}",
            "email": f"{local}@example.com",
            "role": "manager" if manager else "rep",
            "managerId": None if manager else "USR-001",
            "quota": {"amount": 0 if manager else between(15, 30) * 10000, "currency": "USD"},
            "active": uid != "USR-004",
        }
    reps = user_ids[1:]
    active_reps = [uid for uid in reps if uid != "USR-004"]
    team = {"now": NOW, "users": users}
    threshold = task_parameters("TASK-005", team)["thresholdDays"]
    cutoff = task_parameters("TASK-004", team)["closingOnOrBefore"]

    # --- accounts and their contacts ---------------------------------------------------------
    accounts: dict[str, Any] = {}
    contacts: dict[str, Any] = {}
    account_word: dict[str, str] = {}
    primary_of: dict[str, str] = {}
    owned_accounts: dict[str, list[str]] = {uid: [] for uid in reps}
    for n in range(1, between(8, 13) + 1):
        aid = _ACC[n]
        name, word, slug, industry = namer.company()
        owner = pick(reps)
        website = f"{slug}.example.com"
        accounts[aid] = {
            "id": aid,
            "name": name,
            "industry": industry,
            "tier": pick(_TIERS),
            "ownerId": owner,
            "website": website,
            "createdDate": _day(-between(150, 800)),
        }
        account_word[aid] = word
        owned_accounts[owner].append(aid)
        for j in range(2 if chance() < 0.3 else 1):
            cid = _CON[len(contacts) + 1]
            first, last, local = person()
            contacts[cid] = {
                "id": cid,
                "accountId": aid,
                "firstName": first,
                "lastName": last,
                "email": f"{local}@{website}",
                "phone": phone(),
                "title": title(),
                "isPrimary": j == 0,
            }
            if j == 0:
                primary_of[aid] = cid
    if chance() < 0.25:  # a contact not linked to any account yet
        cid = _CON[len(contacts) + 1]
        first, last, local = person()
        _, _, slug, _ = namer.company()
        contacts[cid] = {
            "id": cid,
            "accountId": None,
            "firstName": first,
            "lastName": last,
            "email": f"{local}@{slug}.example.com",
            "phone": phone(),
            "title": title(),
            "isPrimary": False,
        }
    account_ids = list(accounts)

    # --- which deals exist: (owner, status) per deal, then shuffled into id order ------------
    plan: list[tuple[str, str]] = []
    without_win = 0
    for uid in active_reps:
        won = pick(_WON_COUNTS)
        if won == 0:
            without_win += 1
            if without_win > 1:  # two reps at 0% would tie at the bottom of TASK-006
                won = 1
        plan += [(uid, "open")] * between(1, 3) + [(uid, "won")] * won
        if chance() < 0.3:
            plan.append((uid, "lost"))
    plan += [("USR-004", "open")] * between(1, 4)
    if chance() < 0.4:
        plan.append(("USR-004", "won"))
    if chance() < 0.3:
        plan.append(("USR-004", "lost"))
    shuffle(plan)
    if plan[6][0] == "USR-004" or plan[6][1] != "open":  # OPP-007: an active rep's open deal
        swap = pick([i for i, (uid, status) in enumerate(plan) if status == "open" and uid != "USR-004"])
        plan[6], plan[swap] = plan[swap], plan[6]

    # --- stalled deals at the team's threshold: one owner strictly ahead ---------------------
    open_of: dict[str, list[int]] = {}
    for i, (uid, status) in enumerate(plan):
        if status == "open":
            open_of.setdefault(uid, []).append(i)
    owners = list(open_of)
    contenders = [uid for uid in owners if len(open_of[uid]) >= 2] or owners
    top = pick(contenders)
    top_count = between(1, min(3, len(open_of[top])))
    stale: set[int] = set()
    for uid in owners:  # the plan is shuffled, so the first deals of an owner are a random few
        mine = open_of[uid]
        stale.update(mine[: top_count if uid == top else between(0, min(top_count - 1, len(mine)))])

    # --- the deals -----------------------------------------------------------------------------
    opportunities: dict[str, Any] = {}
    created_offset: dict[str, int] = {}
    products_used: dict[str, list[str]] = {}
    for i, (owner, status) in enumerate(plan):
        oid = _OPP[i + 1]
        mine = owned_accounts[owner]
        aid = pick(mine) if mine and chance() < 0.75 else pick(account_ids)
        used = products_used.setdefault(aid, [])
        while True:
            product = pick(pools.PRODUCTS)
            if product not in used:
                used.append(product)
                break
        amount = between(4, 59) * 5000
        if status == "open":
            days = between(threshold + 1, threshold + 60) if i in stale else between(0, threshold - 1)
            stage_id = pick(_OPEN_STAGES)
            entered = _day(-days)
            created_offset[oid] = -days - between(0, 150)
            expected = _day(between(-10, 260))
            closed = None
        else:
            days = between(1, 150)
            stage_id = "STG-005" if status == "won" else "STG-006"
            entered = expected = closed = _day(-days)
            created_offset[oid] = -days - between(20, 200)
        opportunities[oid] = {
            "id": oid,
            "name": f"{account_word[aid]} {product}",
            "accountId": aid,
            "primaryContactId": primary_of[aid],
            "ownerId": owner,
            "stageId": stage_id,
            "amount": {"amount": amount, "currency": "USD"},
            "expectedCloseDate": expected,
            "createdDate": _day(created_offset[oid]),
            "stageEnteredDate": entered,
            "status": status,
            "closedDate": closed,
            "lostReason": pick(pools.LOST_REASONS) if status == "lost" else None,
            "sourceLeadId": None,
        }
    open_ids = [oid for oid, (_, status) in zip(opportunities, plan, strict=True) if status == "open"]
    if not any(opportunities[oid]["expectedCloseDate"] <= cutoff for oid in open_ids):
        # TASK-004 needs a deal under its cut-off: move one close date in
        opportunities[pick(open_ids)]["expectedCloseDate"] = _day(between(-5, 15))
    opp_ids = list(opportunities)
    deal = opportunities["OPP-007"]
    signed = task_parameters("TASK-003", {"now": NOW, "opportunities": opportunities, "accounts": accounts})
    quoted = signed["signedAmount"] + pick((-1, 1)) * between(1, 20) * 1000
    deal["amount"] = {"amount": quoted if quoted > 0 else signed["signedAmount"] + 5000, "currency": "USD"}

    # --- leads: LEAD-004 qualified at a new company; some leads already converted ------------
    lead_ids = list(_LEAD[1 : between(7, 12) + 1])
    others = [lid for lid in lead_ids if lid != "LEAD-004"]
    shuffle(others)
    converted: dict[str, str] = {}  # lead id -> opportunity id
    seen_accounts: list[str] = []
    for _ in range(pick((0, 1, 1, 2))):
        oid = pick(opp_ids)
        if opportunities[oid]["accountId"] not in seen_accounts:
            seen_accounts.append(opportunities[oid]["accountId"])
            converted[others.pop()] = oid
    leads: dict[str, Any] = {}
    for lid in lead_ids:
        if lid in converted:
            opp = opportunities[converted[lid]]
            opp["sourceLeadId"] = lid
            contact = contacts[opp["primaryContactId"]]
            touched = created_offset[opp["id"]]
            leads[lid] = {
                "id": lid,
                "firstName": contact["firstName"],
                "lastName": contact["lastName"],
                "company": accounts[opp["accountId"]]["name"],
                "email": contact["email"],
                "phone": contact["phone"],
                "title": contact["title"],
                "source": pick(pools.LEAD_SOURCES),
                "status": "converted",
                "ownerId": opp["ownerId"],
                "createdDate": _day(touched - between(10, 120)),
                "lastContactedDate": _day(touched),
                "disqualifyReason": None,
                "convertedAccountId": opp["accountId"],
                "convertedContactId": contact["id"],
                "convertedOpportunityId": opp["id"],
            }
            continue
        first, last, local = person()
        name, _, slug, _ = namer.company()
        status = "qualified" if lid == "LEAD-004" else pick(_LEAD_STATUSES)
        age = between(15, 120) if lid == "LEAD-004" else between(1, 200)
        touched_at = None if status == "new" else _day(-between(0, min(age, 30)))
        leads[lid] = {
            "id": lid,
            "firstName": first,
            "lastName": last,
            "company": name,
            "email": f"{local}@{slug}.example.com",
            "phone": None if status == "disqualified" and chance() < 0.5 else phone(),
            "title": title(),
            "source": pick(pools.LEAD_SOURCES),
            "status": status,
            "ownerId": pick(active_reps),
            "createdDate": _day(-age),
            "lastContactedDate": touched_at,
            "disqualifyReason": pick(pools.DISQUALIFY_REASONS) if status == "disqualified" else None,
            "convertedAccountId": None,
            "convertedContactId": None,
            "convertedOpportunityId": None,
        }

    # --- activities on deals, leads and accounts ---------------------------------------------
    departed = users["USR-004"]["name"]
    activities: dict[str, Any] = {}
    for n in range(1, between(6, 12) + 1):
        aid = _ACT[n]
        roll = chance()
        if roll < 0.55:
            kind, target = "opportunity", opportunities[pick(opp_ids)]
            what = target["name"]
        elif roll < 0.8:
            kind, target = "lead", leads[pick(lead_ids)]
            what = f"{target['firstName']} {target['lastName']} at {target['company']}"
        else:
            kind, target = "account", accounts[pick(account_ids)]
            what = target["name"]
        activity_type = pick(_ACTIVITY_TYPES)
        owner = target["ownerId"]
        subject = pick(pools.ACTIVITY_SUBJECTS[activity_type]).format(what=what)
        notes = pick(pools.ACTIVITY_NOTES)
        if kind == "account" and owner == "USR-004":
            activity_type, owner, subject = "note", "USR-001", "Account handover pending"
            notes = f"{departed} has left the company, so this account needs a new owner."
        if activity_type == "note":
            due, done = None, _day(-between(0, 45))
        else:
            offset = between(-45, 14)
            due = _day(offset)
            done = due if offset <= 0 and chance() < 0.7 else None
        activities[aid] = {
            "id": aid,
            "type": activity_type,
            "subject": subject,
            "ownerId": owner,
            "relatedTo": {"type": kind, "id": target["id"]},
            "dueDate": due,
            "completedDate": done,
            "notes": notes,
        }

    stages: dict[str, Any] = {}
    for order, (sid, name, choices) in enumerate(_STAGES, start=1):
        stages[sid] = {"id": sid, "name": name, "order": order, "probability": pick(choices), "isClosed": False}
    stages["STG-005"] = {"id": "STG-005", "name": "Closed Won", "order": 5, "probability": 100, "isClosed": True}
    stages["STG-006"] = {"id": "STG-006", "name": "Closed Lost", "order": 6, "probability": 0, "isClosed": True}

    return {
        "now": NOW,
        "users": users,
        "accounts": accounts,
        "contacts": contacts,
        "leads": leads,
        "opportunities": opportunities,
        "activities": activities,
        "stages": stages,
        "auditLog": [],
        "sequences": {
            "ACC": len(accounts),
            "CON": len(contacts),
            "LEAD": len(leads),
            "OPP": len(opportunities),
            "ACT": len(activities),
            "AUD": 0,
        },
    }
