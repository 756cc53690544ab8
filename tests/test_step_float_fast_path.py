"""The step's fast serialiser (orjson as it is) gives the canonical bytes: a tool result's clone
turns integral floats into ints and flags every float whose orjson text is not the JavaScript
text, so ``SiloEnv.step`` can skip the float-formatting walk for money amounts like ``1091.2``."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from test_jsonfmt import json_like

from silo_gym.jsonfmt import dumps_compact, dumps_compact_float_free, js_number, native_float_exact
from silo_gym.tools import Tool, clone_output, define_tool

NUMBERS = Path(__file__).parent / "data" / "js_numbers.json"  # Node's outputs, see test_jsonfmt

def _echo_tool(value: Any) -> Tool:
    tool = define_tool(name="echo", description="Returns a fixed value.",
                       input_schema={"type": "object"}, run=lambda state, _input: value)
    return Tool(tool, state={})


def test_native_float_exact_is_true_exactly_where_orjson_writes_what_javascript_writes() -> None:
    rows = json.loads(NUMBERS.read_text(encoding="ascii"))["numbers"]
    assert len(rows) > 2000
    verdicts = []
    for bits, _, _, js_json, *_ in rows:
        x = struct.unpack(">d", bytes.fromhex(bits))[0]
        assert native_float_exact(x) == (orjson.dumps(x).decode() == js_json), repr(x)
        verdicts.append(native_float_exact(x))
    assert 0 < sum(verdicts) < len(verdicts)  # the fixture has both kinds


def test_typical_cases() -> None:
    assert native_float_exact(1091.2) and native_float_exact(0.1) and native_float_exact(1e-7)
    assert not native_float_exact(9680.0)  # orjson "9680.0", JavaScript "9680"
    assert not native_float_exact(-0.0) and not native_float_exact(0.0)
    assert not native_float_exact(2.5e-6)  # orjson "2.5e-6", JavaScript "0.0000025"
    assert js_number(2.5e-6) == "0.0000025"


def test_clone_makes_integral_floats_ints_and_keeps_the_rest() -> None:
    out = clone_output({"a": 242.0, "b": [-0.0, 6.6, 2.0**53, -(2.0**53) + 1], "c": 1e300})
    assert out == {"a": 242, "b": [0, 6.6, 2.0**53, -(2**53) + 1], "c": 1e300}
    assert [type(x) for x in (out["a"], *out["b"], out["c"])] == [int, int, float, float, int, float]


@settings(max_examples=400, deadline=None)
@given(json_like)
def test_fast_path_flag_is_never_wrong(value: Any) -> None:
    result, unsafe = _echo_tool(value).execute_tracked({})
    assert dumps_compact(result) == dumps_compact({"output": value})  # the clone writes the same
    if not unsafe:
        assert dumps_compact_float_free(result) == dumps_compact(result)  # what SiloEnv.step writes


def test_money_result_takes_the_fast_path_and_keeps_its_text() -> None:
    value = {"unitPrice": {"amount": 242.0}, "tax": 1091.2, "lines": [9680.0, 6.6, 10775.16]}
    result, unsafe = _echo_tool(value).execute_tracked({})
    assert not unsafe
    assert orjson.dumps(result) == b'{"output":{"unitPrice":{"amount":242},"tax":1091.2,"lines":[9680,6.6,10775.16]}}'
    assert json.loads(orjson.dumps(result)) == json.loads(dumps_compact({"output": value}))


def test_a_float_orjson_writes_differently_keeps_the_slow_path() -> None:
    _, unsafe = _echo_tool({"tiny": 2.5e-6}).execute_tracked({})
    assert unsafe
