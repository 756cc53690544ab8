"""The MCP server in process, through the official client (``mcp.Client(server)``)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp import Client  # noqa: E402

from silo_gym import SiloError, canonical  # noqa: E402
from silo_gym.env import SiloEnv  # noqa: E402
from silo_gym.replay import replay_run  # noqa: E402
from silo_gym.serve.episodes import SESSION_CLOSED, SUBMIT_ANSWER, SUBMIT_ANSWER_TOOL, EpisodeSettings  # noqa: E402
from silo_gym.serve.server import PROMPT_NAME, SiloMcpServer, build_server  # noqa: E402

from .helpers import as_silo_result, golden_mismatches, play_solver, run_dir_of  # noqa: E402


def _server(runs: Path, task_id: str = "TASK-003", environment: str = "demo", **kwargs: Any) -> SiloMcpServer:
    return build_server(EpisodeSettings(environment, task_id, runs_dir=runs, **kwargs))


def _run_dirs(runs: Path) -> list[Path]:
    return sorted(p for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else []


def _result(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "result.json").read_text())


def _trace(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]


def test_tools_instruction_and_prompt_are_the_tasks(runs_dir: Path) -> None:
    env = SiloEnv("demo", "TASK-003")
    instruction, info = env.reset()

    async def main() -> None:
        async with Client(_server(runs_dir).server) as client:
            assert client.instructions == instruction
            listed = await client.list_tools()
            tools = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
            expected = [*info["tools"], SUBMIT_ANSWER_TOOL]
            assert [t["name"] for t in tools] == [t["name"] for t in expected]
            for got, want in zip(tools, expected, strict=True):
                assert got["description"] == want["description"]
                assert canonical(got["inputSchema"]) == canonical(want["inputSchema"])  # unchanged, key order too
            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == [PROMPT_NAME]
            prompt = await client.get_prompt(PROMPT_NAME)
            assert [m.role for m in prompt.messages] == ["user"]
            assert prompt.messages[0].content.text == instruction  # type: ignore[union-attr]

    anyio.run(main)


def test_reference_plan_over_mcp_matches_the_gymnasium_golden_files(runs_dir: Path) -> None:
    async def main() -> Any:
        async with Client(_server(runs_dir).server) as client:
            return await play_solver(client, client.instructions or "")

    submitted = anyio.run(main)
    assert not submitted.is_error
    assert submitted.structured_content["reward"] == 1 and submitted.structured_content["passed"] is True
    run_dir = run_dir_of(submitted)
    assert _run_dirs(runs_dir) == [run_dir]
    assert golden_mismatches("solver", "TASK-003", run_dir) == []
    # The reply is the result.json dict, as text and as structured content.
    assert json.loads(submitted.content[0].text) == _result(run_dir) == submitted.structured_content
    # A run played over MCP proves itself like any other.
    assert replay_run(run_dir).identical


def test_tool_errors_are_results_with_is_error_and_count_as_calls(runs_dir: Path) -> None:
    async def main() -> list[Any]:
        async with Client(_server(runs_dir).server) as client:
            replies = [
                await client.call_tool("get_opportunity", {"opportunityId": "OPP-999"}),
                await client.call_tool("get_opportunity", {"opportunityId": 7}),
                await client.call_tool("book_meeting", {}),
                await client.call_tool("get_opportunity", {"opportunityId": "OPP-007"}),
                await client.call_tool(SUBMIT_ANSWER, {"answer": {"done": [1, 2.5]}}),
            ]
            return replies

    replies = anyio.run(main)
    assert [r.is_error for r in replies] == [True, True, True, False, False]
    assert as_silo_result(replies[0])["output"]["code"] == "not_found"
    assert as_silo_result(replies[1])["output"]["code"] == "invalid_input"
    assert as_silo_result(replies[2])["output"] == {"code": "tool_not_found", "message": 'Unknown tool "book_meeting".'}
    assert as_silo_result(replies[3])["output"]["id"] == "OPP-007"
    run_dir = run_dir_of(replies[0])
    result = _result(run_dir)
    assert (result["toolCalls"], result["toolErrors"]) == (4, 3)
    assert result["agentOutput"] == {"done": [1, 2.5]}
    assert result["terminationReason"] == "completed"
    calls = [e for e in _trace(run_dir) if e["type"] == "tool_call"]
    assert [(c["tool"], c["input"]) for c in calls][2] == ("book_meeting", {})


def test_budget_refuses_calls_and_the_answer_keeps_the_limit_reason(runs_dir: Path) -> None:
    async def main() -> list[Any]:
        async with Client(_server(runs_dir, max_tool_calls=1).server) as client:
            return [
                await client.call_tool("get_current_date", {}),
                await client.call_tool("get_current_date", {}),
                await client.call_tool(SUBMIT_ANSWER, {"answer": "stopped"}),
            ]

    first, refused, submitted = anyio.run(main)
    assert not first.is_error
    assert refused.is_error
    assert as_silo_result(refused)["output"] == {"code": "max_tool_calls", "message": "Tool call limit exceeded (1)."}
    result = submitted.structured_content
    assert (result["terminationReason"], result["error"], result["toolCalls"]) == ("max_tool_calls", None, 1)
    assert result["agentOutput"] == "stopped"
    # The refused call left no trace line (silo-format §5.2).
    assert [e["type"] for e in _trace(run_dir_of(first))].count("tool_call") == 1


def test_after_the_answer_every_call_is_refused_and_nothing_more_is_recorded(runs_dir: Path) -> None:
    async def main() -> list[Any]:
        async with Client(_server(runs_dir).server) as client:
            return [
                await client.call_tool(SUBMIT_ANSWER, {"answer": ""}),
                await client.call_tool(SUBMIT_ANSWER, {"answer": "again"}),
                await client.call_tool("get_current_date", {}),
            ]

    submitted, again, call = anyio.run(main)
    assert not submitted.is_error and again.is_error and call.is_error
    assert as_silo_result(call)["output"]["code"] == "completed"
    run_dir = run_dir_of(submitted)
    assert golden_mismatches("do-nothing", "TASK-003", run_dir) == []
    assert _trace(run_dir)[-1]["type"] == "verifier_result"


def test_once_ended_every_call_is_refused_alike_whatever_its_arguments(runs_dir: Path) -> None:
    """docs/serve-view-replay.md: after submit_answer "every call is refused" with the ending's
    code; a malformed submit_answer is no exception (it answered invalid_input)."""
    calls: list[tuple[str, dict[str, Any]]] = [
        (SUBMIT_ANSWER, {}), (SUBMIT_ANSWER, {"text": "x"}), (SUBMIT_ANSWER, {"answer": 1, "more": 2}),
        (SUBMIT_ANSWER, {"answer": "again"}), ("get_current_date", {"bogus": True}), ("no_such_tool", {}),
    ]

    async def main() -> tuple[Any, list[Any]]:
        async with Client(_server(runs_dir).server) as client:
            submitted = await client.call_tool(SUBMIT_ANSWER, {"answer": ""})
            return submitted, [await client.call_tool(name, arguments) for name, arguments in calls]

    submitted, refused = anyio.run(main)
    assert not submitted.is_error
    payloads = [as_silo_result(reply) for reply in refused]
    assert all(reply.is_error for reply in refused)
    assert payloads == [payloads[0]] * len(calls)
    assert payloads[0]["output"]["code"] == "completed"
    assert payloads[0]["output"]["message"].startswith("Run ended: completed.")
    assert _trace(run_dir_of(submitted))[-1]["type"] == "verifier_result"  # nothing more recorded


def test_a_malformed_submission_is_refused_without_ending_or_counting(runs_dir: Path) -> None:
    async def main() -> list[Any]:
        async with Client(_server(runs_dir).server) as client:
            return [
                await client.call_tool(SUBMIT_ANSWER, {"text": "x"}),
                await client.call_tool(SUBMIT_ANSWER, {"answer": None}),
            ]

    bad, good = anyio.run(main)
    assert bad.is_error and '"answer"' in as_silo_result(bad)["output"]["message"]
    assert not good.is_error
    assert good.structured_content["toolCalls"] == 0 and good.structured_content["agentOutput"] is None


def test_a_session_that_leaves_without_answering_is_recorded_as_agent_error(runs_dir: Path) -> None:
    async def main() -> None:
        async with Client(_server(runs_dir).server) as client:
            await client.call_tool("get_current_date", {})

    anyio.run(main)
    [run_dir] = _run_dirs(runs_dir)
    result = _result(run_dir)
    assert (result["terminationReason"], result["error"]) == ("agent_error", SESSION_CLOSED)
    assert result["toolCalls"] == 1
    assert json.loads((run_dir / "run.json").read_text())["terminationReason"] == "agent_error"


def test_each_connection_is_its_own_episode_and_world(runs_dir: Path) -> None:
    silo = _server(runs_dir)

    async def close_deal() -> Any:
        async with Client(silo.server) as client:
            await client.call_tool("close_opportunity_won",
                                   {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"})
            return await client.call_tool(SUBMIT_ANSWER, {"answer": "closed"})

    async def look() -> Any:
        async with Client(silo.server) as client:
            seen = await client.call_tool("get_opportunity", {"opportunityId": "OPP-007"})
            await client.call_tool(SUBMIT_ANSWER, {"answer": ""})
            return seen

    first = anyio.run(close_deal)
    seen = anyio.run(look)
    assert as_silo_result(seen)["output"]["stageName"] == "Negotiation"
    assert as_silo_result(seen)["output"]["amount"]["amount"] == 110000
    assert run_dir_of(first) != run_dir_of(seen)
    # The second world is untouched: its state diff is the do-nothing golden one.
    assert "state-diff.json" not in golden_mismatches("do-nothing", "TASK-003", run_dir_of(seen))
    assert "state-diff.json" in golden_mismatches("do-nothing", "TASK-003", run_dir_of(first))


def test_the_deadline_refuses_calls_and_an_unanswered_episode_ends_at_deadline_plus_grace(runs_dir: Path) -> None:
    async def main() -> list[Any]:
        async with Client(_server(runs_dir, timeout_ms=200).server) as client:
            first = await client.call_tool("get_current_date", {})
            await anyio.sleep(0.4)
            late = await client.call_tool("get_current_date", {})
            # Deadline + grace (2000 ms): the episode ends without an answer.
            await anyio.sleep(3.0)  # well past deadline + grace, on a busy machine too
            after = await client.call_tool(SUBMIT_ANSWER, {"answer": "too late"})
            return [first, late, after]

    started = time.monotonic()
    first, late, after = anyio.run(main)
    assert time.monotonic() - started < 10
    assert as_silo_result(late)["output"] == {"code": "timeout", "message": "Run ended: timeout."}
    assert after.is_error and as_silo_result(after)["output"]["code"] == "timeout"
    result = _result(run_dir_of(first))
    assert (result["terminationReason"], result["error"]) == ("timeout", "Agent did not submit an answer within 200 ms.")
    assert result["toolCalls"] == 1


def test_an_environment_with_its_own_submit_answer_tool_is_refused(tmp_path: Path, make_env_dir: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    tools = '''
    from silo_gym import define_tool
    tools = [define_tool(name="submit_answer", description="Clash.",
                         input_schema={"type": "object", "properties": {}}, run=lambda s, i: None)]
    '''
    make_env_dir(tmp_path / ".silo" / "environments", "clashing", tools=tools)
    with pytest.raises(SiloError) as caught:
        build_server(EpisodeSettings("clashing", "TASK-001", runs_dir=tmp_path / "runs", cwd=str(tmp_path)))
    assert caught.value.code == "tool_name_reserved"
    assert '"clashing"' in caught.value.message and '"submit_answer"' in caught.value.message
    assert not (tmp_path / "runs").exists()


def test_a_variant_is_served_with_its_rendered_instruction_and_recorded(runs_dir: Path) -> None:
    env = SiloEnv("variety", "TASK-002")
    instruction, _ = env.reset(options={"variant": 4})
    assert instruction != env.tasks[0].instruction  # the variant renames the chair

    async def main() -> Any:
        async with Client(_server(runs_dir, task_id="TASK-002", environment="variety", variant=4).server) as client:
            assert client.instructions == instruction
            prompt = await client.get_prompt(PROMPT_NAME)
            assert prompt.messages[0].content.text == instruction  # type: ignore[union-attr]
            item = as_silo_result(await client.call_tool("get_item", {"itemId": "I-2"}))["output"]
            await client.call_tool("set_price", {"itemId": "I-2", "price": item["price"] - 10})
            return await client.call_tool(SUBMIT_ANSWER, {"answer": "done"})

    submitted = anyio.run(main)
    assert submitted.structured_content["passed"] is True
    run = json.loads((run_dir_of(submitted) / "run.json").read_text())
    assert run["config"]["variant"] == 4


def test_a_variant_whose_preconditions_fail_is_refused_before_serving(runs_dir: Path) -> None:
    with pytest.raises(SiloError) as caught:
        _server(runs_dir, task_id="TASK-001", environment="variety", variant=3)
    assert caught.value.code == "variant_preconditions_unmet"
    assert not runs_dir.exists()
