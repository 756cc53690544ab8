"""The demo CRM world: manifest, datasets (demo-crm.md §4), create_state (§1) and the helpers of §3
checked against the seed aggregates of §5."""

from __future__ import annotations

import json
import re
import sys

import pytest

from silo_gym import canonical

from . import ENV_DIR, load_demo

DATA_DIR = ENV_DIR / "data"


@pytest.fixture(scope="module")
def demo():
    return load_demo()


@pytest.fixture(scope="module")
def st(demo):
    """The environment's ``state`` module (helpers of §3)."""
    return sys.modules[demo.__name__ + ".state"]


@pytest.fixture
def state(demo):
    return demo.create_state()


def read_data(name: str):
    return json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# Manifest and files


def test_manifest_is_exact():
    text = (ENV_DIR / "silo.environment.json").read_text(encoding="utf-8")
    assert text == (
        "{\n"
        '  "name": "demo",\n'
        '  "template": "crm",\n'
        '  "templateVersion": "0.3.0",\n'
        '  "entrypoint": "./__init__.py",\n'
        '  "tools": []\n'
        "}\n"
    )


DATA_FILES = [
    "accounts",
    "activities",
    "auditLog",
    "contacts",
    "leads",
    "opportunities",
    "sequences",
    "stages",
    "users",
]

FIELD_ORDER = {
    "users": ["id", "name", "email", "role", "managerId", "quota", "active"],
    "accounts": ["id", "name", "industry", "tier", "ownerId", "website", "createdDate"],
    "contacts": ["id", "accountId", "firstName", "lastName", "email", "phone", "title", "isPrimary"],
    "leads": [
        "id",
        "firstName",
        "lastName",
        "company",
        "email",
        "phone",
        "title",
        "source",
        "status",
        "ownerId",
        "createdDate",
        "lastContactedDate",
        "disqualifyReason",
        "convertedAccountId",
        "convertedContactId",
        "convertedOpportunityId",
    ],
    "opportunities": [
        "id",
        "name",
        "accountId",
        "primaryContactId",
        "ownerId",
        "stageId",
        "amount",
        "expectedCloseDate",
        "createdDate",
        "stageEnteredDate",
        "status",
        "closedDate",
        "lostReason",
        "sourceLeadId",
    ],
    "stages": ["id", "name", "order", "probability", "isClosed"],
    "activities": ["id", "type", "subject", "ownerId", "relatedTo", "dueDate", "completedDate", "notes"],
}

COUNTS = {
    "users": 6,
    "accounts": 11,
    "contacts": 14,
    "leads": 10,
    "opportunities": 16,
    "activities": 15,
    "stages": 6,
}


def test_exactly_nine_data_files():
    assert sorted(p.stem for p in DATA_DIR.glob("*.json")) == DATA_FILES


@pytest.mark.parametrize("name", DATA_FILES)
def test_data_file_is_pretty_ascii_json(name):
    raw = (DATA_DIR / f"{name}.json").read_bytes()
    raw.decode("ascii")  # ASCII only
    value = json.loads(raw)
    assert raw.decode() == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _walk(value):
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


@pytest.mark.parametrize("name", DATA_FILES)
def test_data_holds_no_floats(name):
    assert not any(isinstance(v, float) for v in _walk(read_data(name)))


@pytest.mark.parametrize("name", sorted(FIELD_ORDER))
def test_entity_files_are_arrays_in_id_order_with_field_order(name):
    rows = read_data(name)
    assert isinstance(rows, list)
    assert len(rows) == COUNTS[name]
    ids = [r["id"] for r in rows]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    for row in rows:
        assert list(row) == FIELD_ORDER[name]


def test_stages_dataset():
    rows = [(s["id"], s["name"], s["order"], s["probability"], s["isClosed"]) for s in read_data("stages")]
    assert rows == [
        ("STG-001", "Prospecting", 1, 10, False),
        ("STG-002", "Discovery", 2, 25, False),
        ("STG-003", "Proposal", 3, 50, False),
        ("STG-004", "Negotiation", 4, 75, False),
        ("STG-005", "Closed Won", 5, 100, True),
        ("STG-006", "Closed Lost", 6, 0, True),
    ]


