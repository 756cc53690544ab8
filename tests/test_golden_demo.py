"""The demo environment's regression gates (silo-format §1.2 invariant 7; tests/golden/gate.py).

- every gate (12 episodes + the tool path) byte-compared with its golden files, through
  ``gym.make`` + ``RecordRun`` and through ``silo_gym.run_task``;
- drift: a copy of the demo with one seed fact or one tool effect changed makes the same gate code
  report mismatches naming the files;
- determinism across processes.

Re-record deliberately with ``python tests/golden/record_golden.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import subprocess_env
from golden import gate as g

import silo_gym

GATE_IDS = [str(gate) for gate in g.ALL_GATES]


def test_the_gates_use_the_repository_demo():
    assert g.registered_demo_dir().resolve() == g.DEMO_DIR.resolve()


def test_golden_tree_is_complete_and_has_nothing_else():
    expected = sorted(f"{gate.rel_dir}/{name}" for gate in g.ALL_GATES for name in gate.files)
    found = sorted(p.relative_to(g.GOLDEN_DIR).as_posix()
                   for p in (g.GOLDEN_DIR / "demo").rglob("*") if p.is_file())
    assert found == expected


def test_golden_files_follow_the_artifact_rules():
    for gate in g.ALL_GATES:
        for name in g.EPISODE_FILES:
            data = (g.GOLDEN_DIR / gate.rel_dir / name).read_bytes()
            assert silo_gym.dumps_pretty(json.loads(data)).encode("utf-8") == data  # §7.1
        result = json.loads((g.GOLDEN_DIR / gate.rel_dir / "result.json").read_bytes())
        assert len(result) == 13 and result["terminationReason"] == "completed"
        if gate.agent in ("solver", "tool-path"):
            assert result["passed"] is True and result["reward"] == 1
        else:
            assert result["toolCalls"] == 0 and result["agentOutput"] == ""


@pytest.mark.parametrize("gate", g.ALL_GATES, ids=GATE_IDS)
def test_gym_episode_matches_golden(gate, tmp_path):
    mismatches = g.check_against_golden(g.demo_factory, gate, runs_dir=tmp_path)
    assert not mismatches, g.report(mismatches)


@pytest.mark.parametrize("gate", g.ALL_GATES, ids=GATE_IDS)
def test_runner_episode_matches_golden(gate, tmp_path):
    mismatches = g.check_runner_against_golden("demo", gate, runs_dir=tmp_path, cwd=g.REPO_ROOT)
    assert not mismatches, g.report(mismatches)


@pytest.mark.parametrize("gate", g.ALL_GATES, ids=GATE_IDS)
def test_gym_and_runner_give_identical_bytes(gate, tmp_path):
    via_gym = g.run_gym(g.demo_factory, gate, tmp_path / "gym")
    via_runner = g.run_runner("demo", gate, tmp_path / "runner", cwd=g.REPO_ROOT)
    for name in g.EPISODE_FILES:
        assert via_gym[name] == via_runner[name], name


def test_runner_tool_events_differ_only_in_the_invalid_actions_input(tmp_path):
    """The Gymnasium env traces an invalid action as received (the whole action); the runner has
    no action, so it traces the ``input`` it was given. Every other byte is the same."""
    via_runner = g.run_runner("demo", g.TOOL_PATH_GATE, tmp_path, cwd=g.REPO_ROOT)
    golden = (g.GOLDEN_DIR / g.TOOL_PATH_GATE.rel_dir / g.TOOL_EVENTS_FILE).read_bytes()
    expected = golden.replace(b'"input":{"tool":"get_opportunity","input":"OPP-007"}', b'"input":"OPP-007"')
    assert expected != golden
    assert via_runner[g.TOOL_EVENTS_FILE] == expected


def test_tool_path_covers_every_outcome():
    events = [json.loads(line) for line in
              (g.GOLDEN_DIR / g.TOOL_PATH_GATE.rel_dir / g.TOOL_EVENTS_FILE).read_text("utf-8").splitlines()]
    assert [e["seq"] for e in events] == list(range(2, 2 + len(events)))
    assert all("at" not in e and "durationMs" not in e for e in events)
    codes = [e["output"].get("code") if e["isError"] else None for e in events if e["type"] == "tool_result"]
    assert codes == [None, None, None, None, None, "invalid_input", "invalid_input", "tool_not_found",
                     "invalid_action", None]
    messages = " ".join(e["output"]["message"] for e in events if e["type"] == "tool_result" and e["isError"])
    assert "is not a parameter" in messages and "is required" in messages


# ---------------------------------------------------------------------------------------------
# Drift: the gates must fail on a changed environment
# ---------------------------------------------------------------------------------------------


def _patch(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert text.count(old) == 1, f"{old!r} is not unique in {path}"
    path.write_text(text.replace(old, new), "utf-8")


def _drift_seed_amount(env_dir: Path) -> None:
    """A seed fact: OPP-007 (open, 75 %) is quoted at 111000 instead of 110000."""
    path = env_dir / "data" / "opportunities.json"
    text = path.read_text("utf-8")
    start = text.index('"id": "OPP-007"')
    at = text.index('"amount": 110000', start)
    assert at < text.index('"id": "OPP-008"')
    path.write_text(text[:at] + '"amount": 111000' + text[at + len('"amount": 110000'):], "utf-8")
    assert json.loads(path.read_text("utf-8"))[6]["amount"] == {"amount": 111000, "currency": "USD"}


def _drift_log_activity_date(env_dir: Path) -> None:
    """A tool's field value: log_activity stamps the day before today as the completed date."""
    _patch(env_dir / "tools" / "activities.py",
           'due_date = completed_date = state["now"]',
           'due_date = completed_date = "2026-03-15"')


