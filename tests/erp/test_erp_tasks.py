"""The 18 ERP tasks and verifiers on the canonical world (erp-world.md §8-§9)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from . import ENV_DIR, TASK_IDS, load_erp, load_solver, submodule

ENV = load_erp()
SCENARIO = submodule(ENV, "scenario")

TASKS = {tid: json.loads((ENV_DIR / "tasks" / f"{tid}.json").read_text(encoding="utf-8")) for tid in TASK_IDS}
REQUIRED = {1: (1, 2), 2: (2, 2), 3: (2, 3), 4: (4, 4), 5: (2, 4), 6: (3, 4), 7: (3, 4), 8: (3, 4), 9: (2, 4),
            10: (3, 5), 11: (5, 6), 12: (4, 5), 13: (4, 5), 14: (3, 5), 15: (3, 4), 16: (4, 5), 17: (5, 6), 18: (2, 5)}  # fmt: skip


def test_task_files() -> None:
    for tid, task in TASKS.items():
        assert list(task) == ["id", "title", "instruction", "difficulty", "verifierId", "entities"]
        assert task["id"] == tid and task["verifierId"] == "VER-" + tid[5:]
        assert task["instruction"].isascii() or "\u2014" in task["instruction"]
    assert TASKS["TASK-003"]["entities"] == ["CINV-403", "CINV-407", "CUS-003"]
    assert [TASKS[t]["difficulty"] for t in TASK_IDS].count("hard") == 8


def test_each_marker_is_in_exactly_its_own_task() -> None:
    markers = [phrase for phrase, _ in load_solver().MARKERS]
    assert len(markers) == 18
    for i, tid in enumerate(TASK_IDS):
        found = [j for j, phrase in enumerate(markers) if phrase in TASKS[tid]["instruction"]]
        assert found == [i], tid


@pytest.mark.parametrize("n", range(1, 19))
def test_check_counts_and_do_nothing_fails(n: int) -> None:
    verifier = ENV.verifiers[n - 1]
    checks = verifier.check_fn(ENV.create_state(), ENV.create_state(), None)
    required, total = REQUIRED[n]
    assert len(checks) == total
    assert sum(1 for c in checks if c.required) == required
    assert not all(c.passed for c in checks if c.required), verifier.id


def test_parameters_on_the_canonical_world() -> None:
    world = ENV.create_state()
    assert SCENARIO.task_parameters("TASK-001", world) == {"terms": "NET_30"}
    assert SCENARIO.task_parameters("TASK-004", world) == {"requested": 40}
    assert SCENARIO.task_parameters("TASK-006", world) == {"quantity": 200}
    assert SCENARIO.task_parameters("TASK-016", world) == {"email": "ar@tristatefasteners.example"}
    assert SCENARIO.task_parameters("TASK-017", world) == {"quantity": 20, "unitPrice": 154}
    assert SCENARIO.task_parameters("TASK-002", world) == {}
    world["vendors"]["VEN-002"]["name"] = "Other Fasteners"
    terms = SCENARIO.task_parameters("TASK-001", world)["terms"]
    assert terms != "NET_45" and terms == SCENARIO.task_parameters("TASK-001", world)["terms"]


def _details(n: int, final: dict[str, Any], initial: dict[str, Any]) -> list[tuple[bool, str]]:
    return [(c.passed, c.detail) for c in ENV.verifiers[n - 1].check_fn(final, initial, None)]


def test_details_on_the_untouched_world() -> None:
    s = ENV.create_state
    assert _details(1, s(), s()) == [(False, "paymentTerms = NET_45"), (True, "status = active")]
    assert _details(4, s(), s())[0] == (False, "no new requisition found")
    assert _details(5, s(), s())[1] == (False, "approval = pending, by null")
    assert _details(11, s(), s())[3] == (False, "hose undefined @ undefined, belt undefined @ undefined")
    assert _details(12, s(), s())[1] == (False, "subtotal = 7410 (expected 5655)")
    assert _details(13, s(), s())[2] == (False, "total = 7430.4")
    assert _details(14, s(), s())[2] == (False, "WH-001 -0, WH-002 -0")
    assert _details(15, s(), s())[1:3] == [
        (False, "approver none limit 0 vs 176200"),
        (True, "decided by undefined"),
    ]
    assert _details(17, s(), s())[4] == (False, "subtotal = undefined (expected 3080)")


def test_hand_made_successes_pass() -> None:
    initial = ENV.create_state()
    final = ENV.create_state()
    final["vendors"]["VEN-002"]["paymentTerms"] = "NET_30"
    assert all(p for p, _ in _details(1, final, initial))
    final["customers"]["CUS-003"]["status"] = "credit_hold"
    final["customers"]["CUS-003"]["statusReason"] = "Non-payment."
    assert all(p for p, _ in _details(3, final, initial))
    inv = final["vendorInvoices"]["VINV-106"]
    inv["status"] = "cancelled"
    final["auditLog"].append({"id": "AUD-0021", "entityId": "VINV-106"})
    assert _details(18, final, initial) == [
        (True, "status = cancelled"), (True, "status = cancelled"), (True, "received units = 0"),
        (True, "completed payments = 0"), (True, "audit entry present"),
    ]  # fmt: skip
    rec = final["inventory"]
    rec["STK-PRD-003-WH-001"]["quantityOnHand"] -= 60
    rec["STK-PRD-003-WH-002"]["quantityOnHand"] -= 90
    assert _details(14, final, initial)[2:4] == [(True, "WH-001 -60, WH-002 -90"), (True, "60 + 90")]