def test_users_dataset():
    users = read_data("users")
    rows = [(u["id"], u["name"], u["role"], u["managerId"], u["quota"]["amount"], u["active"]) for u in users]
    assert rows == [
        ("USR-001", "Amara Osei", "manager", None, 0, True),
        ("USR-002", "Daniel Reyes", "rep", "USR-001", 250000, True),
        ("USR-003", "Priya Nair", "rep", "USR-001", 250000, True),
        ("USR-004", "Tomas Bergstrom", "rep", "USR-001", 200000, False),
        ("USR-005", "Lena Fischer", "rep", "USR-001", 220000, True),
        ("USR-006", "Kofi Mensah", "rep", "USR-001", 180000, True),
    ]
    assert users[0]["email"] == "amara.osei@example.com"
    for u in users:
        assert u["email"] == u["name"].lower().replace(" ", ".") + "@example.com"
        assert u["quota"] == {"amount": u["quota"]["amount"], "currency": "USD"}
        assert list(u["quota"]) == ["amount", "currency"]


def test_accounts_dataset():
    rows = [tuple(a.values()) for a in read_data("accounts")]
    assert rows == [
        ("ACC-001", "Helios Manufacturing", "Industrial Equipment", "enterprise", "USR-002", "helios-mfg.example.com", "2024-06-11"),
        ("ACC-002", "Northwind Logistics", "Transportation", "mid_market", "USR-002", "northwind-logistics.example.com", "2025-02-03"),
        ("ACC-003", "Vertex Analytics", "Software", "enterprise", "USR-003", "vertexanalytics.example.com", "2024-09-27"),
        ("ACC-004", "Brightpath Health", "Healthcare", "mid_market", "USR-003", "brightpathhealth.example.com", "2025-11-14"),
        ("ACC-005", "Cascade Foods", "Food & Beverage", "mid_market", "USR-004", "cascadefoods.example.com", "2025-01-20"),
        ("ACC-006", "Ridgeline Energy", "Energy", "enterprise", "USR-004", "ridgelineenergy.example.com", "2024-11-05"),
        ("ACC-007", "Lumen Retail", "Retail", "mid_market", "USR-005", "lumenretail.example.com", "2025-04-18"),
        ("ACC-008", "Anchor Financial", "Financial Services", "enterprise", "USR-005", "anchorfinancial.example.com", "2024-08-09"),
        ("ACC-009", "Peakform Sports", "Consumer Goods", "smb", "USR-006", "peakformsports.example.com", "2025-07-22"),
        ("ACC-010", "Solace Hospitality", "Hospitality", "smb", "USR-006", "solacehospitality.example.com", "2025-05-30"),
        ("ACC-011", "Crestline Media", "Media", "smb", "USR-005", "crestlinemedia.example.com", "2025-03-12"),
    ]  # fmt: skip


PHONE_RE = re.compile(r"\+1-[0-9]{3}-555-01[0-9]{2}")


def test_contacts_dataset():
    contacts = read_data("contacts")
    rows = [
        (c["id"], c["accountId"], c["firstName"], c["lastName"], c["title"], c["isPrimary"]) for c in contacts
    ]
    assert rows == [
        ("CON-001", "ACC-001", "Marta", "Velasquez", "VP Operations", True),
        ("CON-002", "ACC-001", "Owen", "Drummond", "Plant Manager", False),
        ("CON-003", "ACC-002", "Sipho", "Ndlovu", "Director of Fleet", True),
        ("CON-004", "ACC-003", "Hannah", "Liebermann", "Chief Data Officer", True),
        ("CON-005", "ACC-003", "Rafael", "Moreno", "Procurement Lead", False),
        ("CON-006", "ACC-004", "Delphine", "Rousseau", "Head of IT", True),
        ("CON-007", "ACC-005", "Bruno", "Castellani", "Supply Chain Director", True),
        ("CON-008", "ACC-006", "Aisha", "Rahimi", "VP Infrastructure", True),
        ("CON-009", "ACC-007", "Gideon", "Park", "Director of Stores", True),
        ("CON-010", "ACC-008", "Colette", "Barnes", "COO", True),
        ("CON-011", "ACC-008", "Idris", "Okonkwo", "Head of Vendor Risk", False),
        ("CON-012", "ACC-009", "Freya", "Lindqvist", "Founder", True),
        ("CON-013", "ACC-010", "Mateo", "Duarte", "General Manager", True),
        ("CON-014", "ACC-011", "Noor", "Haddad", "Marketing Director", True),
    ]
    websites = {a["id"]: a["website"] for a in read_data("accounts")}
    assert contacts[0]["email"] == "marta.velasquez@helios-mfg.example.com"
    for c in contacts:
        assert c["email"] == f"{c['firstName'].lower()}.{c['lastName'].lower()}@{websites[c['accountId']]}"
        assert PHONE_RE.fullmatch(c["phone"])
    assert len({c["phone"] for c in contacts}) == 14


