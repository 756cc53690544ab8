"""The demo environment's tasks and verifiers (demo-crm.md §8–9).

The environment package is loaded with importlib under a private name, so these tests need no
runtime loader. Tool calls go through the bound tools' ``execute`` exactly as an agent's would.
"""

from __future__ import annotations

import copy
import json
import re
import threading

import pytest

from silo_gym import canonical, round2
from silo_gym.models import Task
from silo_gym.verifiers import VerifierContext

from . import ENV_DIR, SOLVER_PATH, load_demo, load_file

TASK_IDS = [f"TASK-00{n}" for n in range(1, 7)]
MARKERS = {
    "TASK-001": "Fjord Maritime",
    "TASK-002": "Tomas Bergstrom",
    "TASK-003": "Lumen Retail",
    "TASK-004": "probability-weighted",
    "TASK-005": "not moved stage",
    "TASK-006": "quota attainment",
}


@pytest.fixture(scope="module")
def demo():
    if not (ENV_DIR / "__init__.py").exists():
        pytest.fail("the demo environment package is missing")
    return load_demo()


@pytest.fixture(scope="module")
def shared():
    # shared.py imports only silo_gym, so it loads on its own.
    return load_file("_demo_v_shared_file", ENV_DIR / "verifiers" / "shared.py")


@pytest.fixture(scope="module")
def solver():
    return load_file("_crm_solver_v_under_test", SOLVER_PATH)


def load_task(task_id: str) -> Task:
    return Task.from_raw(json.loads((ENV_DIR / "tasks" / f"{task_id}.json").read_text("utf-8")))


def verifier_for(demo, task: Task):
    return next(v for v in demo.verifiers if v.id == task.verifier_id)


def grade(demo, task_id: str, final, initial, output: str):
    task = load_task(task_id)
    return verifier_for(demo, task).check(final, initial, VerifierContext(agent_output=output, task=task))


class World:
    """A fresh state, its initial snapshot, and the bound tools."""

    def __init__(self, demo, state=None):
        self.state = demo.create_state() if state is None else state
        self.initial = copy.deepcopy(self.state)
        self.bound = demo.bind_tools(self.state)
        self.tools = {t.name: t for t in self.bound}
        self.calls: list[tuple[str, dict, dict]] = []

    def call(self, name: str, tool_input=None) -> dict:
        result = self.tools[name].execute(tool_input)
        self.calls.append((name, tool_input, result))
        return result

    def tool_list(self) -> list[dict]:
        return [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in self.bound
        ]

    def run_agent(self, agent, instruction: str):
        return agent(instruction, self.tool_list(), self.call, threading.Event())

    def grade(self, demo, task_id: str, output: str):
        return grade(demo, task_id, self.state, self.initial, output)


def expected_reward(outcome) -> float:
    return round2(sum(c.passed for c in outcome.checks) / len(outcome.checks))


# ---------------------------------------------------------------------------------------------
# Task files


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_task_file_is_pretty_json_with_the_fixed_facts(task_id):
    path = ENV_DIR / "tasks" / f"{task_id}.json"
    text = path.read_text("utf-8")
    raw = json.loads(text)
    assert list(raw) == ["id", "title", "instruction", "verifierId", "difficulty", "entities"]
    assert text == json.dumps(raw, indent=2, ensure_ascii=False) + "\n"
    facts = {
        "TASK-001": ("Convert a qualified maritime lead", "easy", "VER-001", ["LEAD-004"]),
        "TASK-002": ("Rehome a departed rep's open pipeline", "medium", "VER-002", ["USR-004", "USR-003"]),
        "TASK-003": ("Book the Lumen point-of-sale win", "medium", "VER-003", ["OPP-007"]),
        "TASK-004": ("Report the weighted value of open pipeline", "easy", "VER-004", []),
        "TASK-005": ("Identify the rep with the most stalled deals", "medium", "VER-005", []),
        "TASK-006": ("Find the weakest active rep against quota", "hard", "VER-006", []),
    }[task_id]
    assert (raw["id"], raw["title"], raw["difficulty"], raw["verifierId"], raw["entities"]) == (
        task_id,
        *facts,
    )


def test_each_marker_phrase_appears_only_in_its_own_instruction():
    for task_id in TASK_IDS:
        instruction = load_task(task_id).instruction
        for other, phrase in MARKERS.items():
            assert (phrase in instruction) == (other == task_id), (task_id, phrase)


