"""Variants of the project world (project-world.md §11; VARIANTS_CONTRACT.md), checked on the
worlds themselves: determinism, shape, anchors, integrity (``world_problems``), preconditions,
rendered instructions and the answer-parsing notes, over the first 1,000 variant numbers."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import textwrap
from collections import Counter

import orjson
import pytest
from conftest import subprocess_env

from silo_gym import canonical
from silo_gym.models import Task

from . import ENV_DIR, ROOT, TASK_IDS, load_project, submodule

pytestmark = pytest.mark.xdist_group("project-variants")  # one worker builds the sample once

SAMPLE = range(1000)
MUTATING = TASK_IDS[:8]
MARKERS = {
    "TASK-001": "tax rules engine", "TASK-002": "payment retry scheduler", "TASK-003": "Devon Ito",
    "TASK-004": "Usage metering", "TASK-005": "Leave a note", "TASK-006": "Atlas Sprint 13 is empty",
    "TASK-007": "ran to its end date", "TASK-008": "ledger data migration",
    "TASK-009": "held up by an unfinished dependency", "TASK-010": "delivered the most points",
    "TASK-011": "total number of hours", "TASK-012": "who is still active", "TASK-013": "weekly capacity allows",
    "TASK-014": "Backlog state right now", "TASK-015": "closed out while work was still unfinished",
}


@pytest.fixture(scope="module")
def env():
    return load_project()


@pytest.fixture(scope="module")
def tasks(env):
    import json

    out = {}
    for path in sorted((ENV_DIR / "tasks").glob("*.json")):
        raw = json.loads(path.read_text("utf-8"))
        out[raw["id"]] = Task(id=raw["id"], title=raw["title"], instruction=raw["instruction"],
                              verifier_id=raw["verifierId"], difficulty=raw["difficulty"], entities=raw["entities"])
    return out


@pytest.fixture(scope="module")
def sample(env) -> dict[int, bytes]:
    """Variant number -> the world's orjson bytes."""
    return {k: orjson.dumps(env.create_state(k)) for k in SAMPLE}


def worlds(sample):
    for k, data in sample.items():
        yield k, orjson.loads(data)


# ---------------------------------------------------------------------------------------------
# Determinism and freshness


def test_the_same_number_gives_the_same_world(env, sample):
    generator = submodule(env, "generator")
    for k in range(0, 1000, 7):
        assert orjson.dumps(generator.generate(k)) == sample[k]  # built again, not from the cache
        assert orjson.dumps(env.create_state(k)) == sample[k]
    assert len(set(sample.values())) == len(sample)


def test_every_call_returns_a_fresh_world(env):
    a, b = env.create_state(5), env.create_state(5)
    assert a is not b and a["workItems"] is not b["workItems"]
    a["workItems"]["WI-003"]["dependsOn"].append("WI-999")
    a["auditLog"].clear()
    c = env.create_state(5)
    assert "WI-999" not in c["workItems"]["WI-003"]["dependsOn"] and c["auditLog"]
    assert canonical(b) == canonical(c)


def test_generating_variants_leaves_the_canonical_world_alone(env, sample):
    rebuilt = load_project().create_state()  # a fresh load: the seed read from the files again
    assert canonical(env.create_state()) == canonical(rebuilt)
    assert orjson.dumps(env.create_state(None)) not in set(sample.values())


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
def test_the_same_world_in_another_process(sample):
    child = textwrap.dedent(f"""
        import hashlib, sys
        sys.path.insert(0, {str(ROOT)!r})
        import orjson
        from silo_gym.loader import open_environment_at
        env = open_environment_at("project", {str(ENV_DIR)!r}, fresh=True).module
        digest = hashlib.sha256()
        for k in range(0, 1000, 13):
            digest.update(orjson.dumps(env.create_state(k)))
        digest.update(orjson.dumps(env.create_state(2**31 - 1)))
        print(digest.hexdigest())
    """)
    digests = {
        subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120, check=True,
                       env=subprocess_env(PYTHONHASHSEED=seed)).stdout.strip()
        for seed in ("1", "2024")
    }
    digest = hashlib.sha256()
    for k in range(0, 1000, 13):
        digest.update(sample[k])
    digest.update(orjson.dumps(load_project().create_state(2**31 - 1)))
    assert digests == {digest.hexdigest()}