def test_leads_dataset():
    leads = read_data("leads")
    rows = [
        (
            x["id"],
            x["firstName"],
            x["lastName"],
            x["company"],
            x["source"],
            x["status"],
            x["ownerId"],
            x["createdDate"],
            x["lastContactedDate"],
        )
        for x in leads
    ]
    assert rows == [
        ("LEAD-001", "Yuki", "Tanabe", "Meridian Robotics", "web_form", "new", "USR-002", "2026-03-10", None),
        ("LEAD-002", "Adaeze", "Chukwu", "Tidewater Shipping", "referral", "working", "USR-003", "2026-02-18", "2026-03-09"),
        ("LEAD-003", "Gustav", "Ahlberg", "Nordic Print Works", "event", "disqualified", "USR-005", "2026-01-15", "2026-02-02"),
        ("LEAD-004", "Ingrid", "Halvorsen", "Fjord Maritime Group", "outbound", "qualified", "USR-002", "2026-02-05", "2026-03-12"),
        ("LEAD-005", "Delphine", "Rousseau", "Brightpath Health", "inbound_call", "converted", "USR-003", "2025-11-02", "2026-01-28"),
        ("LEAD-006", "Tobias", "Marchetti", "Alpine Outfitters", "partner", "new", "USR-006", "2026-03-13", None),
        ("LEAD-007", "Selma", "Bouchard", "Harborview Hotels", "event", "working", "USR-005", "2026-02-24", "2026-03-11"),
        ("LEAD-008", "Ravi", "Subramanian", "Clearwater Utilities", "outbound", "qualified", "USR-006", "2026-01-29", "2026-03-06"),
        ("LEAD-009", "Beatriz", "Almeida", "Suncrest Agriculture", "web_form", "new", "USR-002", "2025-12-05", None),
        ("LEAD-010", "Emeka", "Balogun", "Landmark Property Group", "referral", "working", "USR-003", "2026-02-11", "2026-03-04"),
    ]  # fmt: skip
    by_id = {x["id"]: x for x in leads}
    l4 = by_id["LEAD-004"]
    assert (l4["email"], l4["phone"], l4["title"]) == (
        "ingrid.halvorsen@fjordmaritime.example.com",
        "+1-206-555-0147",
        "Director of Vessel Operations",
    )
    l3 = by_id["LEAD-003"]
    assert l3["phone"] is None
    assert l3["disqualifyReason"] == "Company size well below the minimum deal threshold."
    l5 = by_id["LEAD-005"]
    assert (l5["convertedAccountId"], l5["convertedContactId"], l5["convertedOpportunityId"]) == (
        "ACC-004",
        "CON-006",
        "OPP-004",
    )
    assert l5["email"] == "delphine.rousseau@brightpathhealth.example.com"
    assert l5["title"] == "Head of IT"
    for x in leads:
        if x["id"] not in ("LEAD-003", "LEAD-005"):
            assert x["disqualifyReason"] is None
        if x["id"] != "LEAD-005":
            assert x["convertedAccountId"] is x["convertedContactId"] is x["convertedOpportunityId"] is None
        if x["id"] not in ("LEAD-003", "LEAD-004", "LEAD-005"):
            slug = x["company"].lower().replace(" ", "")
            assert x["email"] == f"{x['firstName'].lower()}.{x['lastName'].lower()}@{slug}.example.com"
            assert PHONE_RE.fullmatch(x["phone"])
            assert isinstance(x["title"], str) and x["title"]


