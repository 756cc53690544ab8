"""A tool call's input must be plain JSON data (gym-api.md "One episode", amended: rule 8).

What the trace records as a call's input is exactly what the tool's validation and ``run``
received: an input the trace cannot write as it is (``NaN``, ``Infinity``, a numpy scalar, bytes,
a tuple, a ``Decimal``, a date, an enum, a subclass, a non-string key, nesting past the limit)
is refused as ``invalid_action`` before anything runs, on every driver, and the run replays
byte-identical (docs/spec-amendments.md).
"""

from __future__ import annotations

import collections
import datetime
import enum
import json
import subprocess
import sys
import urllib.request
from decimal import Decimal
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import subprocess_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from silo_gym import SiloEnv, define_tool, dumps_compact
from silo_gym.episode import ACCEPTED_SHAPES
from silo_gym.jsonfmt import loads_strict
from silo_gym.llm import ChatPolicy, TextProtocolPolicy
from silo_gym.replay import replay_run
from silo_gym.serve.episodes import EpisodeSettings, ServedEpisode
from silo_gym.tools import Tool
from silo_gym.wrappers import RecordRun

VALUES = ("Tool inputs hold only objects (dict) with string keys, arrays (list), strings, integers, "
          "finite numbers (float), booleans and null (None), nested at most 100 deep.")
BEYOND = "(a number beyond the 64-bit float range)"


