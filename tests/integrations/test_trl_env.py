"""The TRL adapter without a model: what TRL sees of an environment class and what reaches the env.

Tool calls are parsed the way GRPOTrainer parses them (transformers' response parser with the
Qwen/Hermes template TRL ships) and dispatched the way it dispatches them (``method(**arguments)``).
"""

from __future__ import annotations

import inspect
import json
import pathlib
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("trl")
transformers_utils = pytest.importorskip("transformers.utils")
from transformers.utils.chat_parsing.response_parser import parse_response  # noqa: E402
from trl.chat_template_utils import qwen3_template  # noqa: E402

from silo_gym import data  # noqa: E402
from silo_gym.data import episode_seed  # noqa: E402
from silo_gym.integrations import trl as silo_trl  # noqa: E402

from ._helpers import load_solver  # noqa: E402

get_json_schema = transformers_utils.get_json_schema


def _tools(env: Any) -> dict[str, Any]:
    """What GRPOTrainer offers the model: public functions of the class except reset/get_reward."""
    return {name: getattr(env, name) for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
            if name not in ("reset", "get_reward") and not name.startswith("_")}


def _dispatch(env: Any, text: str) -> list[dict[str, Any]]:
    """Parse one assistant turn like TRL and run its calls like TRL; returns the turn's messages."""
    tools = _tools(env)
    parsed = parse_response(text, qwen3_template, prefix="", tools=list(tools.values()))
    messages = [parsed]
    for call in parsed.get("tool_calls") or []:
        function = call["function"]
        try:
            result: Any = tools[function["name"]](**function["arguments"])
        except Exception as exc:  # what TRL does with a call it cannot make
            result = {"error": str(exc)}
        messages.append({"role": "tool", "name": function["name"], "content": str(result)})
    return messages


def _call_text(name: str, arguments: Any) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {json.dumps(arguments)}}}\n</tool_call><|im_end|>'