def test_opportunities_dataset():
    opps = read_data("opportunities")
    rows = [
        (
            o["id"],
            o["name"],
            o["accountId"],
            o["primaryContactId"],
            o["ownerId"],
            o["stageId"],
            o["amount"]["amount"],
            o["expectedCloseDate"],
            o["createdDate"],
            o["stageEnteredDate"],
            o["status"],
            o["closedDate"],
        )
        for o in opps
    ]
    assert rows == [
        ("OPP-001", "Helios production line upgrade", "ACC-001", "CON-001", "USR-002", "STG-003", 120000, "2026-04-10", "2025-12-01", "2026-03-02", "open", None),
        ("OPP-002", "Northwind fleet telematics", "ACC-002", "CON-003", "USR-002", "STG-002", 80000, "2026-05-01", "2025-10-15", "2026-01-05", "open", None),
        ("OPP-003", "Vertex platform expansion", "ACC-003", "CON-004", "USR-003", "STG-004", 200000, "2026-03-25", "2025-11-20", "2026-03-09", "open", None),
        ("OPP-004", "Brightpath scheduling rollout", "ACC-004", "CON-006", "USR-003", "STG-001", 45000, "2026-06-15", "2026-01-28", "2026-02-20", "open", None),
        ("OPP-005", "Cascade cold chain monitoring", "ACC-005", "CON-007", "USR-004", "STG-003", 95000, "2026-04-20", "2025-09-30", "2026-01-12", "open", None),
        ("OPP-006", "Ridgeline grid monitoring", "ACC-006", "CON-008", "USR-004", "STG-002", 150000, "2026-05-30", "2025-12-08", "2026-02-02", "open", None),
        ("OPP-007", "Lumen point-of-sale refresh", "ACC-007", "CON-009", "USR-005", "STG-004", 110000, "2026-03-20", "2025-12-19", "2026-03-11", "open", None),
        ("OPP-008", "Anchor compliance suite", "ACC-008", "CON-010", "USR-005", "STG-003", 175000, "2026-04-05", "2025-08-22", "2026-01-20", "open", None),
        ("OPP-009", "Peakform ecommerce replatform", "ACC-009", "CON-012", "USR-006", "STG-001", 30000, "2026-07-01", "2026-03-02", "2026-03-13", "open", None),
        ("OPP-010", "Solace booking engine", "ACC-010", "CON-013", "USR-006", "STG-002", 60000, "2026-05-15", "2026-01-10", "2026-02-28", "open", None),
        ("OPP-011", "Helios maintenance pilot", "ACC-001", "CON-001", "USR-002", "STG-005", 90000, "2026-02-15", "2025-09-04", "2026-02-15", "won", "2026-02-15"),
        ("OPP-012", "Vertex analytics pilot", "ACC-003", "CON-004", "USR-003", "STG-005", 140000, "2026-01-30", "2025-07-16", "2026-01-30", "won", "2026-01-30"),
        ("OPP-013", "Lumen flagship store pilot", "ACC-007", "CON-009", "USR-005", "STG-005", 130000, "2026-02-10", "2025-08-01", "2026-02-10", "won", "2026-02-10"),
        ("OPP-014", "Solace front-desk onboarding", "ACC-010", "CON-013", "USR-006", "STG-005", 95000, "2026-01-22", "2025-06-25", "2026-01-22", "won", "2026-01-22"),
        ("OPP-015", "Crestline campaign tooling", "ACC-011", "CON-014", "USR-005", "STG-006", 70000, "2026-02-28", "2025-10-02", "2026-02-28", "lost", "2026-02-28"),
        ("OPP-016", "Peakform retail trial", "ACC-009", "CON-012", "USR-006", "STG-006", 25000, "2026-03-05", "2025-11-11", "2026-03-05", "lost", "2026-03-05"),
    ]  # fmt: skip
    for o in opps:
        assert o["amount"] == {"amount": o["amount"]["amount"], "currency": "USD"}
        assert isinstance(o["amount"]["amount"], int)
    lost = {o["id"]: o["lostReason"] for o in opps if o["lostReason"] is not None}
    assert lost == {
        "OPP-015": "Lost to the incumbent vendor on price.",
        "OPP-016": "Budget withdrawn before the new fiscal year.",
    }
    assert {o["id"]: o["sourceLeadId"] for o in opps if o["sourceLeadId"] is not None} == {
        "OPP-004": "LEAD-005"
    }


