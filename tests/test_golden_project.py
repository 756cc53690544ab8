"""The project world's regression gates (silo-format §1.2 invariant 7; tests/golden/gate.py).

- every gate (30 episodes + the tool path) byte-compared with its golden files, through
  ``gym.make`` + ``RecordRun`` and through ``silo_gym.run_task``;
- drift: a copy of the project world with one seed fact or one tool effect changed makes the same
  gate code report mismatches naming the files;
- determinism across processes.

Re-record deliberately with ``python tests/golden/record_golden.py project``.
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

GATES = g.PROJECT_GATES
GATE_IDS = [str(gate) for gate in GATES]


def test_the_gates_use_the_repository_project_world():
    assert g.registered_dir("project").resolve() == g.PROJECT_DIR.resolve()


def test_golden_tree_is_complete_and_has_nothing_else():
    expected = sorted(f"{gate.rel_dir}/{name}" for gate in GATES for name in gate.files)
    found = sorted(p.relative_to(g.GOLDEN_DIR).as_posix()
                   for p in (g.GOLDEN_DIR / "project").rglob("*") if p.is_file())
    assert found == expected
    assert len(expected) == 15 * 2 * 2 + 3


def test_golden_files_follow_the_artifact_rules():
    for gate in GATES:
        for name in g.EPISODE_FILES:
            data = (g.GOLDEN_DIR / gate.rel_dir / name).read_bytes()
            assert silo_gym.dumps_pretty(json.loads(data)).encode("utf-8") == data  # §7.1
        result = json.loads((g.GOLDEN_DIR / gate.rel_dir / "result.json").read_bytes())
        assert len(result) == 13 and result["terminationReason"] == "completed"
        if gate.agent in ("solver", "tool-path"):
            assert result["passed"] is True and result["reward"] == 1
        else:
            # the do-nothing agent stays below 1.0 on every task
            assert result["toolCalls"] == 0 and result["agentOutput"] == "" and result["reward"] < 1
            assert result["passed"] is False
        if gate.agent == "solver":
            assert result["toolErrors"] == 0


@pytest.mark.parametrize("gate", GATES, ids=GATE_IDS)
def test_gym_episode_matches_golden(gate, tmp_path):
    mismatches = g.check_against_golden(g.project_factory, gate, runs_dir=tmp_path)
    assert not mismatches, g.report(mismatches)


@pytest.mark.parametrize("gate", GATES, ids=GATE_IDS)
def test_runner_episode_matches_golden(gate, tmp_path):
    mismatches = g.check_runner_against_golden("project", gate, runs_dir=tmp_path, cwd=g.REPO_ROOT)
    assert not mismatches, g.report(mismatches)


def test_tool_path_covers_every_outcome():
    events = [json.loads(line) for line in
              (g.GOLDEN_DIR / g.PROJECT_TOOL_PATH_GATE.rel_dir / g.TOOL_EVENTS_FILE).read_text("utf-8").splitlines()]
    assert [e["seq"] for e in events] == list(range(2, 2 + len(events)))
    assert all("at" not in e and "durationMs" not in e for e in events)
    codes = [e["output"].get("code") if e["isError"] else None for e in events if e["type"] == "tool_result"]
    assert codes == [None, None, None, None, None, "invalid_input", "invalid_input", "tool_not_found",
                     "invalid_action", None, "not_allowed", None]
    messages = " ".join(e["output"]["message"] for e in events if e["type"] == "tool_result" and e["isError"])
    assert "is not a parameter" in messages and "is required" in messages
    refused = [e for e in events if e["type"] == "tool_result" and e["output"].get("code") == "not_allowed"]
    assert refused[0]["output"]["details"] == {"workItemId": "WI-004", "unresolved": ["WI-005"]}


# ---------------------------------------------------------------------------------------------
# Drift: the gates must fail on a changed environment
# ---------------------------------------------------------------------------------------------


def _patch(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert text.count(old) == 1, f"{old!r} is not unique in {path}"
    path.write_text(text.replace(old, new), "utf-8")


def _drift_seed_hours(env_dir: Path) -> None:
    """A seed fact: TL-003 (on WI-003, an Atlas item) logs 8.5 hours instead of 7.5."""
    path = env_dir / "data" / "timeLogs.json"
    text = path.read_text("utf-8")
    start = text.index('"id": "TL-003"')
    at = text.index('"hours": 7.5', start)
    assert at < text.index('"id": "TL-004"')
    path.write_text(text[:at] + '"hours": 8.5' + text[at + len('"hours": 7.5'):], "utf-8")
    assert json.loads(path.read_text("utf-8"))[2]["hours"] == 8.5


def _drift_assign_keeps_owner(env_dir: Path) -> None:
    """A tool's effect: assign_work_item writes the previous assignee back (and still audits)."""
    _patch(env_dir / "tools" / "work_items.py",
           'previous = item["assigneeId"]\n    item["assigneeId"] = assignee["id"]',
           'previous = item["assigneeId"]\n    item["assigneeId"] = previous')