def _trace(env: Any) -> list[dict[str, Any]]:
    path = pathlib.Path(env.info["run_dir"], "trace.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _result_json(env: Any) -> dict[str, Any]:
    return json.loads(pathlib.Path(env.info["run_dir"], "result.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture
def demo_env(tmp_path: pathlib.Path) -> Any:
    cls = silo_trl.environment_factory("silo/demo", runs_dir=str(tmp_path / "runs"))
    env = cls()
    yield env
    env.env.close()


# -- the schema TRL builds ---------------------------------------------------------------------


def test_tool_methods_carry_the_tool_schema_as_far_as_transformers_can_say_it(demo_env: Any) -> None:
    tools = _tools(demo_env)
    info_tools = {t["name"]: t for t in demo_env.env.unwrapped.fresh_tool_list()}
    assert set(tools) == set(info_tools)  # every tool, nothing else (no helper leaks in as a tool)
    schema = get_json_schema(tools["list_users"])["function"]
    assert schema["description"] == info_tools["list_users"]["description"]
    params = schema["parameters"]
    assert list(params["properties"]) == ["role", "activeOnly", "limit", "offset"]
    assert "required" not in params
    assert params["properties"]["role"]["enum"] == ["rep", "manager"]
    assert params["properties"]["activeOnly"]["type"] == "boolean"
    assert params["properties"]["limit"] == {
        "type": "integer",
        "description": "Maximum number of results to return on this page. (default: 50; minimum: 1; maximum: 500)",
    }
    create = get_json_schema(tools["create_account"])["function"]["parameters"]
    assert create["required"] == ["name", "industry", "tier", "ownerId", "actorUserId"]
    assert get_json_schema(tools["forecast_report"])["function"]["parameters"]["properties"]["closingOnOrBefore"][
        "type"] == "string"


def test_nested_and_odd_names_follow_the_documented_rule(make_env_dir: Any, tmp_path: pathlib.Path) -> None:
    import silo_gym

    tools_src = '''
from silo_gym import define_tool

def _echo(state, input):
    return input

_S = {"type": "object", "additionalProperties": False, "properties": {
    "first-name": {"type": "string", "description": "A name."},
    "class": {"type": ["string", "null"]},
    "tags": {"type": "array", "items": {"type": "string"}},
    "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "mode": {"const": "fast"}}, "required": ["first-name"]}
tools = [
    define_tool(name="get-user", description="Returns: things. Args: none.", input_schema=_S, run=_echo),
    define_tool(name="get_user", description="Another.", input_schema={"type": "object"}, run=_echo),
    define_tool(name="reset", description="A tool called reset.", input_schema={"type": "object"}, run=_echo),
    define_tool(name="2fa.check", description="", input_schema={"type": "object"}, run=_echo),
]
'''
    env_dir = make_env_dir(tmp_path, name="oddnames", tools=tools_src)
    ids = silo_gym.register_environment(str(env_dir), override=True)
    try:
        _check_odd_names()
    finally:
        for env_id in ids:  # the directory goes away with tmp_path: leave no id behind
            del gym.registry[env_id]


def _check_odd_names() -> None:
    cls = silo_trl.environment_factory("silo/oddnames")
    assert dict(cls.tool_names) == {"get_user": "get-user", "get_user_2": "get_user", "reset_tool": "reset",
                                    "tool_2fa_check": "2fa.check"}
    env = cls()
    env.reset(task_id="TASK-001")
    schema = get_json_schema(env.get_user)["function"]
    assert schema["description"] == "Returns : things. Args : none."
    props = schema["parameters"]["properties"]
    assert list(props) == ["first_name", "class_", "tags", "address", "mode"]
    assert schema["parameters"]["required"] == ["first_name"]
    assert props["class_"]["nullable"] is True and props["tags"] == {"type": "array", "items": {"type": "string"},
                                                                       "description": "The tags value."}
    assert '"city"' in props["address"]["description"] and props["mode"]["enum"] == ["fast"]
    assert get_json_schema(env.tool_2fa_check)["function"]["description"] == "Call the 2fa.check tool."
    # mapped parameter names go back to the schema's names; others pass through as written
    out = json.loads(env.get_user(first_name="Ada", **{"class": "x"}))
    assert out == {"output": {"first-name": "Ada", "class": "x"}}
    env.env.close()


# -- every call reaches the env ----------------------------------------------------------------


def test_a_wrong_typed_argument_is_answered_by_the_env_and_counted(demo_env: Any) -> None:
    demo_env.reset(task_id="TASK-006", seed=0)
    turn = _dispatch(demo_env, _call_text("rep_performance", {"activeOnly": "yes"}))
    observation = json.loads(turn[1]["content"])
    assert observation["isError"] is True and observation["output"]["code"] == "invalid_input"
    silo_trl.reward(None, [turn + [{"role": "assistant", "content": "No idea."}]], [demo_env])
    trace = _trace(demo_env)
    results = [e for e in trace if e["type"] == "tool_result"]
    assert len(results) == 1 and results[0]["isError"] is True
    assert results[0]["output"]["code"] == "invalid_input"
    assert _result_json(demo_env)["toolCalls"] == 1 and _result_json(demo_env)["toolErrors"] == 1


def test_missing_and_unknown_arguments_reach_the_env(demo_env: Any) -> None:
    demo_env.reset(task_id="TASK-006")
    missing = json.loads(demo_env.get_user())
    unknown = json.loads(demo_env.get_user(userId="USR-001", colour="red"))
    assert missing["output"]["code"] == unknown["output"]["code"] == "invalid_input"
    assert "userId" in missing["output"]["message"] and "colour" in unknown["output"]["message"]
    assert demo_env.env.unwrapped.episode.tool_calls == 2


def test_calls_trl_answers_itself_are_stepped_before_the_answer(demo_env: Any) -> None:
    demo_env.reset(task_id="TASK-005")
    completion = _dispatch(demo_env, _call_text("no_such_tool", {}))
    assert "not found" in completion[1]["content"] or "no_such_tool" in completion[1]["content"]
    completion += _dispatch(demo_env, _call_text("stale_opportunities", {}))
    # arguments that are not an object: TRL cannot call method(**arguments)
    completion += [{"role": "assistant", "content": "",
                    "tool_calls": [{"type": "function", "function": {"name": "stale_opportunities",
                                                                     "arguments": [1]}}]},
                   {"role": "tool", "name": "stale_opportunities", "content": "{'error': '...'}"}]
    # a last reply whose tag TRL's parser could not read
    completion += [{"role": "assistant", "content": '<tool_call>{"name": "stale_opportunities", </tool_call>'}]
    reward = silo_trl.reward(None, [completion], [demo_env])
    trace = _trace(demo_env)
    calls = [(e["tool"], e["input"]) for e in trace if e["type"] == "tool_call"]
    # an invalid action is traced as received (gym-api.md)
    assert calls == [("stale_opportunities", {}), ("no_such_tool", {}),
                     ("stale_opportunities", {"tool": "stale_opportunities", "input": [1]}),
                     (None, '{"name": "stale_opportunities",')]
    result = _result_json(demo_env)
    assert result["toolCalls"] == 4 and result["toolErrors"] == 3
    assert reward == [result["reward"]]
    assert result["agentOutput"] == '<tool_call>{"name": "stale_opportunities", </tool_call>'


def test_the_reward_is_the_result_json_reward_also_after_the_budget_ended_the_episode(tmp_path: pathlib.Path) -> None:
    cls = silo_trl.environment_factory("silo/demo-TASK-005", runs_dir=str(tmp_path), max_tool_calls=1)
    env = cls()
    env.reset(task_id="TASK-005")
    first = env.stale_opportunities()
    ended = env.stale_opportunities()
    assert json.loads(ended)["terminationReason"] == "max_tool_calls"
    assert env.done and env.stale_opportunities() == ended  # later calls see the ending again
    completion = [{"role": "assistant", "content": "Tomas Bergstrom, 2 deals."}]
    assert silo_trl.reward(None, [completion], [env]) == [_result_json(env)["reward"]]
    assert _result_json(env)["terminationReason"] == "max_tool_calls" and '"count":4' in first
    env.env.close()


def test_reward_ends_with_the_final_text_and_skips_foreign_environments(demo_env: Any) -> None:
    demo_env.reset(task_id="TASK-005")
    completion = _dispatch(demo_env, _call_text("stale_opportunities", {}))
    completion.append({"role": "assistant", "content": "Tomas Bergstrom has the most stalled open deals: 2 of them."})
    assert silo_trl.reward(["p", "q"], [completion, "x"], [demo_env, object()]) == [1.0, None]
    assert _result_json(demo_env)["passed"] is True
    assert silo_trl.reward(None, [completion], [demo_env]) == [1.0]  # idempotent
    with pytest.raises(ValueError, match="environments"):
        silo_trl.reward(["p"], ["x"])


# -- reset and data ----------------------------------------------------------------------------


def test_reset_reads_the_row_and_appends_the_instruction_only_when_missing(demo_env: Any) -> None:
    rows = silo_trl.dataset("silo/demo-TASK-004", repeats=2, seed=7)
    assert rows.column_names == ["prompt", "task_id", "seed", "variant", "environment"]
    assert rows["seed"] == [episode_seed(7, "demo", "TASK-004", i) for i in range(2)]
    row = rows[0]
    assert row["prompt"][0]["role"] == "system" and row["prompt"][1]["content"].startswith("Amara wants")
    assert demo_env.reset(**row) is None  # the prompt already holds the instruction
    instruction = demo_env.reset(task_id="TASK-004", prompt=[{"role": "user", "content": ""}], seed=3)
    assert instruction == row["prompt"][1]["content"]
    with pytest.raises(ValueError, match="task_id"):
        demo_env.reset(prompt=[])
    with pytest.raises(ValueError, match="not one of"):
        silo_trl.environment_factory("silo/demo-TASK-004")().reset(task_id="TASK-001")
    with pytest.raises(ValueError, match="environment"):
        demo_env.reset(task_id="TASK-004", environment="project")


def test_factory_refuses_two_environments_and_sets_the_observation_limit() -> None:
    with pytest.raises(ValueError, match="one environment"):
        silo_trl.environment_factory(["silo/demo", "silo/orders"])
    cls = silo_trl.environment_factory("demo", max_completion_length=1000)
    assert cls()._env_kwargs["max_observation_length"] == 1000 == silo_trl.observation_limit(1000)
    assert silo_trl.observation_limit(10) == 256 and silo_trl.observation_limit(1000, 3.5) == 3500
    with pytest.raises(ValueError):
        silo_trl.observation_limit(0)


def test_sft_rows_keep_successful_episodes_with_object_arguments(tmp_path: pathlib.Path) -> None:
    solver = load_solver()
    rows = data.collect(["silo/demo-TASK-002", "silo/demo-TASK-004"], solver.make_policy, episodes_per_task=1)
    rows.append({**rows[0], "passed": False, "reward": 0.6})
    sft = data.sft_rows(rows)
    assert [r["task_id"] for r in sft] == ["TASK-002", "TASK-004"]
    assert list(sft[0]) == list(data.SFT_COLUMNS)
    calls = [c for m in sft[0]["messages"] for c in m.get("tool_calls") or []]
    tool_actions = [a for a in rows[0]["actions"] if "tool" in a]
    assert [c["function"] for c in calls] == [{"name": a["tool"], "arguments": a["input"]} for a in tool_actions]
    assert isinstance(calls[0]["function"]["arguments"], dict) and calls[0]["function"]["arguments"]
    tool_messages = [m for m in sft[0]["messages"] if m["role"] == "tool"]
    assert [m["name"] for m in tool_messages] == [a["tool"] for a in tool_actions]
    assert [m["name"] for m in tool_messages].count("reassign_opportunity") >= 1
    assert json.loads(sft[0]["tools"])[0]["function"]["name"] == "get_current_date"
    assert len(data.sft_rows(rows, min_reward=0.5)) == 3
    # as a datasets.Dataset the arguments keep their own keys (no nulls from other calls)
    ds = silo_trl.sft_dataset(rows, silo_trl.environment_factory("silo/demo"))
    first = [c for m in ds[0]["messages"] for c in m.get("tool_calls") or []]
    assert [c["function"]["arguments"] for c in first] == [a["input"] for a in tool_actions]
    names = [t["function"]["name"] for t in json.loads(ds[0]["tools"])]
    assert names == sorted(names)  # the order TRL renders an environment's tools in