def test_activities_dataset():
    acts = read_data("activities")
    rows = [
        (
            a["id"],
            a["type"],
            a["ownerId"],
            a["relatedTo"]["type"],
            a["relatedTo"]["id"],
            a["dueDate"],
            a["completedDate"],
        )
        for a in acts
    ]
    assert rows == [
        ("ACT-001", "meeting", "USR-002", "opportunity", "OPP-001", "2026-03-02", "2026-03-02"),
        ("ACT-002", "email", "USR-002", "opportunity", "OPP-001", "2026-03-04", "2026-03-04"),
        ("ACT-003", "call", "USR-002", "opportunity", "OPP-002", "2026-02-10", None),
        ("ACT-004", "meeting", "USR-003", "opportunity", "OPP-003", "2026-03-18", None),
        ("ACT-005", "note", "USR-003", "opportunity", "OPP-003", None, "2026-03-09"),
        ("ACT-006", "call", "USR-003", "opportunity", "OPP-004", "2026-02-20", "2026-02-20"),
        ("ACT-007", "email", "USR-004", "opportunity", "OPP-005", "2026-01-20", None),
        ("ACT-008", "call", "USR-004", "opportunity", "OPP-006", "2026-02-14", None),
        ("ACT-009", "meeting", "USR-005", "opportunity", "OPP-007", "2026-03-17", None),
        ("ACT-010", "email", "USR-005", "opportunity", "OPP-008", "2026-01-22", "2026-01-22"),
        ("ACT-011", "call", "USR-002", "lead", "LEAD-004", "2026-03-12", "2026-03-12"),
        ("ACT-012", "email", "USR-003", "lead", "LEAD-002", "2026-03-09", "2026-03-09"),
        ("ACT-013", "call", "USR-006", "lead", "LEAD-008", "2026-03-06", "2026-03-06"),
        ("ACT-014", "note", "USR-001", "account", "ACC-005", None, "2026-03-14"),
        ("ACT-015", "note", "USR-001", "account", "ACC-006", None, "2026-03-14"),
    ]
    for a in acts:
        assert list(a["relatedTo"]) == ["type", "id"]
        assert isinstance(a["subject"], str) and a["subject"]
        assert isinstance(a["notes"], str) and a["notes"]
    for a in acts[13:]:
        assert a["subject"] == "Account handover pending"
        assert "Tomas Bergstrom" in a["notes"]


def test_audit_log_and_sequences():
    assert read_data("auditLog") == []
    seq = read_data("sequences")
    assert list(seq.items()) == [("ACC", 11), ("CON", 14), ("LEAD", 10), ("OPP", 16), ("ACT", 15), ("AUD", 0)]


def _strings_with_origin():
    """Every string value in the data, with (file, record id, field)."""
    for name in FIELD_ORDER:
        for row in read_data(name):
            for field, value in row.items():
                if isinstance(value, dict):
                    for sub in value.values():
                        if isinstance(sub, str):
                            yield name, row["id"], field, sub
                elif isinstance(value, str):
                    yield name, row["id"], field, value


def test_only_lead_004_company_mentions_fjord_maritime():
    hits = [(f, i, k) for f, i, k, v in _strings_with_origin() if "fjord maritime" in v.lower()]
    assert hits == [("leads", "LEAD-004", "company")]


def test_no_invented_value_contains_a_user_full_name():
    names = [u["name"] for u in read_data("users")]
    hits = [
        (f, i, k)
        for f, i, k, v in _strings_with_origin()
        if f != "users" and any(n.lower() in v.lower() for n in names)
    ]
    assert hits == [("activities", "ACT-014", "notes"), ("activities", "ACT-015", "notes")]


# ---------------------------------------------------------------------------------------------
# create_state