class Color(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


def _qual(t: type) -> str:
    return f"{t.__module__}.{t.__qualname__}"


#: (id, value, how the reason names it)
NON_JSON: list[tuple[str, Any, str]] = [
    ("nan", float("nan"), "NaN"),
    ("inf", float("inf"), f"Infinity {BEYOND}"),
    ("-inf", float("-inf"), f"-Infinity {BEYOND}"),
    ("np.int64", np.int64(3), "numpy.int64"),
    ("np.float64", np.float64(3.0), "numpy.float64 (a subclass of float)"),
    ("np.bool_", np.bool_(True), "numpy.bool"),
    ("bytes", b"x", "bytes"),
    ("tuple", (1, 2), "tuple"),
    ("Decimal", Decimal("3"), "decimal.Decimal"),
    ("date", datetime.date(2026, 9, 15), "datetime.date"),
    ("datetime", datetime.datetime(2026, 9, 15, 8, 0), "datetime.datetime"),
    ("Enum", Color.RED, _qual(Color)),
    ("IntEnum", Level.HIGH, f"{_qual(Level)} (a subclass of int)"),
    ("str subclass", Name("a"), f"{_qual(Name)} (a subclass of str)"),
    ("set", {1}, "set"),
    ("object", object(), "object"),
]


def _reason(path: str, what: str) -> str:
    return f'"{path}" must be plain JSON data, received {what}. {VALUES}'


def _refusal(path: str, what: str) -> dict[str, Any]:
    return {"output": {"code": "invalid_action", "message": f"{_reason(path, what)} {ACCEPTED_SHAPES}"},
            "isError": True}


def _trace(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]


def _calls(run_dir: Path) -> list[dict[str, Any]]:
    return [e for e in _trace(run_dir) if e["type"] == "tool_call"]


def _assert_replays(run_dir: Path) -> None:
    report = replay_run(run_dir)
    assert report.identical, report.summary()
    assert report.calls == json.loads((run_dir / "result.json").read_text())["toolCalls"]


def _nested(depth: int) -> list[Any]:
    """A list holding a list ... ``depth`` containers in all."""
    root: list[Any] = []
    inner = root
    for _ in range(depth - 1):
        inner.append([])
        inner = inner[0]
    return root


# -- Gymnasium step, dict actions ---------------------------------------------------------------


@pytest.mark.parametrize(("value", "what"), [(v, w) for _, v, w in NON_JSON], ids=[i for i, _, _ in NON_JSON])
def test_step_refuses_a_non_json_input_value_and_the_run_replays(value: Any, what: str, runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    action = {"tool": "search_leads", "input": {"query": "a", "limit": value}}
    obs, reward, terminated, truncated, info = env.step(action)
    assert json.loads(obs) == _refusal("input.limit", what)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert (info["tool"], info["is_error"], info["tool_calls"], info["tool_errors"]) == ("search_leads", True, 1, 1)
    # The same call with a plain value runs (control).
    obs, *_, info = env.step({"tool": "search_leads", "input": {"query": "a", "limit": 3}})
    assert json.loads(obs)["output"]["count"] == 3 and not info["is_error"]
    *_, info = env.step({"answer": ""})
    env.close()
    run_dir = Path(info["run_dir"])
    first, second = _calls(run_dir)
    # An invalid action is traced as received (silo-format §3.6), written by §7.3's rules.
    assert first["tool"] == "search_leads"
    written = [1, 2] if what == "tuple" else 3 if "subclass of int" in what or "float)" in what else "a" if "str)" in what else None
    assert first["input"] == {"tool": "search_leads", "input": {"query": "a", "limit": written}}
    assert second["input"] == {"query": "a", "limit": 3}
    assert json.loads((run_dir / "result.json").read_text())["toolErrors"] == 1
    _assert_replays(run_dir)


@pytest.mark.parametrize(("tool_input", "path", "what"), [
    ({"query": "a", "filters": [{"x": 1}, {"y": float("nan")}]}, "input.filters[1].y", "NaN"),
    ({"query": "a", "ids": ["L-1", np.int64(2)]}, "input.ids[1]", "numpy.int64"),
    ({"query": "a", "meta": {1: "x"}}, "input.meta", "an object key of type int"),
    ({"query": "a", "meta": {("a", 1): "x"}}, "input.meta", "an object key of type tuple"),
    ({"query": "a", "meta": collections.defaultdict(list)}, "input.meta", "collections.defaultdict (a subclass of dict)"),
    ({"query": "a", "tags": collections.UserList([1])}, "input.tags", "collections.UserList"),
    # The first problem in the input's order is named.
    ({"query": float("nan"), "limit": float("inf")}, "input.query", "NaN"),
    ({"a": [[b"x"]], "b": float("nan")}, "input.a[0][0]", "bytes"),
    ({"a": {"b": _nested(300)}}, "input", "containers nested deeper than 100 levels"),
], ids=["nested-nan", "list-item", "int-key", "tuple-key", "dict-subclass", "list-like", "first-wins",
        "depth-first", "too-deep"])
def test_step_names_where_an_input_is_not_plain_json(tool_input: dict[str, Any], path: str, what: str,
                                                     runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    obs, *_ = env.step({"tool": "search_leads", "input": tool_input})
    assert json.loads(obs) == _refusal(path, what)
    *_, info = env.step({"answer": ""})
    env.close()
    _assert_replays(Path(info["run_dir"]))


def test_an_input_that_is_a_dict_subclass_is_refused_at_its_root(runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    ordered = collections.OrderedDict(query="a")
    obs, *_ = env.step({"tool": "search_leads", "input": ordered})
    assert json.loads(obs) == _refusal("input", "collections.OrderedDict (a subclass of dict)")
    *_, info = env.step({"answer": ""})
    env.close()
    _assert_replays(Path(info["run_dir"]))


def test_nesting_up_to_the_limit_is_plain_and_reaches_validation(runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    # The input object is level 0; 100 more containers inside it are allowed, 101 are not.
    at_limit = {"query": "a", "deep": _nested(100)}
    obs, *_ = env.step({"tool": "search_leads", "input": at_limit})
    assert json.loads(obs)["output"]["code"] == "invalid_input"  # "deep" is not a parameter
    obs, *_ = env.step({"tool": "search_leads", "input": {"query": "a", "deep": _nested(101)}})
    assert json.loads(obs) == _refusal("input", "containers nested deeper than 100 levels")
    *_, info = env.step({"answer": ""})
    env.close()
    _assert_replays(Path(info["run_dir"]))


def test_plain_inputs_reach_the_tool_as_an_equal_copy() -> None:
    """``run`` receives a copy of what the agent passed, equal to it (silo-format §3.1 said the very
    object; amended, docs/spec-amendments.md: a tool must not change what was recorded as sent)."""
    env = SiloEnv("orders", "TASK-001")
    env.reset(seed=0)
    seen = _spy(env)
    tool_input = {"a": [1, 2.5, -0.0, None, True, "x\ud800", {"b": [2**70]}], "c": 1e300}
    obs, *_ = env.step({"tool": "get_order", "input": tool_input})
    assert json.loads(obs) == {"output": {"ok": True}}
    assert seen == [tool_input] and seen[0] is not tool_input


# -- JSON-text actions ----------------------------------------------------------------------------


@pytest.mark.parametrize(("number", "what"), [("1e400", f"Infinity {BEYOND}"), ("-1e400", f"-Infinity {BEYOND}")])
def test_a_json_text_action_with_a_number_beyond_float_range_is_refused(number: str, what: str,
                                                                        runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    text = '{"tool": "search_leads", "input": {"query": "a", "limit": NUMBER}}'.replace("NUMBER", number)
    obs, *_ = env.step(text)
    assert json.loads(obs) == _refusal("input.limit", what)
    # 1e308 is a finite float: plain JSON, checked by the schema as usual.
    obs, *_ = env.step('{"tool": "search_leads", "input": {"query": "a", "limit": 1e308}}')
    assert json.loads(obs)["output"]["code"] == "invalid_input"
    *_, info = env.step({"answer": ""})
    env.close()
    run_dir = Path(info["run_dir"])
    assert _calls(run_dir)[0]["input"] == text  # a string action is traced as the string
    _assert_replays(run_dir)


# -- the runner's call_tool -------------------------------------------------------------------------


def test_call_tool_refuses_non_json_inputs_and_the_run_replays(runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    _, info = env.reset(seed=0)
    silo = env.unwrapped
    for _, value, what in NON_JSON:
        result = silo.call_tool("search_leads", {"query": "a", "limit": value})  # type: ignore[attr-defined]
        assert result == _refusal("input.limit", what)
    assert silo.call_tool("search_leads", {"query": "a", "limit": 2})["output"]["count"] == 2  # type: ignore[attr-defined]
    silo.finish("done")  # type: ignore[attr-defined]
    run_dir = Path(info["run_dir"])
    calls = _calls(run_dir)
    assert len(calls) == len(NON_JSON) + 1
    # The runner traces the name and the input it was given (written by §7.3's rules).
    assert calls[0] == {**calls[0], "tool": "search_leads", "input": {"query": "a", "limit": None}}
    assert json.loads((run_dir / "result.json").read_text())["toolErrors"] == len(NON_JSON)
    _assert_replays(run_dir)


def test_the_cli_replays_a_run_whose_input_held_nan(runs_dir: Path, tmp_path: Path) -> None:
    """The reported failure: ``silo-gym replay RUN_DIR`` said "isError differs"."""
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    env.step({"tool": "search_leads", "input": {"query": "a", "limit": float("nan")}})
    *_, info = env.step({"answer": ""})
    env.close()
    done = subprocess.run([sys.executable, "-m", "silo_gym", "replay", info["run_dir"]], cwd=tmp_path,
                          env=subprocess_env(), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "byte-identical" in done.stdout


# -- MCP ------------------------------------------------------------------------------------------


def test_a_served_episode_refuses_a_non_json_argument(runs_dir: Path) -> None:
    served = ServedEpisode(EpisodeSettings("demo", "TASK-001", runs_dir=runs_dir))
    reply = served.call_tool("search_leads", {"query": "a", "limit": float("inf")})
    assert reply.is_error
    assert reply.payload == _refusal("input.limit", f"Infinity {BEYOND}")["output"]
    assert not served.submit("").is_error
    _assert_replays(Path(served.run_dir))


def test_mcp_over_http_refuses_1e400_and_the_run_replays(tmp_path: Path) -> None:
    """The official client writes a float ``inf`` as ``null`` before sending, so it cannot send
    1e400; this posts the JSON-RPC text a client in another language would send."""
    pytest.importorskip("mcp")
    from serving.helpers import HttpServer

    server = HttpServer("--env", "demo", "--task", "TASK-001", "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path)
    try:
        session = _post(server.url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})[0]
        _post(server.url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        _, called = _post(server.url, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_leads",'
                                      '"arguments":{"query":"a","limit":1e400}}}', session)
        _, submitted = _post(server.url, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "submit_answer", "arguments": {"answer": ""}}}, session)
    finally:
        code, err = server.stop()
    assert code == 0, err
    result = called["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"]) == _refusal("input.limit", f"Infinity {BEYOND}")["output"]
    run_dir = Path(submitted["result"]["_meta"]["silo-gym/runDir"])
    assert _calls(run_dir)[0]["input"] == {"query": "a", "limit": None}
    _assert_replays(run_dir)


def _post(url: str, body: Any, session: str | None = None) -> tuple[str | None, Any]:
    """One JSON-RPC message over streamable HTTP; returns the session id and the reply (or None)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    data = (body if isinstance(body, str) else json.dumps(body)).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
        session_id = response.headers.get("Mcp-Session-Id")
    replies = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
    if not replies and text.strip():
        replies = [json.loads(text)]
    return session_id, replies[-1] if replies else None


# -- LLM policies ---------------------------------------------------------------------------------


def _chat_model(arguments: str) -> Any:
    def complete(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        if not any(m["role"] == "tool" for m in messages):
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "search_leads", "arguments": arguments}}]}
        return {"role": "assistant", "content": "done"}
    return complete


def _text_model(body: str) -> Any:
    def complete(messages: list[dict[str, Any]]) -> str:
        if len(messages) <= 2:
            return f"<tool_call>{body}</tool_call>"
        return "done"
    return complete


@pytest.mark.parametrize("driver", ["chat", "anthropic", "text"])
def test_a_model_call_with_1e400_is_refused_and_the_run_replays(driver: str, runs_dir: Path) -> None:
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    if driver == "chat":
        episode = ChatPolicy(_chat_model('{"query": "a", "limit": 1e400}')).run_episode(env, seed=0)
    elif driver == "anthropic":
        def complete(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
            answered = any(isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])
                           for m in messages)
            if not answered:  # an SDK that parsed 1e400 hands over a float inf
                return {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "search_leads",
                                                          "input": {"query": "a", "limit": float("inf")}}]}
            return {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
        episode = ChatPolicy(complete, api="anthropic").run_episode(env, seed=0)
    else:
        body = '{"tool": "search_leads", "input": {"query": "a", "limit": 1e400}}'
        episode = TextProtocolPolicy(_text_model(body)).run_episode(env, seed=0)
    env.close()
    assert (episode.info["tool_calls"], episode.info["tool_errors"]) == (1, 1)
    run_dir = Path(episode.info["run_dir"])
    results = [e for e in _trace(run_dir) if e["type"] == "tool_result"]
    assert results[0]["output"] == _refusal("input.limit", f"Infinity {BEYOND}")["output"]
    _assert_replays(run_dir)


# -- the action space --------------------------------------------------------------------------------


def test_the_action_space_does_not_contain_a_call_with_a_non_json_input() -> None:
    env = SiloEnv("demo", "TASK-001")
    space = env.action_space
    assert space.contains({"tool": "search_leads", "input": {"query": "a", "limit": 3, "x": [1.5, None]}})
    assert space.contains({"tool": "search_leads"})
    for _, value, _ in NON_JSON:
        assert not space.contains({"tool": "search_leads", "input": {"query": "a", "limit": value}})
    assert not space.contains({"tool": "search_leads", "input": collections.OrderedDict(query="a")})
    assert not space.contains({"tool": "search_leads", "input": {"query": "a", "deep": _nested(101)}})
    assert space.contains({"tool": "search_leads", "input": {"query": "a", "deep": _nested(100)}})


# -- the rule, as a property: the trace records what the tool received ---------------------------------


def _spy(env: SiloEnv) -> list[Any]:
    """Replace ``get_order`` in the running episode by a tool that accepts anything and keeps
    every input its ``run`` receives."""
    seen: list[Any] = []

    def run(state: Any, tool_input: Any) -> Any:
        seen.append(tool_input)
        return {"ok": True}

    assert env.episode is not None
    env.episode.tool_map["get_order"] = Tool(define_tool(name="get_order", description="spy",
                                                         input_schema={"type": "object"}, run=run), env.episode.state)
    return seen


def _same_json(a: Any, b: Any) -> bool:
    """``a`` (read back from the trace) is ``b`` (what the tool got), type for type; an integral
    float reads back as an int of the same value (silo-format §7.3 writes ``5.0`` as ``5``)."""
    if type(b) is float and b - b == 0.0 and b == int(b) and type(a) is int:
        return float(a) == b  # the same double; past 2**53 the digits are JavaScript's shortest
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(_same_json(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


leaves = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=5)
          | st.sampled_from([np.int64(1), np.float64(0.5), b"b", Decimal("1.5"), Color.RED, Level.HIGH, Name("n")])
          | st.tuples(st.integers()))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=3) | st.integers(0, 2), inner, max_size=3), max_leaves=10)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.text(max_size=4), values, max_size=4))
def test_what_the_trace_records_is_what_the_tool_received(tool_input: dict[str, Any]) -> None:
    env = SiloEnv("orders", "TASK-001")
    events: list[dict[str, Any]] = []
    env.add_listener(events.append)
    env.reset(seed=0)
    seen = _spy(env)
    obs, *_ = env.step({"tool": "get_order", "input": tool_input})
    call = loads_strict(dumps_compact(events[-2]))  # the tool_call line, as a replay reads it
    assert call["type"] == "tool_call"
    if seen:  # the tool ran: it got (a copy of) the input, and the trace reads back as that input
        assert seen == [tool_input] and seen[0] is not tool_input
        assert json.loads(obs) == {"output": {"ok": True}}
        assert _same_json(call["input"], tool_input)
    else:  # refused before validation: the trace cannot hold this input as it is
        assert json.loads(obs)["output"]["code"] == "invalid_action"
        assert not _same_json(loads_strict(dumps_compact(tool_input)), tool_input)


@pytest.mark.parametrize("where", ["input", "answer"])
def test_an_integer_past_4300_digits_is_refused_as_input_and_every_run_reads_back(where: str, runs_dir: Path,
                                                                                  tmp_path: Path) -> None:
    # Python refuses int(str) past 4300 digits by default; JSON has no such limit. A tool never
    # gets such an integer (rule 8), and what the trace and result.json hold reads back.
    from silo_gym.cli import main

    huge = 10**5000 + 7
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    if where == "input":
        obs, *_ = env.step({"tool": "search_leads", "input": {"query": "a", "limit": [huge]}})
        assert json.loads(obs) == _refusal("input.limit[0]",
                                           "an integer of about 5001 digits (JSON readers take at most 4300)")
        huge = 10**4300 - 1  # the largest plain one: refused by the tool's own schema, not by rule 8
        obs, *_ = env.step({"tool": "search_leads", "input": {"query": "a", "limit": huge}})
        assert json.loads(obs)["output"]["code"] == "invalid_input"
        *_, info = env.step({"answer": ""})
    else:
        *_, info = env.step({"answer": huge})
    env.close()
    run_dir = Path(info["run_dir"])
    assert main(["replay", str(run_dir)]) == 0
    assert main(["view", str(runs_dir), "--out", str(tmp_path / "report")]) == 0


@pytest.mark.parametrize(("edited", "identical"), [
    ({"query": "a", "limit": None}, True),  # as recorded: NaN written as null
    ({"query": "a"}, False),  # the refused value removed
    ({"query": "a", "limit": 5}, False),  # a plain value put in NaN's place
    ({"query": "a", "limit": [None]}, False),  # the place named is no longer null
])
def test_replay_believes_a_recorded_refusal_only_where_the_trace_still_holds_it(edited, identical, runs_dir):
    env = RecordRun(gym.make("silo/demo-TASK-001"), runs_dir=runs_dir)
    env.reset(seed=0)
    env.step({"tool": "search_leads", "input": {"query": "a", "limit": float("nan")}})
    *_, info = env.step({"answer": ""})
    env.close()
    run_dir = Path(info["run_dir"])
    trace = run_dir / "trace.jsonl"
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    call = next(e for e in events if e["type"] == "tool_call")
    call["input"]["input"] = edited
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert replay_run(run_dir).identical is identical