@pytest.mark.parametrize(
    "task_id, facts",
    [
        (
            "TASK-001",
            [
                "Ingrid Halvorsen",
                "Fjord Maritime Group",
                "qualified",
                "new account",
                "$140,000",
                "2026-06-30",
                "Daniel Reyes",
                "USR-002",
            ],
        ),
        (
            "TASK-002",
            [
                "Tomas Bergstrom",
                "deactivated",
                "open",
                "Priya Nair",
                "USR-003",
                "closed",
                "Amara Osei",
                "USR-001",
            ],
        ),
        (
            "TASK-003",
            [
                "Lumen Retail",
                "point-of-sale refresh",
                "$118,000",
                "won",
                "contracted amount",
                "signed contract came back today",
                "Lena Fischer",
                "USR-005",
            ],
        ),
        ("TASK-004", ["Amara", "board", "probability-weighted", "open", "whole team", "US dollars"]),
        ("TASK-005", ["not moved stage", "30 days", "rep", "name", "how many"]),
        (
            "TASK-006",
            ["still with the company", "lowest quota attainment", "closed-won", "name", "percentage"],
        ),
    ],
)
def test_instruction_carries_the_listed_facts(task_id, facts):
    instruction = load_task(task_id).instruction
    for fact in facts:
        assert fact in instruction, fact


# ---------------------------------------------------------------------------------------------
# Answer parsing (§9.1)


def test_numbers_in(shared):
    assert shared.numbers_in("USR-002 $1,234.5") == [-2.0, 1234.5]
    assert shared.numbers_in("on 2026-03-16") == [2026.0, -3.0, -16.0]
    assert shared.numbers_in("$507,500.00 total") == [507500.0]
    assert shared.numbers_in("36% and 52.8%") == [36.0, 52.8]
    assert shared.numbers_in("no digits here") == []
    assert shared.numbers_in("") == []
    assert shared.numbers_in("1.") == [1.0]
    assert shared.numbers_in(".5") == [5.0]
    # ASCII digits only: Arabic-Indic and full-width digits are not numbers.
    assert shared.numbers_in("\u0663\u0666 and \uff13\uff16") == []


def test_final_number(shared):
    assert shared.final_number("USR-002 $1,234.5") == 1234.5
    assert shared.final_number("first 1 then 2") == 2.0
    assert shared.final_number("nothing") is None
    assert shared.final_number("") is None


def test_states_number(shared):
    assert shared.states_number("It is $507,500.", 507500)
    assert shared.states_number("507500.009", 507500)
    assert not shared.states_number("507500.02", 507500)
    assert shared.states_number("about 36.05%", 36, tol=0.1)
    # abs(36.1 - 36) is 0.10000000000000142 in binary floating point: just outside the tolerance
    assert not shared.states_number("about 36.1%", 36, tol=0.1)
    assert not shared.states_number("about 36.2%", 36, tol=0.1)
    assert shared.states_number("USR-002", -2)
    assert not shared.states_number("", 0)


def test_mentions(shared):
    assert shared.mentions("DANIEL reyes leads", "Daniel Reyes")
    assert shared.mentions("x tomas bergstrom", "Tomas Bergstrom")
    assert not shared.mentions("Daniel  Reyes", "Daniel Reyes")
    assert not shared.mentions("", "Daniel Reyes")


def test_show_formats_like_javascript(shared):
    assert shared.show(140000.0) == "140000"
    assert shared.show(52.8) == "52.8"
    assert shared.show(None) == "null"
    assert shared.show(True) == "true"
    assert shared.show(False) == "false"
    assert shared.show("STG-005") == "STG-005"


# ---------------------------------------------------------------------------------------------
# Registry


def test_registry_lists_six_verifiers_in_id_order(demo):
    ids = [v.id for v in demo.verifiers]
    assert ids == [f"VER-00{n}" for n in range(1, 7)]
    assert [v.task_id for v in demo.verifiers] == TASK_IDS
    names = [v.name for v in demo.verifiers]
    assert all(isinstance(n, str) and n.strip() for n in names)
    assert len(set(names)) == 6


def test_registry_file_style():
    text = (ENV_DIR / "verifiers" / "__init__.py").read_text("utf-8")
    for n in range(1, 7):
        assert f"from .ver_00{n} import ver_00{n}\n" in text
    assert (
        "verifiers = [\n    ver_001,\n    ver_002,\n    ver_003,\n    ver_004,\n    ver_005,\n    ver_006,\n]"
        in text
    )