STATE_KEYS = [
    "now",
    "users",
    "accounts",
    "contacts",
    "leads",
    "opportunities",
    "activities",
    "stages",
    "auditLog",
    "sequences",
]


def test_create_state_keys_and_shapes(demo, state):
    assert demo.SIMULATION_NOW == "2026-03-16"
    assert list(state) == STATE_KEYS
    assert state["now"] == "2026-03-16"
    for name in FIELD_ORDER:
        rows = read_data(name)
        assert list(state[name]) == [r["id"] for r in rows]
        assert list(state[name].values()) == rows
        # key order inside records is kept too
        assert canonical(list(state[name].values())) == canonical(rows)
    assert state["auditLog"] == []
    assert list(state["sequences"].items()) == list(read_data("sequences").items())
    assert isinstance(state["opportunities"]["OPP-001"]["amount"]["amount"], int)


def _containers(value, path="state"):
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            yield from _containers(v, f"{path}.{k}")
    elif isinstance(value, list):
        yield path, value
        for i, v in enumerate(value):
            yield from _containers(v, f"{path}[{i}]")


def test_create_state_returns_fresh_objects(demo):
    first = demo.create_state()
    second = demo.create_state()
    assert first is not second
    ids_first = {id(c) for _, c in _containers(first)}
    shared = [p for p, c in _containers(second) if id(c) in ids_first]
    assert shared == []
    assert canonical(first) == canonical(second)


def test_mutating_one_world_does_not_leak(demo):
    a = demo.create_state()
    a["opportunities"]["OPP-001"]["amount"]["amount"] = 1
    a["sequences"]["ACC"] = 99
    a["auditLog"].append({"id": "x"})
    del a["users"]["USR-001"]
    b = demo.create_state()
    assert b["opportunities"]["OPP-001"]["amount"]["amount"] == 120000
    assert b["sequences"]["ACC"] == 11
    assert b["auditLog"] == []
    assert "USR-001" in b["users"]


def test_exports(demo):
    assert callable(demo.create_state)
    assert callable(demo.bind_tools)
    assert isinstance(demo.verifiers, (list, tuple))
    bound = demo.bind_tools(demo.create_state())
    assert len(bound) == 42


# ---------------------------------------------------------------------------------------------
# Helpers of §3 against the seed aggregates of §5

SEED_OPPS = {
    # id: (probability, weighted, daysInStage, stale)
    "OPP-001": (50, 60000, 14, False),
    "OPP-002": (25, 20000, 70, True),
    "OPP-003": (75, 150000, 7, False),
    "OPP-004": (10, 4500, 24, False),
    "OPP-005": (50, 47500, 63, True),
    "OPP-006": (25, 37500, 42, True),
    "OPP-007": (75, 82500, 5, False),
    "OPP-008": (50, 87500, 55, True),
    "OPP-009": (10, 3000, 3, False),
    "OPP-010": (25, 15000, 16, False),
    "OPP-011": (100, 90000, 29, False),
    "OPP-012": (100, 140000, 45, False),
    "OPP-013": (100, 130000, 34, False),
    "OPP-014": (100, 95000, 53, False),
    "OPP-015": (0, 0, 16, False),
    "OPP-016": (0, 0, 11, False),
}


@pytest.mark.parametrize("opp_id", sorted(SEED_OPPS))
def test_per_opportunity_derived_values(st, state, opp_id):
    opp = state["opportunities"][opp_id]
    probability, weighted, days, stale = SEED_OPPS[opp_id]
    assert st.probability_of(state, opp) == probability
    assert st.weighted_amount(state, opp) == {"amount": weighted, "currency": "USD"}
    assert st.days_in_stage(state, opp) == days
    assert st.is_stale(state, opp) is stale
    assert st.is_stale(state, opp, 30) is stale
    assert st.is_past_due(state, opp) is False


def test_no_open_deal_is_past_due_and_earliest_close(st, state):
    open_opps = [o for o in state["opportunities"].values() if o["status"] == "open"]
    assert not any(st.is_past_due(state, o) for o in open_opps)
    assert min(o["expectedCloseDate"] for o in open_opps) == "2026-03-20"
    assert min(open_opps, key=lambda o: o["expectedCloseDate"])["id"] == "OPP-007"