# ---------------------------------------------------------------------------------------------
# Shape, anchors and integrity


def _json_type(value):
    return type(value).__name__ if not isinstance(value, float) else "int"  # JSON numbers


def test_same_shape_as_the_canonical_world(env, sample):
    canon = env.create_state()
    fields = {key: list(next(iter(canon[key].values()))) for key in canon if isinstance(canon[key], dict)
              and key != "sequences"}
    types = {key: {f: {_json_type(r[f]) for r in canon[key].values()} | {"NoneType"} for f in fields[key]}
             for key in fields}
    for k, world in worlds(sample):
        assert list(world) == list(canon), k
        assert list(world["sequences"]) == list(canon["sequences"]), k
        assert world["now"] == "2026-03-16"
        for key, names in fields.items():
            for record_id, record in world[key].items():
                assert list(record) == names, (k, record_id)
                for f in names:
                    assert _json_type(record[f]) in types[key][f], (k, record_id, f)
            assert list(world[key]) == sorted(world[key]), (k, key)
        assert all(list(e) == list(canon["auditLog"][0]) for e in world["auditLog"])
        assert all(list(c) == ["id", "authorId", "body", "createdDate"]
                   for i in world["workItems"].values() for c in i["comments"])


ANCHORS = {  # (collection, id): (field, value)
    ("workItems", "WI-003"): ("title", "Tax rules engine"),
    ("workItems", "WI-004"): ("title", "Payment retry scheduler"),
    ("workItems", "WI-006"): ("title", "Duplicate invoice emails"),
    ("workItems", "WI-008"): ("title", "Usage metering"),
    ("members", "MEM-004"): ("name", "Devon Ito"),
    ("members", "MEM-006"): ("name", "Farid Haddad"),
    ("sprints", "SPR-002"): ("name", "Atlas Sprint 12"),
    ("sprints", "SPR-003"): ("name", "Atlas Sprint 13"),
    ("projects", "PROJ-001"): ("key", "ATL"),
    ("projects", "PROJ-003"): ("key", "LED"),
}
LOOKUPS = [("workItems", "title", t) for t in ("Tax rules engine", "Payment retry scheduler", "Usage metering",
                                               "Duplicate invoice emails", "Email service upgrade")]
LOOKUPS += [("members", "name", "Devon Ito"), ("members", "name", "Farid Haddad"), ("projects", "key", "ATL"),
            ("projects", "key", "LED"), ("sprints", "name", "Atlas Sprint 12"), ("sprints", "name", "Atlas Sprint 13"),
            ("workflowStates", "name", "Backlog"), ("teams", "name", "Platform")]


def test_anchors_and_lookup_names_hold(env, sample):
    workflow = sorted(tuple(s.values())[1:] for s in env.create_state()["workflowStates"].values())
    done_ids = Counter()
    for k, world in worlds(sample):
        for (key, record_id), (field, value) in ANCHORS.items():
            assert world[key][record_id][field] == value, (k, record_id)
        for key, field, value in LOOKUPS:
            assert sum(r[field] == value for r in world[key].values()) == 1, (k, value)
        assert sorted(tuple(s.values())[1:] for s in world["workflowStates"].values()) == workflow
        done_ids[next(s["id"] for s in world["workflowStates"].values() if s["isDone"])] += 1
    assert len(done_ids) == 6 and done_ids["WFS-006"] < 250  # which id is done moves


def test_no_variant_has_integrity_problems(env, sample):
    assert env.world_problems(env.create_state()) == []
    for k, world in worlds(sample):
        before = orjson.dumps(world)
        assert env.world_problems(world) == [], k
        assert orjson.dumps(world) == before


def _set(path, value):
    def change(state):
        target = state
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
    return change


