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
from datetime import date
from typing import Any

from . import variant_pools as pools
from .scenario import task_parameters
from .state import State

__all__ = ["build_variant"]

NOW = "2026-03-16"
_NOW_ORDINAL = date.fromisoformat(NOW).toordinal()
_FIRST_DAY = -1000
_LAST_DAY = 400
#: ISO dates from NOW-1000 to NOW+400 days; ``_day(n)`` is a table lookup, not date arithmetic.
_DATES = tuple(date.fromordinal(_NOW_ORDINAL + n).isoformat() for n in range(_FIRST_DAY, _LAST_DAY + 1))

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


def _day(offset: int) -> str:
    """``NOW + offset`` days as ``YYYY-MM-DD``."""
    return _DATES[offset - _FIRST_DAY]


def _money(amount: int) -> dict[str, Any]:
    return {"amount": amount, "currency": "USD"}


class _Draw:
    """Draws from one ``random.Random(k)``, through its ``random()`` only: ``pick``, ``between``
    and ``shuffle`` are a few times faster than ``choice``/``randint``/``shuffle`` (which spend
    most of their time in ``_randbelow``), and a variant is built on every variant reset."""

    __slots__ = ("random",)

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed).random

    def pick(self, seq: Any) -> Any:
        return seq[int(self.random() * len(seq))]

    def between(self, low: int, high: int) -> int:
        """An int in ``[low, high]``."""
        return low + int(self.random() * (high - low + 1))

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates, in place."""
        r = self.random
        for i in range(len(items) - 1, 0, -1):
            j = int(r() * (i + 1))
            items[i], items[j] = items[j], items[i]

    def sample(self, items: list[Any], k: int) -> list[Any]:
        copy = list(items)
        self.shuffle(copy)
        return copy[:k]


#: Every (first, last, e-mail local part) a person can have; one pick draws a person.
_PEOPLE = tuple(
    (first, last, f"{first.lower()}.{last.lower()}") for first, _ in pools.FIRST_NAMES for last in pools.LAST_NAMES
)
#: Every (company word, name without suffix, website slug, industry).
_COMPANIES = tuple(
    (word, f"{word} {noun}", (word + noun).lower().replace(" ", ""), industry)
    for word in pools.COMPANY_WORDS
    for noun, industry in pools.SECTORS
)
_PHONES = tuple(f"+1-{area}-555-01{n:02d}" for area in pools.AREA_CODES for n in range(100))
#: ``<role> <area>`` titles, plus the plain ones at about one in five.
_TITLES = tuple(f"{role} {area}" for role in pools.TITLE_ROLES for area in pools.TITLE_AREAS) + (
    pools.PLAIN_TITLES * 3
)


class _Namer:
    """Unique people, companies and phone numbers for one world."""

    def __init__(self, rng: _Draw) -> None:
        self.rng = rng
        self.people: set[str] = set()
        self.user_names: list[str] = []
        self.words: set[str] = set()
        self.phones: set[str] = set()

    def person(self) -> tuple[str, str, str]:
        """``(first name, last name, e-mail local part)`` of someone not yet in this world."""
        pick = self.rng.pick
        while True:
            person = pick(_PEOPLE)
            if person[2] not in self.people:
                self.people.add(person[2])
                return person

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
        rng = self.rng
        while True:
            word, name, slug, industry = rng.pick(_COMPANIES)
            if word not in self.words:
                break
        self.words.add(word)
        if rng.random() < 0.3:
            name = f"{name} {rng.pick(pools.COMPANY_SUFFIXES)}"
        return name, word, slug, industry

    def phone(self) -> str:
        pick = self.rng.pick
        while True:
            phone = pick(_PHONES)
            if phone not in self.phones:
                self.phones.add(phone)
                return phone

    def title(self) -> str:
        return self.rng.pick(_TITLES)


def build_variant(variant: int) -> State:
    """Variant ``variant`` of the CRM world: a fresh ``State`` with the canonical keys in the
    canonical order.

    Raises:
        ValueError: ``variant`` is not an int >= 0 (a bool is refused).
    """
    if isinstance(variant, bool) or not isinstance(variant, int) or variant < 0:
        raise ValueError(f"variant must be an int >= 0 or None, not {variant!r}")
    rng = _Draw(variant)
    namer = _Namer(rng)

    # --- users: a manager and five or six reps; USR-004 has left -----------------------------
    user_ids = [f"USR-{n:03d}" for n in range(1, 7 + (rng.random() < 0.35))]
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
            "quota": _money(0 if manager else rng.between(15, 30) * 10000),
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
    for n in range(1, rng.between(9, 14) + 1):
        aid = f"ACC-{n:03d}"
        name, word, slug, industry = namer.company()
        owner = rng.pick(reps)
        website = f"{slug}.example.com"
        accounts[aid] = {
            "id": aid,
            "name": name,
            "industry": industry,
            "tier": rng.pick(_TIERS),
            "ownerId": owner,
            "website": website,
            "createdDate": _day(-rng.between(150, 800)),
        }
        account_word[aid] = word
        owned_accounts[owner].append(aid)
        for j in range(2 if rng.random() < 0.4 else 1):
            cid = f"CON-{len(contacts) + 1:03d}"
            first, last, local = namer.person()
            contacts[cid] = {
                "id": cid,
                "accountId": aid,
                "firstName": first,
                "lastName": last,
                "email": f"{local}@{website}",
                "phone": namer.phone(),
                "title": namer.title(),
                "isPrimary": j == 0,
            }
            if j == 0:
                primary_of[aid] = cid
    if rng.random() < 0.25:  # a contact not linked to any account yet
        cid = f"CON-{len(contacts) + 1:03d}"
        first, last, local = namer.person()
        _, _, slug, _ = namer.company()
        contacts[cid] = {
            "id": cid,
            "accountId": None,
            "firstName": first,
            "lastName": last,
            "email": f"{local}@{slug}.example.com",
            "phone": namer.phone(),
            "title": namer.title(),
            "isPrimary": False,
        }
    account_ids = list(accounts)

    # --- which deals exist: (owner, status) per deal, then shuffled into id order ------------
    plan: list[tuple[str, str]] = []
    without_win = 0
    for uid in active_reps:
        won = rng.pick(_WON_COUNTS)
        if won == 0:
            without_win += 1
            if without_win > 1:  # two reps at 0% would tie at the bottom of TASK-006
                won = 1
        plan += [(uid, "open")] * rng.between(1, 4) + [(uid, "won")] * won
        if rng.random() < 0.3:
            plan.append((uid, "lost"))
    plan += [("USR-004", "open")] * rng.between(1, 4)
    if rng.random() < 0.4:
        plan.append(("USR-004", "won"))
    if rng.random() < 0.3:
        plan.append(("USR-004", "lost"))
    rng.shuffle(plan)
    if plan[6][0] == "USR-004" or plan[6][1] != "open":  # OPP-007: an active rep's open deal
        swap = rng.pick([i for i, (uid, status) in enumerate(plan) if status == "open" and uid != "USR-004"])
        plan[6], plan[swap] = plan[swap], plan[6]

    # --- stalled deals at the team's threshold: one owner strictly ahead ---------------------
    open_of: dict[str, list[int]] = {}
    for i, (uid, status) in enumerate(plan):
        if status == "open":
            open_of.setdefault(uid, []).append(i)
    owners = list(open_of)
    contenders = [uid for uid in owners if len(open_of[uid]) >= 2] or owners
    top = rng.pick(contenders)
    top_count = rng.between(1, min(3, len(open_of[top])))
    stale: set[int] = set(rng.sample(open_of[top], top_count))
    for uid in owners:
        if uid != top:
            stale.update(rng.sample(open_of[uid], rng.between(0, min(top_count - 1, len(open_of[uid])))))

    # --- the deals -----------------------------------------------------------------------------
    opportunities: dict[str, Any] = {}
    created_offset: dict[str, int] = {}
    products_used: dict[str, list[str]] = {}
    for i, (owner, status) in enumerate(plan):
        oid = f"OPP-{i + 1:03d}"
        mine = owned_accounts[owner]
        aid = rng.pick(mine) if mine and rng.random() < 0.75 else rng.pick(account_ids)
        used = products_used.setdefault(aid, [])
        while True:
            product = rng.pick(pools.PRODUCTS)
            if product not in used:
                used.append(product)
                break
        amount = rng.between(4, 59) * 5000
        if status == "open":
            days = rng.between(threshold + 1, threshold + 60) if i in stale else rng.between(0, threshold - 1)
            stage_id = rng.pick(_OPEN_STAGES)
            entered = _day(-days)
            created_offset[oid] = -days - rng.between(0, 150)
            expected = _day(rng.between(-10, 170))
            closed = None
        else:
            days = rng.between(1, 150)
            stage_id = "STG-005" if status == "won" else "STG-006"
            entered = expected = closed = _day(-days)
            created_offset[oid] = -days - rng.between(20, 200)
        opportunities[oid] = {
            "id": oid,
            "name": f"{account_word[aid]} {product}",
            "accountId": aid,
            "primaryContactId": primary_of[aid],
            "ownerId": owner,
            "stageId": stage_id,
            "amount": _money(amount),
            "expectedCloseDate": expected,
            "createdDate": _day(created_offset[oid]),
            "stageEnteredDate": entered,
            "status": status,
            "closedDate": closed,
            "lostReason": rng.pick(pools.LOST_REASONS) if status == "lost" else None,
            "sourceLeadId": None,
        }
    open_ids = [oid for oid, (_, status) in zip(opportunities, plan, strict=True) if status == "open"]
    if not any(opportunities[oid]["expectedCloseDate"] <= cutoff for oid in open_ids):
        # TASK-004 needs a deal under its cut-off: move one close date in
        opportunities[rng.pick(open_ids)]["expectedCloseDate"] = _day(rng.between(-5, 15))
    deal = opportunities["OPP-007"]
    signed = task_parameters("TASK-003", {"now": NOW, "opportunities": opportunities, "accounts": accounts})
    quoted = signed["signedAmount"] + rng.pick((-1, 1)) * rng.between(1, 20) * 1000
    deal["amount"] = _money(quoted if quoted > 0 else signed["signedAmount"] + 5000)

    # --- leads: LEAD-004 qualified at a new company; some leads already converted ------------
    lead_ids = [f"LEAD-{n:03d}" for n in range(1, rng.between(8, 13) + 1)]
    others = [lid for lid in lead_ids if lid != "LEAD-004"]
    rng.shuffle(others)
    converted: dict[str, str] = {}  # lead id -> opportunity id
    candidates = list(opportunities)
    rng.shuffle(candidates)
    seen_accounts: list[str] = []
    for oid in candidates[: rng.pick((0, 1, 1, 2))]:
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
                "source": rng.pick(pools.LEAD_SOURCES),
                "status": "converted",
                "ownerId": opp["ownerId"],
                "createdDate": _day(touched - rng.between(10, 120)),
                "lastContactedDate": _day(touched),
                "disqualifyReason": None,
                "convertedAccountId": opp["accountId"],
                "convertedContactId": contact["id"],
                "convertedOpportunityId": opp["id"],
            }
            continue
        first, last, local = namer.person()
        name, _, slug, _ = namer.company()
        status = "qualified" if lid == "LEAD-004" else rng.pick(_LEAD_STATUSES)
        age = rng.between(15, 120) if lid == "LEAD-004" else rng.between(1, 200)
        touched_at = None if status == "new" else _day(-rng.between(0, min(age, 30)))
        leads[lid] = {
            "id": lid,
            "firstName": first,
            "lastName": last,
            "company": name,
            "email": f"{local}@{slug}.example.com",
            "phone": None if status == "disqualified" and rng.random() < 0.5 else namer.phone(),
            "title": namer.title(),
            "source": rng.pick(pools.LEAD_SOURCES),
            "status": status,
            "ownerId": rng.pick(active_reps),
            "createdDate": _day(-age),
            "lastContactedDate": touched_at,
            "disqualifyReason": rng.pick(pools.DISQUALIFY_REASONS) if status == "disqualified" else None,
            "convertedAccountId": None,
            "convertedContactId": None,
            "convertedOpportunityId": None,
        }

    # --- activities on deals, leads and accounts ---------------------------------------------
    departed = users["USR-004"]["name"]
    opp_ids = list(opportunities)
    activities: dict[str, Any] = {}
    for n in range(1, rng.between(10, 18) + 1):
        aid = f"ACT-{n:03d}"
        pick = rng.random()
        if pick < 0.55:
            kind, target = "opportunity", opportunities[rng.pick(opp_ids)]
            what = target["name"]
        elif pick < 0.8:
            kind, target = "lead", leads[rng.pick(lead_ids)]
            what = f"{target['firstName']} {target['lastName']} at {target['company']}"
        else:
            kind, target = "account", accounts[rng.pick(account_ids)]
            what = target["name"]
        activity_type = rng.pick(_ACTIVITY_TYPES)
        owner = target["ownerId"]
        subject = rng.pick(pools.ACTIVITY_SUBJECTS[activity_type]).format(what=what)
        notes = rng.pick(pools.ACTIVITY_NOTES)
        if kind == "account" and owner == "USR-004":
            activity_type, owner, subject = "note", "USR-001", "Account handover pending"
            notes = f"{departed} has left the company, so this account needs a new owner."
        if activity_type == "note":
            due, done = None, _day(-rng.between(0, 45))
        else:
            offset = rng.between(-45, 14)
            due = _day(offset)
            done = due if offset <= 0 and rng.random() < 0.7 else None
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
        stages[sid] = {"id": sid, "name": name, "order": order, "probability": rng.pick(choices), "isClosed": False}
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
