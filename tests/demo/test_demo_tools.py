"""The demo CRM's 42 tools (demo-crm.md §6–7), called through ``Tool.execute`` as an agent would.

Covers the registry and schema contract, each tool's happy path, the documented error paths and
partial effects, read-only tools leaving the state byte-identical, and the state the reference
plans of TASK-001..003 leave behind (§10).
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from silo_gym import ToolError, canonical

from . import ENV_DIR, load_demo


@pytest.fixture(scope="module")
def demo():
    return load_demo()


@pytest.fixture(scope="module")
def contract(demo):
    return importlib.import_module(demo.__name__ + ".tools.contract")  # also after a later fresh load


class World:
    """A fresh world with its bound tools."""

    def __init__(self, demo) -> None:
        self.state = demo.create_state()
        self.tools = {t.name: t for t in demo.bind_tools(self.state)}

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.tools[name].execute(args)

    def ok(self, name: str, args: dict[str, Any] | None = None) -> Any:
        result = self.call(name, args)
        assert "isError" not in result, result
        return result["output"]

    def err(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, args)
        assert result.get("isError") is True, result
        return result["output"]

    def snapshot(self) -> bytes:
        return canonical(self.state)


@pytest.fixture
def w(demo) -> World:
    return World(demo)


TOOL_NAMES = [
    "get_current_date",
    "list_users",
    "get_user",
    "list_accounts",
    "search_accounts",
    "get_account",
    "create_account",
    "update_account",
    "list_contacts",
    "search_contacts",
    "get_contact",
    "create_contact",
    "update_contact",
    "link_contact_to_account",
    "list_leads",
    "search_leads",
    "get_lead",
    "create_lead",
    "update_lead",
    "qualify_lead",
    "disqualify_lead",
    "convert_lead",
    "list_stages",
    "list_opportunities",
    "search_opportunities",
    "get_opportunity",
    "create_opportunity",
    "update_opportunity",
    "set_opportunity_stage",
    "advance_opportunity_stage",
    "close_opportunity_won",
    "close_opportunity_lost",
    "reassign_opportunity",
    "list_activities",
    "get_activity",
    "log_activity",
    "schedule_followup",
    "complete_activity",
    "pipeline_summary",
    "forecast_report",
    "rep_performance",
    "stale_opportunities",
]

MUTATING = [
    "create_account",
    "update_account",
    "create_contact",
    "update_contact",
    "link_contact_to_account",
    "create_lead",
    "update_lead",
    "qualify_lead",
    "disqualify_lead",
    "convert_lead",
    "create_opportunity",
    "update_opportunity",
    "set_opportunity_stage",
    "advance_opportunity_stage",
    "close_opportunity_won",
    "close_opportunity_lost",
    "reassign_opportunity",
    "log_activity",
    "schedule_followup",
    "complete_activity",
]

PAGED = [
    "list_users",
    "list_accounts",
    "search_accounts",
    "list_contacts",
    "search_contacts",
    "list_leads",
    "search_leads",
    "list_opportunities",
    "search_opportunities",
    "list_activities",
]

# Property names in schema order, and the required ones (in property order).
SCHEMAS = {
    "get_current_date": ([], []),
    "list_users": (["role", "activeOnly", "limit", "offset"], []),
    "get_user": (["userId"], ["userId"]),
    "list_accounts": (["ownerId", "tier", "industry", "limit", "offset"], []),
    "search_accounts": (["query", "limit", "offset"], ["query"]),
    "get_account": (["accountId"], ["accountId"]),
    "create_account": (
        ["name", "industry", "tier", "ownerId", "website", "actorUserId"],
        ["name", "industry", "tier", "ownerId", "actorUserId"],
    ),
    "update_account": (
        ["accountId", "industry", "tier", "website", "ownerId", "actorUserId"],
        ["accountId", "actorUserId"],
    ),
    "list_contacts": (["accountId", "primaryOnly", "limit", "offset"], []),
    "search_contacts": (["query", "limit", "offset"], ["query"]),
    "get_contact": (["contactId"], ["contactId"]),
    "create_contact": (
        ["firstName", "lastName", "email", "accountId", "phone", "title", "isPrimary", "actorUserId"],
        ["firstName", "lastName", "email", "actorUserId"],
    ),
    "update_contact": (["contactId", "email", "phone", "title", "actorUserId"], ["contactId", "actorUserId"]),
    "link_contact_to_account": (
        ["contactId", "accountId", "makePrimary", "actorUserId"],
        ["contactId", "accountId", "actorUserId"],
    ),
    "list_leads": (["status", "ownerId", "source", "limit", "offset"], []),
    "search_leads": (["query", "limit", "offset"], ["query"]),
    "get_lead": (["leadId"], ["leadId"]),
    "create_lead": (
        ["firstName", "lastName", "company", "email", "source", "ownerId", "phone", "title", "actorUserId"],
        ["firstName", "lastName", "company", "email", "source", "ownerId", "actorUserId"],
    ),
    "update_lead": (
        ["leadId", "email", "phone", "title", "ownerId", "markContacted", "actorUserId"],
        ["leadId", "actorUserId"],
    ),
    "qualify_lead": (["leadId", "actorUserId"], ["leadId", "actorUserId"]),
    "disqualify_lead": (["leadId", "reason", "actorUserId"], ["leadId", "reason", "actorUserId"]),
    "convert_lead": (
        [
            "leadId",
            "accountId",
            "createOpportunity",
            "opportunityName",
            "amount",
            "expectedCloseDate",
            "stageId",
            "actorUserId",
        ],
        ["leadId", "actorUserId"],
    ),
    "list_stages": ([], []),
    "list_opportunities": (["ownerId", "accountId", "stageId", "status", "staleOnly", "limit", "offset"], []),
    "search_opportunities": (["query", "limit", "offset"], ["query"]),
    "get_opportunity": (["opportunityId"], ["opportunityId"]),
    "create_opportunity": (
        [
            "name",
            "accountId",
            "ownerId",
            "amount",
            "expectedCloseDate",
            "stageId",
            "primaryContactId",
            "actorUserId",
        ],
        ["name", "accountId", "ownerId", "amount", "expectedCloseDate", "actorUserId"],
    ),
    "update_opportunity": (
        ["opportunityId", "name", "amount", "expectedCloseDate", "primaryContactId", "actorUserId"],
        ["opportunityId", "actorUserId"],
    ),
    "set_opportunity_stage": (
        ["opportunityId", "stageId", "actorUserId"],
        ["opportunityId", "stageId", "actorUserId"],
    ),
    "advance_opportunity_stage": (["opportunityId", "actorUserId"], ["opportunityId", "actorUserId"]),
    "close_opportunity_won": (
        ["opportunityId", "finalAmount", "actorUserId"],
        ["opportunityId", "actorUserId"],
    ),
    "close_opportunity_lost": (
        ["opportunityId", "reason", "actorUserId"],
        ["opportunityId", "reason", "actorUserId"],
    ),
    "reassign_opportunity": (
        ["opportunityId", "newOwnerId", "actorUserId"],
        ["opportunityId", "newOwnerId", "actorUserId"],
    ),
    "list_activities": (["ownerId", "relatedType", "relatedId", "openOnly", "type", "limit", "offset"], []),
    "get_activity": (["activityId"], ["activityId"]),
    "log_activity": (
        ["type", "subject", "relatedType", "relatedId", "ownerId", "notes", "actorUserId"],
        ["type", "subject", "relatedType", "relatedId", "ownerId", "actorUserId"],
    ),
    "schedule_followup": (
        ["type", "subject", "relatedType", "relatedId", "ownerId", "dueDate", "notes", "actorUserId"],
        ["type", "subject", "relatedType", "relatedId", "ownerId", "dueDate", "actorUserId"],
    ),
    "complete_activity": (
        ["activityId", "completedDate", "notes", "actorUserId"],
        ["activityId", "actorUserId"],
    ),
    "pipeline_summary": (["ownerId"], []),
    "forecast_report": (["ownerId", "closingOnOrBefore", "includeClosed"], []),
    "rep_performance": (["activeOnly"], []),
    "stale_opportunities": (["thresholdDays", "ownerId"], []),
}

PROP_KEY_ORDER = ["type", "enum", "description", "minimum", "maximum", "default"]

USD = "USD"


def usd(amount: float) -> dict[str, Any]:
    return {"amount": amount, "currency": USD}


# ---------------------------------------------------------------------------------------------
# Registry and schemas


def test_tool_registry_order(demo):
    assert [t.name for t in demo.tools] == TOOL_NAMES
    assert len(demo.tools) == 42
    assert len(set(TOOL_NAMES)) == 42
    assert sorted(MUTATING + PAGED) == sorted(set(MUTATING + PAGED))
    bound = demo.bind_tools(demo.create_state())
    assert [t.name for t in bound] == TOOL_NAMES


def test_registry_file_style():
    text = (ENV_DIR / "tools" / "__init__.py").read_text()
    assert "\ntools = [\n    get_current_date,\n    list_users,\n" in text
    assert text.rstrip().endswith("    stale_opportunities,\n]")


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_schema_shape(demo, name):
    tool = next(t for t in demo.tools if t.name == name)
    schema = tool.input_schema
    props, required = SCHEMAS[name]
    assert list(schema) == ["type", "properties", "required", "additionalProperties"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert list(schema["properties"]) == props
    assert schema["required"] == required
    for prop_name, prop in schema["properties"].items():
        keys = list(prop)
        assert keys == [k for k in PROP_KEY_ORDER if k in prop], (prop_name, keys)
        assert prop["type"] in ("string", "number", "integer", "boolean")
        assert isinstance(prop["description"], str) and prop["description"].strip()
    assert isinstance(tool.description, str) and len(tool.description) > 40
    if name in MUTATING:
        assert props[-1] == "actorUserId"
        assert "actorUserId" in required
        assert schema["properties"]["actorUserId"]["type"] == "string"
    else:
        assert "actorUserId" not in props
    if name in PAGED:
        assert props[-2:] == ["limit", "offset"]
        limit, offset = schema["properties"]["limit"], schema["properties"]["offset"]
        assert {k: v for k, v in limit.items() if k != "description"} == {
            "type": "integer",
            "minimum": 1,
            "maximum": 500,
            "default": 50,
        }
        assert {k: v for k, v in offset.items() if k != "description"} == {
            "type": "integer",
            "minimum": 0,
            "default": 0,
        }
    else:
        assert "limit" not in props and "offset" not in props


def _prop(demo, tool: str, prop: str) -> dict[str, Any]:
    t = next(t for t in demo.tools if t.name == tool)
    return {k: v for k, v in t.input_schema["properties"][prop].items() if k != "description"}


def test_specific_property_shapes(demo):
    assert _prop(demo, "convert_lead", "amount") == {"type": "number", "minimum": 0}
    assert _prop(demo, "convert_lead", "createOpportunity") == {"type": "boolean", "default": True}
    assert _prop(demo, "convert_lead", "expectedCloseDate") == {"type": "string"}
    assert _prop(demo, "create_opportunity", "amount") == {"type": "number", "minimum": 0}
    assert _prop(demo, "update_opportunity", "amount") == {"type": "number", "minimum": 0}
    assert _prop(demo, "close_opportunity_won", "finalAmount") == {"type": "number", "minimum": 0}
    assert _prop(demo, "stale_opportunities", "thresholdDays") == {
        "type": "integer",
        "minimum": 1,
        "default": 30,
    }
    assert _prop(demo, "list_users", "role") == {"type": "string", "enum": ["rep", "manager"]}
    assert _prop(demo, "list_users", "activeOnly") == {"type": "boolean", "default": False}
    assert _prop(demo, "create_account", "tier") == {
        "type": "string",
        "enum": ["enterprise", "mid_market", "smb"],
    }
    assert _prop(demo, "list_leads", "status")["enum"] == [
        "new",
        "working",
        "qualified",
        "disqualified",
        "converted",
    ]
    assert _prop(demo, "list_leads", "source")["enum"] == [
        "web_form",
        "referral",
        "event",
        "outbound",
        "partner",
        "inbound_call",
    ]
    assert _prop(demo, "list_opportunities", "status")["enum"] == ["open", "won", "lost"]
    assert _prop(demo, "log_activity", "type")["enum"] == ["call", "email", "meeting", "note"]
    assert _prop(demo, "log_activity", "relatedType")["enum"] == ["lead", "account", "contact", "opportunity"]
    for tool, prop in [
        ("convert_lead", "expectedCloseDate"),
        ("create_opportunity", "expectedCloseDate"),
        ("schedule_followup", "dueDate"),
        ("complete_activity", "completedDate"),
        ("forecast_report", "closingOnOrBefore"),
    ]:
        t = next(t for t in demo.tools if t.name == tool)
        assert "YYYY-MM-DD" in t.input_schema["properties"][prop]["description"]


def test_unknown_parameter_lists_properties_in_schema_order(w):
    out = w.err("get_user", {"userId": "USR-002", "foo": 1})
    assert out["code"] == "invalid_input"
    assert out["details"]["problems"] == ['"foo" is not a parameter; expected one of: userId']
    out = w.err("get_current_date", {"x": 1})
    assert out["details"]["problems"] == ['"x" is not a parameter']


# ---------------------------------------------------------------------------------------------
# Readers (§6.3)


def test_read_string(contract):
    assert contract.read_string({"f": "  x "}, "f") == "x"
    for bad in ({"f": ""}, {"f": "   "}, {}, {"f": None}, {"f": 3}):
        with pytest.raises(ToolError) as e:
            contract.read_string(bad, "f")
        assert (e.value.code, e.value.message, e.value.details) == (
            "invalid_input",
            '"f" must be a non-empty string.',
            None,
        )
    assert contract.read_optional_string({}, "f") is None
    assert contract.read_optional_string({"f": None}, "f") is None
    with pytest.raises(ToolError):
        contract.read_optional_string({"f": ""}, "f")


def test_read_number(contract):
    assert contract.read_number({"a": 5}, "a") == 5
    assert contract.read_number({"a": 2.5}, "a") == 2.5
    value = contract.read_number({"a": 5.0}, "a", integer=True)
    assert value == 5 and type(value) is int
    cases = [
        ({"a": True}, {}, '"a" must be a number.'),
        ({"a": "5"}, {}, '"a" must be a number.'),
        ({}, {}, '"a" must be a number.'),
        ({"a": float("nan")}, {}, '"a" must be a number.'),
        ({"a": float("inf")}, {}, '"a" must be a number.'),
        ({"a": 2.5}, {"integer": True}, '"a" must be a whole number.'),
        ({"a": -1}, {"minimum": 0}, '"a" must be at least 0.'),
        ({"a": 0.5}, {"minimum": 1.5}, '"a" must be at least 1.5.'),
        ({"a": 501}, {"maximum": 500}, '"a" must be at most 500.'),
        ({"a": 2.5}, {"integer": True, "minimum": 5}, '"a" must be a whole number.'),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(ToolError) as e:
            contract.read_number(args, "a", **kwargs)
        assert (e.value.code, e.value.message) == ("invalid_input", message)
    assert contract.read_optional_number({}, "a", default=7) == 7
    assert contract.read_optional_number({"a": None}, "a") is None


def test_read_boolean_enum_date(contract):
    assert contract.read_boolean({}, "b", True) is True
    assert contract.read_boolean({"b": None}, "b", False) is False
    assert contract.read_boolean({"b": False}, "b", True) is False
    with pytest.raises(ToolError) as e:
        contract.read_boolean({"b": 1}, "b", False)
    assert e.value.message == '"b" must be true or false.'

    assert contract.read_enum({"e": "smb"}, "e", ["enterprise", "smb"]) == "smb"
    with pytest.raises(ToolError) as e:
        contract.read_enum({"e": "big"}, "e", ["enterprise", "smb"])
    assert (e.value.code, e.value.message, e.value.details) == (
        "invalid_input",
        '"e" must be one of: enterprise, smb.',
        {"received": "big"},
    )
    assert contract.read_optional_enum({}, "e", ["x"]) is None

    assert contract.read_date({"d": "2024-02-29"}, "d") == "2024-02-29"
    for bad in [
        "2026-02-30",
        "2025-02-29",
        "2026-13-01",
        "2026-3-16",
        "16/03/2026",
        "2026-03-16T00:00",
        " 2026-03-16",
    ]:
        with pytest.raises(ToolError) as e:
            contract.read_date({"d": bad}, "d")
        assert (e.value.code, e.value.message, e.value.details) == (
            "invalid_input",
            '"d" must be a date in YYYY-MM-DD format.',
            {"received": bad},
        )
    with pytest.raises(ToolError):
        contract.read_date({"d": "2026-03-1\u0661"}, "d")  # non-ASCII digit
    assert contract.read_optional_date({}, "d", default="2026-03-16") == "2026-03-16"


def test_paginate(contract):
    items = [{"id": f"X-{i:03d}"} for i in (5, 1, 3, 2, 4)]
    assert contract.paginate(items, {}) == {
        "total": 5,
        "count": 5,
        "offset": 0,
        "results": [{"id": f"X-{i:03d}"} for i in (1, 2, 3, 4, 5)],
    }
    assert contract.paginate(items, {"limit": 2, "offset": 1}) == {
        "total": 5,
        "count": 2,
        "offset": 1,
        "results": [{"id": "X-002"}, {"id": "X-003"}],
    }
    assert contract.paginate(items, {"offset": 9}) == {"total": 5, "count": 0, "offset": 9, "results": []}


def test_schema_builder_orders_required(contract):
    s = contract.schema({"b": contract.string_prop("b"), "a": contract.string_prop("a")}, required=["a", "b"])
    assert s["required"] == ["b", "a"]
    assert contract.integer_prop("n", minimum=1, maximum=5, default=2) == {
        "type": "integer",
        "description": "n",
        "minimum": 1,
        "maximum": 5,
        "default": 2,
    }
    assert contract.enum_prop(["x"], "d") == {"type": "string", "enum": ["x"], "description": "d"}


# ---------------------------------------------------------------------------------------------
# Seed aggregates through the reporting tools (§5)


def test_forecast_report_open(w):
    out = w.ok("forecast_report", {})
    assert list(out) == [
        "ownerId",
        "closingOnOrBefore",
        "includeClosed",
        "count",
        "totalAmount",
        "weightedAmount",
        "opportunities",
    ]
    assert out["ownerId"] is None and out["closingOnOrBefore"] is None and out["includeClosed"] is False
    assert out["count"] == 10
    assert out["totalAmount"] == usd(1065000)
    assert out["weightedAmount"] == usd(507500)
    assert [o["id"] for o in out["opportunities"]] == [f"OPP-{i:03d}" for i in range(1, 11)]
    first = out["opportunities"][0]
    assert first == {
        "id": "OPP-001",
        "name": "Helios production line upgrade",
        "ownerId": "USR-002",
        "stageId": "STG-003",
        "amount": usd(120000),
        "weightedAmount": usd(60000),
        "expectedCloseDate": "2026-04-10",
    }
    assert list(first) == [
        "id",
        "name",
        "ownerId",
        "stageId",
        "amount",
        "weightedAmount",
        "expectedCloseDate",
    ]


def test_forecast_report_include_closed_and_filters(w):
    out = w.ok("forecast_report", {"includeClosed": True})
    assert (out["count"], out["totalAmount"], out["weightedAmount"]) == (14, usd(1520000), usd(962500))
    assert "OPP-015" not in [o["id"] for o in out["opportunities"]]
    out = w.ok("forecast_report", {"ownerId": "USR-004"})
    assert [o["id"] for o in out["opportunities"]] == ["OPP-005", "OPP-006"]
    assert out["weightedAmount"] == usd(85000)
    out = w.ok("forecast_report", {"closingOnOrBefore": "2026-03-25"})
    assert [o["id"] for o in out["opportunities"]] == ["OPP-003", "OPP-007"]
    assert out["closingOnOrBefore"] == "2026-03-25"
    out = w.ok("forecast_report", {"ownerId": "USR-999"})  # no existence check
    assert out["count"] == 0 and out["totalAmount"] == usd(0)
    bad = w.err("forecast_report", {"closingOnOrBefore": "2026-02-30"})
    assert bad == {
        "code": "invalid_input",
        "message": '"closingOnOrBefore" must be a date in YYYY-MM-DD format.',
        "details": {"received": "2026-02-30"},
    }


def test_pipeline_summary(w):
    out = w.ok("pipeline_summary", {})
    assert list(out) == ["ownerId", "openCount", "totalAmount", "totalWeightedAmount", "byStage"]
    assert (out["ownerId"], out["openCount"], out["totalAmount"], out["totalWeightedAmount"]) == (
        None,
        10,
        usd(1065000),
        usd(507500),
    )
    rows = [
        (
            r["stageId"],
            r["stageName"],
            r["probability"],
            r["count"],
            r["amount"]["amount"],
            r["weightedAmount"]["amount"],
        )
        for r in out["byStage"]
    ]
    assert rows == [
        ("STG-001", "Prospecting", 10, 2, 75000, 7500),
        ("STG-002", "Discovery", 25, 3, 290000, 72500),
        ("STG-003", "Proposal", 50, 3, 390000, 195000),
        ("STG-004", "Negotiation", 75, 2, 310000, 232500),
    ]
    assert list(out["byStage"][0]) == [
        "stageId",
        "stageName",
        "probability",
        "count",
        "amount",
        "weightedAmount",
    ]


def test_pipeline_summary_for_owner(w):
    out = w.ok("pipeline_summary", {"ownerId": "USR-006"})
    assert out["ownerId"] == "USR-006"
    assert out["openCount"] == 2
    assert out["totalAmount"] == usd(90000)
    assert out["totalWeightedAmount"] == usd(18000)
    assert [(r["stageId"], r["count"]) for r in out["byStage"]] == [
        ("STG-001", 1),
        ("STG-002", 1),
        ("STG-003", 0),
        ("STG-004", 0),
    ]
    assert out["byStage"][2]["amount"] == usd(0)
    assert w.err("pipeline_summary", {"ownerId": "USR-999"}) == {
        "code": "not_found",
        "message": 'User "USR-999" was not found.',
    }


def test_stale_opportunities(w):
    out = w.ok("stale_opportunities", {})
    assert list(out) == ["thresholdDays", "ownerId", "count", "totalAmount", "countByOwner", "opportunities"]
    assert (out["thresholdDays"], out["ownerId"], out["count"], out["totalAmount"]) == (
        30,
        None,
        4,
        usd(500000),
    )
    assert out["countByOwner"] == [
        {"userId": "USR-004", "name": "Tomas Bergstrom", "count": 2},
        {"userId": "USR-002", "name": "Daniel Reyes", "count": 1},
        {"userId": "USR-005", "name": "Lena Fischer", "count": 1},
    ]
    assert [(o["id"], o["daysInStage"]) for o in out["opportunities"]] == [
        ("OPP-002", 70),
        ("OPP-005", 63),
        ("OPP-008", 55),
        ("OPP-006", 42),
    ]
    assert out["opportunities"][1] == {
        "id": "OPP-005",
        "name": "Cascade cold chain monitoring",
        "ownerId": "USR-004",
        "ownerName": "Tomas Bergstrom",
        "stageId": "STG-003",
        "amount": usd(95000),
        "daysInStage": 63,
        "expectedCloseDate": "2026-04-20",
    }


def test_stale_opportunities_threshold_owner_and_ties(w):
    out = w.ok("stale_opportunities", {"thresholdDays": 10})
    # OPP-010 (16 days) and OPP-001 (14) and OPP-004 (24) join the four.
    assert [(o["id"], o["daysInStage"]) for o in out["opportunities"]] == [
        ("OPP-002", 70),
        ("OPP-005", 63),
        ("OPP-008", 55),
        ("OPP-006", 42),
        ("OPP-004", 24),
        ("OPP-010", 16),
        ("OPP-001", 14),
    ]
    assert out["countByOwner"] == [
        {"userId": "USR-002", "name": "Daniel Reyes", "count": 2},
        {"userId": "USR-004", "name": "Tomas Bergstrom", "count": 2},
        {"userId": "USR-003", "name": "Priya Nair", "count": 1},
        {"userId": "USR-005", "name": "Lena Fischer", "count": 1},
        {"userId": "USR-006", "name": "Kofi Mensah", "count": 1},
    ]
    # equal daysInStage sorts by id
    w.state["opportunities"]["OPP-008"]["stageEnteredDate"] = "2026-01-12"
    out = w.ok("stale_opportunities", {"ownerId": "USR-005"})
    assert out["ownerId"] == "USR-005"
    assert [o["id"] for o in out["opportunities"]] == ["OPP-008"]
    w.state["opportunities"]["OPP-002"]["stageEnteredDate"] = "2026-01-12"
    out = w.ok("stale_opportunities", {})
    assert [o["id"] for o in out["opportunities"]][:3] == ["OPP-002", "OPP-005", "OPP-008"]
    assert w.err("stale_opportunities", {"ownerId": "USR-404"})["message"] == 'User "USR-404" was not found.'


def test_rep_performance(w):
    out = w.ok("rep_performance", {})
    assert out["activeOnly"] is False
    rows = [
        (
            r["userId"],
            r["name"],
            r["active"],
            r["quota"]["amount"],
            r["closedWon"]["amount"],
            r["openPipeline"]["amount"],
            r["quotaAttainmentPercent"],
        )
        for r in out["results"]
    ]
    assert rows == [
        ("USR-002", "Daniel Reyes", True, 250000, 90000, 200000, 36),
        ("USR-003", "Priya Nair", True, 250000, 140000, 245000, 56),
        ("USR-004", "Tomas Bergstrom", False, 200000, 0, 245000, 0),
        ("USR-005", "Lena Fischer", True, 220000, 130000, 285000, 59.1),
        ("USR-006", "Kofi Mensah", True, 180000, 95000, 90000, 52.8),
    ]
    assert list(out["results"][0]) == [
        "userId",
        "name",
        "active",
        "quota",
        "closedWon",
        "openPipeline",
        "quotaAttainmentPercent",
    ]
    active = w.ok("rep_performance", {"activeOnly": True})
    assert [r["userId"] for r in active["results"]] == ["USR-002", "USR-003", "USR-005", "USR-006"]
    lowest = min(active["results"], key=lambda r: r["quotaAttainmentPercent"])
    assert (lowest["name"], lowest["quotaAttainmentPercent"]) == ("Daniel Reyes", 36)


OPP_TABLE = {
    "OPP-001": (50, 60000, 14),
    "OPP-002": (25, 20000, 70),
    "OPP-003": (75, 150000, 7),
    "OPP-004": (10, 4500, 24),
    "OPP-005": (50, 47500, 63),
    "OPP-006": (25, 37500, 42),
    "OPP-007": (75, 82500, 5),
    "OPP-008": (50, 87500, 55),
    "OPP-009": (10, 3000, 3),
    "OPP-010": (25, 15000, 16),
    "OPP-011": (100, 90000, 29),
    "OPP-012": (100, 140000, 45),
    "OPP-013": (100, 130000, 34),
    "OPP-014": (100, 95000, 53),
    "OPP-015": (0, 0, 16),
    "OPP-016": (0, 0, 11),
}


def test_list_opportunities_summaries_match_seed_table(w):
    out = w.ok("list_opportunities", {})
    assert (out["total"], out["count"], out["offset"]) == (16, 16, 0)
    got = {
        o["id"]: (o["probability"], o["weightedAmount"]["amount"], o["daysInStage"]) for o in out["results"]
    }
    assert got == OPP_TABLE
    assert not any(o["pastDue"] for o in out["results"])
    assert list(out["results"][0]) == [
        "id",
        "name",
        "accountId",
        "accountName",
        "primaryContactId",
        "ownerId",
        "ownerName",
        "stageId",
        "stageName",
        "probability",
        "amount",
        "weightedAmount",
        "expectedCloseDate",
        "createdDate",
        "stageEnteredDate",
        "daysInStage",
        "pastDue",
        "status",
        "closedDate",
        "lostReason",
        "sourceLeadId",
    ]
    stale = w.ok("list_opportunities", {"staleOnly": True})
    assert [o["id"] for o in stale["results"]] == ["OPP-002", "OPP-005", "OPP-006", "OPP-008"]
    filtered = w.ok("list_opportunities", {"ownerId": "USR-004", "status": "open"})
    assert [o["id"] for o in filtered["results"]] == ["OPP-005", "OPP-006"]
    assert [o["id"] for o in w.ok("list_opportunities", {"accountId": "ACC-001"})["results"]] == [
        "OPP-001",
        "OPP-011",
    ]
    assert [o["id"] for o in w.ok("list_opportunities", {"stageId": "STG-006"})["results"]] == [
        "OPP-015",
        "OPP-016",
    ]
    page = w.ok("list_opportunities", {"limit": 5, "offset": 10})
    assert (page["total"], page["count"], page["offset"]) == (16, 5, 10)
    assert [o["id"] for o in page["results"]] == [f"OPP-{i:03d}" for i in range(11, 16)]


def test_lead_ages_through_list_leads(w):
    out = w.ok("list_leads", {})
    assert {x["id"]: x["ageDays"] for x in out["results"]} == {
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


# ---------------------------------------------------------------------------------------------
# Read-only tools


def test_get_current_date(w):
    assert w.ok("get_current_date") == {"today": "2026-03-16"}
    assert w.ok("get_current_date", {}) == {"today": "2026-03-16"}


def test_users_tools(w):
    out = w.ok("list_users", {})
    assert out["total"] == 6 and [u["id"] for u in out["results"]][0] == "USR-001"
    assert out["results"][3] == {
        "id": "USR-004",
        "name": "Tomas Bergstrom",
        "email": "tomas.bergstrom@example.com",
        "role": "rep",
        "managerId": "USR-001",
        "quota": usd(200000),
        "active": False,
    }
    assert [u["id"] for u in w.ok("list_users", {"role": "manager"})["results"]] == ["USR-001"]
    assert [u["id"] for u in w.ok("list_users", {"role": "rep", "activeOnly": True})["results"]] == [
        "USR-002",
        "USR-003",
        "USR-005",
        "USR-006",
    ]
    user = w.ok("get_user", {"userId": "USR-005"})
    assert list(user)[-3:] == ["openPipeline", "closedWon", "quotaAttainmentPercent"]
    assert (user["openPipeline"], user["closedWon"], user["quotaAttainmentPercent"]) == (
        usd(285000),
        usd(130000),
        59.1,
    )
    assert w.ok("get_user", {"userId": "USR-001"})["quotaAttainmentPercent"] is None
    assert w.err("get_user", {"userId": "USR-999"}) == {
        "code": "not_found",
        "message": 'User "USR-999" was not found.',
    }
    assert w.err("get_user", {"userId": "  "}) == {
        "code": "invalid_input",
        "message": '"userId" must be a non-empty string.',
    }


def test_account_read_tools(w):
    out = w.ok("list_accounts", {"ownerId": "USR-005"})
    assert [a["id"] for a in out["results"]] == ["ACC-007", "ACC-008", "ACC-011"]
    assert out["results"][0] == {
        "id": "ACC-007",
        "name": "Lumen Retail",
        "industry": "Retail",
        "tier": "mid_market",
        "ownerId": "USR-005",
        "ownerName": "Lena Fischer",
        "website": "lumenretail.example.com",
        "createdDate": "2025-04-18",
    }
    assert [a["id"] for a in w.ok("list_accounts", {"tier": "smb"})["results"]] == [
        "ACC-009",
        "ACC-010",
        "ACC-011",
    ]
    assert [a["id"] for a in w.ok("list_accounts", {"industry": "SERVICES"})["results"]] == ["ACC-008"]
    assert [a["id"] for a in w.ok("search_accounts", {"query": "example.com"})["results"]] == [
        f"ACC-{i:03d}" for i in range(1, 12)
    ]
    assert [a["id"] for a in w.ok("search_accounts", {"query": "  HELIOS "})["results"]] == ["ACC-001"]
    assert [a["id"] for a in w.ok("search_accounts", {"query": "acc-00"})["results"]][:2] == [
        "ACC-001",
        "ACC-002",
    ]
    assert [a["id"] for a in w.ok("search_accounts", {"query": "energy"})["results"]] == ["ACC-006"]
    detail = w.ok("get_account", {"accountId": "ACC-008"})
    assert [c["id"] for c in detail["contacts"]] == ["CON-010", "CON-011"]
    assert [o["id"] for o in detail["opportunities"]] == ["OPP-008"]
    assert list(detail)[-2:] == ["contacts", "opportunities"]
    all_status = w.ok("get_account", {"accountId": "ACC-009"})
    assert [(o["id"], o["status"]) for o in all_status["opportunities"]] == [
        ("OPP-009", "open"),
        ("OPP-016", "lost"),
    ]
    assert w.err("get_account", {"accountId": "ACC-404"})["message"] == 'Account "ACC-404" was not found.'
    assert w.err("search_accounts", {"query": " "})["message"] == '"query" must be a non-empty string.'


def test_contact_read_tools(w):
    assert [c["id"] for c in w.ok("list_contacts", {"accountId": "ACC-001"})["results"]] == [
        "CON-001",
        "CON-002",
    ]
    primaries = w.ok("list_contacts", {"primaryOnly": True})
    assert primaries["total"] == 11
    found = w.ok("search_contacts", {"query": "head of"})
    assert [c["id"] for c in found["results"]] == ["CON-006", "CON-011"]
    assert [c["id"] for c in w.ok("search_contacts", {"query": "hannah lieb"})["results"]] == ["CON-004"]
    contact = w.ok("get_contact", {"contactId": "CON-003"})
    assert contact == {
        "id": "CON-003",
        "name": "Sipho Ndlovu",
        "accountId": "ACC-002",
        "accountName": "Northwind Logistics",
        "email": "sipho.ndlovu@northwind-logistics.example.com",
        "phone": w.state["contacts"]["CON-003"]["phone"],
        "title": "Director of Fleet",
        "isPrimary": True,
    }
    assert w.err("get_contact", {"contactId": "CON-404"})["message"] == 'Contact "CON-404" was not found.'


def test_lead_read_tools(w):
    assert [x["id"] for x in w.ok("list_leads", {"status": "qualified"})["results"]] == [
        "LEAD-004",
        "LEAD-008",
    ]
    assert [x["id"] for x in w.ok("list_leads", {"ownerId": "USR-002", "source": "web_form"})["results"]] == [
        "LEAD-001",
        "LEAD-009",
    ]
    found = w.ok("search_leads", {"query": "Fjord Maritime"})
    assert found["total"] == 1 and found["results"][0]["id"] == "LEAD-004"
    assert [x["id"] for x in w.ok("search_leads", {"query": "fjordmaritime"})["results"]] == ["LEAD-004"]
    assert [x["id"] for x in w.ok("search_leads", {"query": "delphine rousseau"})["results"]] == ["LEAD-005"]
    lead = w.ok("get_lead", {"leadId": "LEAD-005"})
    assert lead == {
        "id": "LEAD-005",
        "name": "Delphine Rousseau",
        "company": "Brightpath Health",
        "email": "delphine.rousseau@brightpathhealth.example.com",
        "phone": w.state["leads"]["LEAD-005"]["phone"],
        "title": "Head of IT",
        "source": "inbound_call",
        "status": "converted",
        "ownerId": "USR-003",
        "ownerName": "Priya Nair",
        "createdDate": "2025-11-02",
        "ageDays": 134,
        "lastContactedDate": "2026-01-28",
        "disqualifyReason": None,
        "convertedAccountId": "ACC-004",
        "convertedContactId": "CON-006",
        "convertedOpportunityId": "OPP-004",
    }
    assert w.err("get_lead", {"leadId": "LEAD-404"})["message"] == 'Lead "LEAD-404" was not found.'


def test_opportunity_read_tools(w):
    stages = w.ok("list_stages")
    assert [s["id"] for s in stages["results"]] == [f"STG-00{i}" for i in range(1, 7)]
    assert stages["results"][4] == {
        "id": "STG-005",
        "name": "Closed Won",
        "order": 5,
        "probability": 100,
        "isClosed": True,
    }
    assert [o["id"] for o in w.ok("search_opportunities", {"query": "lumen retail"})["results"]] == [
        "OPP-007",
        "OPP-013",
    ]
    assert [o["id"] for o in w.ok("search_opportunities", {"query": "PILOT"})["results"]] == [
        "OPP-011",
        "OPP-012",
        "OPP-013",
    ]
    opp = w.ok("get_opportunity", {"opportunityId": "OPP-001"})
    assert opp["stale"] is False
    assert [a["id"] for a in opp["activities"]] == ["ACT-001", "ACT-002"]
    assert list(opp)[-2:] == ["stale", "activities"]
    assert (opp["accountName"], opp["ownerName"], opp["stageName"]) == (
        "Helios Manufacturing",
        "Daniel Reyes",
        "Proposal",
    )
    assert w.ok("get_opportunity", {"opportunityId": "OPP-002"})["stale"] is True
    lost = w.ok("get_opportunity", {"opportunityId": "OPP-015"})
    assert (lost["probability"], lost["weightedAmount"], lost["lostReason"]) == (
        0,
        usd(0),
        "Lost to the incumbent vendor on price.",
    )
    assert (
        w.err("get_opportunity", {"opportunityId": "OPP-404"})["message"]
        == 'Opportunity "OPP-404" was not found.'
    )


def test_activity_read_tools(w):
    out = w.ok("list_activities", {"openOnly": True})
    assert [a["id"] for a in out["results"]] == ["ACT-003", "ACT-004", "ACT-007", "ACT-008", "ACT-009"]
    assert [a["id"] for a in w.ok("list_activities", {"relatedType": "lead"})["results"]] == [
        "ACT-011",
        "ACT-012",
        "ACT-013",
    ]
    assert [
        a["id"] for a in w.ok("list_activities", {"relatedId": "OPP-003", "type": "note"})["results"]
    ] == ["ACT-005"]
    assert [a["id"] for a in w.ok("list_activities", {"ownerId": "USR-001"})["results"]] == [
        "ACT-014",
        "ACT-015",
    ]
    act = w.ok("get_activity", {"activityId": "ACT-009"})
    assert list(act) == [
        "id",
        "type",
        "subject",
        "ownerId",
        "ownerName",
        "relatedTo",
        "dueDate",
        "completedDate",
        "open",
        "notes",
    ]
    assert (
        act["type"],
        act["ownerName"],
        act["relatedTo"],
        act["dueDate"],
        act["completedDate"],
        act["open"],
    ) == (
        "meeting",
        "Lena Fischer",
        {"type": "opportunity", "id": "OPP-007"},
        "2026-03-17",
        None,
        True,
    )
    assert w.err("get_activity", {"activityId": "ACT-404"})["message"] == 'Activity "ACT-404" was not found.'


READ_CALLS = [
    ("get_current_date", {}),
    ("list_users", {"role": "rep", "activeOnly": True, "limit": 2, "offset": 1}),
    ("get_user", {"userId": "USR-002"}),
    ("list_accounts", {"industry": "software"}),
    ("search_accounts", {"query": "a"}),
    ("get_account", {"accountId": "ACC-001"}),
    ("list_contacts", {"primaryOnly": True}),
    ("search_contacts", {"query": "e"}),
    ("get_contact", {"contactId": "CON-001"}),
    ("list_leads", {}),
    ("search_leads", {"query": "fjord maritime"}),
    ("get_lead", {"leadId": "LEAD-004"}),
    ("list_stages", {}),
    ("list_opportunities", {"staleOnly": True}),
    ("search_opportunities", {"query": "helios"}),
    ("get_opportunity", {"opportunityId": "OPP-007"}),
    ("list_activities", {"openOnly": True}),
    ("get_activity", {"activityId": "ACT-001"}),
    ("pipeline_summary", {}),
    ("forecast_report", {"includeClosed": True}),
    ("rep_performance", {}),
    ("stale_opportunities", {}),
]


def test_every_read_only_tool_is_covered():
    assert sorted({n for n, _ in READ_CALLS}) == sorted(set(TOOL_NAMES) - set(MUTATING))


@pytest.mark.parametrize(("name", "args"), READ_CALLS, ids=[n for n, _ in READ_CALLS])
def test_read_only_tools_leave_state_byte_identical(w, name, args):
    before = w.snapshot()
    w.ok(name, args)
    w.err(name, {"bogus": 1})
    assert w.snapshot() == before


def test_output_is_a_copy_not_a_reference(w):
    out = w.ok("get_opportunity", {"opportunityId": "OPP-001"})
    out["amount"]["amount"] = 1
    assert w.state["opportunities"]["OPP-001"]["amount"]["amount"] == 120000


# ---------------------------------------------------------------------------------------------
# Mutating tools: happy paths


def _last_audit(w: World) -> dict[str, Any]:
    return w.state["auditLog"][-1]


def _audit(w: World, aud_id, actor, action, entity_type, entity_id, detail):
    assert w.state["auditLog"][-1] == {
        "id": aud_id,
        "at": "2026-03-16",
        "actorUserId": actor,
        "action": action,
        "entityType": entity_type,
        "entityId": entity_id,
        "detail": detail,
    }


def test_create_account(w):
    out = w.ok(
        "create_account",
        {
            "name": " Orbit Labs ",
            "industry": "Aerospace",
            "tier": "smb",
            "ownerId": "USR-006",
            "actorUserId": "USR-001",
        },
    )
    assert out == {
        "created": {
            "id": "ACC-012",
            "name": "Orbit Labs",
            "industry": "Aerospace",
            "tier": "smb",
            "ownerId": "USR-006",
            "ownerName": "Kofi Mensah",
            "website": None,
            "createdDate": "2026-03-16",
        }
    }
    stored = w.state["accounts"]["ACC-012"]
    assert list(stored) == ["id", "name", "industry", "tier", "ownerId", "website", "createdDate"]
    assert list(w.state["accounts"])[-1] == "ACC-012"
    _audit(w, "AUD-0001", "USR-001", "create_account", "account", "ACC-012", "Created Orbit Labs.")
    assert w.state["sequences"]["ACC"] == 12 and w.state["sequences"]["AUD"] == 1


def test_update_account(w):
    out = w.ok(
        "update_account",
        {"accountId": "ACC-005", "ownerId": "USR-003", "tier": "enterprise", "actorUserId": "USR-001"},
    )
    acc = w.state["accounts"]["ACC-005"]
    assert (acc["ownerId"], acc["tier"], acc["industry"], acc["website"]) == (
        "USR-003",
        "enterprise",
        "Food & Beverage",
        "cascadefoods.example.com",
    )
    assert out["updated"]["ownerName"] == "Priya Nair"
    _audit(w, "AUD-0001", "USR-001", "update_account", "account", "ACC-005", "Updated Cascade Foods.")
    # an empty update still audits
    w.ok("update_account", {"accountId": "ACC-001", "actorUserId": "USR-002"})
    _audit(w, "AUD-0002", "USR-002", "update_account", "account", "ACC-001", "Updated Helios Manufacturing.")


def test_create_contact_primary_demotes_others(w):
    out = w.ok(
        "create_contact",
        {
            "firstName": "Lars",
            "lastName": "Vik",
            "email": "lars.vik@helios-mfg.example.com",
            "accountId": "ACC-001",
            "title": "CFO",
            "isPrimary": True,
            "actorUserId": "USR-002",
        },
    )
    assert out["created"] == {
        "id": "CON-015",
        "name": "Lars Vik",
        "accountId": "ACC-001",
        "accountName": "Helios Manufacturing",
        "email": "lars.vik@helios-mfg.example.com",
        "phone": None,
        "title": "CFO",
        "isPrimary": True,
    }
    assert list(w.state["contacts"]["CON-015"]) == [
        "id",
        "accountId",
        "firstName",
        "lastName",
        "email",
        "phone",
        "title",
        "isPrimary",
    ]
    assert w.state["contacts"]["CON-001"]["isPrimary"] is False
    assert w.state["contacts"]["CON-003"]["isPrimary"] is True  # other accounts untouched
    _audit(w, "AUD-0001", "USR-002", "create_contact", "contact", "CON-015", "Created Lars Vik.")


def test_create_contact_without_account(w):
    out = w.ok(
        "create_contact",
        {"firstName": "Ana", "lastName": "Lima", "email": "ana@x.example.com", "actorUserId": "USR-003"},
    )
    assert (out["created"]["accountId"], out["created"]["accountName"], out["created"]["isPrimary"]) == (
        None,
        None,
        False,
    )


def test_update_contact(w):
    out = w.ok(
        "update_contact", {"contactId": "CON-002", "title": "Plant Director", "actorUserId": "USR-002"}
    )
    assert out["updated"]["title"] == "Plant Director"
    assert w.state["contacts"]["CON-002"]["email"] == "owen.drummond@helios-mfg.example.com"
    _audit(w, "AUD-0001", "USR-002", "update_contact", "contact", "CON-002", "Updated Owen Drummond.")


def test_link_contact_to_account(w):
    out = w.ok(
        "link_contact_to_account", {"contactId": "CON-002", "accountId": "ACC-002", "actorUserId": "USR-002"}
    )
    assert (out["updated"]["accountId"], out["updated"]["isPrimary"]) == ("ACC-002", False)
    assert w.state["contacts"]["CON-003"]["isPrimary"] is True
    _audit(
        w,
        "AUD-0001",
        "USR-002",
        "link_contact_to_account",
        "contact",
        "CON-002",
        "Linked Owen Drummond to Northwind Logistics.",
    )
    w.ok(
        "link_contact_to_account",
        {"contactId": "CON-002", "accountId": "ACC-002", "makePrimary": True, "actorUserId": "USR-002"},
    )
    assert w.state["contacts"]["CON-002"]["isPrimary"] is True
    assert w.state["contacts"]["CON-003"]["isPrimary"] is False
    # without makePrimary the flag is kept as it was
    w.ok(
        "link_contact_to_account", {"contactId": "CON-002", "accountId": "ACC-003", "actorUserId": "USR-002"}
    )
    assert w.state["contacts"]["CON-002"]["isPrimary"] is True
    assert w.state["contacts"]["CON-004"]["isPrimary"] is True


def test_create_lead(w):
    out = w.ok(
        "create_lead",
        {
            "firstName": "Mira",
            "lastName": "Solberg",
            "company": "Polar Freight",
            "email": "mira.solberg@polarfreight.example.com",
            "source": "event",
            "ownerId": "USR-005",
            "actorUserId": "USR-005",
        },
    )
    lead = w.state["leads"]["LEAD-011"]
    assert lead == {
        "id": "LEAD-011",
        "firstName": "Mira",
        "lastName": "Solberg",
        "company": "Polar Freight",
        "email": "mira.solberg@polarfreight.example.com",
        "phone": None,
        "title": None,
        "source": "event",
        "status": "new",
        "ownerId": "USR-005",
        "createdDate": "2026-03-16",
        "lastContactedDate": None,
        "disqualifyReason": None,
        "convertedAccountId": None,
        "convertedContactId": None,
        "convertedOpportunityId": None,
    }
    assert list(lead) == list(w.state["leads"]["LEAD-001"])
    assert out["created"]["ageDays"] == 0
    _audit(w, "AUD-0001", "USR-005", "create_lead", "lead", "LEAD-011", "Created lead Mira Solberg.")


def test_update_lead(w):
    out = w.ok(
        "update_lead",
        {"leadId": "LEAD-001", "markContacted": True, "ownerId": "USR-003", "actorUserId": "USR-002"},
    )
    assert (out["updated"]["lastContactedDate"], out["updated"]["ownerId"]) == ("2026-03-16", "USR-003")
    _audit(w, "AUD-0001", "USR-002", "update_lead", "lead", "LEAD-001", "Updated lead Yuki Tanabe.")
    w.ok("update_lead", {"leadId": "LEAD-009", "phone": "+1-209-555-0100", "actorUserId": "USR-002"})
    assert w.state["leads"]["LEAD-009"]["lastContactedDate"] is None
    assert w.state["leads"]["LEAD-009"]["phone"] == "+1-209-555-0100"


def test_qualify_and_disqualify(w):
    out = w.ok("qualify_lead", {"leadId": "LEAD-002", "actorUserId": "USR-003"})
    assert out["updated"]["status"] == "qualified"
    _audit(w, "AUD-0001", "USR-003", "qualify_lead", "lead", "LEAD-002", "Qualified Adaeze Chukwu.")
    out = w.ok(
        "disqualify_lead",
        {"leadId": "LEAD-008", "reason": " No budget this year. ", "actorUserId": "USR-006"},
    )
    assert (out["updated"]["status"], out["updated"]["disqualifyReason"]) == (
        "disqualified",
        "No budget this year.",
    )
    _audit(
        w,
        "AUD-0002",
        "USR-006",
        "disqualify_lead",
        "lead",
        "LEAD-008",
        "Disqualified Ravi Subramanian: No budget this year.",
    )


def test_lead_state_errors(w):
    before = w.snapshot()
    assert w.err("qualify_lead", {"leadId": "LEAD-004", "actorUserId": "USR-002"}) == {
        "code": "invalid_state",
        "message": "Lead LEAD-004 is qualified; only a new or working lead can be qualified.",
    }
    assert w.err("qualify_lead", {"leadId": "LEAD-003", "actorUserId": "USR-002"})["message"] == (
        "Lead LEAD-003 is disqualified; only a new or working lead can be qualified."
    )
    assert w.err("disqualify_lead", {"leadId": "LEAD-005", "reason": "x", "actorUserId": "USR-003"}) == {
        "code": "invalid_state",
        "message": "Lead LEAD-005 has already been converted and cannot be disqualified.",
    }
    assert w.err("convert_lead", {"leadId": "LEAD-001", "actorUserId": "USR-002"}) == {
        "code": "invalid_state",
        "message": "Lead LEAD-001 is new; only a qualified lead can be converted.",
    }
    assert w.err("convert_lead", {"leadId": "LEAD-005", "actorUserId": "USR-002"})["message"] == (
        "Lead LEAD-005 is converted; only a qualified lead can be converted."
    )
    assert w.err("disqualify_lead", {"leadId": "LEAD-001", "reason": "   ", "actorUserId": "USR-002"}) == {
        "code": "invalid_input",
        "message": '"reason" must be a non-empty string.',
    }
    assert w.snapshot() == before


def test_convert_lead_into_existing_account_without_opportunity(w):
    out = w.ok(
        "convert_lead",
        {"leadId": "LEAD-008", "accountId": "ACC-010", "createOpportunity": False, "actorUserId": "USR-006"},
    )
    assert out["opportunity"] is None
    assert out["account"]["id"] == "ACC-010"
    assert out["contact"]["id"] == "CON-015" and out["contact"]["accountId"] == "ACC-010"
    assert len(w.state["accounts"]) == 11
    lead = w.state["leads"]["LEAD-008"]
    assert (
        lead["status"],
        lead["convertedAccountId"],
        lead["convertedContactId"],
        lead["convertedOpportunityId"],
    ) == (
        "converted",
        "ACC-010",
        "CON-015",
        None,
    )
    _audit(
        w,
        "AUD-0001",
        "USR-006",
        "convert_lead",
        "lead",
        "LEAD-008",
        "Converted Ravi Subramanian into ACC-010 / CON-015.",
    )
    assert list(w.state["sequences"].items()) == [
        ("ACC", 11),
        ("CON", 15),
        ("LEAD", 10),
        ("OPP", 16),
        ("ACT", 15),
        ("AUD", 1),
    ]


def test_convert_lead_default_name_and_explicit_stage(w):
    out = w.ok(
        "convert_lead",
        {
            "leadId": "LEAD-008",
            "amount": 64000.5,
            "expectedCloseDate": "2026-09-30",
            "stageId": "STG-002",
            "actorUserId": "USR-006",
        },
    )
    opp = out["opportunity"]
    assert (opp["id"], opp["name"], opp["stageId"], opp["amount"], opp["weightedAmount"]) == (
        "OPP-017",
        "Clearwater Utilities opportunity",
        "STG-002",
        usd(64000.5),
        usd(16000.13),
    )
    assert w.state["auditLog"][-1]["detail"] == "Converted Ravi Subramanian into ACC-012 / CON-015 / OPP-017."


def test_convert_lead_owner_must_be_assignable(w):
    w.state["leads"]["LEAD-008"]["ownerId"] = "USR-004"
    before = w.snapshot()
    assert w.err("convert_lead", {"leadId": "LEAD-008", "actorUserId": "USR-001"}) == {
        "code": "not_allowed",
        "message": 'User "USR-004" (Tomas Bergstrom) is deactivated and cannot own records.',
    }
    assert w.snapshot() == before


def test_create_opportunity(w):
    out = w.ok(
        "create_opportunity",
        {
            "name": "Helios spare parts portal",
            "accountId": "ACC-001",
            "ownerId": "USR-002",
            "amount": 42000,
            "expectedCloseDate": "2026-08-01",
            "primaryContactId": "CON-002",
            "actorUserId": "USR-002",
        },
    )
    opp = w.state["opportunities"]["OPP-017"]
    assert opp == {
        "id": "OPP-017",
        "name": "Helios spare parts portal",
        "accountId": "ACC-001",
        "primaryContactId": "CON-002",
        "ownerId": "USR-002",
        "stageId": "STG-001",
        "amount": usd(42000),
        "expectedCloseDate": "2026-08-01",
        "createdDate": "2026-03-16",
        "stageEnteredDate": "2026-03-16",
        "status": "open",
        "closedDate": None,
        "lostReason": None,
        "sourceLeadId": None,
    }
    assert list(opp) == list(w.state["opportunities"]["OPP-001"])
    assert out["created"]["weightedAmount"] == usd(4200)
    _audit(
        w,
        "AUD-0001",
        "USR-002",
        "create_opportunity",
        "opportunity",
        "OPP-017",
        "Created Helios spare parts portal on Helios Manufacturing.",
    )
    out = w.ok(
        "create_opportunity",
        {
            "name": "Vertex add-on",
            "accountId": "ACC-003",
            "ownerId": "USR-003",
            "amount": 10000,
            "expectedCloseDate": "2026-05-01",
            "stageId": "STG-003",
            "actorUserId": "USR-003",
        },
    )
    assert (out["created"]["id"], out["created"]["stageId"], out["created"]["primaryContactId"]) == (
        "OPP-018",
        "STG-003",
        None,
    )


def test_update_opportunity(w):
    out = w.ok(
        "update_opportunity",
        {
            "opportunityId": "OPP-001",
            "name": "Helios line upgrade (phase 1)",
            "amount": 99999.999,
            "actorUserId": "USR-002",
        },
    )
    opp = w.state["opportunities"]["OPP-001"]
    assert opp["name"] == "Helios line upgrade (phase 1)"
    assert opp["amount"] == usd(100000)
    assert out["updated"]["weightedAmount"] == usd(50000)
    assert opp["expectedCloseDate"] == "2026-04-10"
    _audit(
        w,
        "AUD-0001",
        "USR-002",
        "update_opportunity",
        "opportunity",
        "OPP-001",
        "Updated Helios line upgrade (phase 1).",
    )
    w.ok(
        "update_opportunity",
        {
            "opportunityId": "OPP-001",
            "expectedCloseDate": "2026-05-05",
            "primaryContactId": "CON-002",
            "actorUserId": "USR-002",
        },
    )
    assert (opp["expectedCloseDate"], opp["primaryContactId"]) == ("2026-05-05", "CON-002")


def test_set_and_advance_stage(w):
    out = w.ok(
        "set_opportunity_stage", {"opportunityId": "OPP-002", "stageId": "STG-003", "actorUserId": "USR-002"}
    )
    assert (out["updated"]["stageId"], out["updated"]["stageEnteredDate"], out["updated"]["daysInStage"]) == (
        "STG-003",
        "2026-03-16",
        0,
    )
    _audit(
        w,
        "AUD-0001",
        "USR-002",
        "set_opportunity_stage",
        "opportunity",
        "OPP-002",
        "Moved OPP-002 from STG-002 to STG-003.",
    )
    w.ok(
        "set_opportunity_stage", {"opportunityId": "OPP-001", "stageId": "STG-003", "actorUserId": "USR-002"}
    )
    assert w.state["opportunities"]["OPP-001"]["stageEnteredDate"] == "2026-03-16"  # same stage still resets
    _audit(
        w,
        "AUD-0002",
        "USR-002",
        "set_opportunity_stage",
        "opportunity",
        "OPP-001",
        "Moved OPP-001 from STG-003 to STG-003.",
    )
    out = w.ok("advance_opportunity_stage", {"opportunityId": "OPP-009", "actorUserId": "USR-006"})
    assert (out["updated"]["stageId"], out["updated"]["stageName"], out["updated"]["probability"]) == (
        "STG-002",
        "Discovery",
        25,
    )
    _audit(
        w,
        "AUD-0003",
        "USR-006",
        "advance_opportunity_stage",
        "opportunity",
        "OPP-009",
        "Advanced OPP-009 from STG-001 to STG-002.",
    )


def test_stage_errors(w):
    before = w.snapshot()
    assert w.err(
        "set_opportunity_stage", {"opportunityId": "OPP-002", "stageId": "STG-005", "actorUserId": "USR-002"}
    ) == {
        "code": "not_allowed",
        "message": "Stage STG-005 is a closed stage. Use close_opportunity_won or close_opportunity_lost.",
    }
    assert w.err(
        "set_opportunity_stage", {"opportunityId": "OPP-002", "stageId": "STG-404", "actorUserId": "USR-002"}
    ) == {
        "code": "not_found",
        "message": 'Stage "STG-404" was not found.',
    }
    assert w.err("advance_opportunity_stage", {"opportunityId": "OPP-003", "actorUserId": "USR-003"}) == {
        "code": "invalid_state",
        "message": "OPP-003 is already in the last open stage. Close it won or lost instead.",
    }
    assert w.snapshot() == before


def test_close_won_and_lost(w):
    out = w.ok("close_opportunity_won", {"opportunityId": "OPP-001", "actorUserId": "USR-002"})
    assert (out["updated"]["status"], out["updated"]["amount"], out["updated"]["probability"]) == (
        "won",
        usd(120000),
        100,
    )
    _audit(
        w,
        "AUD-0001",
        "USR-002",
        "close_opportunity_won",
        "opportunity",
        "OPP-001",
        "Closed OPP-001 won at 120000.",
    )
    w.ok(
        "close_opportunity_won",
        {"opportunityId": "OPP-009", "finalAmount": 31250.5, "actorUserId": "USR-006"},
    )
    assert _last_audit(w)["detail"] == "Closed OPP-009 won at 31250.5."
    out = w.ok(
        "close_opportunity_lost",
        {"opportunityId": "OPP-010", "reason": "Chose a cheaper tool.", "actorUserId": "USR-006"},
    )
    opp = w.state["opportunities"]["OPP-010"]
    assert (opp["stageId"], opp["stageEnteredDate"], opp["status"], opp["closedDate"], opp["lostReason"]) == (
        "STG-006",
        "2026-03-16",
        "lost",
        "2026-03-16",
        "Chose a cheaper tool.",
    )
    assert out["updated"]["weightedAmount"] == usd(0)
    _audit(
        w,
        "AUD-0003",
        "USR-006",
        "close_opportunity_lost",
        "opportunity",
        "OPP-010",
        "Closed OPP-010 lost: Chose a cheaper tool.",
    )


def test_closed_deal_cannot_change(w):
    before = w.snapshot()
    cases = [
        ("update_opportunity", {"opportunityId": "OPP-011", "name": "x", "actorUserId": "USR-002"}, "won"),
        (
            "set_opportunity_stage",
            {"opportunityId": "OPP-011", "stageId": "STG-001", "actorUserId": "USR-002"},
            "won",
        ),
        ("advance_opportunity_stage", {"opportunityId": "OPP-015", "actorUserId": "USR-005"}, "lost"),
        ("close_opportunity_won", {"opportunityId": "OPP-012", "actorUserId": "USR-003"}, "won"),
        (
            "close_opportunity_lost",
            {"opportunityId": "OPP-016", "reason": "x", "actorUserId": "USR-006"},
            "lost",
        ),
        (
            "reassign_opportunity",
            {"opportunityId": "OPP-013", "newOwnerId": "USR-002", "actorUserId": "USR-001"},
            "won",
        ),
    ]
    for name, args, status in cases:
        assert w.err(name, args) == {
            "code": "not_allowed",
            "message": f"Opportunity {args['opportunityId']} is {status} and can no longer be changed.",
        }
    assert w.snapshot() == before


def test_reassign_opportunity(w):
    out = w.ok(
        "reassign_opportunity",
        {"opportunityId": "OPP-001", "newOwnerId": "USR-003", "actorUserId": "USR-001"},
    )
    assert (out["updated"]["ownerId"], out["updated"]["ownerName"]) == ("USR-003", "Priya Nair")
    _audit(
        w,
        "AUD-0001",
        "USR-001",
        "reassign_opportunity",
        "opportunity",
        "OPP-001",
        "Reassigned OPP-001 from USR-002 to USR-003.",
    )
    before = w.snapshot()
    assert w.err(
        "reassign_opportunity",
        {"opportunityId": "OPP-001", "newOwnerId": "USR-003", "actorUserId": "USR-001"},
    ) == {
        "code": "conflict",
        "message": "OPP-001 is already owned by USR-003 (Priya Nair).",
    }
    assert w.err(
        "reassign_opportunity",
        {"opportunityId": "OPP-001", "newOwnerId": "USR-004", "actorUserId": "USR-001"},
    ) == {
        "code": "not_allowed",
        "message": 'User "USR-004" (Tomas Bergstrom) is deactivated and cannot own records.',
    }
    assert w.err(
        "reassign_opportunity",
        {"opportunityId": "OPP-001", "newOwnerId": "USR-404", "actorUserId": "USR-001"},
    ) == {
        "code": "not_found",
        "message": 'User "USR-404" was not found.',
    }
    assert w.snapshot() == before


def test_log_activity_and_schedule_followup(w):
    out = w.ok(
        "log_activity",
        {
            "type": "call",
            "subject": "Checked in on the telematics pilot",
            "relatedType": "opportunity",
            "relatedId": "OPP-002",
            "ownerId": "USR-002",
            "actorUserId": "USR-002",
        },
    )
    assert out["created"] == {
        "id": "ACT-016",
        "type": "call",
        "subject": "Checked in on the telematics pilot",
        "ownerId": "USR-002",
        "ownerName": "Daniel Reyes",
        "relatedTo": {"type": "opportunity", "id": "OPP-002"},
        "dueDate": "2026-03-16",
        "completedDate": "2026-03-16",
        "open": False,
        "notes": None,
    }
    assert list(w.state["activities"]["ACT-016"]) == list(w.state["activities"]["ACT-001"])
    _audit(w, "AUD-0001", "USR-002", "log_activity", "activity", "ACT-016", "Logged call on OPP-002.")
    out = w.ok(
        "schedule_followup",
        {
            "type": "meeting",
            "subject": "Pricing review",
            "relatedType": "lead",
            "relatedId": "LEAD-007",
            "ownerId": "USR-005",
            "dueDate": "2026-03-20",
            "notes": "Bring the hotel case study.",
            "actorUserId": "USR-005",
        },
    )
    act = w.state["activities"]["ACT-017"]
    assert (act["dueDate"], act["completedDate"], act["notes"], act["relatedTo"]) == (
        "2026-03-20",
        None,
        "Bring the hotel case study.",
        {"type": "lead", "id": "LEAD-007"},
    )
    assert out["created"]["open"] is True
    _audit(
        w,
        "AUD-0002",
        "USR-005",
        "schedule_followup",
        "activity",
        "ACT-017",
        "Scheduled meeting on LEAD-007 for 2026-03-20.",
    )
    # a due date in the past is accepted
    w.ok(
        "schedule_followup",
        {
            "type": "call",
            "subject": "x",
            "relatedType": "account",
            "relatedId": "ACC-001",
            "ownerId": "USR-002",
            "dueDate": "2020-01-01",
            "actorUserId": "USR-002",
        },
    )


def test_activity_related_record_must_exist(w):
    before = w.snapshot()
    for kind, label in [
        ("lead", "Lead"),
        ("account", "Account"),
        ("contact", "Contact"),
        ("opportunity", "Opportunity"),
    ]:
        out = w.err(
            "log_activity",
            {
                "type": "note",
                "subject": "s",
                "relatedType": kind,
                "relatedId": "X-404",
                "ownerId": "USR-002",
                "actorUserId": "USR-002",
            },
        )
        assert out == {"code": "not_found", "message": f'{label} "X-404" was not found.'}
    assert w.snapshot() == before


def test_complete_activity(w):
    out = w.ok("complete_activity", {"activityId": "ACT-003", "actorUserId": "USR-002"})
    assert (out["updated"]["completedDate"], out["updated"]["open"]) == ("2026-03-16", False)
    assert w.state["activities"]["ACT-003"]["notes"].startswith("Need the number of trucks")
    _audit(w, "AUD-0001", "USR-002", "complete_activity", "activity", "ACT-003", "Completed ACT-003.")
    w.ok(
        "complete_activity",
        {
            "activityId": "ACT-007",
            "completedDate": "2026-03-15",
            "notes": "Sent at last.",
            "actorUserId": "USR-001",
        },
    )
    assert (w.state["activities"]["ACT-007"]["completedDate"], w.state["activities"]["ACT-007"]["notes"]) == (
        "2026-03-15",
        "Sent at last.",
    )
    before = w.snapshot()
    assert w.err("complete_activity", {"activityId": "ACT-001", "actorUserId": "USR-002"}) == {
        "code": "invalid_state",
        "message": "Activity ACT-001 was already completed on 2026-03-02.",
    }
    assert w.err(
        "complete_activity",
        {"activityId": "ACT-004", "completedDate": "2026-02-30", "actorUserId": "USR-003"},
    ) == {
        "code": "invalid_input",
        "message": '"completedDate" must be a date in YYYY-MM-DD format.',
        "details": {"received": "2026-02-30"},
    }
    assert w.snapshot() == before


# ---------------------------------------------------------------------------------------------
# Actor checks and single audit entry, for every mutating tool

VALID_CALLS = {
    "create_account": {"name": "Acme", "industry": "Retail", "tier": "smb", "ownerId": "USR-002"},
    "update_account": {"accountId": "ACC-001", "industry": "Machinery"},
    "create_contact": {"firstName": "A", "lastName": "B", "email": "a.b@x.example.com"},
    "update_contact": {"contactId": "CON-001", "phone": "+1-312-555-0100"},
    "link_contact_to_account": {"contactId": "CON-002", "accountId": "ACC-002"},
    "create_lead": {
        "firstName": "A",
        "lastName": "B",
        "company": "C",
        "email": "a@c.example.com",
        "source": "partner",
        "ownerId": "USR-002",
    },
    "update_lead": {"leadId": "LEAD-001", "markContacted": True},
    "qualify_lead": {"leadId": "LEAD-001"},
    "disqualify_lead": {"leadId": "LEAD-001", "reason": "No fit."},
    "convert_lead": {"leadId": "LEAD-004", "amount": 1000, "expectedCloseDate": "2026-06-30"},
    "create_opportunity": {
        "name": "N",
        "accountId": "ACC-001",
        "ownerId": "USR-002",
        "amount": 1000,
        "expectedCloseDate": "2026-06-30",
    },
    "update_opportunity": {"opportunityId": "OPP-001", "amount": 1},
    "set_opportunity_stage": {"opportunityId": "OPP-001", "stageId": "STG-004"},
    "advance_opportunity_stage": {"opportunityId": "OPP-001"},
    "close_opportunity_won": {"opportunityId": "OPP-001"},
    "close_opportunity_lost": {"opportunityId": "OPP-001", "reason": "Budget cut."},
    "reassign_opportunity": {"opportunityId": "OPP-001", "newOwnerId": "USR-003"},
    "log_activity": {
        "type": "note",
        "subject": "S",
        "relatedType": "account",
        "relatedId": "ACC-001",
        "ownerId": "USR-002",
    },
    "schedule_followup": {
        "type": "call",
        "subject": "S",
        "relatedType": "contact",
        "relatedId": "CON-001",
        "ownerId": "USR-002",
        "dueDate": "2026-03-30",
    },
    "complete_activity": {"activityId": "ACT-003"},
}


AUDITED_ENTITY = {
    "create_account": ("account", "ACC-012"),
    "update_account": ("account", "ACC-001"),
    "create_contact": ("contact", "CON-015"),
    "update_contact": ("contact", "CON-001"),
    "link_contact_to_account": ("contact", "CON-002"),
    "create_lead": ("lead", "LEAD-011"),
    "update_lead": ("lead", "LEAD-001"),
    "qualify_lead": ("lead", "LEAD-001"),
    "disqualify_lead": ("lead", "LEAD-001"),
    "convert_lead": ("lead", "LEAD-004"),
    "create_opportunity": ("opportunity", "OPP-017"),
    "update_opportunity": ("opportunity", "OPP-001"),
    "set_opportunity_stage": ("opportunity", "OPP-001"),
    "advance_opportunity_stage": ("opportunity", "OPP-001"),
    "close_opportunity_won": ("opportunity", "OPP-001"),
    "close_opportunity_lost": ("opportunity", "OPP-001"),
    "reassign_opportunity": ("opportunity", "OPP-001"),
    "log_activity": ("activity", "ACT-016"),
    "schedule_followup": ("activity", "ACT-016"),
    "complete_activity": ("activity", "ACT-003"),
}


def test_valid_calls_cover_every_mutating_tool():
    assert sorted(VALID_CALLS) == sorted(MUTATING)


@pytest.mark.parametrize("name", MUTATING)
def test_each_mutating_tool_writes_exactly_one_audit_entry_last(w, name):
    out = w.ok(name, dict(VALID_CALLS[name], actorUserId="USR-001"))
    assert len(w.state["auditLog"]) == 1
    entry = w.state["auditLog"][0]
    assert (entry["id"], entry["at"], entry["actorUserId"], entry["action"]) == (
        "AUD-0001",
        "2026-03-16",
        "USR-001",
        name,
    )
    assert (entry["entityType"], entry["entityId"]) == AUDITED_ENTITY[name]
    collection = {
        "account": "accounts",
        "contact": "contacts",
        "lead": "leads",
        "opportunity": "opportunities",
        "activity": "activities",
    }[entry["entityType"]]
    assert entry["entityId"] in w.state[collection]
    assert w.state["sequences"]["AUD"] == 1
    assert out is not None


@pytest.mark.parametrize("name", MUTATING)
def test_deactivated_actor_is_refused_and_nothing_changes(w, name):
    before = w.snapshot()
    assert w.err(name, dict(VALID_CALLS[name], actorUserId="USR-004")) == {
        "code": "not_allowed",
        "message": 'User "USR-004" (Tomas Bergstrom) is deactivated and cannot act.',
    }
    assert w.err(name, dict(VALID_CALLS[name], actorUserId="USR-999")) == {
        "code": "not_found",
        "message": 'User "USR-999" was not found.',
    }
    assert w.err(name, dict(VALID_CALLS[name], actorUserId=" ")) == {
        "code": "invalid_input",
        "message": '"actorUserId" must be a non-empty string.',
    }
    missing = w.err(name, dict(VALID_CALLS[name]))
    assert missing["code"] == "invalid_input"
    assert '"actorUserId" is required' in missing["details"]["problems"]
    assert w.snapshot() == before


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("create_account", {"name": "A", "industry": "I", "tier": "smb", "ownerId": "USR-004"}),
        ("update_account", {"accountId": "ACC-001", "ownerId": "USR-004"}),
        ("create_lead", dict(VALID_CALLS["create_lead"], ownerId="USR-004")),
        ("update_lead", {"leadId": "LEAD-001", "ownerId": "USR-004"}),
        ("create_opportunity", dict(VALID_CALLS["create_opportunity"], ownerId="USR-004")),
        ("log_activity", dict(VALID_CALLS["log_activity"], ownerId="USR-004")),
        ("schedule_followup", dict(VALID_CALLS["schedule_followup"], ownerId="USR-004")),
    ],
)
def test_deactivated_owner_is_refused_before_any_write(w, name, args):
    before = w.snapshot()
    assert w.err(name, dict(args, actorUserId="USR-001")) == {
        "code": "not_allowed",
        "message": 'User "USR-004" (Tomas Bergstrom) is deactivated and cannot own records.',
    }
    assert w.snapshot() == before


def test_not_found_lookups(w):
    before = w.snapshot()
    cases = [
        ("update_account", {"accountId": "ACC-404"}, 'Account "ACC-404" was not found.'),
        ("update_contact", {"contactId": "CON-404"}, 'Contact "CON-404" was not found.'),
        (
            "link_contact_to_account",
            {"contactId": "CON-001", "accountId": "ACC-404"},
            'Account "ACC-404" was not found.',
        ),
        (
            "link_contact_to_account",
            {"contactId": "CON-404", "accountId": "ACC-404"},
            'Contact "CON-404" was not found.',
        ),
        (
            "create_contact",
            dict(VALID_CALLS["create_contact"], accountId="ACC-404"),
            'Account "ACC-404" was not found.',
        ),
        ("qualify_lead", {"leadId": "LEAD-404"}, 'Lead "LEAD-404" was not found.'),
        ("convert_lead", {"leadId": "LEAD-404"}, 'Lead "LEAD-404" was not found.'),
        (
            "create_opportunity",
            dict(VALID_CALLS["create_opportunity"], accountId="ACC-404"),
            'Account "ACC-404" was not found.',
        ),
        (
            "create_opportunity",
            dict(VALID_CALLS["create_opportunity"], stageId="STG-404"),
            'Stage "STG-404" was not found.',
        ),
        (
            "create_opportunity",
            dict(VALID_CALLS["create_opportunity"], primaryContactId="CON-404"),
            'Contact "CON-404" was not found.',
        ),
        (
            "update_opportunity",
            {"opportunityId": "OPP-001", "primaryContactId": "CON-404"},
            'Contact "CON-404" was not found.',
        ),
        ("close_opportunity_won", {"opportunityId": "OPP-404"}, 'Opportunity "OPP-404" was not found.'),
        ("complete_activity", {"activityId": "ACT-404"}, 'Activity "ACT-404" was not found.'),
    ]
    for name, args, message in cases:
        assert w.err(name, dict(args, actorUserId="USR-001")) == {"code": "not_found", "message": message}, (
            name
        )
    assert w.snapshot() == before


def test_create_opportunity_in_closed_stage(w):
    before = w.snapshot()
    assert w.err(
        "create_opportunity",
        dict(VALID_CALLS["create_opportunity"], stageId="STG-005", actorUserId="USR-002"),
    ) == {
        "code": "invalid_input",
        "message": "Stage STG-005 is a closed stage; a new opportunity cannot start there.",
    }
    assert w.snapshot() == before


def test_primary_contact_needs_an_account(w):
    before = w.snapshot()
    assert w.err(
        "create_contact", dict(VALID_CALLS["create_contact"], isPrimary=True, actorUserId="USR-002")
    ) == {
        "code": "invalid_input",
        "message": "A primary contact must belong to an account.",
    }
    assert w.snapshot() == before


def test_missing_stages_give_invalid_state(w):
    for s in w.state["stages"].values():
        s["isClosed"] = True
        s["probability"] = 50
    assert w.err("create_opportunity", dict(VALID_CALLS["create_opportunity"], actorUserId="USR-002")) == {
        "code": "invalid_state",
        "message": "No open pipeline stage is defined.",
    }
    assert w.err("close_opportunity_won", {"opportunityId": "OPP-001", "actorUserId": "USR-002"}) == {
        "code": "invalid_state",
        "message": "No closed-won stage is defined.",
    }
    assert w.err(
        "close_opportunity_lost", {"opportunityId": "OPP-001", "reason": "r", "actorUserId": "USR-002"}
    ) == {
        "code": "invalid_state",
        "message": "No closed-lost stage is defined.",
    }
    assert w.state["auditLog"] == []


def test_blank_strings_and_bad_dates_are_refused(w):
    assert w.err("update_contact", {"contactId": "CON-001", "email": "", "actorUserId": "USR-002"}) == {
        "code": "invalid_input",
        "message": '"email" must be a non-empty string.',
    }
    assert w.err(
        "update_opportunity",
        {"opportunityId": "OPP-001", "expectedCloseDate": "2026-02-30", "actorUserId": "USR-002"},
    ) == {
        "code": "invalid_input",
        "message": '"expectedCloseDate" must be a date in YYYY-MM-DD format.',
        "details": {"received": "2026-02-30"},
    }
    assert w.err("search_leads", {"query": ""}) == {
        "code": "invalid_input",
        "message": '"query" must be a non-empty string.',
    }
    assert w.state["auditLog"] == []


# ---------------------------------------------------------------------------------------------
# Partial effects (§6.6)


@pytest.mark.parametrize(
    ("name", "args", "prefix", "message"),
    [
        (
            "create_account",
            {"name": "  ", "industry": "I", "tier": "smb", "ownerId": "USR-002"},
            "ACC",
            '"name" must be a non-empty string.',
        ),
        (
            "create_contact",
            {"firstName": "A", "lastName": " ", "email": "e"},
            "CON",
            '"lastName" must be a non-empty string.',
        ),
        (
            "create_lead",
            dict(VALID_CALLS["create_lead"], email=" "),
            "LEAD",
            '"email" must be a non-empty string.',
        ),
        (
            "create_opportunity",
            dict(VALID_CALLS["create_opportunity"], expectedCloseDate="2026-02-30"),
            "OPP",
            '"expectedCloseDate" must be a date in YYYY-MM-DD format.',
        ),
        (
            "log_activity",
            dict(VALID_CALLS["log_activity"], subject=""),
            "ACT",
            '"subject" must be a non-empty string.',
        ),
        (
            "schedule_followup",
            dict(VALID_CALLS["schedule_followup"], dueDate="2026-04-31"),
            "ACT",
            '"dueDate" must be a date in YYYY-MM-DD format.',
        ),
    ],
)
def test_create_tools_allocate_the_id_before_reading_fields(w, name, args, prefix, message):
    collection = {
        "ACC": "accounts",
        "CON": "contacts",
        "LEAD": "leads",
        "OPP": "opportunities",
        "ACT": "activities",
    }[prefix]
    before_seq = dict(w.state["sequences"])
    before_records = canonical(w.state[collection])
    out = w.err(name, dict(args, actorUserId="USR-002"))
    assert (out["code"], out["message"]) == ("invalid_input", message)
    assert w.state["sequences"][prefix] == before_seq[prefix] + 1
    assert {k: v for k, v in w.state["sequences"].items() if k != prefix} == {
        k: v for k, v in before_seq.items() if k != prefix
    }
    assert canonical(w.state[collection]) == before_records
    assert w.state["auditLog"] == []
    # the next successful create skips the burned id
    w.ok(name, dict(VALID_CALLS[name], actorUserId="USR-002"))
    new_id = list(w.state[collection])[-1]
    assert new_id.endswith(str(before_seq[prefix] + 2))


def test_create_contact_demotes_before_a_late_failure(w):
    out = w.err(
        "create_contact",
        {
            "firstName": " ",
            "lastName": "B",
            "email": "e",
            "accountId": "ACC-001",
            "isPrimary": True,
            "actorUserId": "USR-002",
        },
    )
    assert out["message"] == '"firstName" must be a non-empty string.'
    assert w.state["contacts"]["CON-001"]["isPrimary"] is False
    assert w.state["sequences"]["CON"] == 15
    assert "CON-015" not in w.state["contacts"]
    assert w.state["auditLog"] == []


def test_convert_lead_missing_amount_leaves_account_and_contact(w):
    out = w.err(
        "convert_lead", {"leadId": "LEAD-004", "expectedCloseDate": "2026-06-30", "actorUserId": "USR-002"}
    )
    assert out == {"code": "invalid_input", "message": '"amount" must be a number.'}
    assert w.state["accounts"]["ACC-012"] == {
        "id": "ACC-012",
        "name": "Fjord Maritime Group",
        "industry": "Unknown",
        "tier": "smb",
        "ownerId": "USR-002",
        "website": None,
        "createdDate": "2026-03-16",
    }
    assert w.state["contacts"]["CON-015"] == {
        "id": "CON-015",
        "accountId": "ACC-012",
        "firstName": "Ingrid",
        "lastName": "Halvorsen",
        "email": "ingrid.halvorsen@fjordmaritime.example.com",
        "phone": "+1-206-555-0147",
        "title": "Director of Vessel Operations",
        "isPrimary": False,
    }
    assert list(w.state["sequences"].items()) == [
        ("ACC", 12),
        ("CON", 15),
        ("LEAD", 10),
        ("OPP", 16),
        ("ACT", 15),
        ("AUD", 0),
    ]
    lead = w.state["leads"]["LEAD-004"]
    assert (
        lead["status"],
        lead["convertedAccountId"],
        lead["convertedContactId"],
        lead["convertedOpportunityId"],
    ) == (
        "qualified",
        None,
        None,
        None,
    )
    assert len(w.state["opportunities"]) == 16
    assert w.state["auditLog"] == []


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        (
            {"amount": 5},
            {
                "code": "invalid_input",
                "message": '"expectedCloseDate" must be a date in YYYY-MM-DD format.',
                "details": {"received": None},
            },
        ),
        (
            {"amount": 5, "expectedCloseDate": "2026-02-30"},
            {
                "code": "invalid_input",
                "message": '"expectedCloseDate" must be a date in YYYY-MM-DD format.',
                "details": {"received": "2026-02-30"},
            },
        ),
        (
            {"amount": 5, "expectedCloseDate": "2026-06-30", "stageId": "STG-404"},
            {"code": "not_found", "message": 'Stage "STG-404" was not found.'},
        ),
        (
            {"amount": 5, "expectedCloseDate": "2026-06-30", "stageId": "STG-006"},
            {
                "code": "invalid_input",
                "message": "Stage STG-006 is a closed stage; a new opportunity cannot start there.",
            },
        ),
        (
            {"amount": 5, "expectedCloseDate": "2026-06-30", "opportunityName": " "},
            {"code": "invalid_input", "message": '"opportunityName" must be a non-empty string.'},
        ),
    ],
)
def test_convert_lead_late_failures_keep_account_and_contact(w, extra, error):
    assert w.err("convert_lead", dict({"leadId": "LEAD-004", "actorUserId": "USR-002"}, **extra)) == error
    assert "ACC-012" in w.state["accounts"] and "CON-015" in w.state["contacts"]
    assert (w.state["sequences"]["ACC"], w.state["sequences"]["CON"], w.state["sequences"]["OPP"]) == (
        12,
        15,
        16,
    )
    assert w.state["leads"]["LEAD-004"]["status"] == "qualified"
    assert w.state["auditLog"] == []


def test_convert_lead_with_existing_account_late_failure_only_adds_contact(w):
    w.err("convert_lead", {"leadId": "LEAD-004", "accountId": "ACC-002", "actorUserId": "USR-002"})
    assert len(w.state["accounts"]) == 11
    assert w.state["contacts"]["CON-015"]["accountId"] == "ACC-002"
    assert w.state["sequences"]["ACC"] == 11


def test_convert_lead_bad_account_writes_nothing(w):
    before = w.snapshot()
    assert w.err(
        "convert_lead", {"leadId": "LEAD-004", "accountId": "ACC-404", "actorUserId": "USR-002"}
    ) == {
        "code": "not_found",
        "message": 'Account "ACC-404" was not found.',
    }
    assert w.snapshot() == before


# ---------------------------------------------------------------------------------------------
# Reference plans of TASK-001..003 (§10)


def test_task_001_reference_plan(w):
    found = w.ok("search_leads", {"query": "Fjord Maritime"})
    lead_id = found["results"][0]["id"]
    assert lead_id == "LEAD-004"
    out = w.ok(
        "convert_lead",
        {
            "leadId": lead_id,
            "createOpportunity": True,
            "opportunityName": "Fjord Maritime fleet monitoring",
            "amount": 140000,
            "expectedCloseDate": "2026-06-30",
            "actorUserId": "USR-002",
        },
    )
    assert (out["account"]["id"], out["contact"]["id"], out["opportunity"]["id"]) == (
        "ACC-012",
        "CON-015",
        "OPP-017",
    )
    s = w.state
    assert s["accounts"]["ACC-012"] == {
        "id": "ACC-012",
        "name": "Fjord Maritime Group",
        "industry": "Unknown",
        "tier": "smb",
        "ownerId": "USR-002",
        "website": None,
        "createdDate": "2026-03-16",
    }
    assert list(s["accounts"]["ACC-012"]) == [
        "id",
        "name",
        "industry",
        "tier",
        "ownerId",
        "website",
        "createdDate",
    ]
    assert s["contacts"]["CON-015"] == {
        "id": "CON-015",
        "accountId": "ACC-012",
        "firstName": "Ingrid",
        "lastName": "Halvorsen",
        "email": "ingrid.halvorsen@fjordmaritime.example.com",
        "phone": "+1-206-555-0147",
        "title": "Director of Vessel Operations",
        "isPrimary": False,
    }
    opp = s["opportunities"]["OPP-017"]
    assert opp == {
        "id": "OPP-017",
        "name": "Fjord Maritime fleet monitoring",
        "accountId": "ACC-012",
        "primaryContactId": "CON-015",
        "ownerId": "USR-002",
        "stageId": "STG-001",
        "amount": {"amount": 140000, "currency": "USD"},
        "expectedCloseDate": "2026-06-30",
        "createdDate": "2026-03-16",
        "stageEnteredDate": "2026-03-16",
        "status": "open",
        "closedDate": None,
        "lostReason": None,
        "sourceLeadId": "LEAD-004",
    }
    assert list(opp) == list(s["opportunities"]["OPP-001"])
    lead = s["leads"]["LEAD-004"]
    assert (
        lead["status"],
        lead["convertedAccountId"],
        lead["convertedContactId"],
        lead["convertedOpportunityId"],
    ) == (
        "converted",
        "ACC-012",
        "CON-015",
        "OPP-017",
    )
    assert s["auditLog"] == [
        {
            "id": "AUD-0001",
            "at": "2026-03-16",
            "actorUserId": "USR-002",
            "action": "convert_lead",
            "entityType": "lead",
            "entityId": "LEAD-004",
            "detail": "Converted Ingrid Halvorsen into ACC-012 / CON-015 / OPP-017.",
        }
    ]
    assert list(s["sequences"].items()) == [
        ("ACC", 12),
        ("CON", 15),
        ("LEAD", 10),
        ("OPP", 17),
        ("ACT", 15),
        ("AUD", 1),
    ]
    assert list(s) == [
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


def test_task_002_reference_plan(w):
    listed = w.ok("list_opportunities", {"ownerId": "USR-004", "status": "open"})
    ids = [o["id"] for o in listed["results"]]
    assert ids == ["OPP-005", "OPP-006"]
    for opp_id in ids:
        w.ok(
            "reassign_opportunity",
            {"opportunityId": opp_id, "newOwnerId": "USR-003", "actorUserId": "USR-001"},
        )
    s = w.state
    for opp_id in ids:
        assert (s["opportunities"][opp_id]["ownerId"], s["opportunities"][opp_id]["status"]) == (
            "USR-003",
            "open",
        )
    assert [(a["id"], a["entityId"], a["detail"]) for a in s["auditLog"]] == [
        ("AUD-0001", "OPP-005", "Reassigned OPP-005 from USR-004 to USR-003."),
        ("AUD-0002", "OPP-006", "Reassigned OPP-006 from USR-004 to USR-003."),
    ]
    assert s["sequences"]["AUD"] == 2
    assert not any(o["ownerId"] == "USR-004" and o["status"] == "open" for o in s["opportunities"].values())


def test_task_003_reference_plan(w):
    w.ok(
        "close_opportunity_won", {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"}
    )
    w.ok(
        "log_activity",
        {
            "type": "note",
            "subject": "Signed contract received",
            "relatedType": "opportunity",
            "relatedId": "OPP-007",
            "ownerId": "USR-005",
            "notes": "The countersigned point-of-sale contract came back today at the agreed figure.",
            "actorUserId": "USR-005",
        },
    )
    s = w.state
    opp = s["opportunities"]["OPP-007"]
    assert (opp["status"], opp["stageId"], opp["amount"], opp["closedDate"], opp["stageEnteredDate"]) == (
        "won",
        "STG-005",
        {"amount": 118000, "currency": "USD"},
        "2026-03-16",
        "2026-03-16",
    )
    act = s["activities"]["ACT-016"]
    assert (act["type"], act["ownerId"], act["relatedTo"], act["dueDate"], act["completedDate"]) == (
        "note",
        "USR-005",
        {"type": "opportunity", "id": "OPP-007"},
        "2026-03-16",
        "2026-03-16",
    )
    assert [(a["id"], a["action"], a["entityId"], a["detail"]) for a in s["auditLog"]] == [
        ("AUD-0001", "close_opportunity_won", "OPP-007", "Closed OPP-007 won at 118000."),
        ("AUD-0002", "log_activity", "ACT-016", "Logged note on OPP-007."),
    ]
    assert (s["sequences"]["ACT"], s["sequences"]["AUD"]) == (16, 2)


@pytest.mark.parametrize(
    "calls",
    [
        [("forecast_report", {})],
        [("stale_opportunities", {})],
        [("rep_performance", {"activeOnly": True})],
    ],
)
def test_tasks_004_to_006_only_read(w, calls):
    before = w.snapshot()
    for name, args in calls:
        w.ok(name, args)
    assert w.snapshot() == before


@pytest.mark.parametrize(
    ("name", "args", "problem"),
    [
        (
            "convert_lead",
            {"leadId": "LEAD-004", "amount": -1, "createOpportunity": False, "actorUserId": "USR-002"},
            '"amount" must be at least 0',
        ),
        ("list_users", {"limit": 501}, '"limit" must be at most 500'),
        ("list_leads", {"offset": -1}, '"offset" must be at least 0'),
        ("stale_opportunities", {"thresholdDays": 0}, '"thresholdDays" must be at least 1'),
        ("list_accounts", {"tier": "huge"}, '"tier" must be one of: enterprise, mid_market, smb'),
    ],
)
def test_schema_ranges_and_enums_stop_calls_before_run(w, name, args, problem):
    before = w.snapshot()
    out = w.err(name, args)
    assert out["code"] == "invalid_input"
    assert out["details"]["problems"] == [problem]
    assert w.snapshot() == before