def _drift_sprint_move_restarts_status(env_dir: Path) -> None:
    """A tool's field value: move_work_item_to_sprint also restarts the item's days in status."""
    _patch(env_dir / "tools" / "work_items.py",
           'item["sprintId"] = sprint["id"]\n',
           'item["sprintId"] = sprint["id"]\n    item["statusEnteredDate"] = state["now"]\n')


DRIFTS = {
    "seed-hours": (_drift_seed_hours, {
        "project/solver/TASK-011/result.json",       # the answer and the expected figure move
        "project/do-nothing/TASK-011/result.json",   # the expected figure in the check's detail moves
    }),
    "assign-keeps-owner": (_drift_assign_keeps_owner, {
        "project/solver/TASK-003/result.json",       # Devon's items did not move
        "project/solver/TASK-003/state-diff.json",
        "project/solver/TASK-004/result.json",       # usage metering stayed unassigned
        "project/solver/TASK-004/state-diff.json",
    }),
    "sprint-move-restarts-status": (_drift_sprint_move_restarts_status, {
        "project/tool-path/tool-events.jsonl",       # the read-back shows 0 days in status
    }),
}


@pytest.fixture
def drifted(tmp_path):
    """``drifted(kind)``: a copy of the project world at ``<tmp>/.silo/environments/projdrift`` with one drift
    applied, registered as ``silo/projdrift-*``; returns ``(copy_dir, project_root)``."""
    with g.drifted_copies(tmp_path, g.PROJECT_DIR, "projdrift", {k: v[0] for k, v in DRIFTS.items()}) as make:
        yield lambda kind: (make(kind), tmp_path)


_drift_factory = g.drift_factory("projdrift")


@pytest.mark.parametrize("kind", sorted(DRIFTS))
def test_gates_report_drift(kind, drifted, tmp_path):
    copy_dir, project = drifted(kind)
    expected = DRIFTS[kind][1]

    via_gym = [m for gate in GATES
               for m in g.check_against_golden(_drift_factory, gate, runs_dir=tmp_path / "gym")]
    assert {m.path for m in via_gym} == expected, g.report(via_gym)
    for m in via_gym:
        text = str(m)
        assert text.startswith(f"{m.path} differs from its golden copy:\n")
        assert f"--- golden/{m.path}" in text and f"+++ produced/{m.path}" in text and "\n@@ " in text

    # The same drift through the runner (the copy is found by name under <project>/.silo).
    via_runner = [m for gate in GATES
                  for m in g.check_runner_against_golden("projdrift", gate, runs_dir=tmp_path / "runner",
                                                         cwd=project)]
    assert {m.path for m in via_runner} == {m.path for m in via_gym if not m.path.endswith(".jsonl")}


def test_drift_diff_is_readable(drifted, tmp_path):
    drifted("seed-hours")
    [mismatch] = g.check_against_golden(_drift_factory, g.Gate("do-nothing", "TASK-011", "project"),
                                        runs_dir=tmp_path)
    assert mismatch.path == "project/do-nothing/TASK-011/result.json"
    diff = mismatch.diff()
    assert '-      "detail": "the answer\'s final number is none; expected 44",' in diff
    assert '+      "detail": "the answer\'s final number is none; expected 45",' in diff


# ---------------------------------------------------------------------------------------------
# Determinism across processes
# ---------------------------------------------------------------------------------------------


def test_solver_bytes_are_identical_in_another_process(tmp_path):
    gate = g.Gate("solver", "TASK-008", "project")
    out = tmp_path / "child"
    child = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(g.GOLDEN_DIR.parent)!r})
        from golden import gate as g
        out = Path({str(out)!r})
        produced = g.run_gym(g.project_factory, g.Gate("solver", "TASK-008", "project"), out / "runs")
        for name, data in produced.items():
            (out / name).write_bytes(data)
    """)
    out.mkdir()
    proc = subprocess.run([sys.executable, "-c", child], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env=subprocess_env(PYTHONHASHSEED="4321"))
    assert proc.returncode == 0, proc.stderr
    from_child = {name: (out / name).read_bytes() for name in gate.files}
    in_process = g.run_gym(g.project_factory, gate, tmp_path / "parent")
    assert from_child == in_process
    mismatches = g.compare(gate, from_child)
    assert not mismatches, g.report(mismatches)
