"""The variant generator of the project world (project-world.md §11).

``generate(k)`` builds variant ``k`` from ``random.Random(k)`` alone, so the same number gives the
same world in every process. The world has the canonical shape (the same nine keys in the same
order, records with the same fields in the same order) and keeps what the tasks and verifiers
anchor on: ``now``; the ids the tasks name (``WI-003``, ``WI-004``, ``WI-006``, ``WI-008``,
``MEM-004``, ``MEM-006``, ``SPR-002``, ``SPR-003``, ``PROJ-001``, ``PROJ-003``) with their titles,
names and keys; each lookup name on exactly one record; the six workflow states' names, orders and
flags.

Everything else is drawn: which id carries which workflow state; the other members (names, ids,
roles, teams, capacities, who is active); the other records' ids; sprint histories and dates;
work items, their states, owners, estimates, due dates, dependencies and sprints; time logs;
comments; distractor teams, projects, sprints and items.

The builder also makes every task's preconditions (variants.py) hold by construction, so nearly
every variant can be handed out for every task:

- the acting members are active (the Atlas, Nimbus and ledger leads, the bug's assignee);
- Devon Ito is inactive and holds open work that fits within Farid Haddad's spare capacity;
- exactly one member is over capacity; the tightest Platform fit for usage metering is unique;
- exactly one completed sprint carries unfinished work, and one completed sprint delivered the
  most, and neither figure equals the number in that sprint's name;
- some overdue work sits with an inactive member, so the "still active" qualifier matters;
- Atlas's hours differ from every other project's;
- done items depend only on done items; the scheduler's blockers, the tax rules engine and the
  ledger's open work can be finished in order; nothing depends on itself, directly or not.

Dates are kept as day offsets before ``now`` while building (a negative offset is in the future)
and written as ``YYYY-MM-DD`` at the end.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from .state import State, format_id

__all__ = ["NOW", "generate"]

NOW = "2026-03-16"
_NOW_DATE = date.fromisoformat(NOW)

#: The six workflow states: name, order, isDone, isBlockedState (§4.1); only their ids move.
WORKFLOW = (
    ("Backlog", 1, False, False),
    ("To Do", 2, False, False),
    ("In Progress", 3, False, False),
    ("Blocked", 4, False, True),
    ("In Review", 5, False, False),
    ("Done", 6, True, False),
)

# Anchors: records the tasks name, with the lookup names the verifiers use (§11).
TAX, SCHEDULER, BUG, METERING = "WI-003", "WI-004", "WI-006", "WI-008"
DEVON, FARID = "MEM-004", "MEM-006"
SPRINT_12, SPRINT_13 = "SPR-002", "SPR-003"
ATLAS, LEDGER = "PROJ-001", "PROJ-003"
ANCHOR_NAMES = ("Devon Ito", "Farid Haddad")

FIRST_NAMES = (
    "Amira", "Bastian", "Chloe", "Dmitri", "Esther", "Felipe", "Greta", "Hugo", "Ines", "Jonas",
    "Kalani", "Lucia", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Soren", "Talia",
    "Umar", "Vera", "Wendell", "Xenia", "Yusuf", "Zara", "Anton", "Beatriz", "Callum", "Delia",
    "Emeka", "Freya", "Gideon", "Hana", "Ivo", "Jasmin", "Kofi", "Leona", "Marcus", "Noor",
)
LAST_NAMES = (
    "Abara", "Becker", "Castillo", "Dubois", "Eriksen", "Fonseca", "Grant", "Hoshino", "Ibarra",
    "Jensen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Pereira", "Quinn",
    "Rahman", "Santos", "Tanaka", "Ueda", "Varga", "Whitfield", "Yilmaz", "Zeller", "Adeyemi",
    "Brennan", "Costa", "Dalton", "Eklund", "Farrow", "Gallo", "Holm", "Iqbal", "Jovanovic",
    "Keane", "Lund", "Mendes", "Novak", "Osei",
)

EXTRA_TEAMS = ("Data", "Growth", "Security", "Design")
EXTRA_PROJECTS = (
    ("Orion Search Revamp", "ORN", "Orion"),
    ("Helios Reporting Suite", "HEL", "Helios"),
    ("Cobalt Identity Service", "COB", "Cobalt"),
    ("Juniper Partner Portal", "JUN", "Juniper"),
)

ATLAS_TITLES = (
    "Invoice PDF renderer", "Retry queue infrastructure", "Dunning emails",
    "Rounding error on credit notes", "Migrate billing cron to the scheduler",
    "Currency conversion drift", "Proration for mid-cycle upgrades", "Refund approval workflow",
    "Webhook signature checks", "Customer billing portal", "Card vault key rotation",
    "Billing audit trail", "Coupon stacking rules", "Late fee calculation",
    "Subscription pause support", "Invoice numbering gaps", "Payment method update flow",
    "Chargeback notifications", "Sales tax exemptions", "Batch invoice generation",
    "Usage import retries", "Statement email template", "Billing API rate limits",
    "Credit balance carry-forward", "Invoice preview endpoint", "Failed charge alerts",
    "Plan change history", "Receipt localisation", "Payout reconciliation report",
    "Trial expiry reminders",
)
NIMBUS_TITLES = (
    "Offline sync", "Push notifications", "Crash on cold start", "Biometric login",
    "Analytics SDK upgrade", "Dark mode", "Deep link regression", "Tablet layout",
    "App store screenshots", "In-app feedback form", "Image cache eviction", "Accessibility labels",
    "Onboarding carousel", "Battery drain during sync", "Home screen widget",
    "Spanish localisation", "Session timeout on resume", "Payment sheet redesign",
    "Crash reporting upgrade", "Settings screen cleanup", "Photo upload progress",
    "Pull to refresh jank", "Font scaling support", "Background fetch scheduling",
)
LEDGER_TITLES = (
    "Freeze legacy ledger writes", "Backfill historical ledger", "Reconcile migrated balances",
    "Archive legacy ledger snapshots", "Cut reporting over to the new ledger",
    "Validate ledger checksums", "Retire ledger batch jobs", "Migrate ledger access roles",
    "Decommission the legacy ledger service", "Replay failed ledger postings",
)
EXTRA_TITLES = (
    "Kickoff and scoping", "Data model review", "Prototype the main screen", "Load testing",
    "Security review", "Rollout checklist", "Stakeholder demo", "Error budget dashboard",
    "Permissions matrix", "Migration dry run", "Documentation pass", "Vendor evaluation",
)
COMMENT_BODIES = (
    "Picked this up this morning; first pass looks straightforward.",
    "Pairing on this tomorrow to get it over the line.",
    "The estimate may be light once the edge cases are counted.",
    "Reviewed the approach with the team and nobody objected.",
    "Waiting on a reply from the vendor before going further.",
    "Reproduced it locally, a fix is in progress.",
    "Moved the open questions into the design notes.",
    "This touches the same code as the release branch, so merge carefully.",
    "Added tests for the unhappy paths.",
    "Can someone with production access confirm the numbers?",
    "Deferred the clean-up part to a follow-up item.",
    "Customer support asked about this again today.",
)
DEACTIVATION_DETAILS = (
    "Devon Ito's account was closed after his final day with the team.",
    "Devon Ito left the company; his account was switched to inactive.",
    "Access for Devon Ito was turned off once his notice period ended.",
)

ESTIMATES = (1, 2, 3, 5, 8)
HOURS = (0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 6.5, 7, 7.5, 8)
PRIORITIES = ("low", "medium", "high", "urgent")
OPEN_STATES = ("To Do", "In Progress", "Blocked", "In Review")
SPRINT_DAYS = 13  # a sprint ends 13 days after it starts (two weeks, inclusive)

Record = dict[str, Any]


_DAYS: dict[int, str] = {}


def _day(offset: int) -> str:
    """The date ``offset`` days before now (after it, for a negative offset)."""
    text = _DAYS.get(offset)
    if text is None:
        text = _DAYS[offset] = (_NOW_DATE - timedelta(days=offset)).isoformat()
    return text


class _Draw:
    """Random draws built on ``random.Random.random()`` alone.

    ``random()`` is the generator's stable core (the same Mersenne Twister stream for the same
    seed in every process and Python version), where ``randrange``, ``shuffle`` and ``sample``
    have changed their algorithms between versions; it is also the fastest draw.
    """

    __slots__ = ("random",)

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed).random

    def randint(self, a: int, b: int) -> int:
        """An int in ``[a, b]``."""
        return a + int(self.random() * (b - a + 1))

    def pick(self, seq: Any) -> Any:
        return seq[int(self.random() * len(seq))]

    def weighted(self, values: Any, weights: Any) -> Any:
        roll = self.random() * sum(weights)
        for value, weight in zip(values, weights, strict=True):
            roll -= weight
            if roll < 0:
                return value
        return values[-1]

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = int(self.random() * (i + 1))
            items[i], items[j] = items[j], items[i]

    def sample(self, population: Any, k: int) -> list[Any]:
        """``k`` distinct items of ``population``, in draw order."""
        pool = list(population)
        for i in range(k):
            j = i + int(self.random() * (len(pool) - i))
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


class _Builder:
    """One variant under construction. Records refer to each other through Python objects or
    temporary keys until ``_assemble`` gives them their ids and writes the state."""

    def __init__(self, k: int) -> None:
        self.rng = _Draw(k)
        # The draws used most, bound once (each saves a method hop on every call).
        self.pick = self.rng.pick
        self.weighted = self.rng.weighted
        self.members: list[Record] = []
        self.teams: list[Record] = []
        self.projects: list[Record] = []
        self.sprints: list[Record] = []
        self.items: list[Record] = []
        self.logs: list[Record] = []
        self.audit: list[Record] = []
        self.titles: dict[str, list[str]] = {}
        self.used_titles: dict[str, list[str]] = {}

    # -- small draws --------------------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def title(self, project: Record) -> str:
        """An unused title from the project's pool; once the pool runs dry, follow-ups of it."""
        pool = self.titles[project["short"]]
        if not pool:
            used = self.used_titles[project["short"]]
            pool.extend(f"{t} follow-up" for t in reversed(used[-len(used) // 2 - 1 :]))
        title = pool.pop()
        self.used_titles[project["short"]].append(title)
        return title

    # -- workflow -----------------------------------------------------------------------------

    def workflow(self) -> None:
        ids = [format_id("WFS", n) for n in range(1, 7)]
        self.rng.shuffle(ids)
        self.state_ids = {name: ids[i] for i, (name, *_rest) in enumerate(WORKFLOW)}

    # -- people -------------------------------------------------------------------------------

    def _member(self, role: str, team: Record | None, active: bool = True, member_id: str | None = None,
                name: str | None = None) -> Record:
        member = {"id": member_id, "name": name, "role": role, "team": team, "active": active, "capacity": 0}
        self.members.append(member)
        return member

    def people(self) -> None:
        rng = self.rng
        platform = {"name": "Platform", "lead": None}
        mobile = {"name": "Mobile", "lead": None}
        self.teams = [platform, mobile]
        self.platform_lead = self._member("lead", platform)
        platform["lead"] = self.platform_lead
        for _ in range(rng.randint(2, 5)):
            self._member("engineer", platform, active=not self.chance(0.12))
        self.mobile_lead = self._member("lead", mobile)
        mobile["lead"] = self.mobile_lead
        self.devon = self._member("engineer", mobile, active=False, member_id=DEVON, name="Devon Ito")
        self.farid = self._member("engineer", mobile, active=True, member_id=FARID, name="Farid Haddad")
        for _ in range(rng.randint(0, 2)):
            self._member("engineer", mobile, active=not self.chance(0.12))
        self.manager = self._member("manager", None)
        if self.chance(0.25):
            self._member("manager", None, active=self.chance(0.5))
        if self.chance(0.4):
            extra = {"name": self.pick(EXTRA_TEAMS), "lead": None}
            self.teams.append(extra)
            extra["lead"] = self._member("lead", extra)
            for _ in range(rng.randint(1, 2)):
                self._member("engineer", extra, active=not self.chance(0.1))
        if self.chance(0.3):
            self._member("engineer", self.pick([platform, None]), active=False)
        # Ids: the two anchors keep theirs; everyone else draws a free number from a wide range,
        # so the canonical actors' ids (MEM-001, MEM-005, MEM-007, MEM-008) are rarely in use.
        free = [n for n in range(1, 160) if n not in (4, 6)]
        others = [m for m in self.members if m["id"] is None]
        for member, n in zip(others, rng.sample(free, len(others)), strict=True):
            member["id"] = format_id("MEM", n)
        taken = [name.lower() for name in ANCHOR_NAMES]
        for member in others:
            while True:
                name = f"{self.pick(FIRST_NAMES)} {self.pick(LAST_NAMES)}"
                low = name.lower()
                if all(low not in t and t not in low for t in taken):
                    break
            taken.append(low)
            member["name"] = name
        self.platform_members = [m for m in self.members if m["team"] is platform]
        self.mobile_members = [m for m in self.members if m["team"] is mobile]
        for team, n in zip(self.teams, rng.sample(range(1, 8), len(self.teams)), strict=True):
            team["id"] = format_id("TEAM", n)

    def active(self, members: list[Record]) -> list[Record]:
        return [m for m in members if m["active"]]

    # -- projects and sprints -----------------------------------------------------------------

    def _project(self, project_id: str | None, name: str, key: str, short: str, status: str, lead: Record,
                 start: int, target: int) -> Record:
        project = {"id": project_id, "name": name, "key": key, "short": short, "status": status, "lead": lead,
                   "start": start, "target": target}
        self.projects.append(project)
        return project

    def projects_and_sprints(self) -> None:
        rng = self.rng
        self.atlas = self._project(ATLAS, "Atlas Billing Platform", "ATL", "Atlas", "active", self.platform_lead,
                                   rng.randint(100, 160), -rng.randint(40, 150))
        self.nimbus = self._project(None, "Nimbus Mobile App", "NIM", "Nimbus",
                                    "on_hold" if self.chance(0.1) else "active", self.mobile_lead,
                                    rng.randint(50, 90), -rng.randint(90, 220))
        self.ledger = self._project(LEDGER, "Ledger Data Migration", "LED", "Ledger",
                                    "on_hold" if self.chance(0.3) else "active", self.manager,
                                    rng.randint(150, 220), -rng.randint(5, 40))
        self.extra: Record | None = None
        if self.chance(0.5):
            name, key, short = self.pick(EXTRA_PROJECTS)
            leads = [m for m in self.members if m["role"] == "lead" and m["active"]]
            self.extra = self._project(None, name, key, short, "completed" if self.chance(0.4) else "active",
                                       self.pick(leads), rng.randint(60, 200), rng.randint(-90, 20))
        free = [n for n in range(2, 10) if n != 3]
        for project, n in zip([p for p in self.projects if p["id"] is None], rng.sample(free, 2), strict=False):
            project["id"] = format_id("PROJ", n)
        pools = {"Atlas": ATLAS_TITLES, "Nimbus": NIMBUS_TITLES, "Ledger": LEDGER_TITLES}
        for project in self.projects:
            titles = list(pools.get(project["short"], EXTRA_TITLES))
            rng.shuffle(titles)
            self.titles[project["short"]] = titles
            self.used_titles[project["short"]] = []

        # Atlas: Sprint 12 ran to its end (1-6 days ago), Sprint 13 follows it, 0-3 before it.
        end = rng.randint(1, 6)
        self.sprint_12 = self._sprint(SPRINT_12, self.atlas, 12, end + SPRINT_DAYS, end, "active")
        self.sprint_13 = self._sprint(SPRINT_13, self.atlas, 13, end - 1, end - 1 - SPRINT_DAYS, "planned")
        start = end + SPRINT_DAYS
        for j in range(1, self.weighted((0, 1, 2, 3), (0.15, 0.4, 0.3, 0.15)) + 1):
            self._sprint(None, self.atlas, 12 - j, start + 14 * j, start + 14 * j - SPRINT_DAYS, "completed")
        # Nimbus: sprint c runs now (or is done), 1-3 completed before it, maybe one planned after.
        current = rng.randint(3, 9)
        end = rng.randint(-7, 5)
        status = "completed" if end > 0 and self.chance(0.2) else "active"
        sprint = self._sprint(None, self.nimbus, current, end + SPRINT_DAYS, end, status)
        self.nimbus_active = sprint if status == "active" else None
        for j in range(1, rng.randint(1, min(3, current - 1)) + 1):
            self._sprint(None, self.nimbus, current - j, end + SPRINT_DAYS + 14 * j,
                         end + 14 * j, "completed")
        if self.chance(0.3):
            self._sprint(None, self.nimbus, current + 1, end - 1, end - 1 - SPRINT_DAYS, "planned")
        if self.extra is not None and self.chance(0.6):
            n = rng.randint(1, 6)
            end = rng.randint(15, 40)
            self._sprint(None, self.extra, n, end + SPRINT_DAYS, end, "completed")
            if self.extra["status"] == "active" and self.chance(0.5):
                self._sprint(None, self.extra, n + 1, end - 1, end - 1 - SPRINT_DAYS, "active")
        free = [n for n in range(1, 30) if n not in (2, 3)]
        others = [s for s in self.sprints if s["id"] is None]
        for sprint, n in zip(others, rng.sample(free, len(others)), strict=True):
            sprint["id"] = format_id("SPR", n)

    def _sprint(self, sprint_id: str | None, project: Record, number: int, start: int, end: int,
                status: str) -> Record:
        sprint = {"id": sprint_id, "name": f"{project['short']} Sprint {number}", "number": number,
                  "project": project, "start": start, "end": end, "status": status}
        self.sprints.append(sprint)
        return sprint

    # -- work items ---------------------------------------------------------------------------

    def item(self, project: Record, *, title: str | None = None, type_: str | None = None, status: str,
             assignee: Record | None = None, sprint: Record | None = None, estimate: int | None = None,
             created: int, entered: int | None = None, due: int | None = None, parent: Record | None = None,
             item_id: str | None = None) -> Record:
        rng = self.rng
        if entered is None:
            entered = rng.randint(0, created)
        record = {
            "id": item_id,
            "title": title if title is not None else self.title(project),
            "type": type_ if type_ is not None else self.pick(("story", "story", "task", "bug")),
            "status": status,
            "priority": self.weighted(PRIORITIES, (2, 4, 3, 1)),
            "assignee": assignee,
            "project": project,
            "sprint": sprint,
            "estimate": estimate if estimate is not None else self.pick(ESTIMATES),
            "created": created,
            "entered": min(entered, created),
            "due": due,
            "parent": parent,
            "deps": [],
            "comments": [],
        }
        self.items.append(record)
        return record

    def open_due(self, created: int, past: float = 0.3, future: float = 0.3) -> int | None:
        """A due date for open work: none, already passed, or still ahead (never before creation)."""
        roll = self.rng.random()
        if roll < past:
            return self.rng.randint(1, max(1, min(created, 20)))
        if roll < past + future:
            return -self.rng.randint(1, 30)
        return None

    def open_item(self, project: Record, *, status: str | None = None, sprint: Record | None = None,
                  assignee: Record | None = None, created: int | None = None, **kw: Any) -> Record:
        created = created if created is not None else self.rng.randint(3, 60)
        status = status if status is not None else self.pick(OPEN_STATES)
        kw.setdefault("due", self.open_due(created))
        return self.item(project, status=status, sprint=sprint, assignee=assignee, created=created, **kw)

    def done_item(self, project: Record, *, sprint: Record | None = None, assignee: Record | None = None,
                  **kw: Any) -> Record:
        rng = self.rng
        if sprint is not None:
            created = sprint["start"] + rng.randint(0, 12)
            entered = rng.randint(max(0, sprint["end"]), max(0, sprint["start"]))
            due = sprint["end"] if self.chance(0.6) and sprint["end"] >= 0 else None
        else:
            created = rng.randint(40, 150)
            entered = rng.randint(15, created)
            due = entered + rng.randint(-5, 3) if self.chance(0.5) else None
            if due is not None:
                due = min(due, created)
        return self.item(project, status="Done", sprint=sprint, assignee=assignee, created=created,
                         entered=entered, due=due, **kw)

    def work_items(self) -> None:
        rng = self.rng
        atlas, nimbus, ledger = self.atlas, self.nimbus, self.ledger
        platform = self.platform_members
        platform_active = self.active(platform)
        mobile = self.mobile_members

        # Atlas history: completed sprints full of done work, and older done work without a sprint.
        epic_a = self.item(atlas, title="Billing platform rollout", type_="epic", status="In Progress",
                           assignee=self.platform_lead, estimate=0, created=rng.randint(110, 150),
                           entered=rng.randint(60, 100))
        for sprint in self.completed(atlas):
            for _ in range(rng.randint(2, 4)):
                self.done_item(atlas, sprint=sprint, assignee=self.pick(platform),
                               parent=epic_a if self.chance(0.4) else None)
        for _ in range(rng.randint(0, 2)):
            self.done_item(atlas, assignee=self.pick(platform))
        done_atlas = [i for i in self.items if i["status"] == "Done"]

        def done_deps(n_max: int) -> list[Record]:
            n = min(len(done_atlas), rng.randint(0, n_max))
            return rng.sample(done_atlas, n)

        s12 = self.sprint_12
        # TASK-001: the tax rules engine, open, with only finished dependencies.
        status = self.weighted(("To Do", "In Progress", "In Review", "Blocked", "Backlog"), (2, 3, 3, 1, 1))
        tax = self.open_item(atlas, title="Tax rules engine", type_="story", status=status, item_id=TAX,
                             sprint=s12 if status != "Backlog" and self.chance(0.7) else None,
                             assignee=self.pick(platform_active) if self.chance(0.85) else None,
                             estimate=self.pick((3, 5, 8, 13)), parent=epic_a)
        tax["deps"] = done_deps(2)
        # TASK-002: the scheduler waits on 1-3 open blockers whose own dependencies are done.
        scheduler = self.open_item(atlas, title="Payment retry scheduler", type_="story", item_id=SCHEDULER,
                                   status=self.pick(("To Do", "In Progress", "Blocked", "In Progress")),
                                   sprint=s12 if self.chance(0.8) else None,
                                   assignee=self.pick(platform_active), parent=epic_a)
        self.blockers = []
        for _ in range(self.weighted((1, 2, 3), (0.45, 0.35, 0.2))):
            blocker = self.open_item(atlas, status=self.pick(("To Do", "In Progress", "In Review", "Backlog")),
                                     assignee=self.pick(platform_active) if self.chance(0.8) else None,
                                     parent=epic_a if self.chance(0.5) else None)
            if blocker["status"] != "Backlog" and self.chance(0.7):
                blocker["sprint"] = s12
            blocker["deps"] = done_deps(1)
            self.blockers.append(blocker)
        scheduler["deps"] = self.blockers + done_deps(1)
        rng.shuffle(scheduler["deps"])
        # TASK-005: the duplicate-email bug waits on the email service upgrade.
        upgrade = self.open_item(atlas, title="Email service upgrade", type_="task",
                                 status=self.pick(("Backlog", "To Do", "In Progress", "In Review")),
                                 assignee=self.pick(platform_active) if self.chance(0.8) else None)
        if upgrade["status"] != "Backlog" and self.chance(0.6):
            upgrade["sprint"] = s12
        self.upgrade = upgrade
        engineers = [m for m in platform_active if m["role"] == "engineer"] or platform_active
        bug = self.open_item(atlas, title="Duplicate invoice emails", type_="bug", item_id=BUG,
                             status=self.pick(("Blocked", "Blocked", "To Do", "In Progress")),
                             sprint=s12 if self.chance(0.8) else None, assignee=self.pick(engineers))
        bug["deps"] = [upgrade] + done_deps(1)
        rng.shuffle(bug["deps"])
        self.bug = bug
        # TASK-004 and TASK-006: usage metering waits unassigned in the Atlas backlog, with others.
        created = rng.randint(3, 30)
        self.metering = self.item(atlas, title="Usage metering", type_="story", status="Backlog", item_id=METERING,
                                  estimate=self.pick((2, 3, 5, 8, 13)), created=created, entered=created,
                                  due=-rng.randint(10, 40) if self.chance(0.2) else None, parent=epic_a)
        for _ in range(rng.randint(0, 3)):
            created = rng.randint(2, 40)
            self.item(atlas, status="Backlog", created=created, entered=created,
                      parent=epic_a if self.chance(0.5) else None)
        for _ in range(rng.randint(0, 2)):
            created = rng.randint(2, 40)
            self.item(atlas, status="Backlog", assignee=self.pick(platform), created=created, entered=created)
        for _ in range(rng.randint(0, 2)):
            self.open_item(atlas, status=self.pick(("To Do", "In Progress")))
        # The rest of Atlas Sprint 12.
        for _ in range(rng.randint(1, 4)):
            if self.chance(0.25):
                self.item(atlas, status="Done", sprint=s12, assignee=self.pick(platform),
                          created=s12["start"] + rng.randint(0, 10), entered=rng.randint(s12["end"], s12["start"]),
                          due=s12["end"] if self.chance(0.5) else None)
            else:
                self.open_item(atlas, sprint=s12, assignee=self.pick(platform_active),
                               created=s12["start"] + rng.randint(-5, 10))

        # Nimbus: history, the running sprint, Devon's and Farid's work, the backlog.
        epic_n = self.item(nimbus, title="Mobile app v2", type_="epic", status="In Progress",
                           assignee=self.mobile_lead, estimate=0, created=rng.randint(50, 90),
                           entered=rng.randint(30, 50))
        for sprint in self.completed(nimbus):
            for _ in range(rng.randint(2, 4)):
                self.done_item(nimbus, sprint=sprint, assignee=self.pick(mobile),
                               parent=epic_n if self.chance(0.4) else None)
        running = self.nimbus_active
        if running is not None:
            for _ in range(rng.randint(1, 3)):
                self.open_item(nimbus, sprint=running, assignee=self.pick(self.active(mobile)),
                               created=running["start"] + rng.randint(0, 10))
        self.devon_open = []
        for _ in range(self.weighted((1, 2, 3, 4), (0.25, 0.35, 0.25, 0.15))):
            project = atlas if self.chance(0.15) else nimbus
            sprint = running if project is nimbus and running is not None and self.chance(0.6) else None
            if project is atlas and self.chance(0.5):
                sprint = s12
            created = rng.randint(15, 60)
            self.devon_open.append(self.open_item(project, sprint=sprint, assignee=self.devon, created=created,
                                                  status=self.pick(("To Do", "In Progress", "In Review")),
                                                  due=self.open_due(created, past=0.45, future=0.35)))
        for _ in range(rng.randint(0, 3)):
            self.open_item(nimbus, sprint=running if running is not None and self.chance(0.5) else None,
                           assignee=self.farid)
        for _ in range(rng.randint(0, 5)):
            created = rng.randint(2, 50)
            self.item(nimbus, status="Backlog", created=created, entered=created)
        for _ in range(rng.randint(0, 2)):
            self.open_item(nimbus, assignee=self.pick(self.active(mobile)) if self.chance(0.6) else None)

        # Ledger: a finished chain and 1-4 open items depending only on done or open ledger work.
        everyone_active = self.active(self.members)
        done_ledger: list[Record] = []
        for _ in range(rng.randint(1, 3)):
            item = self.done_item(ledger, assignee=self.pick(self.members), type_="task")
            if done_ledger and self.chance(0.7):
                item["deps"] = [self.pick(done_ledger)]
            done_ledger.append(item)
        open_ledger: list[Record] = []
        for _ in range(self.weighted((1, 2, 3, 4), (0.35, 0.3, 0.2, 0.15))):
            item = self.open_item(ledger, type_="task", assignee=self.pick(everyone_active) if self.chance(0.8) else None,
                                  status=self.pick(("To Do", "In Progress", "In Review", "Blocked", "Backlog")),
                                  created=rng.randint(10, 120))
            pool = done_ledger + open_ledger
            item["deps"] = rng.sample(pool, min(len(pool), rng.randint(0, 2)))
            open_ledger.append(item)
        self.open_ledger = open_ledger

        # A distractor project: work in progress, or a completed project whose work is all done.
        extra = self.extra
        if extra is not None:
            crew = self.active(self.members)
            for sprint in self.completed(extra):
                for _ in range(rng.randint(2, 3)):
                    self.done_item(extra, sprint=sprint, assignee=self.pick(crew))
            if extra["status"] == "completed":
                for _ in range(rng.randint(1, 3)):
                    self.done_item(extra, assignee=self.pick(crew))
            else:
                extra_running = next((s for s in self.sprints if s["project"] is extra and s["status"] == "active"),
                                     None)
                for _ in range(rng.randint(2, 5)):
                    if self.chance(0.3):
                        self.done_item(extra, assignee=self.pick(crew))
                    else:
                        self.open_item(extra, assignee=self.pick(crew) if self.chance(0.8) else None,
                                       sprint=extra_running if extra_running is not None and self.chance(0.5) else None)
                for _ in range(rng.randint(0, 2)):
                    created = rng.randint(2, 40)
                    self.item(extra, status="Backlog", created=created, entered=created)

        self.carry_over()
        self.dependencies()
        self.overdue_with_inactive()

    def completed(self, project: Record) -> list[Record]:
        return [s for s in self.sprints if s["project"] is project and s["status"] == "completed"]

    def carry_over(self) -> None:
        """TASK-015: exactly one completed sprint (of a project still open) keeps unfinished work."""
        rng = self.rng
        candidates = [s for s in self.sprints if s["status"] == "completed" and s["project"]["status"] != "completed"]
        self.carry_sprint = self.pick(candidates) if candidates else None
        sprint = self.carry_sprint
        if sprint is None:
            return
        project = sprint["project"]
        crew = self.platform_members if project is self.atlas else self.mobile_members if project is self.nimbus \
            else self.members
        self.carry_items = []
        for _ in range(self.weighted((1, 2), (0.6, 0.4))):
            created = sprint["start"] + rng.randint(0, 8)
            self.carry_items.append(self.item(project, status=self.pick(("To Do", "In Progress", "Blocked")),
                                              sprint=sprint, assignee=self.pick(crew) if self.chance(0.9) else None,
                                              created=created, entered=rng.randint(1, created),
                                              due=sprint["end"] if sprint["end"] > 0 else None))

    def dependencies(self) -> None:
        """Distractors for TASK-009: more blocked items (almost always), and items whose
        dependencies are all done."""
        rng = self.rng
        fixed = {id(i) for i in (self.items_by_id(TAX), self.items_by_id(SCHEDULER), self.bug, self.upgrade)}
        fixed |= {id(b) for b in self.blockers}
        fixed |= {id(i) for i in self.items if i["project"] is self.ledger}
        candidates = [i for i in self.items if i["status"] != "Done" and not i["deps"] and id(i) not in fixed
                      and i["type"] != "epic"]
        rng.shuffle(candidates)
        targets = [i for i in self.items if i["status"] != "Done" and not i["deps"] and i["type"] != "epic"
                   and i["project"] is not self.ledger]
        for _ in range(self.weighted((0, 1, 2, 3), (0.04, 0.4, 0.36, 0.2))):
            if not candidates:
                break
            waiting = candidates.pop()
            choices = [t for t in targets if t is not waiting and not t["deps"]]
            if not choices:
                break
            waiting["deps"] = [self.pick(choices)]
        done = [i for i in self.items if i["status"] == "Done" and i["project"] is not self.ledger]
        for _ in range(rng.randint(1, 3)):
            if not candidates or not done:
                break
            waiting = candidates.pop()
            same = [d for d in done if d["project"] is waiting["project"]] or done
            waiting["deps"] = [self.pick(same)]

    def items_by_id(self, item_id: str) -> Record:
        return next(i for i in self.items if i["id"] == item_id)

    def overdue_with_inactive(self) -> None:
        """TASK-012: some overdue work is held by an inactive member (or nobody), so the total over
        active members differs from the plain total."""
        if any(self.is_overdue(i) and (i["assignee"] is None or not i["assignee"]["active"]) for i in self.items):
            return
        item = self.pick(self.devon_open)
        item["due"] = self.rng.randint(1, max(1, min(item["created"], 20)))

    def is_overdue(self, item: Record) -> bool:
        return item["status"] != "Done" and item["due"] is not None and item["due"] > 0

    # -- figures that answers depend on -------------------------------------------------------

    def sprint_figures(self) -> None:
        """TASK-010 and TASK-015: one completed sprint delivered the most, and neither that figure
        nor the carried-over one equals the number in the sprint's name."""
        for _ in range(50):
            completed = [s for s in self.sprints if s["status"] == "completed"]
            velocity = {id(s): sum(i["estimate"] for i in self.items if i["sprint"] is s and i["status"] == "Done")
                        for s in completed}
            if not completed:
                return
            best = max(velocity.values())
            top = [s for s in completed if velocity[id(s)] == best]
            if len(top) > 1 or best == top[0]["number"]:
                self.bump([i for i in self.items if i["sprint"] is top[0] and i["status"] == "Done"])
                continue
            sprint = self.carry_sprint
            if sprint is not None and sum(i["estimate"] for i in self.carry_items) == sprint["number"]:
                self.bump(self.carry_items)
                continue
            return

    def bump(self, items: list[Record]) -> None:
        if items:
            self.pick(items)["estimate"] += 1

    # -- capacity -----------------------------------------------------------------------------

    def capacities(self) -> None:
        """Capacities from loads: exactly one member over capacity (TASK-013), Farid can take all
        of Devon's open work (TASK-003), and one Platform member fits usage metering most tightly
        (TASK-004)."""
        rng = self.rng
        load = {id(m): 0 for m in self.members}
        for i in self.items:
            if i["status"] != "Done" and i["assignee"] is not None:
                load[id(i["assignee"])] += i["estimate"]
        devon_points = load[id(self.devon)]
        # The over-committed member is never the only active Platform member (TASK-004 needs one
        # with room), nor Farid (TASK-003) nor the manager who asks the questions.
        platform_active = self.active(self.platform_members)
        candidates = [m for m in self.members if m["active"] and m is not self.farid and m is not self.manager
                      and load[id(m)] >= 2 and not (len(platform_active) == 1 and m is platform_active[0])]
        self.over = self.pick(candidates) if candidates else None
        for m in self.members:
            if m is self.over:
                m["capacity"] = load[id(m)] - rng.randint(1, min(6, load[id(m)] - 1))
            elif m is self.farid:
                m["capacity"] = load[id(m)] + devon_points + rng.randint(0, 6)
            else:
                m["capacity"] = max(load[id(m)] + rng.randint(2, 14), rng.randint(6, 12))
        estimate = self.metering["estimate"]
        team = [m for m in self.active(self.platform_members) if m is not self.over]
        if not team:
            return
        for _ in range(50):
            rooms = sorted((m["capacity"] - load[id(m)] - estimate, m["id"]) for m in team)
            fits = [r for r in rooms if r[0] >= 0]
            if not fits:
                lucky = self.pick(team)
                lucky["capacity"] = load[id(lucky)] + estimate + rng.randint(0, 4)
                continue
            if len(fits) > 1 and fits[0][0] == fits[1][0]:
                tied = next(m for m in team if m["id"] == fits[1][1])
                tied["capacity"] += 1
                continue
            return

    # -- time logs, comments, audit -----------------------------------------------------------

    def time_logs(self) -> None:
        rng = self.rng
        gone = self.devon_gone = rng.randint(2, 12)
        for item in self.items:
            if item["type"] == "epic" or item["status"] in ("Backlog",):
                continue
            if item["status"] == "To Do" and not self.chance(0.3):
                continue
            who = item["assignee"]
            if who is None:
                continue
            latest = max(item["entered"], gone) if who is self.devon else 0
            if item["status"] == "Done":
                latest = max(latest, item["entered"])
            if latest > item["created"]:
                continue
            for _ in range(self.pick((0, 1, 1, 2, 2, 3))):
                self.logs.append({"item": item, "member": who, "day": rng.randint(latest, item["created"]),
                                  "hours": self.pick(HOURS)})
        # TASK-011: Atlas's total differs from every other project's by more than 0.01.
        for _ in range(20):
            totals = {}
            for project in self.projects:
                totals[id(project)] = sum(log["hours"] for log in self.logs if log["item"]["project"] is project)
            atlas = totals[id(self.atlas)]
            if all(abs(t - atlas) > 0.01 for p, t in totals.items() if p != id(self.atlas)):
                return
            mine = [log for log in self.logs if log["item"]["project"] is self.atlas and log["hours"] < 8]
            if mine:
                self.pick(mine)["hours"] += 0.5
            else:
                log_item = self.pick([i for i in self.items if i["project"] is self.atlas and i["assignee"]
                                      and i["assignee"] is not self.devon and i["status"] != "Done"])
                self.logs.append({"item": log_item, "member": log_item["assignee"], "day": 0, "hours": 1})

    def comments(self) -> None:
        rng = self.rng
        self.comment_list: list[tuple[int, int, Record, Record]] = []
        bug_count = self.weighted((0, 1, 2), (0.25, 0.5, 0.25))
        for index, item in enumerate(self.items):
            count = bug_count if item is self.bug else (rng.randint(1, 2) if self.chance(0.12) else 0)
            crew = self.platform_members if item["project"] is self.atlas else self.members
            for _ in range(count):
                author = self.pick(crew)
                earliest = self.devon_gone if author is self.devon else 0
                if earliest > item["created"]:
                    continue
                day = rng.randint(earliest, item["created"])
                self.comment_list.append((-day, index, item, {"author": author, "body": self.pick(COMMENT_BODIES),
                                                               "day": day}))

    def audit_log(self) -> None:
        s12 = self.sprint_12
        self.audit.append({"day": s12["start"], "actor": self.platform_lead, "action": "start_sprint",
                           "type": "sprint", "entity": s12, "detail": f"Started {s12['name']}."})
        self.audit.append({"day": self.devon_gone, "actor": self.mobile_lead, "action": "update_member",
                           "type": "member", "entity": self.devon, "detail": self.pick(DEACTIVATION_DETAILS)})
        running = self.nimbus_active
        if running is not None and self.chance(0.5):
            self.audit.append({"day": running["start"], "actor": self.mobile_lead, "action": "start_sprint",
                               "type": "sprint", "entity": running, "detail": f"Started {running['name']}."})
        self.audit.sort(key=lambda e: -e["day"])

    # -- output -------------------------------------------------------------------------------

    def assemble(self) -> State:
        rng = self.rng
        others = [i for i in self.items if i["id"] is None]
        free = [n for n in range(1, max(60, 2 * len(self.items) + 20)) if n not in (3, 4, 6, 8)]
        numbers = sorted(rng.sample(free, len(others)))
        for item, n in zip(sorted(others, key=lambda i: -i["created"]), numbers, strict=True):
            item["id"] = format_id("WI", n)
        self.comment_list.sort(key=lambda c: (c[0], c[1]))
        comments_of: dict[int, list[Record]] = {}
        for n, (_day_key, _index, item, comment) in enumerate(self.comment_list, start=1):
            comments_of.setdefault(id(item), []).append(
                {"id": format_id("CMT", n), "authorId": comment["author"]["id"], "body": comment["body"],
                 "createdDate": _day(comment["day"])}
            )
        self.logs.sort(key=lambda log: (-log["day"], log["item"]["id"], log["member"]["id"]))

        def ref(record: Record | None) -> str | None:
            return None if record is None else record["id"]

        def by_id(records: list[Record]) -> list[Record]:
            return sorted(records, key=lambda r: r["id"])

        state: State = {"now": NOW}
        state["projects"] = {
            p["id"]: {"id": p["id"], "name": p["name"], "key": p["key"], "status": p["status"],
                      "leadId": p["lead"]["id"], "startDate": _day(p["start"]), "targetDate": _day(p["target"])}
            for p in by_id(self.projects)
        }
        state["workItems"] = {
            i["id"]: {
                "id": i["id"], "title": i["title"], "type": i["type"], "status": self.state_ids[i["status"]],
                "priority": i["priority"], "assigneeId": ref(i["assignee"]), "projectId": i["project"]["id"],
                "sprintId": ref(i["sprint"]), "estimatePoints": i["estimate"], "createdDate": _day(i["created"]),
                "statusEnteredDate": _day(i["entered"]), "dueDate": None if i["due"] is None else _day(i["due"]),
                "parentId": ref(i["parent"]), "dependsOn": [d["id"] for d in i["deps"]],
                "comments": comments_of.get(id(i), []),
            }
            for i in by_id(self.items)
        }
        state["sprints"] = {
            s["id"]: {"id": s["id"], "name": s["name"], "projectId": s["project"]["id"],
                      "startDate": _day(s["start"]), "endDate": _day(s["end"]), "status": s["status"]}
            for s in by_id(self.sprints)
        }
        state["members"] = {
            m["id"]: {"id": m["id"], "name": m["name"], "email": m["name"].lower().replace(" ", ".") + "@example.com",
                      "role": m["role"], "teamId": ref(m["team"]), "weeklyCapacityPoints": m["capacity"],
                      "active": m["active"]}
            for m in by_id(self.members)
        }
        state["teams"] = {t["id"]: {"id": t["id"], "name": t["name"], "leadId": ref(t["lead"])}
                          for t in by_id(self.teams)}
        order = {name: (n, done, blocked) for name, n, done, blocked in WORKFLOW}
        state["workflowStates"] = {
            wfs_id: {"id": wfs_id, "name": name, "order": order[name][0], "isDone": order[name][1],
                     "isBlockedState": order[name][2]}
            for name, wfs_id in sorted(self.state_ids.items(), key=lambda kv: kv[1])
        }
        state["timeLogs"] = {}
        for n, log in enumerate(self.logs, start=1):
            log_id = format_id("TL", n)
            hours = log["hours"]
            state["timeLogs"][log_id] = {"id": log_id, "workItemId": log["item"]["id"], "memberId": log["member"]["id"],
                                         "date": _day(log["day"]),
                                         "hours": int(hours) if float(hours).is_integer() else hours}
        state["auditLog"] = [
            {"id": format_id("AUD", n, 4), "at": _day(e["day"]), "actorMemberId": e["actor"]["id"],
             "action": e["action"], "entityType": e["type"], "entityId": e["entity"]["id"], "detail": e["detail"]}
            for n, e in enumerate(self.audit, start=1)
        ]

        def highest(ids: Any) -> int:
            return max(int(i.split("-")[1]) for i in ids)

        state["sequences"] = {
            "PROJ": highest(state["projects"]) + rng.randint(0, 1),
            "WI": highest(state["workItems"]) + rng.randint(0, 2),
            "SPR": highest(state["sprints"]) + rng.randint(0, 1),
            "MEM": highest(state["members"]) + rng.randint(0, 1),
            "TEAM": highest(state["teams"]),
            "TL": len(self.logs),
            "CMT": len(self.comment_list),
            "AUD": len(self.audit),
        }
        return state

    def build(self) -> State:
        self.workflow()
        self.people()
        self.projects_and_sprints()
        self.work_items()
        self.sprint_figures()
        self.capacities()
        self.time_logs()
        self.comments()
        self.audit_log()
        return self.assemble()


def generate(k: int) -> State:
    """Variant ``k`` of the project world (an int >= 0); the same ``k`` gives the same world."""
    return _Builder(k).build()