BREAKAGES = [
    (_set(("workItems", "WI-003", "assigneeId"), "MEM-404"), "assigned to MEM-404, who does not exist"),
    (_set(("workItems", "WI-003", "projectId"), "PROJ-404"), "belongs to PROJ-404"),
    (_set(("workItems", "WI-020", "sprintId"), "SPR-001"), "a sprint of another project"),
    (_set(("workItems", "WI-005", "dependsOn"), ["WI-004"]), "dependencies form a cycle"),
    (_set(("workItems", "WI-001", "parentId"), "WI-002"), "parents of WI-001 form a cycle"),
    (_set(("workItems", "WI-003", "dependsOn"), ["WI-404"]), "depends on WI-404"),
    (_set(("workItems", "WI-003", "statusEnteredDate"), "2026-01-01"), "before it was created"),
    (_set(("workItems", "WI-003", "dueDate"), "2026-02-30"), "malformed date"),
    (_set(("workItems", "WI-003", "status"), "WFS-404"), "not a workflow state"),
    (_set(("sprints", "SPR-003", "status"), "active"), "more than one active sprint"),
    (_set(("sprints", "SPR-003", "endDate"), "2026-03-01"), "ends before it starts"),
    (_set(("projects", "PROJ-003", "status"), "completed"), "open in the completed project"),
    (_set(("members", "MEM-002", "teamId"), "TEAM-404"), "belongs to TEAM-404"),
    (_set(("members", "MEM-002", "email"), "brian@example.com"), "e-mail rule"),
    (_set(("teams", "TEAM-001", "leadId"), "MEM-404"), "led by MEM-404"),
    (_set(("timeLogs", "TL-001", "memberId"), "MEM-404"), "logged by MEM-404"),
    (_set(("timeLogs", "TL-001", "date"), "2026-04-01"), "future date"),
    (_set(("sequences", "WI"), 20), "WI sequence (20) is behind the ids in use (24)"),
    (_set(("sequences", "AUD"), 5), "AUD sequence does not equal"),
    (_set(("workflowStates", "WFS-006", "isDone"), False), "six standard ones"),
    (_set(("workItems", "WI-004", "comments"), [{"id": "CMT-001", "authorId": "MEM-404", "body": "x",
                                                  "createdDate": "2026-03-01"}]), "written by MEM-404"),
]


@pytest.mark.parametrize(("breakage", "expected"), BREAKAGES, ids=[b[1] for b in BREAKAGES])
def test_world_problems_reports_each_kind_of_fault(env, breakage, expected):
    state = env.create_state()
    breakage(state)
    problems = env.world_problems(state)
    assert any(expected in p for p in problems), problems


# ---------------------------------------------------------------------------------------------
# Preconditions


def test_nearly_every_variant_meets_every_task(env, tasks, sample):
    accepted = Counter()
    for _k, world in worlds(sample):
        for task_id, task in tasks.items():
            if not env.task_preconditions(task, world):
                accepted[task_id] += 1
    assert all(accepted[t] >= 0.95 * len(sample) for t in TASK_IDS), accepted


def _deactivate_actor(state):
    state["members"]["MEM-001"]["active"] = False


def _second_over_capacity(state):
    state["members"]["MEM-002"]["weeklyCapacityPoints"] = 10


def _unit(task_id, *changes):
    def change(state):
        for c in changes:
            c(state)
    return task_id, change


