"""The reference solver (demo-crm.md §10): both forms, one plan, reward 1 on every task."""

from __future__ import annotations

import copy
import json
import threading

import pytest

from silo_gym import dumps_compact
from silo_gym.models import Task
from silo_gym.verifiers import VerifierContext

from . import ENV_DIR, SOLVER_PATH, load_demo, load_file

TASK_IDS = [f"TASK-00{n}" for n in range(1, 7)]


@pytest.fixture(scope="module")
def demo():
    if not (ENV_DIR / "__init__.py").exists():
        pytest.fail("the demo environment package is missing")
    return load_demo()


@pytest.fixture(scope="module")
def solver():
    return load_file("_crm_solver_s_under_test", SOLVER_PATH)


def load_task(task_id: str) -> Task:
    return Task.from_raw(json.loads((ENV_DIR / "tasks" / f"{task_id}.json").read_text("utf-8")))


class Episode:
    """One world driven by hand: a fresh state, its snapshot, the bound tools and a call log."""

    def __init__(self, demo, state=None):
        self.demo = demo
        self.state = demo.create_state() if state is None else state
        self.initial = copy.deepcopy(self.state)
        self.bound = demo.bind_tools(self.state)
        self.tools = {t.name: t for t in self.bound}
        self.calls: list[tuple[str, dict]] = []
        self.results: list[dict] = []

    def tool_list(self):
        return [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in self.bound
        ]

    def call_tool(self, name, tool_input=None):
        self.calls.append((name, copy.deepcopy(tool_input)))
        result = self.tools[name].execute(tool_input)
        self.results.append(result)
        return result

    def grade(self, task: Task, output: str):
        verifier = next(v for v in self.demo.verifiers if v.id == task.verifier_id)
        return verifier.check(self.state, self.initial, VerifierContext(agent_output=output, task=task))


def run_agent(demo, solver, task_id, state=None):
    task = load_task(task_id)
    ep = Episode(demo, state)
    returned = solver.agent(task.instruction, ep.tool_list(), ep.call_tool, threading.Event())
    return ep, task, returned


def run_policy(demo, policy, task_id, state=None, max_steps=20):
    """A tiny Gymnasium-style loop over the hand-driven world: reset info has no ``call_id``."""
    task = load_task(task_id)
    ep = Episode(demo, state)
    info = {
        "environment": "demo",
        "task_id": task_id,
        "title": task.title,
        "tools": ep.tool_list(),
        "tool_calls": 0,
        "max_tool_calls": 100,
    }
    observation = task.instruction
    actions = []
    for n in range(max_steps):
        action = policy(observation, info)
        actions.append(action)
        if "answer" in action:
            return ep, task, actions
        assert set(action) == {"tool", "input"}
        result = ep.call_tool(action["tool"], action["input"])
        observation = dumps_compact(result)
        info = {
            "tool_calls": n + 1,
            "tool_errors": 0,
            "call_id": f"call-{n + 1}",
            "tool": action["tool"],
            "is_error": bool(result.get("isError")),
        }
    raise AssertionError("the policy never answered")


