"""One episode's rules: action shapes, tool results, error mapping (silo-format §3, §5; gym-api.md)."""

from __future__ import annotations

import json
import math

import gymnasium as gym
import pytest

from silo_gym import SiloEnv
from silo_gym.episode import ACCEPTED_SHAPES, parse_action
from silo_gym.wrappers import RecordRun

SHAPES = (
    'Expected {"tool": "<name>", "input": {...}} or {"answer": <any JSON value>}, as a dict or a JSON string.'
)

#: (action, reason, traced tool)
BAD_ACTIONS = [
    ("not json", "The action is not valid JSON.", None),
    ("", "The action is not valid JSON.", None),
    ('{"answer": NaN}', "The action is not valid JSON.", None),
    ('{"answer": Infinity}', "The action is not valid JSON.", None),
    ('{"answer": -Infinity}', "The action is not valid JSON.", None),
    ('{"answer": 1} x', "The action is not valid JSON.", None),
    ('{"answer": 1}{"answer": 2}', "The action is not valid JSON.", None),
    ("{'tool': 'get_order'}", "The action is not valid JSON.", None),
    ("[" * 100000, "The action is not valid JSON.", None),
    ("[1, 2]", "The action is array, not an object.", None),
    ('"text"', "The action is string, not an object.", None),
    ("5", "The action is number, not an object.", None),
    ("true", "The action is boolean, not an object.", None),
    ("null", "The action is null, not an object.", None),
    ([1, 2], "The action is array, not an object.", None),
    ([], "The action is array, not an object.", None),
    (5, "The action is number, not an object.", None),
    (2.5, "The action is number, not an object.", None),
    (False, "The action is boolean, not an object.", None),
    (None, "The action is null, not an object.", None),
    ({"tool": "get_order", "answer": 1}, 'The action has both "tool" and "answer".', "get_order"),
    ({"tool": 5, "answer": 1, "zz": 0}, 'The action has both "tool" and "answer".', None),
    ({}, 'The action has neither "tool" nor "answer".', None),
    ({"input": {"orderId": "O-1"}}, 'The action has neither "tool" nor "answer".', None),
    ('{"name": "get_order"}', 'The action has neither "tool" nor "answer".', None),
    ({"tool": "get_order", "input": {}, "zeta": 1, "alpha": 2}, "The action has unknown keys: zeta, alpha.",
     "get_order"),
    ({"answer": 1, "input": {}}, "The action has unknown keys: input.", None),
    ({"tool": 5, "extra": 1}, "The action has unknown keys: extra.", None),
    ('{"tool": "get_order", "arguments": {}}', "The action has unknown keys: arguments.", "get_order"),
    ({"tool": 5}, '"tool" must be a string, received number.', None),
    ({"tool": None}, '"tool" must be a string, received null.', None),
    ({"tool": ["get_order"]}, '"tool" must be a string, received array.', None),
    ({"tool": {"name": "x"}, "input": 5}, '"tool" must be a string, received object.', None),
    ({"tool": True}, '"tool" must be a string, received boolean.', None),
    ('{"tool": "get_order", "tool": 7}', '"tool" must be a string, received number.', None),
    ({"tool": "get_order", "input": [1]}, '"input" must be an object or null, received array.', "get_order"),
    ({"tool": "get_order", "input": "O-1"}, '"input" must be an object or null, received string.', "get_order"),
    ({"tool": "get_order", "input": 3}, '"input" must be an object or null, received number.', "get_order"),
    ({"tool": "get_order", "input": False}, '"input" must be an object or null, received boolean.', "get_order"),
    ('{"tool": "get_order", "input": "{}"}', '"input" must be an object or null, received string.', "get_order"),
]


def _expected_obs(reason: str) -> str:
    payload = {"output": {"code": "invalid_action", "message": f"{reason} {SHAPES}"}, "isError": True}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def test_accepted_shapes_text():
    assert ACCEPTED_SHAPES == SHAPES