# ---------------------------------------------------------------------------------------------
# The do-nothing agent: answers "" at once


DO_NOTHING = {
    # task: (reward, kinds of the checks (R required / O optional), passed pattern)
    "TASK-001": (0, "RRRRRRROOO", "0000000000"),
    "TASK-002": (0.6, "RRROO", "00111"),
    "TASK-003": (0.17, "RRRROO", "000001"),
    "TASK-004": (0.33, "ROO", "001"),
    "TASK-005": (0.5, "RROO", "0011"),
    "TASK-006": (0.6, "RRROO", "00111"),
}


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_do_nothing_agent(demo, task_id):
    world = World(demo)
    outcome = world.grade(demo, task_id, "")
    reward, kinds, pattern = DO_NOTHING[task_id]
    assert "".join("R" if c.required else "O" for c in outcome.checks) == kinds
    assert "".join("1" if c.passed else "0" for c in outcome.checks) == pattern
    assert outcome.reward == reward == expected_reward(outcome)
    failed = [c.label for c in outcome.checks if c.required and not c.passed]
    assert outcome.failed_required == failed
    assert (
        len(failed)
        == {"TASK-001": 7, "TASK-002": 2, "TASK-003": 4, "TASK-004": 1, "TASK-005": 2, "TASK-006": 2}[task_id]
    )
    assert outcome.passed is False
    assert outcome.required_total == kinds.count("R")
    for c in outcome.checks:
        assert c.label.strip() and c.detail.strip()
        assert not re.search(r"[0-9]\.0(?![0-9])", c.detail), c.detail
        assert "None" not in c.detail and "True" not in c.detail and "False" not in c.detail


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_verifiers_leave_both_states_alone(demo, solver, task_id):
    world = World(demo)
    output = world.run_agent(solver.agent, load_task(task_id).instruction)["output"]
    final_before, initial_before = canonical(world.state), canonical(world.initial)
    world.grade(demo, task_id, output)
    world.grade(demo, task_id, "")
    assert canonical(world.state) == final_before
    assert canonical(world.initial) == initial_before


def test_labels_are_unique_within_each_verifier(demo):
    world = World(demo)
    for task_id in TASK_IDS:
        labels = [c.label for c in world.grade(demo, task_id, "").checks]
        assert len(labels) == len(set(labels)), task_id


# ---------------------------------------------------------------------------------------------
# VER-001


def convert_fjord(world, **overrides):
    args = {
        "leadId": "LEAD-004",
        "createOpportunity": True,
        "opportunityName": "Fjord deal",
        "amount": 140000,
        "expectedCloseDate": "2026-06-30",
        "actorUserId": "USR-002",
    }
    args.update(overrides)
    return world.call("convert_lead", args)


def test_ver001_passes_a_correct_conversion_with_details(demo):
    world = World(demo)
    assert "isError" not in convert_fjord(world)
    outcome = world.grade(demo, "TASK-001", "done")
    assert outcome.passed and outcome.reward == 1
    details = [c.detail for c in outcome.checks]
    assert "OPP-017" in details[1]
    assert "140000" in details[2] and "140000.0" not in details[2]
    assert "2026-06-30" in details[3]
    assert "LEAD-004" in details[4]
    assert "CON-015" in details[5] and "ACC-012" in details[5]
    assert "ACC-012" in details[6]
    assert "ACC-012" in details[7] and "false" in details[7]
    assert "open" in details[8]
    assert "USR-002" in details[9]


def test_ver001_wrong_amount_and_date(demo):
    world = World(demo)
    assert "isError" not in convert_fjord(world, amount=150000, expectedCloseDate="2026-07-01")
    outcome = world.grade(demo, "TASK-001", "")
    assert [c.passed for c in outcome.checks] == [True, True, False, False] + [True] * 6
    assert outcome.failed_required == [outcome.checks[2].label, outcome.checks[3].label]
    assert outcome.reward == 0.8
    assert "150000" in outcome.checks[2].detail and "140000" in outcome.checks[2].detail


def test_ver001_existing_account_fails_only_the_fresh_account_check(demo):
    world = World(demo)
    assert "isError" not in convert_fjord(world, accountId="ACC-002")
    outcome = world.grade(demo, "TASK-001", "")
    assert outcome.passed
    assert [c.passed for c in outcome.checks] == [True] * 7 + [False, True, True]
    assert outcome.reward == 0.9
    assert "true" in outcome.checks[7].detail


