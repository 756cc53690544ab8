"""silo_gym.eval.evaluate end to end on the demo world: eval.json's shape, its figures against the
runs' result.json files and traces, determinism, worlds, baselines, health, resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from silo_gym.data import collect
from silo_gym.data.stream import read_stream
from silo_gym.eval import EvalError, evaluate, load_report, pass_at_k, pass_hat_k
from silo_gym.eval.report import TIMING_KEYS
from silo_gym.llm import ChatPolicy, ModelReply

ROOT = Path(__file__).resolve().parents[2]
SOLVER = f"{ROOT / 'examples' / 'agents' / 'crm_solver.py'}:make_policy"

#: What the reference solver answers on the canonical demo tasks 4-6 (read-only report tasks: an
#: answer alone is graded in full).
KNOWN_ANSWERS = {
    "TASK-004": "The probability-weighted value of all open deals across the team is $507500.",
    "TASK-005": "Tomas Bergstrom has the most stalled open deals: 2 of them.",
}


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def _result_rewards(out: Path) -> dict[tuple[str, int], tuple[float, bool]]:
    found = {}
    for row in read_stream(out / "episodes.jsonl"):
        result = json.loads((out / "runs" / row["run_id"] / "result.json").read_text())
        found[(f"{row['environment']}/{row['task_id']}", row["episode"])] = (result["reward"], result["passed"])
    return found


def test_eval_json_shape_and_figures_come_from_the_runs(tmp_path: Path) -> None:
    out = tmp_path / "random"
    report = evaluate("silo/demo", "random", trials=3, out_dir=out, reference=SOLVER)
    data = json.loads((out / "eval.json").read_text())
    assert data == report.data and report.path == out / "eval.json"
    assert (out / "eval.json").read_bytes() == report.to_json_bytes()
    assert data["policy"] == "random" and data["trials"] == 3 and data["variants"] == "canonical"
    assert list(data["tasks"]) == [f"demo/TASK-00{i}" for i in range(1, 7)]
    measured = _result_rewards(out)
    assert len(measured) == 18
    for key, task in data["tasks"].items():
        for name in ("trials", "successes", "mean_reward", "pass_at_k", "pass_hat_k", "health",
                     "termination_reasons"):
            assert name in task
        assert task["trials"] == 3 and list(task["pass_at_k"]) == ["1", "2", "3"]
        rewards = [measured[(key, i)][0] for i in range(3)]
        passes = sum(measured[(key, i)][1] for i in range(3))
        assert [e["reward"] for e in task["episodes"]] == rewards
        assert task["mean_reward"] == pytest.approx(sum(rewards) / 3)
        assert task["successes"] == passes
        assert task["pass_at_k"] == {str(k): pass_at_k(3, passes, k) for k in (1, 2, 3)}
        assert task["pass_hat_k"] == {str(k): pass_hat_k(3, passes, k) for k in (1, 2, 3)}
        assert sum(task["termination_reasons"].values()) == 3
        low, high = task["reward_ci95"]
        assert 0 <= low <= task["mean_reward"] <= high <= 1
        assert task["baselines"]["reference"] == {"mean_reward": 1.0, "pass_rate": 1.0, "episodes": 1}
        assert task["variants"] == [None, None, None]
        assert task["health"]["model_turns"] == 0 and task["tokens"]["in"] is None
        assert task["cost_usd"] is None
    overall = data["overall"]
    assert overall["trials"] == 18 and overall["tasks"] == 6
    assert overall["mean_reward"] == pytest.approx(sum(r for r, _ in measured.values()) / 18)
    assert overall["pass_hat_k"]["3"] == pytest.approx(sum(t["pass_hat_k"]["3"] for t in data["tasks"].values()) / 6)
    # The do-nothing baseline: the demo's read-only tasks give partial credit for an empty answer.
    assert data["tasks"]["demo/TASK-001"]["baselines"]["do_nothing"]["mean_reward"] == 0.0
    assert data["tasks"]["demo/TASK-002"]["baselines"]["do_nothing"]["mean_reward"] == 0.6
    text = report.table()
    assert text.startswith("Evaluation of random: 6 tasks x 3 trials (seed 0, canonical worlds)")
    assert "demo/TASK-002" in text and "pass^3" in text and f"Wrote {out / 'eval.json'}" in text


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    first = evaluate(["silo/demo-TASK-002", "silo/demo-TASK-003"], "random", trials=4, out_dir=tmp_path / "a",
                     seed=7)
    second = evaluate(["silo/demo-TASK-002", "silo/demo-TASK-003"], "random", trials=4, out_dir=tmp_path / "b",
                      seed=7)
    other = evaluate(["silo/demo-TASK-002", "silo/demo-TASK-003"], "random", trials=4, out_dir=tmp_path / "c",
                     seed=8)
    a, b = (json.loads((tmp_path / d / "eval.json").read_text()) for d in "ab")
    assert a["timing"] != b["timing"] or a["timing"]["duration_s"] >= 0
    a.pop("timing"), b.pop("timing")
    assert json.dumps(a) == json.dumps(b)  # nothing else differs: not even key order
    assert first.tasks == second.tasks
    assert other.tasks != first.tasks  # another seed plays other episodes


def test_same_seed_same_bytes_with_a_model_apart_from_times_and_costs(tmp_path: Path) -> None:
    pytest.importorskip("aiohttp")
    from silo_gym.llm import openai_acomplete
    from silo_gym.mock_model import MockModelServer

    reports = []
    for name in ("a", "b"):
        with MockModelServer(latency_ms=1, faults=["malformed@2"]) as server:
            policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
            reports.append(evaluate(["silo/demo-TASK-001", "silo/demo-TASK-004"], policy, trials=2,
                                    out_dir=tmp_path / name, price_in=1.0, price_out=2.0))
    a, b = (r.data for r in reports)
    assert a["overall"]["latency_ms"]["calls"] == b["overall"]["latency_ms"]["calls"] > 0
    assert a["overall"]["cost_usd"] == pytest.approx(
        (a["overall"]["tokens"]["in"] * 1.0 + a["overall"]["tokens"]["out"] * 2.0) / 1e6)
    assert json.dumps(_without_timing(a)) == json.dumps(_without_timing(b))
    assert a["overall"]["health"]["malformed_calls"] == 1


def _scripted_complete(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
    """Turn 1 calls a tool that does not exist; turn 2 answers. Fixed usage and latency."""
    if messages[-1]["role"] == "user":
        call = {"id": "c1", "type": "function", "function": {"name": "no_such_tool", "arguments": "{}"}}
        return ModelReply({"role": "assistant", "content": None, "tool_calls": [call]},
                          usage={"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}, latency_ms=10.0)
    return ModelReply({"role": "assistant", "content": "done"},
                      usage={"prompt_tokens": 150, "completion_tokens": 20}, latency_ms=30.0)


def test_tokens_latency_cost_and_turns_from_the_trace(tmp_path: Path) -> None:
    policy = ChatPolicy(_scripted_complete, model="scripted")
    report = evaluate("silo/demo-TASK-001", policy, trials=2, out_dir=tmp_path / "e", price_in=2.0, price_out=10.0)
    task = report.tasks["demo/TASK-001"]
    assert report.policy == "chat:scripted"
    assert task["tokens"] == {"in": 500, "out": 60, "model_calls": 4, "calls_with_usage": 4}
    assert task["latency_ms"] == {"p50": 20.0, "p95": 30.0, "calls": 4}
    assert task["cost_usd"] == pytest.approx((500 * 2.0 + 60 * 10.0) / 1e6)
    health = task["health"]
    assert health["unknown_tools"] == 2 and health["tool_calls"] == 2 and health["tool_errors"] == 2
    assert health["model_turns"] == 4 and health["turns_without_tool_call"] == 2  # the answers
    assert health["malformed_calls"] == 0 and health["alarms"] == []
    assert report.overall["tokens"] == task["tokens"]
    assert "Model: 4 calls, tokens in 500, out 60; latency per model call p50 20 ms, p95 30 ms; cost $0.0016." \
        in report.table()


def _answer_only(observation: Any, info: dict[str, Any]) -> dict[str, Any]:
    return {"answer": KNOWN_ANSWERS.get(str(info.get("task_id")), "")}


def test_reward_without_tool_calls_raises_an_alarm(tmp_path: Path) -> None:
    report = evaluate(["silo/demo-TASK-002", "silo/demo-TASK-004"], _answer_only, trials=2,
                      out_dir=tmp_path / "memorised")
    memorised = report.tasks["demo/TASK-004"]
    assert memorised["mean_reward"] == 1.0 and memorised["baselines"]["do_nothing"]["mean_reward"] < 1.0
    assert memorised["health"]["answer_only_episodes"] == 2
    assert memorised["health"]["answer_only_rewarded"] == 2
    assert memorised["health"]["alarms"] == ["reward_without_tool_calls"]
    # TASK-002's answer-only episodes score exactly the do-nothing reward: no alarm.
    plain = report.tasks["demo/TASK-002"]
    assert plain["health"]["answer_only_episodes"] == 2 and plain["health"]["answer_only_rewarded"] == 0
    assert plain["health"]["alarms"] == []
    assert report.overall["health"]["alarms"] == ["demo/TASK-004: reward_without_tool_calls"]
    assert "ALARM demo/TASK-004: reward_without_tool_calls" in report.table()


def test_mock_model_faults_show_in_the_health_counters(tmp_path: Path) -> None:
    pytest.importorskip("aiohttp")
    from silo_gym.llm import openai_acomplete
    from silo_gym.mock_model import MockModelServer

    # TASK-004 takes the scripted model two turns (a call, the answer): request 1 is malformed
    # (sent again, so trial 0 takes 3 requests) and request 4, trial 1's first, hangs.
    with MockModelServer(latency_ms=1, faults=["malformed@1", "hang@4"]) as server:
        policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
        report = evaluate("silo/demo-TASK-004", policy, trials=2, out_dir=tmp_path / "faults",
                          episode_timeout_s=1.5)
        assert server.served_faults == [(1, "malformed"), (4, "hang")]
    task = report.tasks["demo/TASK-004"]
    health = task["health"]
    assert (task["trials"], task["graded"], task["successes"]) == (2, 1, 1)
    assert health["malformed_calls"] == 1 and health["tool_errors"] == 1
    assert health["model_failures"] == 1 and health["timeouts"] == 1 and health["model_errors"] == 0
    assert health["alarms"] == ["malformed_calls", "model_failures"]
    assert task["pass_at_k"] == {"1": 0.5, "2": 1.0} and task["pass_hat_k"] == {"1": 0.5, "2": 0.0}
    assert task["mean_reward"] == 1.0  # the graded trial; the failed one has no reward to average
    failed = task["episodes"][1]
    assert failed["failure"] == "timeout" and failed["reward"] is None and "timed out" in failed["error"]
    assert health["model_turns"] == 3 and health["turns_without_tool_call"] == 1


def test_drawn_worlds_are_the_same_for_every_policy_and_recorded(tmp_path: Path) -> None:
    ids = ["silo/demo-TASK-001", "silo/demo-TASK-005"]
    random_report = evaluate(ids, "random", trials=3, out_dir=tmp_path / "random", variants=True, seed=3)
    solver_report = evaluate(ids, SOLVER, trials=3, out_dir=tmp_path / "solver", variants=True, seed=3)
    assert random_report.data["variants"] == "drawn"
    collected = collect(ids, "random", episodes_per_task=3, seed=3, variants=True)
    for key in ("demo/TASK-001", "demo/TASK-005"):
        worlds = random_report.tasks[key]["variants"]
        assert worlds == solver_report.tasks[key]["variants"]
        assert worlds == [r["variant"] for r in collected if f"demo/{r['task_id']}" == key]  # collect --variants
        assert all(isinstance(v, int) for v in worlds) and len(set(worlds)) == 3
        played = [r["variant"] for r in read_stream(tmp_path / "solver" / "episodes.jsonl")
                  if f"demo/{r['task_id']}" == key]
        assert played == worlds
        assert solver_report.tasks[key]["successes"] == 3  # the solver reads every world
        assert [e["variant"] for e in solver_report.tasks[key]["episodes"]] == worlds
    # A count of drawn worlds: trial i plays world i mod m.
    two = evaluate(ids, "random", trials=4, out_dir=tmp_path / "two", variants=2, seed=3)
    first = random_report.tasks["demo/TASK-001"]["variants"]
    assert two.tasks["demo/TASK-001"]["variants"] == [first[0], first[1], first[0], first[1]]
    assert two.tasks["demo/TASK-001"]["baselines"]["do_nothing"]["episodes"] == 2


def test_explicit_variants_cycle_and_are_played(tmp_path: Path) -> None:
    out = tmp_path / "explicit"
    report = evaluate("silo/demo-TASK-003", SOLVER, variants=[3, 8], trials=4, out_dir=out)
    assert report.data["variants"] == "explicit"
    assert report.tasks["demo/TASK-003"]["variants"] == [3, 8, 3, 8]
    for row in read_stream(out / "episodes.jsonl"):
        run = json.loads((out / "runs" / row["run_id"] / "run.json").read_text())
        assert run["config"]["variant"] == [3, 8, 3, 8][row["episode"]] == row["variant"]
    # Without trials, a list sets the count; a mapping per task; another eval's worlds from its file.
    assert evaluate("silo/demo-TASK-003", "random", variants=[5, 6, 7]).trials == 3
    mapped = evaluate("silo/demo-TASK-003", "random", variants={"demo/TASK-003": [None, 9]}, trials=2)
    assert mapped.tasks["demo/TASK-003"]["variants"] == [None, 9] and mapped.path is None


def test_bad_variants_are_refused_before_anything_plays(tmp_path: Path) -> None:
    out = tmp_path / "refused"
    with pytest.raises(EvalError, match=r"3 worlds given for demo/TASK-003 but only 2 trial"):
        evaluate("silo/demo-TASK-003", "random", variants=[1, 2, 3], trials=2, out_dir=out)
    # Variant 87 fails TASK-006's preconditions (not TASK-005's).
    with pytest.raises(EvalError, match=r"variant 87 for demo/TASK-006"):
        evaluate(["silo/demo-TASK-005", "silo/demo-TASK-006"], "random", variants=[87], out_dir=out)
    with pytest.raises(EvalError, match=r"name no worlds for demo/TASK-004"):
        evaluate(["silo/demo-TASK-003", "silo/demo-TASK-004"], "random", variants={"demo/TASK-003": [1]},
                 trials=1, out_dir=out)
    with pytest.raises(EvalError, match=r"holds -1"):
        evaluate("silo/demo-TASK-003", "random", variants=[-1], out_dir=out)
    with pytest.raises(EvalError, match="trials is required"):
        evaluate("silo/demo-TASK-003", "random", out_dir=out)
    with pytest.raises(EvalError, match="both prices"):
        evaluate("silo/demo-TASK-003", "random", trials=1, price_in=1.0, out_dir=out)
    with pytest.raises(EvalError, match="named twice"):
        evaluate(["silo/demo", "silo/demo-TASK-003"], "random", trials=1, out_dir=out)
    assert not out.exists()


def test_an_earlier_evaluation_is_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "e"
    evaluate("silo/demo-TASK-003", "random", trials=1, out_dir=out)
    before = (out / "eval.json").read_bytes()
    with pytest.raises(EvalError, match="already holds an evaluation"):
        evaluate("silo/demo-TASK-003", "random", trials=1, out_dir=out)
    assert (out / "eval.json").read_bytes() == before


def test_no_runs_and_reading_back_a_complete_evaluation(tmp_path: Path) -> None:
    out = tmp_path / "e"
    report = evaluate("silo/demo-TASK-002", "random", trials=2, out_dir=out, keep_runs=False)
    assert not (out / "runs").exists() and (out / "eval.json").is_file() and (out / "episodes.jsonl").is_file()
    again = evaluate("silo/demo-TASK-002", "random", trials=2, out_dir=out, resume=True)
    assert again.data == report.data == load_report(out).data
    from silo_gym.data import ResumeError

    with pytest.raises(ResumeError, match="holds another evaluation"):
        evaluate("silo/demo-TASK-002", "random", trials=2, out_dir=out, resume=True, seed=1)
    with pytest.raises(ResumeError, match="holds another evaluation"):
        evaluate("silo/demo-TASK-002", "random", trials=2, out_dir=out, resume=True, variants=[4])


class _Interrupting:
    """Answers at once; the given call raises KeyboardInterrupt (as Ctrl-C would)."""

    def __init__(self, stop_at: int | None) -> None:
        self.calls = 0
        self.stop_at = stop_at

    def __call__(self, observation: Any, info: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        return {"answer": ""}


def test_resume_finishes_an_interrupted_evaluation(tmp_path: Path) -> None:
    ids = ["silo/demo-TASK-002", "silo/demo-TASK-003"]
    with pytest.raises(KeyboardInterrupt):
        evaluate(ids, _Interrupting(4), trials=3, out_dir=tmp_path / "cut", policy_name="answers")
    assert len(read_stream(tmp_path / "cut" / "episodes.jsonl")) == 3
    assert not (tmp_path / "cut" / "eval.json").exists()
    resumed = evaluate(ids, _Interrupting(None), trials=3, out_dir=tmp_path / "cut", policy_name="answers",
                       resume=True)
    whole = evaluate(ids, _Interrupting(None), trials=3, out_dir=tmp_path / "whole", policy_name="answers")
    assert _without_timing(resumed.data) == _without_timing(whole.data)
    assert len(list((tmp_path / "cut" / "runs").iterdir())) == 6
    # A resume with other worlds is another evaluation: refused, nothing changed.
    from silo_gym.data import ResumeError

    with pytest.raises(ResumeError, match="holds another collection"):
        evaluate(ids, _Interrupting(None), trials=3, out_dir=tmp_path / "cut", policy_name="answers",
                 variants=[1], resume=True)
