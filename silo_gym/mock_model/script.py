"""What the scripted model says: a plan's next action for a conversation, in each API's reply
format.

A *plan* is a function ``plan(instruction) -> generator`` as in the demo's reference solver
(``examples/agents/crm_solver.py``): it yields actions (``{"tool", "input"}``), receives each tool
result dict through ``send``, and ends with ``{"answer": ...}``. The scripted model is stateless:
for every request it reads the instruction (the first user message) and the tool results so far
from the conversation, replays them into a fresh plan, and answers with the plan's next action.
A tool result that is an ``invalid_action`` error (a malformed call the server sent on purpose)
is skipped, so the model "corrects itself" by sending the call again.

Ids are derived from the conversation (``call_<n>`` for the n-th call), never from a global
counter, so the same episode gets the same ids however many run at once.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import orjson

from ..jsonfmt import dumps_compact, loads_strict

__all__ = ["DEFAULT_PLAN", "Plan", "Turn", "load_plan", "read_chat", "read_anthropic", "read_responses", "read_text"]

Plan = Callable[[str], Generator[dict[str, Any], Any, None]]

#: The demo's reference solver (the default plan): shipped in the wheel as ``demo_plan.py`` beside
#: this module (see setup.py), read from ``examples/agents/`` in a source checkout.
_SHIPPED_PLAN = Path(__file__).resolve().parent / "demo_plan.py"
DEFAULT_PLAN = (_SHIPPED_PLAN if _SHIPPED_PLAN.is_file()
                else Path(__file__).resolve().parents[2] / "examples" / "agents" / "crm_solver.py")


def load_plan(spec: str | os.PathLike[str] | None = None) -> Plan:
    """The plan function named by ``path.py[:name]`` (``name`` defaults to ``plan``); ``None`` is
    the demo reference plan (:data:`DEFAULT_PLAN`).

    Raises:
        FileNotFoundError: the file does not exist (the default one is there only in a source
            checkout of silo_gym: pass a plan of your own otherwise).
        TypeError: the name is not a callable.
    """
    text = os.fspath(spec) if spec is not None else str(DEFAULT_PLAN)
    path_text, name = text, "plan"
    head, sep, tail = text.rpartition(":")
    if sep and tail.isidentifier():
        path_text, name = head, tail
    path = Path(path_text)
    if not path.is_file():
        hint = " This silo_gym has no demo reference plan; pass a plan: --plan path.py[:name]." if spec is None else ""
        raise FileNotFoundError(f"No plan file at {path}.{hint}")
    module_name = f"_silo_gym_mock_plan_{abs(hash(str(path.resolve())))}"
    module = sys.modules.get(module_name)
    if module is None:
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        assert loader_spec is not None and loader_spec.loader is not None
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        try:
            loader_spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(module_name, None)
            raise
    fn = getattr(module, name, None)
    if not callable(fn):
        raise TypeError(f'{path} has no plan function "{name}" (plan(instruction) -> generator).')
    return fn  # type: ignore[no-any-return]


def _is_retryable_result(result: Any) -> bool:
    """A tool result the model reacts to by sending the same call again (a malformed call)."""
    if not isinstance(result, dict) or not result.get("isError"):
        return False
    output = result.get("output")
    return isinstance(output, dict) and output.get("code") == "invalid_action"


def next_action(plan: Plan, instruction: str, results: list[Any]) -> tuple[dict[str, Any], int]:
    """The plan's next action after ``results`` (malformed-call errors skipped), and how many
    tool calls came before it (for ids)."""
    steps = plan(instruction)
    try:
        action = next(steps)
        for result in results:
            if _is_retryable_result(result):
                continue
            action = steps.send(result)
        return action, len(results)
    finally:
        close = getattr(steps, "close", None)
        if callable(close):
            close()


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return loads_strict(text)
    except ValueError:
        return {"output": text}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    return ""


# -- reading conversations ---------------------------------------------------------------------


def read_chat(messages: list[dict[str, Any]]) -> tuple[str, list[Any]]:
    """Chat Completions: the first user message and the ``tool`` messages' results."""
    instruction = next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
    return instruction, [_json(m.get("content")) for m in messages if m.get("role") == "tool"]


def read_responses(items: Any) -> tuple[str, list[Any]]:
    """Responses: the first user message item and the ``function_call_output`` items."""
    if isinstance(items, str):
        return items, []
    instruction = next((_text(i.get("content")) for i in items
                        if isinstance(i, dict) and i.get("role") == "user"), "")
    return instruction, [_json(i.get("output")) for i in items
                         if isinstance(i, dict) and i.get("type") == "function_call_output"]


def read_anthropic(messages: list[dict[str, Any]]) -> tuple[str, list[Any]]:
    """Anthropic Messages: the first user message's text and every ``tool_result`` block."""
    users = [m.get("content") for m in messages if m.get("role") == "user"]
    results: list[Any] = []
    for content in users[1:]:
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.append(_json(_text(block.get("content"))))
    return (_text(users[0]) if users else ""), results


def read_text(messages: list[dict[str, Any]]) -> tuple[str, list[Any]]:
    """The text protocol (Chat without tools): the first user message, then ``<tool_result>``
    blocks of later user messages."""
    users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    results: list[Any] = []
    marker_open, marker_close = "<tool_result>", "</tool_result>"
    for text in users[1:]:
        rest = text
        while marker_open in rest:
            _, _, rest = rest.partition(marker_open)
            body, _, rest = rest.partition(marker_close)
            results.append(_json(body.strip()))
    return (users[0] if users else ""), results


# -- writing replies ---------------------------------------------------------------------------


class Turn:
    """One scripted turn: the action and the call number ``n`` (ids ``call_<n>``)."""

    __slots__ = ("action", "n", "malformed")

    def __init__(self, action: dict[str, Any], n: int, malformed: bool = False) -> None:
        self.action = action
        self.n = n
        self.malformed = malformed and "tool" in action

    @property
    def is_answer(self) -> bool:
        return "tool" not in self.action

    def arguments(self) -> str:
        text = dumps_compact(self.action.get("input") or {})
        return text[:-1] if self.malformed else text  # drop the closing brace: not JSON any more

    def answer(self) -> str:
        value = self.action.get("answer")
        return value if isinstance(value, str) else dumps_compact(value)

    def chat_message(self) -> dict[str, Any]:
        if self.is_answer:
            return {"role": "assistant", "content": self.answer()}
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{self.n}", "type": "function",
             "function": {"name": self.action["tool"], "arguments": self.arguments()}}]}

    def responses_output(self) -> list[dict[str, Any]]:
        if self.is_answer:
            return [{"type": "message", "id": f"msg_{self.n}", "role": "assistant", "status": "completed",
                     "content": [{"type": "output_text", "text": self.answer(), "annotations": []}]}]
        return [{"type": "function_call", "id": f"fc_{self.n}", "call_id": f"call_{self.n}",
                 "name": self.action["tool"], "arguments": self.arguments(), "status": "completed"}]

    def anthropic_content(self) -> list[dict[str, Any]]:
        if self.is_answer:
            return [{"type": "text", "text": self.answer()}]
        tool_input: Any = self.arguments() if self.malformed else (self.action.get("input") or {})
        return [{"type": "tool_use", "id": f"toolu_{self.n}", "name": self.action["tool"], "input": tool_input}]

    def text_content(self) -> str:
        if self.is_answer:
            return self.answer()
        body = orjson.dumps({"tool": self.action["tool"], "input": self.action.get("input") or {}}).decode()
        return f"<tool_call>{body[:-1] if self.malformed else body}</tool_call>"