def test_ver001_conversion_without_opportunity(demo):
    world = World(demo)
    result = world.call(
        "convert_lead", {"leadId": "LEAD-004", "createOpportunity": False, "actorUserId": "USR-002"}
    )
    assert "isError" not in result
    outcome = world.grade(demo, "TASK-001", "")
    # converted, contact on account and fresh account pass; everything about the deal fails
    assert [c.passed for c in outcome.checks] == [
        True,
        False,
        False,
        False,
        False,
        True,
        False,
        True,
        False,
        False,
    ]
    assert outcome.reward == 0.3
    assert "null" in outcome.checks[1].detail


def test_ver001_owner_derived_from_initial_lead(demo):
    world = World(demo)
    assert "isError" not in convert_fjord(world)
    initial = copy.deepcopy(world.initial)
    initial["leads"]["LEAD-004"]["ownerId"] = "USR-003"
    outcome = grade(demo, "TASK-001", world.state, initial, "")
    assert [c.passed for c in outcome.checks] == [True] * 9 + [False]
    assert "USR-003" in outcome.checks[9].detail
    # and an initial state that already had ACC-012 makes the account not fresh
    initial = copy.deepcopy(world.initial)
    initial["accounts"]["ACC-012"] = copy.deepcopy(world.state["accounts"]["ACC-012"])
    outcome = grade(demo, "TASK-001", world.state, initial, "")
    assert [c.passed for c in outcome.checks] == [True] * 7 + [False, True, True]


# ---------------------------------------------------------------------------------------------
# VER-002


def reassign(world, opp_id, owner="USR-003", actor="USR-001"):
    return world.call(
        "reassign_opportunity", {"opportunityId": opp_id, "newOwnerId": owner, "actorUserId": actor}
    )


def test_ver002_only_one_deal_moved(demo):
    world = World(demo)
    assert "isError" not in reassign(world, "OPP-005")
    outcome = world.grade(demo, "TASK-002", "")
    assert [c.passed for c in outcome.checks] == [False, False, True, True, True]
    assert outcome.reward == 0.6
    assert outcome.failed_required == [outcome.checks[0].label, outcome.checks[1].label]
    assert "1 of 2" in outcome.checks[0].detail
    assert "1 " in outcome.checks[1].detail and "OPP-006" in outcome.checks[1].detail


def test_ver002_both_moved_passes(demo):
    world = World(demo)
    for opp in ("OPP-005", "OPP-006"):
        assert "isError" not in reassign(world, opp)
    outcome = world.grade(demo, "TASK-002", "")
    assert outcome.passed and outcome.reward == 1
    assert "2 of 2" in outcome.checks[0].detail


def test_ver002_moved_to_wrong_rep(demo):
    world = World(demo)
    for opp in ("OPP-005", "OPP-006"):
        assert "isError" not in reassign(world, opp, owner="USR-005")
    outcome = world.grade(demo, "TASK-002", "")
    assert [c.passed for c in outcome.checks] == [False, True, True, True, True]
    assert outcome.reward == 0.8


def test_ver002_collateral_reassignment_fails_optional(demo):
    world = World(demo)
    for opp in ("OPP-005", "OPP-006", "OPP-001"):
        assert "isError" not in reassign(world, opp)
    outcome = world.grade(demo, "TASK-002", "")
    assert outcome.passed
    assert [c.passed for c in outcome.checks] == [True, True, True, True, False]
    assert outcome.reward == 0.8
    assert "OPP-001" in outcome.checks[4].detail


def test_ver002_closing_a_moved_deal_fails_still_open(demo):
    world = World(demo)
    for opp in ("OPP-005", "OPP-006"):
        assert "isError" not in reassign(world, opp)
    assert "isError" not in world.call(
        "close_opportunity_lost", {"opportunityId": "OPP-005", "reason": "x", "actorUserId": "USR-003"}
    )
    outcome = world.grade(demo, "TASK-002", "")
    assert [c.passed for c in outcome.checks] == [True, True, False, True, True]
    assert "1 of 2" in outcome.checks[2].detail


