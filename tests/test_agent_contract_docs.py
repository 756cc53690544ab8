"""The agent contract and the verifier's context are documented where a user looks first (issue
19, item 20), with types, and what the pages say is what the runtime does."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import silo_gym
from silo_gym import check, define_verifier

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
AUTHORING = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")


def test_the_readme_and_the_authoring_guide_state_the_contract_with_types() -> None:
    for page in (README, AUTHORING):
        assert "`threading.Event`" in page or "`signal: threading.Event`" in page
        assert "`{\"output\": answer}`" in page or "`{\"output\": ...}`" in page
        assert "RunLimitError" in page and '"max_tool_calls"' in page and '"timeout"' in page
        assert "context.agent_output" in page
    assert "| `task: str` | the task's instruction" in README
    assert "| `task` | `str` | the task's instruction" in AUTHORING
    assert "| `context.agent_output` | `str` |" in AUTHORING
    assert "| `context.task` | `silo_gym.models.Task` |" in AUTHORING


def test_what_the_pages_say_is_what_an_agent_and_a_verifier_receive(tmp_path: Path, make_env_dir: Any) -> None:
    seen: dict[str, Any] = {}
    verifiers_src = '''
from silo_gym import check, define_verifier

SEEN = []


def _check(final, initial, context):
    SEEN.append((context.agent_output, context.task.id, context.task.instruction))
    return [check("answered", context.agent_output == '{"a":1}')]


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="n", check=_check)]
'''
    make_env_dir(tmp_path / ".silo" / "environments", "contract", verifiers=verifiers_src)

    def agent(task: Any, tools: Any, call_tool: Any, signal: Any) -> dict[str, Any]:
        seen.update(task=task, tools=tools, signal=signal, result=call_tool("bump", {"by": 1}),
                    failure=call_tool("nope"))
        return {"output": {"a": 1}}

    run = silo_gym.run_task("contract", "TASK-001", agent, cwd=tmp_path, runs_dir=tmp_path / "runs", max_tool_calls=2)
    assert seen["task"] == "Bump the counter exactly once." and isinstance(seen["task"], str)
    assert isinstance(seen["tools"], list)
    assert all(set(t) == {"name", "description", "inputSchema"} for t in seen["tools"])
    assert isinstance(seen["signal"], threading.Event) and seen["signal"].is_set() is False
    assert seen["result"] == {"output": {"count": 1}}
    assert seen["failure"]["isError"] is True and set(seen["failure"]["output"]) == {"code", "message"}
    assert run.passed is True  # the verifier read the answer's compact JSON text
    assert run.result is not None and run.result["agentOutput"] == {"a": 1}


def test_a_limit_raises_run_limit_error_with_its_reason_and_sets_the_signal(tmp_path: Path) -> None:
    caught: dict[str, Any] = {}

    def agent(task: Any, tools: Any, call_tool: Any, signal: threading.Event) -> dict[str, Any]:
        call_tool("get_order", {"orderId": "O-1"})
        try:
            call_tool("get_order", {"orderId": "O-1"})
        except silo_gym.RunLimitError as exc:
            caught.update(reason=exc.reason, signal=signal.is_set())
        return {"output": "stopped"}

    run = silo_gym.run_task("orders", "TASK-001", agent, runs_dir=tmp_path, max_tool_calls=1)
    assert caught == {"reason": "max_tool_calls", "signal": True}
    assert run.run["terminationReason"] == "max_tool_calls"


def test_check_and_define_verifier_are_what_the_guide_names() -> None:
    item = check("label", 1, "detail")
    assert (item.label, item.passed, item.detail, item.required) == ("label", True, "detail", True)
    assert callable(define_verifier)