def _drift_reassign_owner(env_dir: Path) -> None:
    """A tool's effect: reassign_opportunity writes the old owner back (and still audits)."""
    _patch(env_dir / "tools" / "opportunities.py",
           'old_owner_id = opp["ownerId"]\n    opp["ownerId"] = new_owner["id"]',
           'old_owner_id = opp["ownerId"]\n    opp["ownerId"] = old_owner_id')


DRIFTS = {
    "seed-amount": (_drift_seed_amount, {
        "demo/solver/TASK-004/result.json",       # the answer and the expected figure move
        "demo/do-nothing/TASK-004/result.json",   # the expected figure in the check's detail moves
        "demo/tool-path/tool-events.jsonl",       # get_opportunity shows the seed amount
    }),
    "log-activity-date": (_drift_log_activity_date, {
        "demo/solver/TASK-003/result.json",       # the "logged today" check fails
        "demo/tool-path/result.json",
        "demo/tool-path/tool-events.jsonl",
    }),
    "reassign-owner": (_drift_reassign_owner, {
        "demo/solver/TASK-002/result.json",       # the deals did not move
        "demo/solver/TASK-002/state-diff.json",   # OPP-005/OPP-006 no longer change
    }),
}


@pytest.fixture
def drifted(tmp_path):
    """``drifted(kind)``: a copy of the demo at ``<tmp>/.silo/environments/demodrift`` with one drift
    applied, registered as ``silo/demodrift-*``; returns ``(copy_dir, project_root)``."""
    with g.drifted_copies(tmp_path, g.DEMO_DIR, "demodrift", {k: v[0] for k, v in DRIFTS.items()}) as make:
        yield lambda kind: (make(kind), tmp_path)


_drift_factory = g.drift_factory("demodrift")


@pytest.mark.parametrize("kind", sorted(DRIFTS))
def test_gates_report_drift(kind, drifted, tmp_path):
    copy_dir, project = drifted(kind)
    expected = DRIFTS[kind][1]

    via_gym = [m for gate in g.ALL_GATES
               for m in g.check_against_golden(_drift_factory, gate, runs_dir=tmp_path / "gym")]
    assert expected <= {m.path for m in via_gym}, g.report(via_gym)
    for m in via_gym:
        text = str(m)
        assert text.startswith(f"{m.path} differs from its golden copy:\n")
        assert f"--- golden/{m.path}" in text and f"+++ produced/{m.path}" in text and "\n@@ " in text

    # The same drift through the runner (the copy is found by name under <project>/.silo).
    via_runner = [m for gate in g.ALL_GATES
                  for m in g.check_runner_against_golden("demodrift", gate, runs_dir=tmp_path / "runner",
                                                         cwd=project)]
    assert {m.path for m in via_runner} == {m.path for m in via_gym if not m.path.endswith(".jsonl")}

    # And with the env constructed directly, without registration.
    direct = g.check_against_golden(
        lambda task_id: silo_gym.SiloEnv("demodrift", task_id, path=str(copy_dir)),
        g.TOOL_PATH_GATE if any("tool-path" in p for p in expected) else g.Gate("solver", "TASK-002"),
        runs_dir=tmp_path / "direct")
    assert direct


def test_drift_diff_is_readable(drifted, tmp_path):
    drifted("seed-amount")
    [mismatch] = g.check_against_golden(_drift_factory, g.Gate("do-nothing", "TASK-004"), runs_dir=tmp_path)
    assert mismatch.path == "demo/do-nothing/TASK-004/result.json"
    diff = mismatch.diff()
    assert '-      "detail": "the answer has no number; expected 507500",' in diff
    assert '+      "detail": "the answer has no number; expected 508250",' in diff


def test_missing_golden_is_a_mismatch(tmp_path):
    mismatches = g.check_against_golden(g.demo_factory, g.Gate("solver", "TASK-001"), runs_dir=tmp_path / "runs",
                                        golden_dir=tmp_path / "empty")
    assert [m.path for m in mismatches] == ["demo/solver/TASK-001/result.json",
                                            "demo/solver/TASK-001/state-diff.json"]
    assert all(m.expected is None and "no golden file" in str(m) for m in mismatches)


# ---------------------------------------------------------------------------------------------
# Determinism across processes
# ---------------------------------------------------------------------------------------------


def test_solver_bytes_are_identical_in_another_process(tmp_path):
    gate = g.Gate("solver", "TASK-001")
    out = tmp_path / "child"
    child = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(g.GOLDEN_DIR.parent)!r})
        from golden import gate as g
        out = Path({str(out)!r})
        produced = g.run_gym(g.demo_factory, g.Gate("solver", "TASK-001"), out / "runs")
        for name, data in produced.items():
            (out / name).write_bytes(data)
    """)
    out.mkdir()
    proc = subprocess.run([sys.executable, "-c", child], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env=subprocess_env(PYTHONHASHSEED="12345"))
    assert proc.returncode == 0, proc.stderr
    from_child = {name: (out / name).read_bytes() for name in gate.files}
    in_process = g.run_gym(g.demo_factory, gate, tmp_path / "parent")
    assert from_child == in_process
    mismatches = g.compare(gate, from_child)
    assert not mismatches, g.report(mismatches)