def test_ver002_closed_deals_of_the_departed_rep_must_keep_owner(demo):
    # Derived from the initial state: a closed deal of USR-004 moved by hand fails optional 4.
    world = World(demo)
    for opp in ("OPP-005", "OPP-006"):
        assert "isError" not in reassign(world, opp)
    initial = copy.deepcopy(world.initial)
    initial["opportunities"]["OPP-013"]["ownerId"] = "USR-004"  # a won deal that USR-004 "had"
    outcome = grade(demo, "TASK-002", world.state, initial, "")
    assert [c.passed for c in outcome.checks] == [True, True, True, False, True]
    assert "OPP-013" in outcome.checks[3].detail


def test_ver002_empty_should_move_fails_check_1(demo):
    world = World(demo)
    initial = copy.deepcopy(world.initial)
    for opp in initial["opportunities"].values():
        if opp["ownerId"] == "USR-004":
            opp["ownerId"] = "USR-006"
    outcome = grade(demo, "TASK-002", initial, initial, "")
    assert [c.passed for c in outcome.checks] == [False, True, True, True, True]
    assert "0 of 0" in outcome.checks[0].detail


# ---------------------------------------------------------------------------------------------
# VER-003


def log_note(world, opp="OPP-007"):
    return world.call(
        "log_activity",
        {
            "type": "note",
            "subject": "Contract",
            "relatedType": "opportunity",
            "relatedId": opp,
            "ownerId": "USR-005",
            "notes": "Signed.",
            "actorUserId": "USR-005",
        },
    )


def test_ver003_closed_at_the_wrong_amount(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "close_opportunity_won", {"opportunityId": "OPP-007", "actorUserId": "USR-005"}
    )
    assert "isError" not in log_note(world)
    outcome = world.grade(demo, "TASK-003", "")
    assert [c.passed for c in outcome.checks] == [True, False, True, True, True, True]
    assert outcome.reward == 0.83
    assert outcome.failed_required == [outcome.checks[1].label]
    assert "110000" in outcome.checks[1].detail and "118000" in outcome.checks[1].detail


def test_ver003_amount_updated_but_not_closed(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "update_opportunity", {"opportunityId": "OPP-007", "amount": 118000, "actorUserId": "USR-005"}
    )
    outcome = world.grade(demo, "TASK-003", "")
    assert [c.passed for c in outcome.checks] == [False, True, False, False, False, True]
    assert outcome.reward == 0.33
    assert "STG-004" in outcome.checks[2].detail and "STG-005" in outcome.checks[2].detail
    assert "null" in outcome.checks[3].detail and "2026-03-16" in outcome.checks[3].detail


def test_ver003_closed_lost(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "close_opportunity_lost", {"opportunityId": "OPP-007", "reason": "No.", "actorUserId": "USR-005"}
    )
    outcome = world.grade(demo, "TASK-003", "")
    assert [c.passed for c in outcome.checks] == [False, False, False, True, False, True]
    assert outcome.reward == 0.33