def test_lead_ages(st, state):
    ages = {lid: st.age_in_days(state, lead["createdDate"]) for lid, lead in state["leads"].items()}
    assert ages == {
        "LEAD-001": 6,
        "LEAD-002": 26,
        "LEAD-003": 60,
        "LEAD-004": 39,
        "LEAD-005": 134,
        "LEAD-006": 3,
        "LEAD-007": 20,
        "LEAD-008": 46,
        "LEAD-009": 101,
        "LEAD-010": 33,
    }


def test_open_pipeline_weighted_total(st, state):
    open_opps = [o for o in state["opportunities"].values() if o["status"] == "open"]
    assert len(open_opps) == 10
    assert st.sum_money(o["amount"]["amount"] for o in open_opps) == {"amount": 1065000, "currency": "USD"}
    weighted = st.sum_money(st.weighted_amount(state, o)["amount"] for o in open_opps)
    assert weighted == {"amount": 507500, "currency": "USD"}


REP_TABLE = {
    # userId: (closedWon, openPipeline, quotaAttainmentPercent)
    "USR-002": (90000, 200000, 36),
    "USR-003": (140000, 245000, 56),
    "USR-004": (0, 245000, 0),
    "USR-005": (130000, 285000, 59.1),
    "USR-006": (95000, 90000, 52.8),
}


@pytest.mark.parametrize("user_id", sorted(REP_TABLE))
def test_rep_figures(st, state, user_id):
    won, pipeline, percent = REP_TABLE[user_id]
    user = state["users"][user_id]
    assert st.won_amount_for(state, user_id) == {"amount": won, "currency": "USD"}
    assert st.open_pipeline_for(state, user_id) == {"amount": pipeline, "currency": "USD"}
    assert st.quota_attainment_percent(state, user) == percent


def test_manager_has_no_attainment(st, state):
    assert st.quota_attainment_percent(state, state["users"]["USR-001"]) is None


def test_stale_counts_by_owner(st, state):
    counts: dict[str, int] = {}
    for o in state["opportunities"].values():
        if st.is_stale(state, o, st.STALE_STAGE_DAYS):
            counts[o["ownerId"]] = counts.get(o["ownerId"], 0) + 1
    assert counts == {"USR-002": 1, "USR-004": 2, "USR-005": 1}
    assert st.STALE_STAGE_DAYS == 30


def test_is_stale_threshold_and_status(st, state):
    opp = state["opportunities"]["OPP-006"]  # 42 days in stage
    assert st.is_stale(state, opp, 41) is True
    assert st.is_stale(state, opp, 42) is False
    won = state["opportunities"]["OPP-012"]  # 45 days, but won
    assert st.is_stale(state, won, 1) is False


def test_past_due(st, state):
    opp = dict(state["opportunities"]["OPP-007"], expectedCloseDate="2026-03-15")
    assert st.is_past_due(state, opp) is True
    opp["expectedCloseDate"] = "2026-03-16"
    assert st.is_past_due(state, opp) is False
    opp.update(expectedCloseDate="2026-03-01", status="won")
    assert st.is_past_due(state, opp) is False


def test_stage_helpers(st, state):
    assert [s["id"] for s in st.stages_in_order(state)] == [f"STG-00{i}" for i in range(1, 7)]
    assert st.first_open_stage(state)["id"] == "STG-001"
    assert st.next_stage(state, "STG-001")["id"] == "STG-002"
    assert st.next_stage(state, "STG-003")["id"] == "STG-004"
    assert st.next_stage(state, "STG-004") is None
    assert st.next_stage(state, "STG-005") is None
    assert st.next_stage(state, "STG-404") is None
    assert st.won_stage(state)["id"] == "STG-005"
    assert st.lost_stage(state)["id"] == "STG-006"