PRECONDITION_BREAKS = [
    (*_unit("TASK-001", _set(("workItems", "WI-003", "status"), "WFS-006")), "already done"),
    (*_unit("TASK-001", _set(("workItems", "WI-003", "dependsOn"), ["WI-005"])), "cannot be set done directly"),
    (*_unit("TASK-001", _deactivate_actor), "Alice Chen (MEM-001), named in the instruction, is not active"),
    (*_unit("TASK-001", _set(("workItems", "WI-009", "title"), "Tax rules engine")), 'More than one work item'),
    (*_unit("TASK-002", _set(("workItems", "WI-004", "dependsOn"), [])), "waits on nothing unfinished"),
    (*_unit("TASK-002", _set(("workItems", "WI-005", "dependsOn"), ["WI-011"])), "itself waits on unfinished work"),
    (*_unit("TASK-003", _set(("members", "MEM-004", "active"), True)), "still active"),
    (*_unit("TASK-003", _set(("members", "MEM-006", "weeklyCapacityPoints"), 20)), "does not fit"),
    (*_unit("TASK-003", _set(("members", "MEM-006", "active"), False)), "Farid Haddad is not active"),
    (*_unit("TASK-004", _set(("members", "MEM-008", "weeklyCapacityPoints"), 22)), "same least room"),
    (*_unit("TASK-004", _set(("workItems", "WI-008", "assigneeId"), "MEM-002")), "already assigned"),
    (*_unit("TASK-004", _set(("workItems", "WI-008", "estimatePoints"), 30)), "No active Platform member"),
    (*_unit("TASK-005", _set(("workItems", "WI-007", "status"), "WFS-006")), "already done"),
    (*_unit("TASK-005", _set(("workItems", "WI-006", "dependsOn"), [])), "does not depend on"),
    (*_unit("TASK-006", _set(("workItems", "WI-011", "sprintId"), "SPR-003")), "is not empty"),
    (*_unit("TASK-006", _set(("workItems", "WI-008", "assigneeId"), "MEM-002"),
            _set(("workItems", "WI-009", "assigneeId"), "MEM-002")), "No unassigned Atlas work item"),
    (*_unit("TASK-007", _set(("sprints", "SPR-001", "status"), "active")), "Another sprint of the Atlas project"),
    (*_unit("TASK-007", _set(("sprints", "SPR-002", "endDate"), "2026-03-20")), "has not reached its end date"),
    (*_unit("TASK-007", _set(("sprints", "SPR-003", "status"), "completed")), "Atlas Sprint 13 is not planned"),
    (*_unit("TASK-008", _set(("projects", "PROJ-003", "status"), "completed")), "already completed"),
    (*_unit("TASK-008", _set(("workItems", "WI-024", "dependsOn"), ["WI-011"])), "outside the ledger's open work"),
    (*_unit("TASK-008", _set(("workItems", "WI-023", "status"), "WFS-002"),
            _set(("workItems", "WI-023", "dependsOn"), ["WI-024"])), "in a cycle"),
    (*_unit("TASK-009", _set(("workItems", "WI-002", "dependsOn"), ["WI-011"])), "A done work item depends"),
    (*_unit("TASK-009", _set(("workItems", "WI-004", "dependsOn"), []),
            _set(("workItems", "WI-006", "dependsOn"), [])), "No work item is held up"),
    (*_unit("TASK-010", _set(("workItems", "WI-010", "estimatePoints"), 3)), "share the highest"),
    (*_unit("TASK-011", _set(("timeLogs", "TL-017", "hours"), 37.5)), "same hours as Atlas"),
    (*_unit("TASK-012", _set(("members", "MEM-004", "active"), True)), "qualifier changes nothing"),
    (*_unit("TASK-013", _second_over_capacity), "over capacity; 2 are"),
    (*_unit("TASK-014", _set(("workflowStates", "WFS-001", "name"), "Icebox")), 'named "Backlog"'),
    (*_unit("TASK-015", _set(("workItems", "WI-010", "status"), "WFS-002")), "unfinished work; 2 do"),
]


@pytest.mark.parametrize(("task_id", "change", "expected"), PRECONDITION_BREAKS,
                         ids=[f"{b[0]}-{b[2]}" for b in PRECONDITION_BREAKS])
def test_preconditions_name_what_is_wrong(env, tasks, task_id, change, expected):
    state = env.create_state()
    assert env.task_preconditions(tasks[task_id], state) == []
    change(state)
    before = canonical(state)
    problems = env.task_preconditions(tasks[task_id], state)
    assert any(expected in p for p in problems), problems
    assert all(p.endswith(".") and p[0].isupper() for p in problems)
    assert canonical(state) == before


# ---------------------------------------------------------------------------------------------
# Rendered instructions


def test_rendered_instructions_follow_the_rules(env, tasks, sample):
    actor_of = submodule(env, "instructions").actor_of
    differs = Counter()
    for k, world in worlds(sample):
        before = orjson.dumps(world)
        for task_id, task in tasks.items():
            if env.task_preconditions(task, world):
                continue
            text = env.render_instruction(task, world)
            assert text.isascii(), (k, task_id)
            assert [t for t, m in MARKERS.items() if m in text] == [task_id], (k, task_id, text)
            ids = re.findall(r"MEM-[0-9]+", text)
            actor = actor_of(task_id, world)
            if task_id in MUTATING:
                assert ids == [actor["id"]] and f"{actor['name']} ({actor['id']})" in text, (k, task_id)
                assert actor["active"]
            else:
                assert not re.search(r"[A-Z]+-[0-9]", text), (k, task_id, text)
                assert actor["name"] in text
            assert not re.search(r"(WI|SPR|PROJ|TEAM|WFS)-[0-9]", text), (k, task_id)
            differs[task_id] += text != task.instruction
        assert orjson.dumps(world) == before
    # the acting or asking member is drawn, so instructions differ even where the target is fixed
    assert all(differs[t] >= 0.95 * len(sample) for t in TASK_IDS), differs