EXPECTED_CALLS = {
    "TASK-001": [
        ("search_leads", {"query": "Fjord Maritime"}),
        (
            "convert_lead",
            {
                "leadId": "LEAD-004",
                "createOpportunity": True,
                "opportunityName": ...,
                "amount": 140000,
                "expectedCloseDate": "2026-06-30",
                "actorUserId": "USR-002",
            },
        ),
    ],
    "TASK-002": [
        ("list_opportunities", {"status": "open"}),
        (
            "reassign_opportunity",
            {"opportunityId": "OPP-005", "newOwnerId": "USR-003", "actorUserId": "USR-001"},
        ),
        (
            "reassign_opportunity",
            {"opportunityId": "OPP-006", "newOwnerId": "USR-003", "actorUserId": "USR-001"},
        ),
    ],
    "TASK-003": [
        (
            "close_opportunity_won",
            {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"},
        ),
        (
            "log_activity",
            {
                "type": "note",
                "subject": ...,
                "relatedType": "opportunity",
                "relatedId": "OPP-007",
                "ownerId": "USR-005",
                "notes": ...,
                "actorUserId": "USR-005",
            },
        ),
    ],
    "TASK-004": [("forecast_report", {})],
    "TASK-005": [("stale_opportunities", {"thresholdDays": 30})],
    "TASK-006": [("rep_performance", {"activeOnly": True})],
}


def assert_calls_match(calls, expected):
    assert [name for name, _ in calls] == [name for name, _ in expected]
    for (_, got), (_, want) in zip(calls, expected, strict=True):
        assert list(got) == list(want)
        for key, value in want.items():
            if value is ...:
                assert isinstance(got[key], str) and got[key].strip()
            else:
                assert got[key] == value and type(got[key]) is type(value), key


# ---------------------------------------------------------------------------------------------
# Agent form


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_solver_passes_every_task_with_reward_1(demo, solver, task_id):
    ep, task, returned = run_agent(demo, solver, task_id)
    assert set(returned) == {"output"} and isinstance(returned["output"], str) and returned["output"]
    assert all("isError" not in r for r in ep.results), ep.results
    assert_calls_match(ep.calls, EXPECTED_CALLS[task_id])
    outcome = ep.grade(task, returned["output"])
    assert outcome.passed, outcome.failed_required
    assert outcome.reward == 1
    assert all(c.passed for c in outcome.checks), [c.label for c in outcome.checks if not c.passed]


def test_task_001_creates_the_expected_records(demo, solver):
    ep, _, returned = run_agent(demo, solver, "TASK-001")
    state = ep.state
    assert list(state["accounts"])[-1] == "ACC-012"
    assert state["accounts"]["ACC-012"] == {
        "id": "ACC-012",
        "name": "Fjord Maritime Group",
        "industry": "Unknown",
        "tier": "smb",
        "ownerId": "USR-002",
        "website": None,
        "createdDate": "2026-03-16",
    }
    contact = state["contacts"]["CON-015"]
    assert (contact["accountId"], contact["firstName"], contact["lastName"], contact["isPrimary"]) == (
        "ACC-012",
        "Ingrid",
        "Halvorsen",
        False,
    )
    opp = state["opportunities"]["OPP-017"]
    assert opp["name"] == ep.calls[1][1]["opportunityName"]
    assert (
        opp["accountId"],
        opp["primaryContactId"],
        opp["ownerId"],
        opp["stageId"],
        opp["amount"],
        opp["expectedCloseDate"],
        opp["status"],
        opp["sourceLeadId"],
    ) == (
        "ACC-012",
        "CON-015",
        "USR-002",
        "STG-001",
        {"amount": 140000, "currency": "USD"},
        "2026-06-30",
        "open",
        "LEAD-004",
    )
    lead = state["leads"]["LEAD-004"]
    assert (
        lead["status"],
        lead["convertedAccountId"],
        lead["convertedContactId"],
        lead["convertedOpportunityId"],
    ) == ("converted", "ACC-012", "CON-015", "OPP-017")
    assert [a["id"] for a in state["auditLog"]] == ["AUD-0001"]
    assert state["sequences"]["ACC"] == 12 and state["sequences"]["CON"] == 15
    assert state["sequences"]["OPP"] == 17 and state["sequences"]["AUD"] == 1
    for new_id in ("ACC-012", "CON-015", "OPP-017", "LEAD-004"):
        assert new_id in returned["output"]


def test_task_002_audit_trail_and_answer(demo, solver):
    ep, _, returned = run_agent(demo, solver, "TASK-002")
    assert [(a["id"], a["entityId"]) for a in ep.state["auditLog"]] == [
        ("AUD-0001", "OPP-005"),
        ("AUD-0002", "OPP-006"),
    ]
    for opp_id in ("OPP-005", "OPP-006"):
        assert ep.state["opportunities"][opp_id]["ownerId"] == "USR-003"
        assert ep.state["opportunities"][opp_id]["status"] == "open"
        assert opp_id in returned["output"]
    assert ep.state["sequences"]["AUD"] == 2


def test_task_003_creates_the_note_and_states_the_amount(demo, solver):
    ep, _, returned = run_agent(demo, solver, "TASK-003")
    opp = ep.state["opportunities"]["OPP-007"]
    assert (
        opp["status"],
        opp["stageId"],
        opp["amount"]["amount"],
        opp["closedDate"],
        opp["stageEnteredDate"],
    ) == ("won", "STG-005", 118000, "2026-03-16", "2026-03-16")
    act = ep.state["activities"]["ACT-016"]
    assert (act["type"], act["ownerId"], act["relatedTo"], act["dueDate"], act["completedDate"]) == (
        "note",
        "USR-005",
        {"type": "opportunity", "id": "OPP-007"},
        "2026-03-16",
        "2026-03-16",
    )
    assert [a["id"] for a in ep.state["auditLog"]] == ["AUD-0001", "AUD-0002"]
    assert "118000" in returned["output"] and "118000.0" not in returned["output"]
    assert "won" in returned["output"] and "OPP-007" in returned["output"]


_SHARED = load_file("_demo_s_shared", ENV_DIR / "verifiers" / "shared.py")
numbers_in = _SHARED.numbers_in


def test_task_004_answer_has_only_the_figure_last(demo, solver):
    ep, _, returned = run_agent(demo, solver, "TASK-004")
    assert numbers_in(returned["output"]) == [507500.0]
    assert "507500" in returned["output"]


def test_task_005_answer(demo, solver):
    _, _, returned = run_agent(demo, solver, "TASK-005")
    assert "Tomas Bergstrom" in returned["output"]
    assert numbers_in(returned["output"]) == [2.0]


def test_task_006_answer(demo, solver):
    _, _, returned = run_agent(demo, solver, "TASK-006")
    assert "Daniel Reyes" in returned["output"] and "36%" in returned["output"]
    assert "Tomas Bergstrom" not in returned["output"]


@pytest.mark.parametrize("task_id", ["TASK-004", "TASK-005", "TASK-006"])
def test_read_only_tasks_leave_the_world_untouched(demo, solver, task_id):
    from silo_gym import canonical

    ep, _, _ = run_agent(demo, solver, task_id)
    assert canonical(ep.state) == canonical(ep.initial)


def test_answers_read_values_from_tool_outputs(demo, solver):
    # Alter the world the tools see: the answers follow the tool outputs, and still pass.
    state = demo.create_state()
    state["opportunities"]["OPP-001"]["amount"]["amount"] = 130000
    ep, task, returned = run_agent(demo, solver, "TASK-004", state)
    assert numbers_in(returned["output"]) == [512500.0]
    assert ep.grade(task, returned["output"]).reward == 1

    state = demo.create_state()
    state["opportunities"]["OPP-011"]["amount"]["amount"] = 150000  # Daniel Reyes: 60%
    ep, task, returned = run_agent(demo, solver, "TASK-006", state)
    assert "Kofi Mensah" in returned["output"] and "52.8%" in returned["output"]
    assert ep.grade(task, returned["output"]).reward == 1

    state = demo.create_state()
    state["sequences"]["ACC"] = 40
    ep, task, returned = run_agent(demo, solver, "TASK-001", state)
    assert "ACC-041" in returned["output"]
    assert ep.grade(task, returned["output"]).reward == 1

    state = demo.create_state()
    state["opportunities"]["OPP-001"]["ownerId"] = "USR-004"
    ep, task, returned = run_agent(demo, solver, "TASK-002", state)
    assert [c[1].get("opportunityId") for c in ep.calls[1:]] == ["OPP-001", "OPP-005", "OPP-006"]
    outcome = ep.grade(task, returned["output"])
    assert outcome.reward == 1 and "3 of 3" in outcome.checks[0].detail


def test_no_marker_gives_the_no_script_answer(demo, solver):
    ep = Episode(demo)
    returned = solver.agent("Please tidy up the CRM.", ep.tool_list(), ep.call_tool, threading.Event())
    assert ep.calls == []
    assert returned == {"output": solver.NO_SCRIPT_ANSWER}
    assert "no scripted solution" in returned["output"]


def test_markers_are_case_sensitive_and_checked_in_task_order(solver):
    both = load_task("TASK-001").instruction + " " + load_task("TASK-006").instruction
    assert next(solver.plan(both)) == {"tool": "search_leads", "input": {"query": "Fjord Maritime"}}
    later = "Reports on quota attainment. " + load_task("TASK-003").instruction
    assert next(solver.plan(later))["tool"] == "close_opportunity_won"
    assert next(solver.plan("PROBABILITY-WEIGHTED")) == {"answer": solver.NO_SCRIPT_ANSWER}
    assert [phrase for phrase, _ in solver.MARKERS] == [
        "has been qualified.",
        "has left the company",
        "has signed the",
        "probability-weighted",
        "not moved stage",
        "quota attainment",
    ]
    # each marker is in its own task's instruction only
    for n, (phrase, _) in enumerate(solver.MARKERS, start=1):
        for task_id in TASK_IDS:
            assert (phrase in load_task(task_id).instruction) == (task_id == f"TASK-00{n}"), (phrase, task_id)


def test_a_marker_without_the_facts_it_needs_changes_nothing(solver):
    # the marker is there, but not the figures the plan must read: it answers without a call
    for text in ("Someone has been qualified.", "X has left the company.", "Acme has signed the deal."):
        action = next(solver.plan(text))
        assert set(action) == {"answer"} and "could not read" in action["answer"]


def test_tool_error_ends_the_plan_with_an_explanation(solver):
    steps = solver.plan("probability-weighted")
    assert next(steps) == {"tool": "forecast_report", "input": {}}
    final = steps.send({"output": {"code": "invalid_input", "message": "boom"}, "isError": True})
    assert set(final) == {"answer"} and "boom" in final["answer"]


def test_agent_stops_when_the_signal_is_set(solver):
    signal = threading.Event()
    signal.set()
    calls = []
    returned = solver.agent("probability-weighted", [], lambda n, i=None: calls.append(n), signal)
    assert calls == [] and isinstance(returned["output"], str)


# ---------------------------------------------------------------------------------------------
# Gymnasium-policy form


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_policy_form_issues_the_same_calls_and_passes(demo, solver, task_id):
    agent_ep, _, returned = run_agent(demo, solver, task_id)
    policy = solver.make_policy()
    ep, task, actions = run_policy(demo, policy, task_id)
    assert ep.calls == agent_ep.calls
    assert [{"tool": n, "input": i} for n, i in ep.calls] == actions[:-1]
    assert actions[-1] == {"answer": returned["output"]}
    outcome = ep.grade(task, actions[-1]["answer"])
    assert outcome.passed and outcome.reward == 1


def test_one_policy_serves_consecutive_episodes(demo, solver):
    policy = solver.CrmSolverPolicy()
    for task_id in ("TASK-002", "TASK-004", "TASK-002"):
        ep, task, actions = run_policy(demo, policy, task_id)
        assert ep.grade(task, actions[-1]["answer"]).reward == 1


def test_reset_mid_episode_starts_a_new_plan(solver):
    policy = solver.make_policy()
    assert policy(load_task("TASK-002").instruction, {})["tool"] == "list_opportunities"
    assert policy(load_task("TASK-004").instruction, {}) == {"tool": "forecast_report", "input": {}}


def test_make_policy_returns_fresh_instances(solver):
    a, b = solver.make_policy(), solver.make_policy()
    assert a is not b and isinstance(a, solver.CrmSolverPolicy)


def test_policy_on_a_real_gym_env_if_available(solver):
    gym = pytest.importorskip("gymnasium")
    import silo_gym  # noqa: F401  (registers the silo/ ids when the runtime provides them)

    if "silo/demo-TASK-004" not in gym.registry:
        pytest.fail("the demo Gymnasium ids are not registered")
    for task_id in TASK_IDS:
        env = gym.make(f"silo/demo-{task_id}")
        try:
            policy = solver.make_policy()
            observation, info = env.reset(seed=0)
            for _ in range(20):
                observation, reward, terminated, truncated, info = env.step(policy(observation, info))
                if terminated or truncated:
                    break
            assert terminated and not truncated
            assert reward == 1 and info["passed"] is True and info["tool_errors"] == 0
        finally:
            env.close()
