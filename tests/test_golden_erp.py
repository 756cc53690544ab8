"""The ERP world's regression gates (silo-format §1.2 invariant 7; tests/golden/gate.py).

- every gate (36 episodes + the tool path of erp-tools.md §9) byte-compared with its golden files,
  through ``gym.make`` + ``RecordRun`` and through ``silo_gym.run_task``;
- drift: a copy of the ERP world with one seed fact or one tool effect changed makes the same gate
  code report mismatches naming the files.

Re-record deliberately with ``python tests/golden/record_golden.py erp``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden import gate as g

import silo_gym

GATES = g.ERP_GATES
GATE_IDS = [str(gate) for gate in GATES]


def test_the_gates_use_the_repository_erp_world():
    assert g.registered_dir("erp").resolve() == g.ERP_DIR.resolve()


def test_golden_tree_is_complete_and_has_nothing_else():
    expected = sorted(f"{gate.rel_dir}/{name}" for gate in GATES for name in gate.files)
    found = sorted(p.relative_to(g.GOLDEN_DIR).as_posix() for p in (g.GOLDEN_DIR / "erp").rglob("*") if p.is_file())
    assert found == expected
    assert len(expected) == 18 * 2 * 2 + 3


def test_golden_files_follow_the_artifact_rules():
    for gate in GATES:
        for name in g.EPISODE_FILES:
            data = (g.GOLDEN_DIR / gate.rel_dir / name).read_bytes()
            assert silo_gym.dumps_pretty(json.loads(data)).encode("utf-8") == data  # §7.1
        result = json.loads((g.GOLDEN_DIR / gate.rel_dir / "result.json").read_bytes())
        assert result["terminationReason"] == "completed"
        if gate.agent == "solver":
            assert result["passed"] is True and result["reward"] == 1 and result["toolErrors"] == 0
        elif gate.agent == "do-nothing":
            assert result["toolCalls"] == 0 and result["agentOutput"] == "" and result["reward"] < 1
            assert result["passed"] is False


def test_solver_call_counts_match_the_reference_plans():
    counts = {gate.task_id: json.loads((g.GOLDEN_DIR / gate.rel_dir / "result.json").read_bytes())["toolCalls"]
              for gate in GATES if gate.agent == "solver"}
    expected = [2, 1, 2, 3, 2, 3, 2, 5, 1, 3, 5, 4, 4, 3, 4, 6, 21, 2]  # erp-world.md §10: 73 in all
    assert [counts[t] for t in g.ERP_TASK_IDS] == expected
    assert sum(expected) == 73


def test_tool_path_gives_the_recorded_outcomes():
    """erp-tools.md §9: the six calls, their outcomes, and the TASK-013 result they lead to."""
    gate = g.ERP_TOOL_PATH_GATE
    events = [json.loads(line) for line in (g.GOLDEN_DIR / gate.rel_dir / g.TOOL_EVENTS_FILE).read_text("utf-8").splitlines()]
    assert [e["seq"] for e in events] == list(range(2, 14))
    results = [e for e in events if e["type"] == "tool_result"]
    assert [e["output"].get("code") if e["isError"] else None for e in results] == [
        None, None, None, "invalid_input", "invalid_input", "tool_not_found",
    ]  # fmt: skip
    first, written, reread = (e["output"] for e in results[:3])
    assert first["match"]["discrepancies"][0]["message"] == (
        "Invoiced unit price 86.00 exceeds purchase order price 82.00 by 4.88%."
    )
    assert (first["outstanding"]["amount"], first["isOverdue"], first["payments"]) == (7430.4, False, [])
    assert (written["status"], written["matchId"], written["totalAmount"]["amount"]) == ("pending_match", None, 7084.8)
    assert reread["match"] is None and reread["approval"]["amount"]["amount"] == 7430.4
    assert results[3]["output"] == {
        "code": "invalid_input",
        "message": 'Invalid arguments for "list_audit_events": "entityId" is not a parameter; expected one of: '
        "entityType, actorUserId, action, fromDate, toDate, limit, offset.",
        "details": {"problems": ['"entityId" is not a parameter; expected one of: entityType, actorUserId, action, '
                                 "fromDate, toDate, limit, offset"]},
    }
    assert results[4]["output"]["message"] == 'Invalid arguments for "get_vendor_invoice": "vendorInvoiceId" is required.'
    assert results[5]["output"] == {"code": "tool_not_found", "message": 'Unknown tool "definitely_not_a_tool".'}
    result = json.loads((g.GOLDEN_DIR / gate.rel_dir / "result.json").read_bytes())
    assert (result["passed"], result["reward"], result["toolCalls"], result["toolErrors"]) == (False, 0.6, 6, 3)
    assert result["agentOutput"].startswith("tools=185 ")
    diff = json.loads((g.GOLDEN_DIR / gate.rel_dir / "state-diff.json").read_bytes())
    assert diff["scalars"] == []
    changed = {key: value for key, value in diff["collections"].items() if any(value.values())}
    assert sorted(changed) == ["auditLog", "sequences", "vendorInvoices"]


@pytest.mark.parametrize("gate", GATES, ids=GATE_IDS)
def test_gym_episode_matches_golden(gate, tmp_path):
    mismatches = g.check_against_golden(g.erp_factory, gate, runs_dir=tmp_path)
    assert not mismatches, g.report(mismatches)


@pytest.mark.parametrize("gate", GATES, ids=GATE_IDS)
def test_runner_episode_matches_golden(gate, tmp_path):
    mismatches = g.check_runner_against_golden("erp", gate, runs_dir=tmp_path, cwd=g.REPO_ROOT)
    assert not mismatches, g.report(mismatches)


# ---------------------------------------------------------------------------------------------
# Drift: the gates must fail on a changed environment
# ---------------------------------------------------------------------------------------------


def _patch(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert text.count(old) == 1, f"{old!r} is not unique in {path}"
    path.write_text(text.replace(old, new), "utf-8")


def _drift_seed_price(env_dir: Path) -> None:
    """A seed fact: VINV-103 bills 87 a unit instead of 86."""
    path = env_dir / "data" / "vendorInvoices.json"
    text = path.read_text("utf-8")
    start = text.index('"id": "VINV-103"')
    at = text.index('"unitPrice": 86', start)
    assert at < text.index('"id": "VINV-104"')
    path.write_text(text[:at] + '"unitPrice": 87' + text[at + len('"unitPrice": 86') :], "utf-8")


def _drift_payment_leaves_partial(env_dir: Path) -> None:
    """A tool effect: applying a payment never marks an invoice paid."""
    _patch(env_dir / "tools" / "helpers.py", '        invoice["status"] = "paid"\n', '        invoice["status"] = "partially_paid"\n')


DRIFTS = {
    "seed-price": (_drift_seed_price, {
        "erp/do-nothing/TASK-013/result.json",    # the untouched line's price is in a check's detail
        "erp/tool-path/tool-events.jsonl",        # the first read shows the other price and totals
    }),
    "payment-leaves-partial": (_drift_payment_leaves_partial, {
        "erp/solver/TASK-008/result.json",        # the invoice stays partially paid: checks fail
        "erp/solver/TASK-016/result.json",        # (the state diffs list the same changed ids)
        "erp/solver/TASK-017/result.json",
    }),
}  # fmt: skip


@pytest.fixture
def drifted(tmp_path):
    """``drifted(kind)``: a drifted copy of the ERP world registered as ``silo/erpdrift-*``."""
    with g.drifted_copies(tmp_path, g.ERP_DIR, "erpdrift", {k: v[0] for k, v in DRIFTS.items()}) as make:
        yield lambda kind: (make(kind), tmp_path)


_drift_factory = g.drift_factory("erpdrift")


@pytest.mark.parametrize("kind", sorted(DRIFTS))
def test_gates_report_drift(kind, drifted, tmp_path):
    copy_dir, project = drifted(kind)
    expected = DRIFTS[kind][1]
    via_gym = [m for gate in GATES for m in g.check_against_golden(_drift_factory, gate, runs_dir=tmp_path / "gym")]
    assert {m.path for m in via_gym} == expected, g.report(via_gym)
    via_runner = [
        m
        for gate in GATES
        for m in g.check_runner_against_golden("erpdrift", gate, runs_dir=tmp_path / "runner", cwd=project)
    ]
    assert {m.path for m in via_runner} == {m.path for m in via_gym if not m.path.endswith(".jsonl")}


@pytest.mark.parametrize("task_id", ["TASK-013", "TASK-017"])
def test_erp_solver_runs_replay_byte_identical(task_id, tmp_path):
    """``silo-gym replay`` re-runs a recorded ERP episode and gets the same bytes."""
    from silo_gym.replay import replay_run

    gate = g.Gate("solver", task_id, "erp")
    produced = g.run_gym(g.erp_factory, gate, tmp_path)
    assert g.compare(gate, produced, files=g.EPISODE_FILES) == []
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    report = replay_run(run_dir)
    assert report.problem is None and report.divergence is None, report.summary()
    assert report.identical and report.calls == json.loads((run_dir / "result.json").read_text())["toolCalls"]