def test_rendered_facts_follow_the_world(env, tasks, sample):
    days = Counter()
    for k, world in worlds(sample):
        end = world["sprints"]["SPR-002"]["endDate"]
        text = env.render_instruction(tasks["TASK-007"], world)
        n = (20260316 - int(end.replace("-", ""))) if end.startswith("2026-03") else None
        assert f"({end}, " in text, k
        if n == 1:
            assert f"({end}, yesterday)" in text
        elif n is not None:
            assert f"({end}, {n} days ago)" in text
        days[n] += 1
        ledger = env.render_instruction(tasks["TASK-008"], world)
        open_items = [i for i in world["workItems"].values() if i["projectId"] == "PROJ-003"
                      and not world["workflowStates"][i["status"]]["isDone"]]
        if len(open_items) > 1:
            assert "its remaining open items" in ledger, k
        else:
            assert f'its remaining open work ("{open_items[0]["title"]}")' in ledger, k
    assert len(days) >= 5


# ---------------------------------------------------------------------------------------------
# Answer-parsing notes and variety (§11)


def _number_in(name):
    return float(re.findall(r"[0-9]+", name)[-1])


def test_names_and_figures_do_not_answer_for_free(env, sample):
    st = submodule(env, "state")
    for k, world in worlds(sample):
        for key, field in (("members", "name"), ("sprints", "name")):
            names = [r[field].lower() for r in world[key].values()]
            for a in names:
                assert sum(a in b for b in names) == 1, (k, a)
        completed = [s for s in world["sprints"].values() if s["status"] == "completed"]
        best = max(completed, key=lambda s: (st.velocity_for_sprint(world, s["id"]), -int(s["id"][4:])))
        assert st.velocity_for_sprint(world, best["id"]) != _number_in(best["name"]), k
        for s in completed:
            remaining = st.remaining_for_sprint(world, s["id"])
            assert remaining == 0 or remaining != _number_in(s["name"]), k


def test_variants_change_the_facts(env, sample):
    st = submodule(env, "state")
    seen: dict[str, set] = {name: set() for name in ("backlog", "hours", "over", "blocked", "devon", "metering",
                                                     "led", "actors")}
    for _k, world in worlds(sample):
        backlog = next(s["id"] for s in world["workflowStates"].values() if s["name"] == "Backlog")
        seen["backlog"].add(sum(i["status"] == backlog for i in world["workItems"].values()))
        seen["hours"].add(st.total_hours_for(
            log for i in st.work_items_for_project(world, "PROJ-001") for log in st.time_logs_for_work_item(world, i["id"])))
        seen["over"].update(m["name"] for m in world["members"].values()
                            if st.load_for(world, m["id"]) > m["weeklyCapacityPoints"])
        seen["blocked"].add(tuple(sorted(i["id"] for i in world["workItems"].values() if st.is_blocked(world, i))))
        seen["devon"].add(tuple(i["id"] for i in st.work_items_for_assignee(world, "MEM-004")))
        seen["metering"].add(world["workItems"]["WI-008"]["estimatePoints"])
        seen["led"].add(sum(1 for i in st.work_items_for_project(world, "PROJ-003") if not st.is_done(world, i)))
        seen["actors"].add(world["projects"]["PROJ-001"]["leadId"])
    assert len(seen["backlog"]) >= 8 and len(seen["hours"]) >= 200 and len(seen["over"]) >= 200
    assert len(seen["blocked"]) >= 700 and len(seen["devon"]) >= 700 and len(seen["metering"]) == 5
    assert seen["led"] == {1, 2, 3, 4} and len(seen["actors"]) >= 100