def test_stage_helpers_follow_order_not_insertion(st, state):
    stages = state["stages"]
    stages["STG-001"]["order"] = 10  # Prospecting now comes last
    assert [s["id"] for s in st.stages_in_order(state)][-1] == "STG-001"
    assert st.first_open_stage(state)["id"] == "STG-002"
    assert st.next_stage(state, "STG-006")["id"] == "STG-001"
    for s in stages.values():
        s["isClosed"] = True
    assert st.first_open_stage(state) is None
    empty = {"stages": {}}
    assert st.won_stage(empty) is None and st.lost_stage(empty) is None


def test_probability_of_unknown_stage_is_zero(st, state):
    opp = dict(state["opportunities"]["OPP-001"], stageId="STG-404")
    assert st.probability_of(state, opp) == 0
    assert st.weighted_amount(state, opp) == {"amount": 0, "currency": "USD"}


def test_money_and_rounding(st):
    assert st.money(0.125) == {"amount": 0.13, "currency": "USD"}
    assert list(st.money(1)) == ["amount", "currency"]
    assert st.money(1.005)["amount"] == 1.01
    assert st.money(2.675)["amount"] == 2.68
    assert st.sum_money([0.1, 0.2]) == {"amount": 0.3, "currency": "USD"}
    assert st.sum_money([]) == {"amount": 0, "currency": "USD"}
    assert st.sum_money([{"amount": 5, "currency": "USD"}, 2.5])["amount"] == 7.5


def test_weighted_amount_multiplies_first(st):
    state = {"stages": {"S": {"id": "S", "probability": 33, "isClosed": False, "order": 1}}}
    opp = {"status": "open", "stageId": "S", "amount": {"amount": 12345.67, "currency": "USD"}}
    assert st.weighted_amount(state, opp)["amount"] == 4074.07  # 12345.67 * 33 / 100 = 4074.0711


def test_date_helpers(st):
    assert st.days_between("2026-03-02", "2026-03-16") == 14
    assert st.days_between("2026-03-16T23:59:59Z", "2026-03-17") == 1
    assert st.days_between("2026-03-16", "2026-03-02") == -14
    assert st.add_days("2026-02-27", 2) == "2026-03-01"
    assert st.add_days("2026-03-16", -16) == "2026-02-28"
    assert st.full_name({"firstName": "Ingrid", "lastName": "Halvorsen"}) == "Ingrid Halvorsen"


def test_next_id_and_record_audit(st, state):
    assert st.next_id(state, "ACC") == "ACC-012"
    assert st.next_id(state, "ACC") == "ACC-013"
    assert st.next_id(state, "LEAD") == "LEAD-011"
    assert st.next_id(state, "NEW", 2) == "NEW-01"
    assert list(state["sequences"]) == ["ACC", "CON", "LEAD", "OPP", "ACT", "AUD", "NEW"]
    assert state["sequences"]["ACC"] == 13
    state["sequences"]["BIG"] = 1233
    assert st.next_id(state, "BIG", 3) == "BIG-1234"
    st.record_audit(state, "USR-002", "update_account", "account", "ACC-001", "Updated Helios Manufacturing.")
    st.record_audit(state, "USR-003", "qualify_lead", "lead", "LEAD-001", "Qualified Yuki Tanabe.")
    assert state["auditLog"] == [
        {
            "id": "AUD-0001",
            "at": "2026-03-16",
            "actorUserId": "USR-002",
            "action": "update_account",
            "entityType": "account",
            "entityId": "ACC-001",
            "detail": "Updated Helios Manufacturing.",
        },
        {
            "id": "AUD-0002",
            "at": "2026-03-16",
            "actorUserId": "USR-003",
            "action": "qualify_lead",
            "entityType": "lead",
            "entityId": "LEAD-001",
            "detail": "Qualified Yuki Tanabe.",
        },
    ]
    assert list(state["auditLog"][0]) == [
        "id",
        "at",
        "actorUserId",
        "action",
        "entityType",
        "entityId",
        "detail",
    ]
    assert state["sequences"]["AUD"] == 2


def test_helpers_use_state_now_not_the_wall_clock(st, state):
    state["now"] = "2026-04-15"
    opp = state["opportunities"]["OPP-001"]
    assert st.days_in_stage(state, opp) == 44
    assert st.is_stale(state, opp) is True
    assert st.is_past_due(state, opp) is True
    assert st.age_in_days(state, "2026-04-01") == 14
