"""The project world: manifest, datasets (project-world.md §4), create_state (§1), the helpers of
§3 against the seed aggregates of §5, the tasks and their instructions (§8), validation and
registration."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest

import silo_gym
from silo_gym import canonical
from silo_gym.models import Task

from . import ENV_DIR, TASK_IDS, load_project, submodule

DATA_DIR = ENV_DIR / "data"


@pytest.fixture(scope="module")
def env():
    return load_project()


@pytest.fixture(scope="module")
def st(env):
    return submodule(env, "state")


@pytest.fixture
def state(env):
    return env.create_state()


def read_data(name: str):
    return json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# Manifest and data files


def test_manifest_is_exact():
    assert (ENV_DIR / "silo.environment.json").read_text(encoding="utf-8") == (
        '{\n  "name": "project",\n  "template": "project",\n  "templateVersion": "0.3.0",\n'
        '  "entrypoint": "./__init__.py",\n  "tools": []\n}\n'
    )


DATA_FILES = ["auditLog", "members", "projects", "sequences", "sprints", "teams", "timeLogs", "workItems",
              "workflowStates"]
FIELD_ORDER = {
    "projects": ["id", "name", "key", "status", "leadId", "startDate", "targetDate"],
    "workItems": ["id", "title", "type", "status", "priority", "assigneeId", "projectId", "sprintId",
                  "estimatePoints", "createdDate", "statusEnteredDate", "dueDate", "parentId", "dependsOn",
                  "comments"],
    "sprints": ["id", "name", "projectId", "startDate", "endDate", "status"],
    "members": ["id", "name", "email", "role", "teamId", "weeklyCapacityPoints", "active"],
    "teams": ["id", "name", "leadId"],
    "workflowStates": ["id", "name", "order", "isDone", "isBlockedState"],
    "timeLogs": ["id", "workItemId", "memberId", "date", "hours"],
}
COUNTS = {"projects": 3, "workItems": 24, "sprints": 5, "members": 8, "teams": 2, "workflowStates": 6,
          "timeLogs": 19}


def test_exactly_nine_data_files():
    assert sorted(p.stem for p in DATA_DIR.glob("*.json")) == DATA_FILES
    assert sorted(p.name for p in DATA_DIR.iterdir()) == [f"{n}.json" for n in DATA_FILES]


@pytest.mark.parametrize("name", DATA_FILES)
def test_data_file_is_pretty_ascii_json(name):
    raw = (DATA_DIR / f"{name}.json").read_bytes()
    assert raw.isascii()
    assert silo_gym.dumps_pretty(json.loads(raw)).encode() == raw


@pytest.mark.parametrize("name", sorted(FIELD_ORDER))
def test_entity_files_are_arrays_in_id_order_with_field_order(name):
    records = read_data(name)
    assert len(records) == COUNTS[name]
    assert [r["id"] for r in records] == sorted(r["id"] for r in records)
    assert all(list(r) == FIELD_ORDER[name] for r in records)


def test_workflow_states():
    rows = [(s["id"], s["name"], s["order"], s["isDone"], s["isBlockedState"]) for s in read_data("workflowStates")]
    assert rows == [
        ("WFS-001", "Backlog", 1, False, False), ("WFS-002", "To Do", 2, False, False),
        ("WFS-003", "In Progress", 3, False, False), ("WFS-004", "Blocked", 4, False, True),
        ("WFS-005", "In Review", 5, False, False), ("WFS-006", "Done", 6, True, False),
    ]


def test_members_and_teams():
    members = read_data("members")
    assert [(m["id"], m["name"], m["role"], m["teamId"], m["weeklyCapacityPoints"], m["active"]) for m in members] == [
        ("MEM-001", "Alice Chen", "lead", "TEAM-001", 20, True),
        ("MEM-002", "Brian Osei", "engineer", "TEAM-001", 25, True),
        ("MEM-003", "Carla Nunez", "engineer", "TEAM-001", 18, True),
        ("MEM-004", "Devon Ito", "engineer", "TEAM-002", 25, False),
        ("MEM-005", "Elena Petrov", "lead", "TEAM-002", 20, True),
        ("MEM-006", "Farid Haddad", "engineer", "TEAM-002", 22, True),
        ("MEM-007", "Grace Kim", "manager", None, 8, True),
        ("MEM-008", "Hassan Ali", "engineer", "TEAM-001", 24, True),
    ]
    assert all(m["email"] == m["name"].lower().replace(" ", ".") + "@example.com" for m in members)
    assert read_data("teams") == [{"id": "TEAM-001", "name": "Platform", "leadId": "MEM-001"},
                                  {"id": "TEAM-002", "name": "Mobile", "leadId": "MEM-005"}]


def test_projects_and_sprints():
    assert [tuple(p.values()) for p in read_data("projects")] == [
        ("PROJ-001", "Atlas Billing Platform", "ATL", "active", "MEM-001", "2025-11-03", "2026-06-30"),
        ("PROJ-002", "Nimbus Mobile App", "NIM", "active", "MEM-005", "2026-01-12", "2026-09-30"),
        ("PROJ-003", "Ledger Data Migration", "LED", "active", "MEM-007", "2025-09-01", "2026-03-31"),
    ]
    assert [tuple(s.values()) for s in read_data("sprints")] == [
        ("SPR-001", "Atlas Sprint 11", "PROJ-001", "2026-02-16", "2026-03-01", "completed"),
        ("SPR-002", "Atlas Sprint 12", "PROJ-001", "2026-03-02", "2026-03-15", "active"),
        ("SPR-003", "Atlas Sprint 13", "PROJ-001", "2026-03-16", "2026-03-29", "planned"),
        ("SPR-004", "Nimbus Sprint 4", "PROJ-002", "2026-02-16", "2026-03-01", "completed"),
        ("SPR-005", "Nimbus Sprint 5", "PROJ-002", "2026-03-02", "2026-03-15", "active"),
    ]


#: §4.6 in columns: status, priority, assignee, sprint, estimate, created, entered, due, parent, deps.
ITEMS = {
    "WI-001": ("WFS-003", "high", "MEM-001", None, 0, "2025-11-05", "2025-11-20", None, None, []),
    "WI-002": ("WFS-006", "high", "MEM-002", "SPR-001", 5, "2026-02-10", "2026-02-27", "2026-03-01", "WI-001", []),
    "WI-003": ("WFS-005", "high", "MEM-002", "SPR-002", 8, "2026-02-12", "2026-03-10", "2026-03-20", "WI-001",
               ["WI-002"]),
    "WI-004": ("WFS-003", "urgent", "MEM-003", "SPR-002", 8, "2026-02-14", "2026-03-05", "2026-03-13", "WI-001",
               ["WI-005"]),
    "WI-005": ("WFS-003", "high", "MEM-003", "SPR-002", 5, "2026-02-14", "2026-03-06", "2026-03-18", "WI-001", []),
    "WI-006": ("WFS-004", "urgent", "MEM-008", "SPR-002", 3, "2026-03-02", "2026-03-09", "2026-03-10", None,
               ["WI-007"]),
    "WI-007": ("WFS-002", "high", "MEM-008", "SPR-002", 5, "2026-03-02", "2026-03-03", None, None, []),
    "WI-008": ("WFS-001", "medium", None, None, 8, "2026-03-04", "2026-03-04", None, "WI-001", []),
    "WI-009": ("WFS-001", "medium", None, None, 5, "2026-03-05", "2026-03-05", None, "WI-001", []),
    "WI-010": ("WFS-006", "medium", "MEM-003", "SPR-001", 2, "2026-02-18", "2026-02-26", "2026-02-28", None, []),
    "WI-011": ("WFS-002", "medium", "MEM-003", "SPR-002", 5, "2026-02-20", "2026-03-02", "2026-03-11", None, []),
    "WI-012": ("WFS-003", "high", "MEM-003", "SPR-002", 3, "2026-03-01", "2026-03-07", "2026-03-14", None, []),
    "WI-013": ("WFS-003", "high", "MEM-005", None, 0, "2026-01-15", "2026-01-20", None, None, []),
    "WI-014": ("WFS-003", "high", "MEM-004", "SPR-005", 8, "2026-02-05", "2026-03-04", "2026-03-20", "WI-013", []),
    "WI-015": ("WFS-002", "medium", "MEM-004", "SPR-005", 5, "2026-02-06", "2026-03-03", "2026-03-12", "WI-013", []),
    "WI-016": ("WFS-005", "urgent", "MEM-004", "SPR-005", 3, "2026-02-20", "2026-03-11", None, None, []),
    "WI-017": ("WFS-006", "medium", "MEM-006", "SPR-004", 5, "2026-02-10", "2026-02-26", "2026-03-01", "WI-013", []),
    "WI-018": ("WFS-006", "low", "MEM-006", "SPR-004", 3, "2026-02-12", "2026-02-27", "2026-03-01", None, []),
    "WI-019": ("WFS-002", "low", "MEM-006", "SPR-005", 5, "2026-02-25", "2026-03-02", None, "WI-013", []),
    "WI-020": ("WFS-001", "medium", None, None, 2, "2026-03-08", "2026-03-08", None, None, []),
    "WI-021": ("WFS-002", "low", "MEM-005", "SPR-004", 2, "2026-02-18", "2026-02-24", "2026-03-02", None, []),
    "WI-022": ("WFS-006", "high", "MEM-008", None, 3, "2025-10-01", "2026-01-10", "2026-01-15", None, []),
    "WI-023": ("WFS-006", "high", "MEM-002", None, 8, "2025-10-05", "2026-02-20", "2026-02-28", None, ["WI-022"]),
    "WI-024": ("WFS-005", "medium", "MEM-002", None, 3, "2025-11-01", "2026-03-12", "2026-03-31", None, ["WI-023"]),
}


def test_work_items_dataset():
    items = {i["id"]: i for i in read_data("workItems")}
    fields = ("status", "priority", "assigneeId", "sprintId", "estimatePoints", "createdDate", "statusEnteredDate",
              "dueDate", "parentId", "dependsOn")
    assert {i: tuple(item[f] for f in fields) for i, item in items.items()} == ITEMS
    with_comments = {i: [(c["id"], c["authorId"], c["createdDate"]) for c in item["comments"]]
                     for i, item in items.items() if item["comments"]}
    assert with_comments == {"WI-004": [("CMT-001", "MEM-003", "2026-03-09")],
                             "WI-006": [("CMT-002", "MEM-008", "2026-03-09")],
                             "WI-014": [("CMT-003", "MEM-005", "2026-03-12")]}
    assert all(list(c) == ["id", "authorId", "body", "createdDate"] for i in items.values() for c in i["comments"])


def test_time_logs_dataset():
    logs = [(t["id"], t["workItemId"], t["memberId"], t["date"], t["hours"]) for t in read_data("timeLogs")]
    assert logs[0] == ("TL-001", "WI-002", "MEM-002", "2026-02-24", 6.5)
    assert logs[-1] == ("TL-019", "WI-022", "MEM-008", "2026-01-09", 4)
    assert sum(t[4] for t in logs) == 84.5
    assert all(isinstance(t[4], int) for t in logs if float(t[4]).is_integer())


def test_audit_log_and_sequences():
    audit = read_data("auditLog")
    assert [list(e) for e in audit] == [["id", "at", "actorMemberId", "action", "entityType", "entityId", "detail"]] * 2
    assert [tuple(e.values())[:6] for e in audit] == [
        ("AUD-0001", "2026-03-02", "MEM-001", "start_sprint", "sprint", "SPR-002"),
        ("AUD-0002", "2026-03-12", "MEM-005", "update_member", "member", "MEM-004"),
    ]
    assert audit[0]["detail"] == "Started Atlas Sprint 12."
    assert (DATA_DIR / "sequences.json").read_text() == (
        '{\n  "PROJ": 3,\n  "WI": 24,\n  "SPR": 5,\n  "MEM": 8,\n  "TEAM": 2,\n  "TL": 19,\n  "CMT": 3,\n  "AUD": 2\n}\n'
    )


def test_invented_text_holds_no_ids():
    texts = [c["body"] for i in read_data("workItems") for c in i["comments"]]
    texts.append(read_data("auditLog")[1]["detail"])
    for text in texts:
        assert text.isascii()
        assert not re.search(r"(WI|MEM|SPR)-[0-9]", text), text


def test_lookup_names_are_unique_in_the_seed():
    titles = [i["title"] for i in read_data("workItems")]
    for title in ("Tax rules engine", "Payment retry scheduler", "Usage metering", "Duplicate invoice emails",
                  "Email service upgrade"):
        assert sum(title.lower() in t.lower() for t in titles) == 1
    names = [m["name"] for m in read_data("members")]
    assert sum("devon ito" in n.lower() for n in names) == 1 and sum("farid haddad" in n.lower() for n in names) == 1
    keys = [p["key"] for p in read_data("projects")]
    assert keys.count("ATL") == 1 and keys.count("LED") == 1


# ---------------------------------------------------------------------------------------------
# create_state


def test_create_state_keys_and_shapes(env, state):
    assert list(state) == ["now", "projects", "workItems", "sprints", "members", "teams", "workflowStates",
                           "timeLogs", "auditLog", "sequences"]
    assert state["now"] == env.SIMULATION_NOW == "2026-03-16"
    for key, count in COUNTS.items():
        assert list(state[key]) == [r["id"] for r in read_data(key)]
        assert len(state[key]) == count
    assert state["auditLog"] == read_data("auditLog")
    assert state["sequences"] == read_data("sequences")


def test_create_state_returns_fresh_objects(env):
    a, b = env.create_state(), env.create_state(None)
    assert canonical(a) == canonical(b)
    assert a is not b and a["workItems"] is not b["workItems"]
    assert a["workItems"]["WI-004"]["comments"] is not b["workItems"]["WI-004"]["comments"]
    a["workItems"]["WI-004"]["comments"].append({"id": "CMT-999"})
    a["auditLog"].clear()
    assert len(env.create_state()["workItems"]["WI-004"]["comments"]) == 1
    assert len(env.create_state()["auditLog"]) == 2


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3"])
def test_create_state_refuses_a_bad_variant(env, bad):
    with pytest.raises(ValueError, match="variant must be None or an int >= 0"):
        env.create_state(bad)


def test_exports(env):
    for name in ("create_state", "bind_tools", "verifiers", "render_instruction", "task_preconditions",
                 "world_problems"):
        assert hasattr(env, name)
    assert [v.id for v in env.verifiers] == [f"VER-{n:03d}" for n in range(1, 16)]
    assert [v.task_id for v in env.verifiers] == TASK_IDS
    assert len(env.bind_tools(env.create_state())) == 54


# ---------------------------------------------------------------------------------------------
# Helpers against the seed aggregates (§5)


DERIVED = {  # id: (days in status, blocked, days overdue or None)
    "WI-001": (116, False, None), "WI-002": (17, False, None), "WI-003": (6, False, None),
    "WI-004": (11, True, 3), "WI-005": (10, False, None), "WI-006": (7, True, 6), "WI-007": (13, False, None),
    "WI-008": (12, False, None), "WI-009": (11, False, None), "WI-010": (18, False, None),
    "WI-011": (14, False, 5), "WI-012": (9, False, 2), "WI-013": (55, False, None), "WI-014": (12, False, None),
    "WI-015": (13, False, 4), "WI-016": (5, False, None), "WI-017": (18, False, None),
    "WI-018": (17, False, None), "WI-019": (14, False, None), "WI-020": (8, False, None),
    "WI-021": (20, False, 14), "WI-022": (65, False, None), "WI-023": (24, False, None), "WI-024": (4, False, None),
}


def test_per_item_derived_values(st, state):
    for item_id, (days, blocked, overdue) in DERIVED.items():
        item = state["workItems"][item_id]
        assert st.days_in_status(state, item) == days, item_id
        assert st.is_blocked(state, item) is blocked, item_id
        assert st.is_overdue(state, item) is (overdue is not None), item_id
        if overdue is not None:
            assert st.days_between(item["dueDate"], state["now"]) == overdue
    done = [i for i, item in state["workItems"].items() if st.is_done(state, item)]
    assert done == ["WI-002", "WI-010", "WI-017", "WI-018", "WI-022", "WI-023"]


def test_loads_velocity_and_hours(st, state):
    loads = {m: st.load_for(state, m) for m in state["members"]}
    assert loads == {"MEM-001": 0, "MEM-002": 11, "MEM-003": 21, "MEM-004": 16, "MEM-005": 2, "MEM-006": 5,
                     "MEM-007": 0, "MEM-008": 8}
    assert st.over_capacity_by(state, "MEM-003") == 3 and st.over_capacity_by(state, "MEM-999") == 0
    assert st.over_capacity_by(state, "MEM-006", extra=16) == 0 and st.over_capacity_by(state, "MEM-006", 18) == 1
    assert {s: (st.scope_for_sprint(state, s), st.velocity_for_sprint(state, s), st.remaining_for_sprint(state, s))
            for s in state["sprints"]} == {"SPR-001": (7, 7, 0), "SPR-002": (37, 0, 37), "SPR-003": (0, 0, 0),
                                           "SPR-004": (10, 8, 2), "SPR-005": (21, 0, 21)}
    assert st.hours_on_work_item(state, "WI-003") == 10.5
    assert st.total_hours_for(state["timeLogs"].values()) == 84.5
    per_member = {m: st.total_hours_for(st.time_logs_for_member(state, m)) for m in state["members"]}
    assert per_member == {"MEM-001": 0, "MEM-002": 32.5, "MEM-003": 17.5, "MEM-004": 11, "MEM-005": 1.5,
                          "MEM-006": 12.5, "MEM-007": 0, "MEM-008": 9.5}
    assert [m["id"] for m in st.members_for_team(state, "TEAM-001")] == ["MEM-001", "MEM-002", "MEM-003", "MEM-008"]
    assert [s["id"] for s in st.sprints_for_project(state, "PROJ-001")] == ["SPR-001", "SPR-002", "SPR-003"]


def test_rounding_helpers(st):
    assert st.round1(0.05) == 0.1 and st.round1(1.25) == 1.3 and st.round1(2.0) == 2
    assert isinstance(st.round1(44.0), int) and isinstance(st.percent(21, 18), float)
    assert st.percent(21, 18) == 116.7 and st.percent(5, 22) == 22.7 and st.percent(1, 0) is None
    assert st.percent(11, 25) == 44 and isinstance(st.percent(11, 25), int)
    assert st.format_id("AUD", 3, 4) == "AUD-0003" and st.format_id("WI", 1234) == "WI-1234"


def test_next_id_and_record_audit(st, state):
    assert st.next_id(state, "WI") == "WI-025" and state["sequences"]["WI"] == 25
    assert st.next_id(state, "NEW") == "NEW-001" and list(state["sequences"])[-1] == "NEW"
    st.record_audit(state, "MEM-001", "x", "work_item", "WI-001", "d")
    assert state["auditLog"][-1] == {"id": "AUD-0003", "at": "2026-03-16", "actorMemberId": "MEM-001",
                                     "action": "x", "entityType": "work_item", "entityId": "WI-001", "detail": "d"}


def test_helpers_follow_the_state_not_the_files(st, state):
    # A dangling status is not done; a done item whose dependency is open still counts as blocked.
    item = state["workItems"]["WI-002"]
    item["dependsOn"] = ["WI-004", "WI-404"]
    assert st.is_blocked(state, item) and [d["id"] for d in st.unresolved_dependencies(state, item)] == ["WI-004"]
    item["status"] = "WFS-404"
    assert not st.is_done(state, item)
    state["now"] = "2026-03-26"
    assert st.days_in_status(state, state["workItems"]["WI-003"]) == 16


# ---------------------------------------------------------------------------------------------
# Tasks and instructions (§8)


TASK_FACTS = {
    "TASK-001": ("easy", ["WI-003"], "tax rules engine"),
    "TASK-002": ("medium", ["WI-004"], "payment retry scheduler"),
    "TASK-003": ("medium", ["MEM-004", "MEM-006"], "Devon Ito"),
    "TASK-004": ("hard", ["WI-008"], "Usage metering"),
    "TASK-005": ("easy", ["WI-006"], "Leave a note"),
    "TASK-006": ("medium", ["SPR-003"], "Atlas Sprint 13 is empty"),
    "TASK-007": ("medium", ["SPR-002", "SPR-003"], "ran to its end date"),
    "TASK-008": ("hard", ["PROJ-003"], "ledger data migration"),
    "TASK-009": ("easy", [], "held up by an unfinished dependency"),
    "TASK-010": ("medium", [], "delivered the most points"),
    "TASK-011": ("medium", ["PROJ-001"], "total number of hours"),
    "TASK-012": ("hard", [], "who is still active"),
    "TASK-013": ("medium", [], "weekly capacity allows"),
    "TASK-014": ("easy", [], "Backlog state right now"),
    "TASK-015": ("hard", [], "closed out while work was still unfinished"),
}
ACTORS = {"TASK-001": "Alice Chen (MEM-001)", "TASK-002": "Alice Chen (MEM-001)",
          "TASK-003": "Elena Petrov (MEM-005)", "TASK-004": "Alice Chen (MEM-001)",
          "TASK-005": "Hassan Ali (MEM-008)", "TASK-006": "Alice Chen (MEM-001)",
          "TASK-007": "Alice Chen (MEM-001)", "TASK-008": "Grace Kim (MEM-007)"}


def task_files():
    return {p.stem: json.loads(p.read_text("utf-8")) for p in sorted((ENV_DIR / "tasks").glob("*.json"))}


def test_task_files_carry_the_facts():
    tasks = task_files()
    assert list(tasks) == TASK_IDS
    for task_id, task in tasks.items():
        difficulty, entities, marker = TASK_FACTS[task_id]
        assert list(task) == ["id", "title", "instruction", "verifierId", "difficulty", "entities"]
        assert task["id"] == task_id and task["verifierId"] == "VER-" + task_id[-3:]
        assert (task["difficulty"], task["entities"]) == (difficulty, entities)
        assert task["instruction"].isascii() and task["title"]


def test_each_marker_phrase_is_in_its_own_instruction_only():
    tasks = task_files()
    for task_id, (_, _, marker) in TASK_FACTS.items():
        holders = [t for t, task in tasks.items() if marker in task["instruction"]]
        assert holders == [task_id], marker


def test_instruction_rules():
    for task_id, task in task_files().items():
        ids = re.findall(r"MEM-[0-9]+", task["instruction"])
        if task_id in ACTORS:
            assert ACTORS[task_id] in task["instruction"] and len(ids) == 1
        else:
            assert ids == [] and not re.search(r"[A-Z]+-[0-9]", task["instruction"])
        # records are named, never given by id (the actor aside)
        assert not re.search(r"(WI|SPR|PROJ|TEAM|WFS)-[0-9]", task["instruction"])


def test_facts_quoted_in_instructions():
    tasks = task_files()
    assert "(2026-03-15, yesterday)" in tasks["TASK-007"]["instruction"]
    assert '("Decommission the legacy ledger service")' in tasks["TASK-008"]["instruction"]
    assert "key LED" in tasks["TASK-008"]["instruction"] and "key ATL" in tasks["TASK-011"]["instruction"]
    assert "Grace Kim" in tasks["TASK-009"]["instruction"] and "Grace Kim" in tasks["TASK-012"]["instruction"]
    assert "Farid Haddad" in tasks["TASK-003"]["instruction"]
    assert "Platform team" in tasks["TASK-004"]["instruction"]


def test_render_instruction_on_the_canonical_world_is_the_file(env, state):
    before = canonical(state)
    for task_id, task in task_files().items():
        model = Task(id=task["id"], title=task["title"], instruction=task["instruction"],
                     verifier_id=task["verifierId"], difficulty=task["difficulty"], entities=task["entities"])
        assert env.render_instruction(model, state) == task["instruction"], task_id
        assert env.task_preconditions(model, state) == [], task_id
    assert canonical(state) == before
    assert env.world_problems(state) == []


def test_an_unknown_task_keeps_its_own_instruction(env, state):
    task = Task(id="TASK-099", title="t", instruction="Do it.", verifier_id="VER-099", difficulty="easy",
                entities=[])
    assert env.render_instruction(task, state) == "Do it." and env.task_preconditions(task, state) == []


# ---------------------------------------------------------------------------------------------
# Validation and registration


def test_validate_is_clean():
    report = silo_gym.validate("project")
    assert report.ok and report.findings == []
    assert report.counts == {"data": 9, "tasks": 15, "tools": 54, "verifiers": 15}


def test_cli_validate_prints_ok(capsys):
    from silo_gym.cli import main

    assert main(["env", "validate", "--env", "project"]) == 0
    assert capsys.readouterr().out == "OK\tproject\tdata=9 tasks=15 tools=54 verifiers=15\n"


def test_gymnasium_ids_are_registered():
    ids = [k for k in gym.registry if k == "silo/project" or k.startswith("silo/project-")]
    assert sorted(ids) == ["silo/project"] + [f"silo/project-{t}" for t in TASK_IDS]
    assert gym.spec("silo/project-TASK-007").kwargs["path"] == str(ENV_DIR)