def test_ver003_without_note_and_with_collateral_close(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "close_opportunity_won", {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"}
    )
    assert "isError" not in world.call(
        "close_opportunity_won", {"opportunityId": "OPP-008", "actorUserId": "USR-005"}
    )
    outcome = world.grade(demo, "TASK-003", "")
    assert outcome.passed
    assert [c.passed for c in outcome.checks] == [True, True, True, True, False, False]
    assert outcome.reward == 0.67
    assert "OPP-008" in outcome.checks[5].detail


def test_ver003_note_on_another_deal_does_not_count(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "close_opportunity_won", {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"}
    )
    assert "isError" not in log_note(world, opp="OPP-008")
    outcome = world.grade(demo, "TASK-003", "")
    assert [c.passed for c in outcome.checks] == [True] * 4 + [False, True]


def test_ver003_note_must_be_new_relative_to_initial(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "close_opportunity_won", {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"}
    )
    assert "isError" not in log_note(world)
    initial = copy.deepcopy(world.initial)
    initial["activities"]["ACT-016"] = copy.deepcopy(world.state["activities"]["ACT-016"])
    outcome = grade(demo, "TASK-003", world.state, initial, "")
    assert [c.passed for c in outcome.checks] == [True] * 4 + [False, True]


def test_ver003_today_comes_from_the_final_state(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "close_opportunity_won", {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"}
    )
    assert "isError" not in log_note(world)
    final = copy.deepcopy(world.state)
    final["now"] = "2026-03-17"
    outcome = grade(demo, "TASK-003", final, world.initial, "")
    assert [c.passed for c in outcome.checks] == [True, True, True, False, False, True]
    assert "2026-03-17" in outcome.checks[3].detail


# ---------------------------------------------------------------------------------------------
# VER-004


def test_ver004_right_answer(demo):
    world = World(demo)
    outcome = world.grade(demo, "TASK-004", "The weighted open pipeline is $507,500.")
    assert outcome.passed and outcome.reward == 1
    assert "507500" in outcome.checks[0].detail and "507500.0" not in outcome.checks[0].detail


def test_ver004_figure_not_last(demo):
    world = World(demo)
    outcome = world.grade(demo, "TASK-004", "It is 507500 across 10 open deals.")
    assert outcome.passed
    assert [c.passed for c in outcome.checks] == [True, False, True]
    assert outcome.reward == 0.67
    assert "10" in outcome.checks[1].detail


def test_ver004_wrong_figure(demo):
    world = World(demo)
    outcome = world.grade(demo, "TASK-004", "It is 1065000.")
    assert [c.passed for c in outcome.checks] == [False, False, True]
    assert outcome.reward == 0.33
    assert "1065000" in outcome.checks[0].detail and "507500" in outcome.checks[0].detail


def test_ver004_mutated_state_fails_untouched(demo):
    world = World(demo)
    assert "isError" not in world.call(
        "update_account", {"accountId": "ACC-001", "industry": "Robotics", "actorUserId": "USR-001"}
    )
    outcome = world.grade(demo, "TASK-004", "507500")
    assert outcome.passed
    assert [c.passed for c in outcome.checks] == [True, True, False]
    assert outcome.reward == 0.67


def test_ver004_key_order_counts_as_a_change(demo):
    world = World(demo)
    final = copy.deepcopy(world.initial)
    opp = final["opportunities"]["OPP-001"]
    final["opportunities"]["OPP-001"] = dict(reversed(list(opp.items())))
    outcome = grade(demo, "TASK-004", final, world.initial, "507500")
    assert [c.passed for c in outcome.checks] == [True, True, False]


def test_ver004_expected_value_follows_the_initial_state(demo):
    world = World(demo)
    initial = copy.deepcopy(world.initial)
    initial["opportunities"]["OPP-001"]["amount"]["amount"] = 130000  # 50% stage: +5000 weighted
    final = copy.deepcopy(initial)
    good = grade(demo, "TASK-004", final, initial, "512500")
    assert good.passed and good.reward == 1
    stale = grade(demo, "TASK-004", final, initial, "507500")
    assert [c.passed for c in stale.checks] == [False, False, True]
    assert "512500" in stale.checks[0].detail
    # the final state's data is not what the expected value is built from
    final["opportunities"]["OPP-001"]["amount"]["amount"] = 120000
    from_initial = grade(demo, "TASK-004", final, initial, "512500")
    assert [c.passed for c in from_initial.checks] == [True, True, False]


def test_ver004_expected_value_uses_rounded_weights(demo):
    world = World(demo)
    initial = copy.deepcopy(world.initial)
    initial["opportunities"]["OPP-009"]["amount"]["amount"] = 30000.05  # 10%: 3000.005 -> 3000.01
    outcome = grade(demo, "TASK-004", initial, initial, "507500.01")
    assert outcome.reward == 1
    assert "507500.01" in outcome.checks[0].detail


# ---------------------------------------------------------------------------------------------
# VER-005


def test_ver005_right_answer(demo):
    world = World(demo)
    outcome = world.grade(demo, "TASK-005", "tomas bergstrom, with 2 stalled deals")
    assert outcome.passed and outcome.reward == 1
    assert "Tomas Bergstrom" in outcome.checks[0].detail
    assert "2" in outcome.checks[1].detail
    assert "2" in outcome.checks[2].detail and "1" in outcome.checks[2].detail


def test_ver005_wrong_name_or_count(demo):
    world = World(demo)
    outcome = world.grade(demo, "TASK-005", "Daniel Reyes has 2.")
    assert [c.passed for c in outcome.checks] == [False, True, True, True]
    assert outcome.reward == 0.75
    outcome = world.grade(demo, "TASK-005", "Tomas Bergstrom has 4.")
    assert [c.passed for c in outcome.checks] == [True, False, True, True]
    assert outcome.failed_required == [outcome.checks[1].label]


def test_ver005_expected_name_follows_the_initial_state(demo):
    world = World(demo)
    initial = copy.deepcopy(world.initial)
    initial["users"]["USR-004"]["name"] = "Someone Else"
    outcome = grade(demo, "TASK-005", copy.deepcopy(initial), initial, "Someone Else: 2")
    assert outcome.passed and outcome.reward == 1
    # a dangling owner id is reported by its raw id
    del initial["users"]["USR-004"]
    outcome = grade(demo, "TASK-005", copy.deepcopy(initial), initial, "USR-004 has 2")
    assert outcome.passed


def test_ver005_tie_at_the_top_fails_sanity_check(demo):
    world = World(demo)
    initial = copy.deepcopy(world.initial)
    initial["opportunities"]["OPP-001"]["stageEnteredDate"] = "2026-01-01"  # Daniel Reyes: 2 stale
    final = copy.deepcopy(initial)
    # tie at 2: the lower owner id (USR-002, Daniel Reyes) comes first
    outcome = grade(demo, "TASK-005", final, initial, "Daniel Reyes with 2")
    assert [c.passed for c in outcome.checks] == [True, True, False, True]
    assert outcome.reward == 0.75
    outcome = grade(demo, "TASK-005", final, initial, "Tomas Bergstrom with 2")
    assert [c.passed for c in outcome.checks] == [False, True, False, True]


def test_ver005_staleness_uses_the_initial_clock(demo):
    world = World(demo)
    initial = copy.deepcopy(world.initial)
    # On 2026-02-10 only OPP-002 (Daniel Reyes, in stage since 2026-01-05) is over 30 days;
    # OPP-005 (since 2026-01-12) is at 29.
    initial["now"] = "2026-02-10"
    final = copy.deepcopy(world.initial)
    outcome = grade(demo, "TASK-005", final, initial, "Daniel Reyes with 1")
    assert [c.passed for c in outcome.checks] == [True, True, True, False]
    assert "0" in outcome.checks[2].detail


# ---------------------------------------------------------------------------------------------
# VER-006


def test_ver006_right_answer(demo):
    world = World(demo)
    outcome = world.grade(demo, "TASK-006", "Daniel Reyes is lowest at 36%.")
    assert outcome.passed and outcome.reward == 1
    assert "Daniel Reyes" in outcome.checks[0].detail
    assert "36" in outcome.checks[1].detail
    assert "Tomas Bergstrom" in outcome.checks[2].detail
    assert "36" in outcome.checks[3].detail and "52.8" in outcome.checks[3].detail


def test_ver006_naming_the_deactivated_rep_fails_check_3(demo):
    world = World(demo)
    outcome = world.grade(demo, "TASK-006", "Daniel Reyes at 36%, ignoring Tomas Bergstrom at 0%.")
    assert [c.passed for c in outcome.checks] == [True, True, False, True, True]
    assert outcome.failed_required == [outcome.checks[2].label]
    assert outcome.reward == 0.8
    outcome = world.grade(demo, "TASK-006", "Tomas Bergstrom at 0%.")
    assert [c.passed for c in outcome.checks] == [False, False, False, True, True]
    assert outcome.reward == 0.4


def test_ver006_percentage_tolerance(demo):
    world = World(demo)
    assert world.grade(demo, "TASK-006", "Daniel Reyes, 35.95%").passed
    outcome = world.grade(demo, "TASK-006", "Daniel Reyes, 36.5%")
    assert [c.passed for c in outcome.checks] == [True, False, True, True, True]


def test_ver006_expected_rep_follows_the_initial_state(demo):
    world = World(demo)
    initial = copy.deepcopy(world.initial)
    initial["opportunities"]["OPP-011"]["amount"]["amount"] = 150000  # Daniel: 60%
    final = copy.deepcopy(initial)
    outcome = grade(demo, "TASK-006", final, initial, "Kofi Mensah at 52.8%")
    assert outcome.passed and outcome.reward == 1
    outcome = grade(demo, "TASK-006", final, initial, "Daniel Reyes at 36%")
    assert [c.passed for c in outcome.checks] == [False, False, True, True, True]
    # with no deactivated rep, check 3 passes whatever the answer says
    initial["users"]["USR-004"]["active"] = True
    outcome = grade(demo, "TASK-006", copy.deepcopy(initial), initial, "Tomas Bergstrom at 0%")
    assert outcome.passed and outcome.reward == 1