@pytest.mark.parametrize(("action", "reason", "tool"), BAD_ACTIONS, ids=[repr(a)[:40] for a, _, _ in BAD_ACTIONS])
def test_bad_action_shapes(action, reason, tool, runs_dir):
    env = RecordRun(gym.make("silo/orders-TASK-001"), runs_dir)
    env.reset()
    env.step({"tool": "get_order", "input": {"orderId": "O-1"}})
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs == _expected_obs(reason)
    assert "details" not in json.loads(obs)["output"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["tool_calls"] == 2 and info["tool_errors"] == 1
    assert info["call_id"] == 2 and info["tool"] == (tool or "") and info["is_error"] is True
    env.step({"answer": "x"})
    with open(f"{info['run_dir']}/trace.jsonl", encoding="utf-8") as fh:
        events = [json.loads(line) for line in fh]
    call, result = events[3], events[4]
    assert call["type"] == "tool_call" and call["callId"] == 2
    assert call["tool"] == tool
    assert call["input"] == action  # the action as received; a string stays the string
    assert result == {**result, "type": "tool_result", "callId": 2, "tool": tool, "isError": True,
                      "output": json.loads(obs)["output"]}
    *_, end = events
    assert end["type"] == "verifier_result"


def test_parse_action_never_raises_on_odd_objects():
    class Weird:
        def __eq__(self, other):
            raise RuntimeError("no")

    for value in (object(), {1, 2}, Weird(), b"{}", bytearray(b"{}"), (1, 2), float("nan"), 10**400):
        parsed = parse_action(value)
        assert parsed.kind == "invalid"
    assert parse_action(object()).reason == "The action is object, not an object."
    assert parse_action((1, 2)).reason == "The action is array, not an object."
    assert parse_action({1: "a", "tool": "x"}).reason == "The action has unknown keys: 1."


def test_good_actions_parse():
    p = parse_action({"tool": "get_order"})
    assert (p.kind, p.tool, p.input) == ("tool", "get_order", None)
    p = parse_action({"tool": "get_order", "input": None})
    assert (p.kind, p.tool, p.input) == ("tool", "get_order", None)
    p = parse_action('{"tool": "get_order", "input": {"orderId": "O-1"}}')
    assert (p.kind, p.input) == ("tool", {"orderId": "O-1"})
    p = parse_action('{"answer": {"a": [1, 2.5]}}')
    assert (p.kind, p.answer) == ("answer", {"a": [1, 2.5]})
    p = parse_action({"answer": None})
    assert (p.kind, p.answer) == ("answer", None)


def test_unknown_tool_result():
    env = gym.make("silo/orders-TASK-001")
    env.reset()
    obs, _, _, _, info = env.step({"tool": "Get_Order", "input": {"orderId": "O-1"}})
    assert obs == '{"output":{"code":"tool_not_found","message":"Unknown tool \\"Get_Order\\"."},"isError":true}'
    assert (info["tool"], info["is_error"], info["tool_errors"]) == ("Get_Order", True, 1)


def test_tool_error_mapping():
    env = gym.make("silo/orders-TASK-001")
    env.reset()
    obs, *_ = env.step({"tool": "ship_order", "input": {"orderId": "O-2", "carrier": "ground"}})
    assert obs == ('{"output":{"code":"invalid_state","message":"Order O-2 is shipped.",'
                   '"details":{"status":"shipped"}},"isError":true}')
    obs, *_ = env.step({"tool": "get_order", "input": {"orderId": "O-9"}})
    assert obs == '{"output":{"code":"not_found","message":"Order \\"O-9\\" was not found."},"isError":true}'
    obs, *_, info = env.step({"tool": "explode"})
    # A crash is not a state of the world: its own code, with the exception type (amended §3.4).
    assert obs == '{"output":{"code":"tool_crashed","message":"RuntimeError: the warehouse is on fire"},"isError":true}'
    assert info["tool_errors"] == 3 and info["tool_calls"] == 3
    obs, *_ = env.step({"tool": "get_order", "input": {}})
    assert json.loads(obs) == {"output": {
        "code": "invalid_input", "message": 'Invalid arguments for "get_order": "orderId" is required.',
        "details": {"problems": ['"orderId" is required']}}, "isError": True}
    obs, *_ = env.step({"tool": "ship_order", "input": {"orderId": 7, "carrier": None}})
    assert json.loads(obs)["output"]["details"]["problems"] == [
        '"carrier" is required', '"orderId" must be string, received number']


def test_widget_results(tmp_path, make_env_dir):
    env = SiloEnv("widgets", "TASK-001", path=str(make_env_dir(tmp_path)))
    env.reset()
    assert env.step({"tool": "setty"})[0] == (
        '{"output":{"code":"tool_crashed","message":"TypeError: Object of type set is not JSON serializable"},'
        '"isError":true}')
    assert env.step({"tool": "fail"})[0] == (
        '{"output":{"code":"not_allowed","message":"Nope.","details":{"why":["a",1]}},"isError":true}')
    assert env.step({"tool": "crash"})[0] == '{"output":{"code":"tool_crashed","message":"RuntimeError: boom"},"isError":true}'
    assert env.step({"tool": "rename", "input": {"label": "new"}})[0] == '{"output":null}'
    assert env.step({"tool": "bump", "input": None})[0] == '{"output":{"count":1}}'
    assert env.step({"tool": "bump", "input": {"by": 2.0}})[0] == '{"output":{"count":3}}'
    *_, info = env.step({"answer": "done"})
    assert info["tool_calls"] == 6 and info["tool_errors"] == 3
    assert info["state_diff"] == {"scalars": [{"field": "count", "from": 0, "to": 3},
                                              {"field": "label", "from": "start", "to": "new"}],
                                  "collections": {}}
    # The optional check's detail carries the answer's text form.
    assert info["result"]["checks"][1] == {"label": "label kept", "passed": False, "detail": "done",
                                           "required": False}


ODD_TOOLS = '''
from silo_gym import ToolError, define_tool

_OBJ = {"type": "object"}


def _tag(state, input):
    input["seen"] = True
    state["inputs"].append(input)
    return {"same": input is state["inputs"][-1]}


def _nan(state, input):
    return [float("nan"), float("inf"), -0.0, 1e21, 5e-7, 140000.0]


def _bad_details(state, input):
    raise ToolError("conflict", "Clash.", {"when": {1, 2}})


def _live(state, input):
    return state["rows"]


def _first(state, input):
    return "first"


def _second(state, input):
    return "second"


def _exit(state, input):
    raise SystemExit(3)


def _keyerror(state, input):
    return state["missing"]


tools = [
    define_tool(name="tag", description="", input_schema=_OBJ, run=_tag),
    define_tool(name="nan", description="", input_schema=_OBJ, run=_nan),
    define_tool(name="bad_details", description="", input_schema=_OBJ, run=_bad_details),
    define_tool(name="live", description="", input_schema=_OBJ, run=_live),
    define_tool(name="dup", description="one", input_schema=_OBJ, run=_first),
    define_tool(name="dup", description="two", input_schema=_OBJ, run=_second),
    define_tool(name="exit", description="", input_schema=_OBJ, run=_exit),
    define_tool(name="keyerror", description="", input_schema=_OBJ, run=_keyerror),
]
'''

ODD_INIT = '''
from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers


def create_state():
    return {"count": 0, "label": "start", "inputs": [], "rows": [{"id": "A", "n": 1}]}


def bind_tools(state):
    return _bind(state, tools)
'''


@pytest.fixture
def odd_env(tmp_path, make_env_dir):
    env = SiloEnv("odd", "TASK-001", path=str(make_env_dir(tmp_path, "odd", init=ODD_INIT, tools=ODD_TOOLS)))
    env.reset()
    return env


def test_run_receives_its_own_copy_of_the_input(odd_env):
    # silo-format §3.1 said the very object; amended (docs/spec-amendments.md): the tool's writes
    # stay in its copy, so what the agent sent, and the trace recorded, is unchanged.
    given = {"x": 1}
    assert odd_env.call_tool("tag", given) == {"output": {"same": True}}
    assert given == {"x": 1}
    assert odd_env.episode.state["inputs"][-1] == {"x": 1, "seen": True}
    assert odd_env.call_tool("tag") == {"output": {"same": True}}
    assert odd_env.episode.state["inputs"][-1] == {"seen": True}


def test_outputs_are_cloned(odd_env):
    out = odd_env.call_tool("live")["output"]
    out[0]["n"] = 99
    out.append("junk")
    assert odd_env.episode.state["rows"] == [{"id": "A", "n": 1}]


def test_non_finite_and_js_numbers_in_observations(odd_env):
    assert odd_env.step({"tool": "nan"})[0] == '{"output":[null,null,0,1e+21,5e-7,140000]}'


def test_uncloneable_details_are_a_crash_of_the_tool(odd_env):
    assert odd_env.call_tool("bad_details") == {
        "output": {"code": "tool_crashed", "message": "TypeError: Object of type set is not JSON serializable"},
        "isError": True}


def test_a_key_error_names_its_type_beside_its_text(odd_env):
    # str(KeyError('missing')) alone is "'missing'", which tells an agent nothing (issue 19 item 16).
    assert odd_env.call_tool("keyerror")["output"] == {"code": "tool_crashed", "message": "KeyError: 'missing'"}


def test_duplicate_tool_names_later_wins(odd_env):
    _, info = odd_env.reset()
    assert [t["name"] for t in info["tools"]] == ["tag", "nan", "bad_details", "live", "dup", "dup", "exit",
                                                  "keyerror"]
    assert [t["description"] for t in info["tools"] if t["name"] == "dup"] == ["one", "two"]
    assert odd_env.call_tool("dup") == {"output": "second"}


def test_base_exceptions_propagate(odd_env):
    with pytest.raises(SystemExit):
        odd_env.step({"tool": "exit"})


@pytest.mark.parametrize(
    ("answer", "text", "stored"),
    [
        ("Done.", "Done.", "Done."),
        ("", "", ""),
        (None, "", None),
        (100, "100", 100),
        (1.0, "1", 1.0),
        (True, "true", True),
        ({"a": 1, "b": [None, 0.5]}, '{"a":1,"b":[null,0.5]}', {"a": 1, "b": [None, 0.5]}),
        ({"a": {1, 2}}, "", None),
        ([object()], "", None),
    ],
)
def test_answer_text_and_raw_forms(tmp_path, make_env_dir, answer, text, stored):
    env = SiloEnv("widgets", "TASK-001", path=str(make_env_dir(tmp_path)))
    env.reset()
    *_, info = env.step({"answer": answer})
    assert info["result"]["checks"][1]["detail"] == text
    assert info["result"]["agentOutput"] == stored
    assert type(info["result"]["agentOutput"]) is type(stored)


def test_nan_answer_is_refused_not_graded_as_null(tmp_path, make_env_dir, runs_dir):
    # It was graded as NaN and written as null (§7.3), so the run read back as edited; now refused
    # (issue 19, item 14; tests/test_run_readback.py).
    env = RecordRun(SiloEnv("widgets", "TASK-001", path=str(make_env_dir(tmp_path))), runs_dir)
    env.reset()
    obs, _, terminated, truncated, _ = env.step({"answer": [math.nan]})
    assert json.loads(obs)["output"]["code"] == "invalid_action" and not (terminated or truncated)
    *_, info = env.step({"answer": [None]})
    with open(f"{info['run_dir']}/result.json", encoding="utf-8") as fh:
        result = fh.read()
    assert '"agentOutput": [\n    null\n  ],' in result


def test_verifier_gets_live_final_and_pristine_initial_state(tmp_path, make_env_dir):
    verifiers = '''
from silo_gym import check, define_verifier

SEEN = []


def _check(final, initial, context):
    SEEN.append((final, initial))
    initial["count"] = 1000  # a misbehaving verifier must not change the diff's snapshot
    return [check("bumped", final["count"] == 1)]


verifiers = [define_verifier(id="VER-001", task_id="TASK-001", name="n", check=_check)]
'''
    env = SiloEnv("vv", "TASK-001", path=str(make_env_dir(tmp_path, "vv", verifiers=verifiers)))
    env.reset()
    env.step({"tool": "bump"})
    *_, info = env.step({"answer": ""})
    final, initial = env._module.verifiers[0].check_fn.__globals__["SEEN"][-1]
    assert final is env.episode.state
    assert info["state_diff"] == {"scalars": [{"field": "count", "from": 0, "to": 1}], "collections": {}}
    assert info["passed"] is True and initial["count"] == 1000
