"""``silo-gym replay`` / ``regrade`` (issue 15): a recorded run proves itself."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from conftest import REPO_ROOT, subprocess_env
from golden import gate as g

import silo_gym
from silo_gym import RunLimitError, SiloError
from silo_gym.env import SiloEnv
from silo_gym.replay import changed_checks, regrade_run, replay_run
from silo_gym.wrappers import RecordRun

DEMO = REPO_ROOT / "environments" / "demo"


def _gym_run(runs: Path, task_id: str, actions: list[Any], env_id: str = "silo/demo-{}", **kwargs: Any) -> Path:
    env = RecordRun(gym.make(env_id.format(task_id), **kwargs), runs_dir=runs)
    _, info = env.reset(seed=0)
    for action in actions:
        *_, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    env.close()
    return Path(info["run_dir"])


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "silo_gym", *args], cwd=cwd, env=subprocess_env(),
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


# -- every demo reference and do-nothing run, both drivers ----------------------------------------


@pytest.mark.parametrize("gate", g.ALL_GATES, ids=str)
@pytest.mark.parametrize("driver", ["gym", "runner"])
def test_every_demo_golden_run_replays_byte_identical(gate: g.Gate, driver: str, tmp_path: Path) -> None:
    if driver == "gym":
        produced = g.run_gym(g.demo_factory, gate, tmp_path)
    else:
        produced = g.run_runner("demo", gate, tmp_path, cwd=tmp_path)
    assert g.compare(gate, produced, files=g.EPISODE_FILES) == []  # the run under test is the golden one
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    report = replay_run(run_dir)
    assert report.problem is None and report.divergence is None, report.summary()
    assert report.identical
    calls = json.loads((run_dir / "result.json").read_text())["toolCalls"]
    assert report.calls == calls
    assert "byte-identical" in report.summary()


# -- every kind of ending and action ------------------------------------------------------------


def _replays(run_dir: Path) -> None:
    report = replay_run(run_dir)
    assert report.identical, report.summary()


def test_gym_invalid_actions_unknown_tools_and_budget_end_replay(runs_dir: Path) -> None:
    actions = ["not json", [1, 2], {"tool": "get_current_date", "extra": 1}, {"tool": "x", "answer": 1},
               {"answer": 1, "input": {}}, {"tool": 5}, {"tool": "get_lead", "input": "LEAD-004"},
               '{"tool": "get_lead", "input": {"leadId": "LEAD-004"}}', {"tool": "nope"},
               {"tool": "get_lead", "input": {"leadId": "LEAD-004"}}, {"tool": "get_current_date"}]
    run_dir = _gym_run(runs_dir, "TASK-001", actions, max_tool_calls=10)
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["terminationReason"], result["toolCalls"], result["toolErrors"]) == ("max_tool_calls", 10, 8)
    _replays(run_dir)


def test_gym_timeout_and_abort_endings_replay(runs_dir: Path) -> None:
    timed_out = _gym_run(runs_dir, "TASK-002", [{"tool": "get_current_date"}], timeout_ms=0)
    assert json.loads((timed_out / "result.json").read_text())["terminationReason"] == "timeout"
    _replays(timed_out)

    env = RecordRun(gym.make("silo/demo-TASK-003"), runs_dir=runs_dir)
    _, info = env.reset()
    env.step({"tool": "close_opportunity_won",
              "input": {"opportunityId": "OPP-007", "finalAmount": 1, "actorUserId": "USR-005"}})
    env.get_wrapper_attr("log_model_step")([{"role": "user", "content": "hi"}], {"role": "assistant"})
    env.unwrapped.abort("policy crashed")  # type: ignore[attr-defined]
    aborted = Path(info["run_dir"])
    assert json.loads((aborted / "result.json").read_text())["error"] == "policy crashed"
    assert '"model_step"' in (aborted / "trace.jsonl").read_text()
    _replays(aborted)


def test_runner_invalid_calls_limits_and_agent_errors_replay(runs_dir: Path) -> None:
    def odd_calls(task: str, tools: Any, call_tool: Any, signal: threading.Event) -> Any:
        call_tool(7, {"leadId": "LEAD-004"})
        call_tool("get_lead", "LEAD-004")
        call_tool("get_lead", '{"tool": "get_lead"}')
        call_tool("get_lead", [1])
        call_tool("no_such_tool")
        call_tool("get_lead", {"leadId": "LEAD-004"})
        try:
            call_tool("get_current_date")
        except RunLimitError:
            return {"output": {"stopped": True, "n": 2.5}}
        raise AssertionError("the budget should have refused the call")

    budget = silo_gym.run_task("demo", "TASK-001", odd_calls, runs_dir=runs_dir, max_tool_calls=6)
    assert (budget.result["terminationReason"], budget.result["error"]) == ("max_tool_calls", None)
    assert budget.result["toolErrors"] == 5
    _replays(Path(budget.run_dir))

    def crashes(task: str, tools: Any, call_tool: Any, signal: threading.Event) -> Any:
        call_tool("get_current_date")
        raise ValueError("the model returned garbage")

    crashed = silo_gym.run_task("demo", "TASK-004", crashes, runs_dir=runs_dir)
    assert (crashed.result["terminationReason"], crashed.error) == ("agent_error", "the model returned garbage")
    _replays(Path(crashed.run_dir))

    def too_slow(task: str, tools: Any, call_tool: Any, signal: threading.Event) -> Any:
        call_tool("get_current_date")
        time.sleep(0.15)
        call_tool("get_current_date")  # refused by the deadline: RunLimitError propagates
        return {"output": "unreachable"}

    late = silo_gym.run_task("demo", "TASK-005", too_slow, runs_dir=runs_dir, timeout_ms=100)
    assert (late.result["terminationReason"], late.error) == ("timeout", "Run ended: timeout.")
    _replays(Path(late.run_dir))


def test_an_agent_that_never_returns_replays(runs_dir: Path) -> None:
    release = threading.Event()

    def hangs(task: str, tools: Any, call_tool: Any, signal: threading.Event) -> Any:
        call_tool("get_current_date")
        release.wait(10)
        return {"output": "late"}

    try:
        hung = silo_gym.run_task("demo", "TASK-006", hangs, runs_dir=runs_dir, timeout_ms=500)
    finally:
        release.set()
    assert hung.error == "Agent did not return within 500 ms."
    _replays(Path(hung.run_dir))


def test_a_run_whose_grading_failed_replays(tmp_path: Path, make_env_dir: Any) -> None:
    verifiers = '''
    from silo_gym import check, define_verifier

    def _check(final, initial, context):
        if final["count"] > 1:
            raise RuntimeError("cannot grade a count above one")
        return [check("count is 1", final["count"] == 1, "")]

    verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="Fragile", check=_check)]
    '''
    env_dir = make_env_dir(tmp_path / ".silo" / "environments", "fragile", verifiers=verifiers)
    env = RecordRun(SiloEnv("fragile", "TASK-001", path=str(env_dir)), runs_dir=tmp_path / "runs")
    _, info = env.reset()
    env.step({"tool": "bump", "input": {"by": 2}})
    with pytest.raises(silo_gym.VerifierError):
        env.step({"answer": "two"})
    run_dir = Path(info["run_dir"])
    assert not (run_dir / "result.json").exists()
    report = replay_run(run_dir, cwd=tmp_path)
    assert report.identical, report.summary()
    assert report.result is None and report.grading_error is not None


# -- divergence, torn and broken traces ------------------------------------------------------------


def _solver_run(runs: Path, task_id: str = "TASK-003") -> Path:
    return Path(silo_gym.run_task("demo", task_id, g.silo_agent("solver"), runs_dir=runs).run_dir)


def _rewrite_trace(run_dir: Path, edit: Any) -> None:
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    edit(events)
    (run_dir / "trace.jsonl").write_text("".join(silo_gym.dumps_compact(e) + "\n" for e in events))


def test_the_first_divergence_names_the_call_and_both_outputs(runs_dir: Path) -> None:
    run_dir = _solver_run(runs_dir)

    def edit(events: list[dict[str, Any]]) -> None:
        second = [e for e in events if e["type"] == "tool_result"][1]
        second["output"]["created"]["subject"] = "A different subject"

    _rewrite_trace(run_dir, edit)
    report = replay_run(run_dir)
    assert not report.identical
    divergence = report.divergence
    assert divergence is not None and divergence.where == "call 2 (log_activity)"
    assert '"A different subject"' in divergence.recorded
    assert '"Signed contract received"' in divergence.replayed
    assert "First divergence at call 2 (log_activity): the output differs" in report.summary()
    # The episode files themselves still match: the world was not what changed.
    assert report.file_divergences == []


def test_an_edited_result_file_diverges_at_its_line(runs_dir: Path) -> None:
    run_dir = _solver_run(runs_dir)
    path = run_dir / "result.json"
    path.write_text(path.read_text().replace('"reward": 1,', '"reward": 0.5,'))
    done = _cli("replay", str(run_dir), cwd=runs_dir.parent)
    assert done.returncode == 1
    assert "First divergence at result.json: line 3 differs" in done.stdout
    assert '"reward": 0.5,' in done.stdout and '"reward": 1,' in done.stdout


def test_a_torn_last_line_is_reported_not_a_crash(runs_dir: Path) -> None:
    run_dir = _solver_run(runs_dir)
    trace = run_dir / "trace.jsonl"
    data = trace.read_bytes()
    trace.write_bytes(data[: data.rindex(b'"checks"')])  # cut inside verifier_result
    report = replay_run(run_dir)
    assert report.identical, report.summary()
    assert any(note.startswith("trace.jsonl: the last line (line ") and "it was left out" in note
               for note in report.notes)

    # Cut inside a tool_result: the run never reached run_end, so nothing can be proved.
    lines = data.split(b"\n")
    cut = next(i for i, line in enumerate(lines) if b'"tool_result"' in line)
    trace.write_bytes(b"\n".join(lines[:cut]) + b"\n" + lines[cut][:40])
    done = _cli("replay", str(run_dir), cwd=runs_dir.parent)
    assert done.returncode == 1, done.stderr
    assert f"note: trace.jsonl: the last line (line {cut + 1}, 40 bytes) has no line end" in done.stdout
    assert "the trace has no run_end" in done.stdout
    assert done.stderr == ""


def test_broken_run_directories_are_clear_errors(tmp_path: Path, runs_dir: Path) -> None:
    with pytest.raises(SiloError) as missing:
        replay_run(tmp_path / "nowhere")
    assert missing.value.code == "run_invalid" and "not a run directory" in missing.value.message

    run_dir = _solver_run(runs_dir)
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    lines[1] = lines[1][:10]
    (run_dir / "trace.jsonl").write_text("\n".join(lines) + "\n")
    done = _cli("replay", str(run_dir), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("error: run_invalid: ") and "line 2 is not a JSON object; the trace is damaged" in done.stderr


# -- regrade ------------------------------------------------------------------------------------------


def test_changed_checks_pairs_by_label() -> None:
    before = [{"label": "a", "passed": True, "detail": "", "required": True},
              {"label": "b", "passed": False, "detail": "x", "required": True},
              {"label": "gone", "passed": True, "detail": "", "required": False}]
    after = [{"label": "b", "passed": True, "detail": "x", "required": True},
             {"label": "a", "passed": True, "detail": "", "required": True},
             {"label": "new", "passed": False, "detail": "d", "required": True}]
    changes = {c.label: (c.before, c.after) for c in changed_checks(before, after)}
    assert set(changes) == {"b", "new", "gone"}
    assert changes["b"][0]["passed"] is False and changes["b"][1]["passed"] is True  # type: ignore[index]
    assert changes["new"][0] is None and changes["gone"][1] is None


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
def test_regrade_grades_the_replayed_world_with_todays_verifier(tmp_path: Path) -> None:
    project, env_dir = _project_with_demo(tmp_path)
    run_dir = _record_solver(project, "TASK-003")
    files_before = {p.name: p.read_bytes() for p in run_dir.iterdir()}

    # Today's verifier is stricter: the won amount must be 2000 above the signed 118000.
    ver = env_dir / "verifiers" / "ver_003.py"
    source = ver.read_text()
    assert "amount == signed" in source
    ver.write_text(source.replace("amount == signed", "amount == signed + 2000"))

    done = _cli("regrade", str(run_dir), cwd=project)
    assert done.returncode == 0, done.stderr
    summary = json.loads((run_dir / "regrade" / "regrade.json").read_text())
    new_result = json.loads((run_dir / "regrade" / "result.json").read_text())
    assert summary["before"] == {"passed": True, "reward": 1}
    assert summary["after"] == {"passed": new_result["passed"], "reward": new_result["reward"]}
    assert new_result["passed"] is False and summary["worldIdentical"] is True
    assert summary["changedChecks"] and all(c["before"] != c["after"] for c in summary["changedChecks"])
    assert "Before: passed=true reward=1" in done.stdout and "Changed: " in done.stdout
    # The recorded run is untouched; replay (which also uses today's verifier) now diverges at result.json.
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == files_before
    replayed = _cli("replay", str(run_dir), cwd=project)
    assert replayed.returncode == 1 and "First divergence at result.json" in replayed.stdout

    out = tmp_path / "elsewhere"
    again = _cli("regrade", str(run_dir), "--out", str(out), cwd=project)
    assert again.returncode == 0 and sorted(p.name for p in out.iterdir()) == ["regrade.json", "result.json"]


def test_regrade_refuses_a_run_that_never_ended(runs_dir: Path) -> None:
    run_dir = _solver_run(runs_dir)
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    (run_dir / "trace.jsonl").write_text("\n".join(lines[:3]) + "\n")
    with pytest.raises(SiloError) as caught:
        regrade_run(run_dir)
    assert caught.value.code == "run_invalid" and "never ended" in caught.value.message
    assert not (run_dir / "regrade").exists()


# -- variants and provenance --------------------------------------------------------------------------


def test_a_variant_run_replays_on_its_variant(runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/variety-TASK-002", variants=True), runs_dir=runs_dir)
    _, info = env.reset(seed=11)
    variant = info["variant"]
    assert variant is not None
    item = json.loads(env.step({"tool": "get_item", "input": {"itemId": "I-2"}})[0])["output"]
    env.step({"tool": "set_price", "input": {"itemId": "I-2", "price": item["price"] - 10}})
    *_, final = env.step({"answer": "done"})
    assert final["passed"] is True
    run_dir = Path(info["run_dir"])
    assert json.loads((run_dir / "run.json").read_text())["config"]["variant"] == variant
    _replays(run_dir)

    # Played on the canonical world instead, the same calls diverge at once: the variant counts.
    def canonical_world(events: list[dict[str, Any]]) -> None:
        events[0]["config"]["variant"] = None

    _rewrite_trace(run_dir, canonical_world)
    run_json = json.loads((run_dir / "run.json").read_text())
    run_json["config"]["variant"] = None
    (run_dir / "run.json").write_text(silo_gym.dumps_pretty(run_json))
    report = replay_run(run_dir)
    assert report.divergence is not None and report.divergence.where == "call 1 (get_item)"


def _project_with_demo(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    env_dir = project / ".silo" / "environments" / "demo"
    shutil.copytree(DEMO, env_dir, ignore=shutil.ignore_patterns("__pycache__"))
    return project, env_dir


def _record_solver(project: Path, task_id: str) -> Path:
    recorded = _cli("run", "--env", "demo", "--task", task_id, "--agent",
                    str(REPO_ROOT / "examples" / "agents" / "crm_solver.py"), "--json", cwd=project)
    assert recorded.returncode == 0, recorded.stderr
    return Path(json.loads(recorded.stdout)["runs"][0]["runDir"])


def test_a_run_whose_environment_data_changed_is_refused_or_forced(tmp_path: Path) -> None:
    project, env_dir = _project_with_demo(tmp_path)
    run_dir = _record_solver(project, "TASK-003")
    recorded_hash = json.loads((run_dir / "run.json").read_text())["config"]["environmentHash"]
    assert recorded_hash.startswith("sha256:")
    assert _cli("replay", str(run_dir), cwd=project).returncode == 0

    data = env_dir / "data" / "opportunities.json"
    data.write_text(data.read_text().replace("Lumen point-of-sale refresh", "Lumen till refresh"))
    refused = _cli("replay", str(run_dir), cwd=project)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("error: environment_changed: environment hash mismatch: ")
    assert recorded_hash in refused.stderr and "Pass --force" in refused.stderr
    current = refused.stderr.split("now hashes to ")[1].split(" ")[0]
    assert current.startswith("sha256:") and current != recorded_hash

    forced = _cli("replay", str(run_dir), "--force", cwd=project)
    assert forced.returncode == 1, forced.stderr
    assert "environment hash mismatch" in forced.stdout and "Replaying anyway (--force)" in forced.stdout
    assert "First divergence at call 1 (close_opportunity_won): the output differs" in forced.stdout
    assert '"Lumen point-of-sale refresh"' in forced.stdout and '"Lumen till refresh"' in forced.stdout

    # Regrade replays the world too, so it refuses changed data alike (a changed verifier is fine).
    refused_regrade = _cli("regrade", str(run_dir), cwd=project)
    assert refused_regrade.returncode == 1 and "environment_changed" in refused_regrade.stderr


def test_a_run_that_ended_ungraded_is_reported_not_replayed(tmp_path: Path, make_env_dir: Any) -> None:
    env_dir = make_env_dir(tmp_path / ".silo" / "environments", "sluggish")

    def stuck(task: str, tools: Any, call_tool: Any, signal: threading.Event) -> Any:
        call_tool("slow", {"seconds": 3})
        return {"output": "late"}

    run = silo_gym.run_task("sluggish", "TASK-001", stuck, cwd=tmp_path, runs_dir=tmp_path / "runs", timeout_ms=50)
    assert run.reward is None and env_dir.is_dir()
    run_dir = Path(run.run_dir)
    assert not (run_dir / "state-diff.json").exists() and (run_dir / "run.json").exists()
    report = replay_run(run_dir, cwd=tmp_path)
    assert not report.identical and report.problem is not None and "ended ungraded" in report.problem
    with pytest.raises(SiloError) as caught:
        regrade_run(run_dir, cwd=tmp_path)
    assert "cannot regrade" in caught.value.message


def test_the_commands_refuse_bad_usage(tmp_path: Path) -> None:
    missing = _cli("replay", cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (1, "error: Missing <RUN_DIR>.\n")
    bogus = _cli("regrade", str(tmp_path), "--bogus", cwd=tmp_path)
    assert bogus.returncode == 1 and bogus.stderr.startswith("error: Unknown flag --bogus for silo-gym regrade.")
    helped = _cli("replay", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "--force" in helped.stdout and "RUN_DIR" in helped.stdout
    assert list(tmp_path.iterdir()) == []
