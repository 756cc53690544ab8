"""The project world's 15 verifiers (project-world.md §9): the check structure (number, order,
required or optional), pass conditions on worlds changed by the tools, answers parsed as §9.1
says, and expectations derived from the initial state rather than hard-coded."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from silo_gym import VerifierContext
from silo_gym.models import Task

from . import World, load_project, submodule


@pytest.fixture(scope="module")
def env():
    return load_project()


@pytest.fixture(scope="module")
def shared(env):
    return submodule(env, "verifiers.shared")


def grade(env, verifier_id: str, final: dict, initial: dict, out: Any = "") -> Any:
    verifier = next(v for v in env.verifiers if v.id == verifier_id)
    task = Task(id=verifier.task_id, title="t", instruction="i", verifier_id=verifier_id, difficulty="easy",
                entities=[])
    return verifier.check(final, initial, VerifierContext(agent_output=out, task=task))


def flags(outcome) -> list[tuple[bool, bool]]:
    """``(passed, required)`` per check, in order."""
    return [(c.passed, c.required) for c in outcome.checks]


def act(env, calls: list[tuple[str, dict]], state: dict | None = None) -> tuple[dict, dict]:
    """``(final, initial)`` after running ``calls`` (each must succeed) on a world."""
    w = World(env, state)
    initial = env.create_state() if state is None else copy.deepcopy(state)
    for name, args in calls:
        w.ok(name, args)
    return w.state, initial


STRUCTURE = {"VER-001": (2, 3), "VER-002": (3, 5), "VER-003": (3, 5), "VER-004": (2, 4), "VER-005": (2, 4),
             "VER-006": (2, 4), "VER-007": (3, 4), "VER-008": (3, 5), "VER-009": (2, 4), "VER-010": (2, 4),
             "VER-011": (1, 4), "VER-012": (2, 4), "VER-013": (2, 4), "VER-014": (1, 3), "VER-015": (2, 4)}


@pytest.mark.parametrize("verifier_id", sorted(STRUCTURE))
def test_check_structure_and_do_nothing_fails(env, verifier_id):
    state = env.create_state()
    outcome = grade(env, verifier_id, state, env.create_state())
    required, total = STRUCTURE[verifier_id]
    assert (outcome.required_total, len(outcome.checks)) == (required, total)
    assert not outcome.passed and outcome.reward < 1
    for check in outcome.checks:
        assert check.label.strip() and check.detail.strip()
        assert "True" not in check.detail and "None" not in check.detail and ".0;" not in check.detail


def test_required_checks_come_in_the_documented_order(env):
    # the required checks of each verifier precede its optional ones except where §9 says otherwise
    for verifier_id in STRUCTURE:
        outcome = grade(env, verifier_id, env.create_state(), env.create_state())
        kinds = [c.required for c in outcome.checks]
        assert kinds == sorted(kinds, reverse=True), verifier_id


# ---------------------------------------------------------------------------------------------
# State-changing tasks

A = {"actorMemberId": "MEM-001"}


def test_ver_001(env):
    final, initial = act(env, [("set_work_item_status", {"workItemId": "WI-003", "status": "WFS-006", **A})])
    assert flags(grade(env, "VER-001", final, initial)) == [(True, True), (True, True), (True, False)]
    final, initial = act(env, [("set_work_item_status", {"workItemId": "WI-003", "status": "WFS-006", **A}),
                               ("set_work_item_status", {"workItemId": "WI-007", "status": "WFS-003", **A})])
    outcome = grade(env, "VER-001", final, initial)
    assert outcome.passed and outcome.reward == 0.67 and "WI-007" in outcome.checks[2].detail
    # a target that started done fails check 2: the expectation comes from the initial state
    start = env.create_state()
    start["workItems"]["WI-003"]["status"] = "WFS-006"
    assert flags(grade(env, "VER-001", start, start))[:2] == [(True, True), (False, True)]
    # not found: every check fails
    start["workItems"]["WI-003"]["title"] = "Tax engine"
    assert [c.passed for c in grade(env, "VER-001", start, start).checks] == [False, False, False]


def test_ver_002(env):
    done = {"status": "WFS-006", **A}
    final, initial = act(env, [("set_work_item_status", {"workItemId": "WI-005", **done}),
                               ("set_work_item_status", {"workItemId": "WI-004", **done})])
    assert grade(env, "VER-002", final, initial).reward == 1
    # removing the dependency instead of finishing it fails checks 1 and 4
    final, initial = act(env, [("remove_work_item_dependency", {"workItemId": "WI-004", "dependsOnId": "WI-005", **A}),
                               ("set_work_item_status", {"workItemId": "WI-004", **done})])
    assert flags(grade(env, "VER-002", final, initial)) == [(False, True), (True, True), (True, True),
                                                            (False, False), (True, False)]
    # blockers come from the initial state: with two blockers, finishing one is not enough
    start = env.create_state()
    start["workItems"]["WI-004"]["dependsOn"].append("WI-012")
    final, initial = act(env, [("set_work_item_status", {"workItemId": "WI-005", **done})], start)
    outcome = grade(env, "VER-002", final, initial)
    assert outcome.checks[0].detail.startswith("1 of 2 blockers done") and not outcome.passed


def test_ver_003(env):
    moves = [("assign_work_item", {"workItemId": i, "assigneeId": "MEM-006", "actorMemberId": "MEM-005"})
             for i in ("WI-014", "WI-015", "WI-016")]
    final, initial = act(env, moves)
    assert grade(env, "VER-003", final, initial).reward == 1
    final, initial = act(env, moves[:2])
    assert flags(grade(env, "VER-003", final, initial))[:2] == [(False, True), (False, True)]
    # a done item of Devon's must keep its owner (check 4), and others' work must not move (check 5)
    start = env.create_state()
    start["workItems"]["WI-018"]["assigneeId"] = "MEM-004"
    final, initial = act(env, [*moves, ("unassign_work_item", {"workItemId": "WI-018", "actorMemberId": "MEM-005"}),
                               ("unassign_work_item", {"workItemId": "WI-019", "actorMemberId": "MEM-005"})], start)
    assert flags(grade(env, "VER-003", final, initial))[3:] == [(False, False), (False, False)]
    # finishing the items instead of moving them fails check 3
    final, initial = act(env, [*moves, ("set_work_item_status", {"workItemId": "WI-016", "status": "WFS-006",
                                                                 "actorMemberId": "MEM-005"})])
    assert flags(grade(env, "VER-003", final, initial))[2] == (False, True)


def test_ver_004(env):
    final, initial = act(env, [("assign_work_item", {"workItemId": "WI-008", "assigneeId": "MEM-002", **A})])
    assert grade(env, "VER-004", final, initial).reward == 1
    final, initial = act(env, [("assign_work_item", {"workItemId": "WI-008", "assigneeId": "MEM-008", **A})])
    outcome = grade(env, "VER-004", final, initial)
    assert not outcome.passed and "expected MEM-002 (room left 6)" in outcome.checks[0].detail
    # the expected member follows the initial capacities: with Hassan at 22, he is the tighter fit
    start = env.create_state()
    start["members"]["MEM-008"]["weeklyCapacityPoints"] = 20
    final, initial = act(env, [("assign_work_item", {"workItemId": "WI-008", "assigneeId": "MEM-008", **A})], start)
    assert grade(env, "VER-004", final, initial).reward == 1
    # shrinking the estimate to squeeze it in fails check 4
    final, initial = act(env, [("update_work_item", {"workItemId": "WI-008", "estimatePoints": 5, **A}),
                               ("assign_work_item", {"workItemId": "WI-008", "assigneeId": "MEM-002", **A})])
    assert flags(grade(env, "VER-004", final, initial))[3] == (False, False)


def test_ver_005(env):
    note = {"workItemId": "WI-006", "actorMemberId": "MEM-008"}
    final, initial = act(env, [("add_comment", {**note, "body": "Waits on WI-007."})])
    assert grade(env, "VER-005", final, initial).reward == 1
    final, initial = act(env, [("add_comment", {**note, "body": "Waits on the Email service upgrade."})])
    assert flags(grade(env, "VER-005", final, initial))[:2] == [(True, True), (False, True)]
    final, initial = act(env, [("add_comment", {**note, "body": "Waits on wi-007."})])
    assert not grade(env, "VER-005", final, initial).passed  # the id is matched case-sensitively
    final, initial = act(env, [("add_comment", {**note, "body": "WI-007"}), ("add_comment", {**note, "body": "x"})])
    assert flags(grade(env, "VER-005", final, initial))[0] == (False, True)
    final, initial = act(env, [("add_comment", {**note, "body": "WI-007"}),
                               ("add_comment", {"workItemId": "WI-007", "body": "x", "actorMemberId": "MEM-008"})])
    assert flags(grade(env, "VER-005", final, initial))[3] == (False, False)


def test_ver_006(env):
    move = [("move_work_item_to_sprint", {"workItemId": i, "sprintId": "SPR-003", **A}) for i in ("WI-008", "WI-009")]
    final, initial = act(env, move)
    assert grade(env, "VER-006", final, initial).reward == 1
    final, initial = act(env, [*move, ("move_work_item_to_sprint", {"workItemId": "WI-011", "sprintId": "SPR-003",
                                                                    **A})])
    assert flags(grade(env, "VER-006", final, initial))[2] == (False, False)
    final, initial = act(env, [*move, ("set_work_item_status", {"workItemId": "WI-009", "status": "WFS-002", **A})])
    assert flags(grade(env, "VER-006", final, initial))[3] == (False, False)
    final, initial = act(env, move[:1])
    assert "1 of 2 items" in grade(env, "VER-006", final, initial).checks[0].detail


def test_ver_007(env):
    final, initial = act(env, [("complete_sprint", {"sprintId": "SPR-002", **A}),
                               ("start_sprint", {"sprintId": "SPR-003", **A})])
    assert grade(env, "VER-007", final, initial).reward == 1
    final, initial = act(env, [("complete_sprint", {"sprintId": "SPR-002", **A}),
                               ("remove_work_item_from_sprint", {"workItemId": "WI-004", **A}),
                               ("start_sprint", {"sprintId": "SPR-003", **A})])
    outcome = grade(env, "VER-007", final, initial)
    assert outcome.passed and flags(outcome)[3] == (False, False)
    final, initial = act(env, [("complete_sprint", {"sprintId": "SPR-002", **A})])
    assert flags(grade(env, "VER-007", final, initial))[:3] == [(True, True), (False, True), (False, True)]


def test_ver_008(env):
    led = {"actorMemberId": "MEM-007"}
    final, initial = act(env, [("set_work_item_status", {"workItemId": "WI-024", "status": "WFS-006", **led}),
                               ("close_project", {"projectId": "PROJ-003", **led})])
    assert grade(env, "VER-008", final, initial).reward == 1
    # another project put on hold fails check 5
    final, initial = act(env, [("set_work_item_status", {"workItemId": "WI-024", "status": "WFS-006", **led}),
                               ("close_project", {"projectId": "PROJ-003", **led}),
                               ("update_project", {"projectId": "PROJ-002", "status": "on_hold", **led})])
    assert flags(grade(env, "VER-008", final, initial))[4] == (False, False)
    # a project that started completed fails check 3; one with no open work fails check 2
    start = env.create_state()
    start["workItems"]["WI-024"]["status"] = "WFS-006"
    start["projects"]["PROJ-003"]["status"] = "completed"
    assert flags(grade(env, "VER-008", start, start))[:3] == [(True, True), (False, True), (False, True)]


# ---------------------------------------------------------------------------------------------
# Answer tasks


def test_ver_009(env):
    state = env.create_state()
    assert grade(env, "VER-009", state, state, "2 are blocked: WI-004 and WI-006.").reward == 1
    assert not grade(env, "VER-009", state, state, "Two: WI-004 and WI-006.").passed  # no number
    outcome = grade(env, "VER-009", state, state, "2: WI-004, WI-006 (behind WI-005, WI-007), also WI-003.")
    assert outcome.passed and flags(outcome)[2] == (False, False)
    assert not grade(env, "VER-009", state, state, "2: WI-004.").passed


def test_ver_010(env):
    state = env.create_state()
    assert grade(env, "VER-010", state, state, "Nimbus Sprint 4 delivered 8 points.").reward == 1
    assert not grade(env, "VER-010", state, state, "Atlas Sprint 11 delivered 8 points.").passed
    assert not grade(env, "VER-010", state, state, "nimbus sprint 4, with 7.").passed
    # a tie makes check 3 fail and the ranking falls back on the sprint id
    state["workItems"]["WI-010"]["estimatePoints"] = 3
    outcome = grade(env, "VER-010", state, state, "Atlas Sprint 11: 8")
    assert outcome.passed and flags(outcome)[2] == (False, False)


def test_ver_011(env, shared):
    state = env.create_state()
    assert grade(env, "VER-011", state, state, "The team logged 44 hours.").reward == 1
    outcome = grade(env, "VER-011", state, state, "44 hours on PROJ-001")
    assert outcome.passed and flags(outcome)[1] == (False, False)  # the id yields -1, the last number
    assert grade(env, "VER-011", state, state, "44,0 hours").reward < 1  # "440" after the comma is deleted
    assert shared.numbers_in("1,234.5 and WI-004 and Nimbus Sprint 4") == [1234.5, -4.0, 4.0]
    assert shared.numbers_in("$44") == [44.0] and shared.numbers_in("\u0664\u0664") == []
    state["timeLogs"]["TL-003"]["hours"] = 8.5
    assert grade(env, "VER-011", state, state, "45").reward == 1


def test_ver_012(env):
    state = env.create_state()
    assert grade(env, "VER-012", state, state, "21 points.").reward == 1
    outcome = grade(env, "VER-012", state, state, "21 points of 26 in total.")
    assert not outcome.passed and outcome.failed_required == [outcome.checks[1].label]
    state["members"]["MEM-004"]["active"] = True  # everyone active: the qualifier no longer matters
    outcome = grade(env, "VER-012", state, state, "26")
    assert outcome.passed and flags(outcome)[2] == (False, False)


def test_ver_013(env):
    state = env.create_state()
    assert grade(env, "VER-013", state, state, "CARLA NUNEZ is 3 points over.").reward == 1
    assert not grade(env, "VER-013", state, state, "Carla Nunez is over.").passed
    state["members"]["MEM-002"]["weeklyCapacityPoints"] = 6  # Brian now 5 over: he leads the ranking
    outcome = grade(env, "VER-013", state, state, "Brian Osei, by 5.")
    assert outcome.passed and flags(outcome)[2] == (False, False)


def test_ver_014(env):
    state = env.create_state()
    assert grade(env, "VER-014", state, state, "3").reward == 1
    outcome = grade(env, "VER-014", state, state, "3 items, 1 of them on Nimbus")
    assert outcome.passed and outcome.reward == 0.67
    moved, initial = act(env, [("set_work_item_status", {"workItemId": "WI-020", "status": "WFS-002", **A})])
    outcome = grade(env, "VER-014", moved, initial, "2")
    assert not outcome.passed  # counted on the initial state, and the world was changed


def test_ver_015(env):
    state = env.create_state()
    assert grade(env, "VER-015", state, state, "Nimbus Sprint 4 still holds 2 points.").reward == 1
    assert not grade(env, "VER-015", state, state, "Nimbus Sprint 4").passed
    state["workItems"]["WI-010"]["status"] = "WFS-002"  # a second completed sprint with carry-over
    outcome = grade(env, "VER-015", state, state, "Atlas Sprint 11 holds 2.")
    assert outcome.passed and flags(outcome)[2] == (False, False)


def test_non_text_answers_use_the_text_form(env):
    state = env.create_state()
    assert grade(env, "VER-014", state, state, "").reward < 1
    assert not grade(env, "VER-013", state, state, None).passed
