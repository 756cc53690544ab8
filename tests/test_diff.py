"""The state diff, silo-format §8 (and its file form, §6.3)."""

from __future__ import annotations

import copy
import math
import uuid
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from silo_gym.diff import ABSENT, EMPTY_DIFF_BYTES, diff_state, js_strict_equal, key_by_id
from silo_gym.jsonfmt import dumps_pretty, dumps_pretty_bytes

NO_CHANGE: dict[str, Any] = {"scalars": [], "collections": {}}


def coll(added: list[str] | None = None, removed: list[str] | None = None,
         changed: list[str] | None = None) -> dict[str, list[str]]:
    return {"added": added or [], "removed": removed or [], "changed": changed or []}


# --- §6.3: the file form -------------------------------------------------------------------------


def test_empty_diff_bytes_exact() -> None:
    expected = '{\n  "scalars": [],\n  "collections": {}\n}\n'
    assert EMPTY_DIFF_BYTES == expected.encode()
    assert dumps_pretty(diff_state({}, {})) == expected
    state = {"a": 1, "rows": [{"id": "x"}]}
    assert dumps_pretty(diff_state(state, copy.deepcopy(state))) == expected
    assert dumps_pretty_bytes(diff_state(state, state)) == EMPTY_DIFF_BYTES


def test_result_key_order_and_entry_key_order() -> None:
    d = diff_state({"n": 1, "c": {"a": 1}}, {"n": 2, "c": {"a": 2}})
    assert list(d) == ["scalars", "collections"]
    assert list(d["scalars"][0]) == ["field", "from", "to"]
    assert list(d["collections"]["c"]) == ["added", "removed", "changed"]
    assert dumps_pretty(d) == (
        '{\n  "scalars": [\n    {\n      "field": "n",\n      "from": 1,\n      "to": 2\n    }\n  ],\n'
        '  "collections": {\n    "c": {\n      "added": [],\n      "removed": [],\n'
        '      "changed": [\n        "a"\n      ]\n    }\n  }\n}\n'
    )


# --- our rule: non-dict states -------------------------------------------------------------------


@pytest.mark.parametrize(("initial", "final"), [
    (None, {"a": 1}), ({"a": 1}, None), ([1], [2]), ("x", "y"), (1, {"a": 2}), ({"a": 1}, [{"a": 2}]),
])
def test_non_dict_state_gives_empty_diff(initial: Any, final: Any) -> None:
    assert diff_state(initial, final) == NO_CHANGE


def test_diff_returns_fresh_containers() -> None:
    a = diff_state({}, {})
    a["scalars"].append(1)
    assert diff_state({}, {}) == NO_CHANGE


# --- §8 edge cases, one test each ----------------------------------------------------------------


def test_edge_value_turned_none_not_reported() -> None:
    assert diff_state({"a": 1, "b": "x", "c": {"k": 1}, "d": [1]},
                      {"a": None, "b": None, "c": None, "d": None}) == NO_CHANGE


def test_edge_new_key_holding_dict_or_list_not_reported() -> None:
    assert diff_state({}, {"d": {"k": 1}, "l": [{"id": "a"}], "e": {}, "n": None}) == NO_CHANGE


def test_edge_new_key_holding_scalar_reported_without_from() -> None:
    assert diff_state({}, {"s": "x", "i": 0, "f": 1.5, "b": False}) == {
        "scalars": [
            {"field": "s", "to": "x"},
            {"field": "i", "to": 0},
            {"field": "f", "to": 1.5},
            {"field": "b", "to": False},
        ],
        "collections": {},
    }


def test_edge_dict_became_scalar_reported_with_whole_dict() -> None:
    assert diff_state({"cfg": {"a": 1, "b": [2]}}, {"cfg": 7}) == {
        "scalars": [{"field": "cfg", "from": {"a": 1, "b": [2]}, "to": 7}],
        "collections": {},
    }


def test_edge_list_became_scalar_reported_with_whole_list() -> None:
    assert diff_state({"xs": [1, 2]}, {"xs": "none"}) == {
        "scalars": [{"field": "xs", "from": [1, 2], "to": "none"}],
        "collections": {},
    }


def test_edge_list_became_dict_is_diffed_as_collection() -> None:
    initial = {"rows": [{"id": "a", "v": 1}, {"id": "b", "v": 2}, {"v": 3}]}
    final = {"rows": {"a": {"id": "a", "v": 1}, "b": {"id": "b", "v": 9}, "c": {"v": 4}}}
    assert diff_state(initial, final) == {
        "scalars": [],
        "collections": {"rows": {"added": ["c"], "removed": ["2"], "changed": ["b"]}},
    }


def test_edge_dict_became_list_reports_nothing() -> None:
    assert diff_state({"rows": {"a": {"id": "a"}}}, {"rows": [{"id": "b"}, 5]}) == NO_CHANGE


def test_edge_scalar_became_list_or_dict_reports_nothing() -> None:
    assert diff_state({"a": 1, "b": "x", "c": True}, {"a": [1], "b": {"x": 1}, "c": []}) == NO_CHANGE


def test_none_became_dict_or_list_reports_nothing() -> None:
    assert diff_state({"a": None, "b": None}, {"a": {"k": 1}, "b": [1]}) == NO_CHANGE


def test_edge_dict_of_numbers_is_collection_in_dict_key_order() -> None:
    initial = {"seq": {"invoice": 3, "payment": 7, "customer": 2, "old": 1}}
    final = {"seq": {"payment": 8, "customer": 2, "invoice": 4, "refund": 1}}
    assert diff_state(initial, final) == {
        "scalars": [],
        "collections": {"seq": {"added": ["refund"], "removed": ["old"], "changed": ["payment", "invoice"]}},
    }


def test_edge_rows_without_string_ids_use_index_keys() -> None:
    initial = {"rows": [{"id": 1, "v": "a"}, {"v": "b"}, "c", [1]]}
    final = {"rows": [{"id": 1, "v": "A"}, {"v": "b"}, "c", [2], None]}
    assert diff_state(initial, final) == {
        "scalars": [],
        "collections": {"rows": {"added": ["4"], "removed": [], "changed": ["0", "3"]}},
    }


def test_edge_collections_in_final_key_order_and_only_when_changed() -> None:
    initial = {"a": {"x": 1}, "b": [{"id": "p"}], "c": {"y": 1}, "d": {"z": 1}}
    final = {"d": {"z": 2}, "c": {"y": 1}, "b": [], "a": {"x": 1, "w": 0}}
    d = diff_state(initial, final)
    assert list(d["collections"]) == ["d", "b", "a"]
    assert d == {
        "scalars": [],
        "collections": {
            "d": coll(changed=["z"]),
            "b": coll(removed=["p"]),
            "a": coll(added=["w"]),
        },
    }


def test_edge_integer_like_keys_keep_insertion_order() -> None:
    # (our rule) JavaScript would enumerate "2" before "10"; we keep Python's order.
    d = diff_state({"t": {"10": 1, "2": 1}}, {"t": {"10": 2, "2": 2, "1": 0}})
    assert d["collections"]["t"] == {"added": ["1"], "removed": [], "changed": ["10", "2"]}


def test_keys_only_in_initial_are_ignored() -> None:
    assert diff_state({"gone": 1, "rows": [{"id": "a"}]}, {}) == NO_CHANGE


# --- scalars and js_strict_equal -----------------------------------------------------------------


def test_scalar_int_vs_true_reported() -> None:
    assert diff_state({"a": 1, "b": True, "c": 0}, {"a": True, "b": 1, "c": False}) == {
        "scalars": [
            {"field": "a", "from": 1, "to": True},
            {"field": "b", "from": True, "to": 1},
            {"field": "c", "from": 0, "to": False},
        ],
        "collections": {},
    }


def test_scalar_int_vs_float_not_reported() -> None:
    assert diff_state({"a": 1, "b": 140000.0, "c": -0.0}, {"a": 1.0, "b": 140000, "c": 0}) == NO_CHANGE


def test_scalar_nan_is_always_reported() -> None:
    d = diff_state({"x": math.nan}, {"x": math.nan})
    assert len(d["scalars"]) == 1
    entry = d["scalars"][0]
    assert entry["field"] == "x" and math.isnan(entry["from"]) and math.isnan(entry["to"])
    assert dumps_pretty(d).startswith('{\n  "scalars": [\n    {\n      "field": "x",\n      "from": null,\n')
    nan = math.nan
    assert diff_state({"x": nan}, {"x": nan})["scalars"][0]["field"] == "x"  # even the same object


def test_scalar_none_transitions() -> None:
    assert diff_state({"a": None, "b": None}, {"a": 0, "b": ""}) == {
        "scalars": [{"field": "a", "from": None, "to": 0}, {"field": "b", "from": None, "to": ""}],
        "collections": {},
    }
    assert diff_state({"a": 5}, {"a": None}) == NO_CHANGE
    assert diff_state({"a": None}, {"a": None}) == NO_CHANGE


def test_scalar_from_collection_and_string_changes() -> None:
    assert diff_state({"s": "a", "t": "same", "u": []}, {"s": "b", "t": "same", "u": 0}) == {
        "scalars": [{"field": "s", "from": "a", "to": "b"}, {"field": "u", "from": [], "to": 0}],
        "collections": {},
    }


def test_scalar_number_vs_string_reported() -> None:
    assert diff_state({"a": 1, "b": "1"}, {"a": "1", "b": 1}) == {
        "scalars": [{"field": "a", "from": 1, "to": "1"}, {"field": "b", "from": "1", "to": 1}],
        "collections": {},
    }


def test_scalars_in_final_key_order() -> None:
    d = diff_state({"a": 1, "b": 1, "c": 1}, {"c": 2, "a": 2, "b": 2})
    assert [e["field"] for e in d["scalars"]] == ["c", "a", "b"]


def test_scalar_from_is_a_copy_of_the_container() -> None:
    """A container taken whole as ``from`` is copied: a verifier that later changes the initial
    world it was handed cannot change a diff already taken (the diff comes first, §5.5)."""
    old = {"k": [1]}
    d = diff_state({"x": old}, {"x": 1})
    assert d["scalars"][0]["from"] == {"k": [1]} and d["scalars"][0]["from"] is not old
    old["k"].append(2)
    assert d["scalars"][0]["from"] == {"k": [1]}


@pytest.mark.parametrize(("a", "b", "expected"), [
    (True, True, True), (False, False, True), (True, False, False),
    (True, 1, False), (1, True, False), (False, 0, False), (0, False, False), (True, 1.0, False),
    (1, 1.0, True), (140000, 140000.0, True), (0, -0.0, True), (1, 2, False),
    (math.nan, math.nan, False), (math.inf, math.inf, True), (2**60, 2**60, True),
    ("a", "a", True), ("a", "b", False), ("1", 1, False),
    (None, None, True), (None, 0, False), (None, "", False), (None, False, False), (0, None, False),
    (ABSENT, ABSENT, True), (ABSENT, None, False), (None, ABSENT, False), (ABSENT, 0, False),
    ({}, 1, False), ([], 0, False), ([1], "x", False), ({"a": 1}, {"a": 1}, False), ([], [], False),
])
def test_js_strict_equal(a: Any, b: Any, expected: bool) -> None:
    assert js_strict_equal(a, b) is expected


def test_js_strict_equal_same_container_object() -> None:
    d: dict[str, Any] = {}
    assert js_strict_equal(d, d) is True


def test_absent_repr() -> None:
    assert repr(ABSENT) == "ABSENT"


# --- collections: canonical comparison -----------------------------------------------------------


def test_key_order_change_counts_as_change() -> None:
    initial = {"rows": [{"id": "a", "x": 1, "y": 2}], "m": {"k": {"p": 1, "q": 2}}}
    final = {"rows": [{"id": "a", "y": 2, "x": 1}], "m": {"k": {"q": 2, "p": 1}}}
    assert diff_state(initial, final) == {
        "scalars": [],
        "collections": {"rows": coll(changed=["a"]), "m": coll(changed=["k"])},
    }


def test_record_key_order_change_at_depth() -> None:
    initial = {"rows": [{"id": "a", "meta": {"x": 1, "y": [{"p": 1, "q": 2}]}}]}
    final = {"rows": [{"id": "a", "meta": {"x": 1, "y": [{"q": 2, "p": 1}]}}]}
    assert diff_state(initial, final)["collections"] == {"rows": coll(changed=["a"])}


def test_collection_int_vs_float_equal() -> None:
    initial = {"rows": [{"id": "a", "amount": 140000, "fee": 0.5, "neg": -0.0}], "seq": {"n": 1}}
    final = {"rows": [{"id": "a", "amount": 140000.0, "fee": 0.5, "neg": 0}], "seq": {"n": 1.0}}
    assert diff_state(initial, final) == NO_CHANGE


def test_collection_true_vs_one_is_change() -> None:
    d = diff_state({"flags": {"a": 1, "b": True}}, {"flags": {"a": True, "b": True}})
    assert d == {"scalars": [], "collections": {"flags": coll(changed=["a"])}}


def test_collection_nan_records_compare_equal_as_null() -> None:
    # canonical(NaN) is null: inside a collection NaN == NaN == None.
    assert diff_state({"m": {"a": math.nan, "b": [math.inf]}},
                      {"m": {"a": None, "b": [-math.inf]}}) == NO_CHANGE


def test_collection_incompatible_values_compare_as_null() -> None:
    assert diff_state({"m": {"a": {1, 2}, "b": None}}, {"m": {"a": None, "b": object()}}) == NO_CHANGE
    assert diff_state({"m": {"a": "x"}}, {"m": {"a": uuid.UUID(int=1)}})["collections"] == {
        "m": coll(changed=["a"])
    }


def test_list_rows_string_ids() -> None:
    initial = {"invoices": [{"id": "inv-1", "total": 10}, {"id": "inv-2", "total": 20},
                            {"id": "inv-3", "total": 30}]}
    final = {"invoices": [{"id": "inv-3", "total": 31}, {"id": "inv-1", "total": 10},
                          {"id": "inv-4", "total": 40}]}
    assert diff_state(initial, final) == {
        "scalars": [],
        "collections": {"invoices": {"added": ["inv-4"], "removed": ["inv-2"], "changed": ["inv-3"]}},
    }


def test_list_rows_mixed_string_and_index_keys() -> None:
    initial = {"rows": [{"id": "a"}, {"id": 7}, {"id": None}]}
    final = {"rows": [{"id": 7}, {"id": "a"}]}
    # before: a, "1", "2"; after: "0", a
    assert diff_state(initial, final)["collections"] == {
        "rows": {"added": ["0"], "removed": ["1", "2"], "changed": []}
    }


def test_list_rows_duplicate_ids_later_replaces_keeps_first_position() -> None:
    rows = [{"id": "a", "v": 1}, {"id": "b", "v": 1}, {"id": "a", "v": 2}]
    keyed = key_by_id(rows)
    assert list(keyed) == ["a", "b"]
    assert keyed["a"] == {"id": "a", "v": 2}
    initial = {"rows": [{"id": "a", "v": 2}, {"id": "b", "v": 1}]}
    assert diff_state(initial, {"rows": rows}) == NO_CHANGE
    assert diff_state({"rows": rows}, initial) == NO_CHANGE
    changed = {"rows": [{"id": "a", "v": 2}, {"id": "b", "v": 1}, {"id": "a", "v": 3}]}
    assert diff_state(initial, changed)["collections"] == {"rows": coll(changed=["a"])}


def test_key_by_id_index_key_collides_with_string_id() -> None:
    rows = [{"id": "1", "v": "first"}, {"v": "second"}, 3]
    keyed = key_by_id(rows)
    assert list(keyed) == ["1", "2"]
    assert keyed == {"1": {"v": "second"}, "2": 3}


def test_key_by_id_literal() -> None:
    assert key_by_id([]) == {}
    assert key_by_id([{"id": "x"}, {"id": 1}, "s", None, {"id": "y", "a": 1}]) == {
        "x": {"id": "x"}, "1": {"id": 1}, "2": "s", "3": None, "y": {"id": "y", "a": 1},
    }
    assert list(key_by_id([{"id": "b"}, {"id": "a"}])) == ["b", "a"]


def test_ordering_of_ids() -> None:
    initial = {"rows": [{"id": "r1"}, {"id": "r2", "v": 0}, {"id": "r3"}, {"id": "r4", "v": 0},
                        {"id": "r5"}]}
    final = {"rows": [{"id": "n2"}, {"id": "r4", "v": 1}, {"id": "n1"}, {"id": "r2", "v": 1}]}
    assert diff_state(initial, final)["collections"]["rows"] == {
        "added": ["n2", "n1"], "removed": ["r1", "r3", "r5"], "changed": ["r4", "r2"],
    }


def test_both_lists_of_scalars() -> None:
    assert diff_state({"tags": ["a", "b"]}, {"tags": ["a", "c", "d"]}) == {
        "scalars": [], "collections": {"tags": coll(added=["2"], changed=["1"])},
    }
    assert diff_state({"tags": ["a"]}, {"tags": []})["collections"] == {"tags": coll(removed=["0"])}


def test_empty_collections() -> None:
    assert diff_state({"a": [], "b": {}}, {"a": [], "b": {}}) == NO_CHANGE
    assert diff_state({"a": [], "b": {}}, {"a": {}, "b": {}}) == NO_CHANGE


def test_new_rows_and_removed_rows_in_dict_collection() -> None:
    assert diff_state({"m": {"a": 1, "b": 2}}, {"m": {"c": 3, "a": 1}}) == {
        "scalars": [], "collections": {"m": coll(added=["c"], removed=["b"])},
    }


def test_same_object_on_both_sides() -> None:
    rows = [{"id": "a", "x": math.nan}]
    assert diff_state({"rows": rows}, {"rows": rows}) == NO_CHANGE


def test_dict_subclasses_and_ordered_dicts() -> None:
    initial = {"m": OrderedDict([("a", 1), ("b", 2)])}
    assert diff_state(initial, {"m": {"a": 1, "b": 2}}) == NO_CHANGE
    assert diff_state(initial, {"m": OrderedDict([("b", 2), ("a", 1)])}) == NO_CHANGE  # keys, not order
    assert diff_state({"m": {"a": {"x": 1, "y": 2}}}, {"m": OrderedDict(a=OrderedDict(y=2, x=1))}) == {
        "scalars": [], "collections": {"m": coll(changed=["a"])},
    }


def test_scalar_and_collection_mixed_world() -> None:
    initial = {
        "clock": "2026-03-20",
        "budget": 140000.0,
        "invoices": [{"id": "i1", "total": 100.5, "status": "open"}, {"id": "i2", "total": 7, "status": "open"}],
        "customers": {"c1": {"name": "Ana"}, "c2": {"name": "Bo"}},
        "seq": {"invoice": 2},
        "settings": {"currency": "EUR"},
    }
    final = copy.deepcopy(initial)
    final["clock"] = "2026-03-21"
    final["budget"] = 139899.5
    final["invoices"][0]["status"] = "paid"
    final["invoices"].append({"id": "i3", "total": 1, "status": "open"})
    final["seq"]["invoice"] = 3
    del final["customers"]["c2"]
    final["note"] = "done"
    assert diff_state(initial, final) == {
        "scalars": [
            {"field": "clock", "from": "2026-03-20", "to": "2026-03-21"},
            {"field": "budget", "from": 140000.0, "to": 139899.5},
            {"field": "note", "to": "done"},
        ],
        "collections": {
            "invoices": {"added": ["i3"], "removed": [], "changed": ["i1"]},
            "customers": {"added": [], "removed": ["c2"], "changed": []},
            "seq": {"added": [], "removed": [], "changed": ["invoice"]},
        },
    }


# --- states the orjson path refuses still diff by canonical bytes --------------------------------


def test_lone_surrogates_huge_ints_and_non_string_keys() -> None:
    initial = {
        "rows": [{"id": "a\ud800", "v": 2**70}, {"id": "b", "v": 1}],
        "m": {1: "x", "k": {2: "y"}},
    }
    final = {
        "rows": [{"id": "a\ud800", "v": 2**70 + 1}, {"id": "b", "v": 1.0}],
        "m": {1: "x", "k": {3: "y"}},  # the dict under "k" has a non-str key: written null both times
    }
    assert diff_state(initial, final) == {
        "scalars": [], "collections": {"rows": coll(changed=["a\ud800"])},
    }
    assert diff_state({"m": {1: "x"}}, {"m": {1: "y", 2: "z"}})["collections"] == {
        "m": {"added": [2], "removed": [], "changed": [1]}
    }


def test_deeply_nested_records() -> None:
    def nest(n: int, leaf: Any) -> Any:
        v = leaf
        for _ in range(n):
            v = [v]
        return v

    initial = {"rows": [{"id": "d", "v": nest(400, 1)}], "m": {"k": nest(300, 1.5)}}
    same = {"rows": [{"id": "d", "v": nest(400, 1.0)}], "m": {"k": nest(300, 1.5)}}
    assert diff_state(initial, same) == NO_CHANGE
    other = {"rows": [{"id": "d", "v": nest(400, 2)}], "m": {"k": nest(300, 2.5)}}
    assert diff_state(initial, other)["collections"] == {"rows": coll(changed=["d"]), "m": coll(changed=["k"])}
    assert diff_state({"x": nest(5000, 1)}, {"x": 1})["scalars"][0]["to"] == 1
    assert diff_state({"m": {"k": nest(5000, 1)}}, {"m": {"k": nest(5000, 1)}}) == NO_CHANGE


def test_tuples_are_not_lists_for_the_algorithm() -> None:
    # The algorithm checks for list; a tuple is neither scalar nor collection: nothing recorded.
    assert diff_state({"t": (1,)}, {"t": (2,)}) == NO_CHANGE
    # ... but as a record value it serializes like a list.
    assert diff_state({"m": {"a": (1, 2)}}, {"m": {"a": [1, 2]}}) == NO_CHANGE


# --- properties ------------------------------------------------------------------------------------

json_scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["id", "a", "b", "0", "x\ud800", ""]) | st.text(max_size=3), children,
                      max_size=4)
    | st.lists(st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "c"])}, optional={"v": children}),
               max_size=4),
    max_leaves=20,
)
states = st.dictionaries(st.sampled_from(["a", "b", "c", "rows", "seq", "n"]), json_values, max_size=6)


def _without_nan(v: Any) -> bool:
    if isinstance(v, float):
        return v == v
    if isinstance(v, dict):
        return all(_without_nan(x) for x in v.values())
    if isinstance(v, list):
        return all(_without_nan(x) for x in v)
    return True


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
@settings(max_examples=300, deadline=None)
@given(states)
def test_property_state_vs_its_deep_copy_is_empty(state: dict[str, Any]) -> None:
    d = diff_state(state, copy.deepcopy(state))
    assert d["collections"] == {}
    # Only top-level NaN scalars are reported (NaN !== NaN), all with from and to.
    assert all(e["field"] in state and "from" in e and isinstance(e["to"], float) and e["to"] != e["to"]
               for e in d["scalars"])
    if _without_nan(state):
        assert d == NO_CHANGE
        assert dumps_pretty(d) == EMPTY_DIFF_BYTES.decode()


@settings(max_examples=300, deadline=None)
@given(st.one_of(states, json_values), st.one_of(states, json_values))
def test_property_never_raises_and_shape(initial: Any, final: Any) -> None:
    d = diff_state(initial, final)
    assert list(d) == ["scalars", "collections"]
    if not (isinstance(initial, dict) and isinstance(final, dict)):
        assert d == NO_CHANGE
        return
    fields = list(final)
    assert [e["field"] for e in d["scalars"]] == [k for k in fields if k in {e["field"] for e in d["scalars"]}]
    for e in d["scalars"]:
        assert list(e) == (["field", "from", "to"] if e["field"] in initial else ["field", "to"])
    assert list(d["collections"]) == [k for k in fields if k in d["collections"]]
    for entry in d["collections"].values():
        assert list(entry) == ["added", "removed", "changed"]
        assert entry["added"] or entry["removed"] or entry["changed"]
    dumps_pretty(d)


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
@settings(max_examples=200, deadline=None)
@given(states, states)
def test_property_matches_reference_algorithm(initial: dict[str, Any], final: dict[str, Any]) -> None:
    """The fast paths give exactly the §8 pseudocode's answer, computed naively here."""
    from silo_gym.jsonfmt import _py_dumps

    def canon(v: Any) -> str:
        return _py_dumps(v, False)

    scalars: list[dict[str, Any]] = []
    collections: dict[str, Any] = {}
    for key in final:
        before = initial.get(key, ABSENT)
        after = final[key]
        is_coll = isinstance(after, dict) and isinstance(before, (dict, list))
        if not is_coll and not (isinstance(before, list) and isinstance(after, list)):
            if isinstance(after, (str, int, float, bool)) and not js_strict_equal(before, after):
                e: dict[str, Any] = {"field": key}
                if before is not ABSENT:
                    e["from"] = before
                e["to"] = after
                scalars.append(e)
            continue
        bm = key_by_id(before) if isinstance(before, list) else before
        am = key_by_id(after) if isinstance(after, list) else after
        added = [k for k in am if k not in bm]
        removed = [k for k in bm if k not in am]
        changed = [k for k in am if k in bm and canon(bm[k]) != canon(am[k])]
        if added or removed or changed:
            collections[key] = {"added": added, "removed": removed, "changed": changed}
    got = diff_state(initial, final)
    assert dumps_pretty(got) == dumps_pretty({"scalars": scalars, "collections": collections})
    assert [e["field"] for e in got["scalars"]] == [e["field"] for e in scalars]


# --- the episode's fast diff against a plain initial world (issue 14) ------------------------------

import enum  # noqa: E402

import orjson  # noqa: E402

from silo_gym.diff import diff_plain_initial  # noqa: E402


class _Color(enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    ONE = 1


class _Name(str):
    pass


#: Values that orjson writes like a plain value, or that Python finds equal to one, but whose
#: canonical bytes differ (or agree) in ways a byte or equality shortcut alone would get wrong.
tricky = st.sampled_from([
    _Color.RED, "red", _Level.ONE, 1, 1.0, True, False, 0, -0.0, 0.0, float("nan"), float("inf"), None,
    uuid.UUID(int=7), str(uuid.UUID(int=7)), (1, 2), [1, 2], _Name("red"), 2**70, {"b": 1, "a": 2},
    {"a": 2, "b": 1}, [], {}, "",
])
plain_scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | st.floats(allow_nan=False,
                                                                                  allow_infinity=False) | st.text(max_size=4)
plain_values = st.recursive(
    plain_scalars,
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["id", "a", "b", "v"]), children, max_size=3)
    | st.lists(st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "c"])}, optional={"v": children}),
               max_size=3),
    max_leaves=12,
)
plain_states = st.dictionaries(st.sampled_from(["a", "b", "rows", "seq", "n"]), plain_values, max_size=5)


def _containers(value: Any, out: list[Any]) -> list[Any]:
    if isinstance(value, dict):
        out.append(value)
        for v in value.values():
            _containers(v, out)
    elif isinstance(value, list):
        out.append(value)
        for v in value:
            _containers(v, out)
    return out


@st.composite
def mutated(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    initial = draw(plain_states)
    final = orjson.loads(orjson.dumps(initial))
    for _ in range(draw(st.integers(0, 4))):
        spots = _containers(final, [])
        target = draw(st.sampled_from(spots))
        value = copy.deepcopy(draw(tricky | plain_values))  # the pool's containers stay pristine
        if isinstance(target, dict):
            if target and draw(st.booleans()):
                key = draw(st.sampled_from(list(target)))
                if draw(st.booleans()):  # move the key to the end: same content, new key order
                    target[key] = target.pop(key)
                    continue
            else:
                key = draw(st.sampled_from(["id", "a", "b", "v", "new"]))
            target[key] = value
        elif target:
            target[draw(st.integers(0, len(target) - 1))] = value
        else:
            target.append(value)
    return initial, final


@settings(max_examples=600, deadline=None)
@given(mutated())
def test_property_fast_diff_equals_diff_state(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    initial, final = pair
    parts = {k: orjson.dumps(v) for k, v in initial.items()}
    restored = {k: orjson.loads(b) for k, b in parts.items()}
    assert dumps_pretty(diff_plain_initial(restored, final, parts)) == dumps_pretty(diff_state(restored, final))


@pytest.mark.parametrize(("before", "after", "changed"), [
    ({"k": "red"}, {"k": _Color.RED}, True),      # orjson writes the enum's value; canonical writes null
    ({"k": None}, {"k": float("nan")}, False),   # both canonical null
    ({"k": 1}, {"k": True}, True),               # equal in Python, not in JSON
    ({"k": 1}, {"k": 1.0}, False),               # canonical 1 both
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),  # key order counts (silo-format §8)
    ({"k": [1, 2]}, {"k": (1, 2)}, False),       # a tuple serializes like a list
    ({"k": "x"}, {"k": _Name("x")}, False),      # a str subclass is written as its str
    ({"k": str(uuid.UUID(int=7))}, {"k": uuid.UUID(int=7)}, True),
])
def test_fast_diff_record_edge_cases(before: Any, after: Any, changed: bool) -> None:
    initial = {"coll": {"r": before}}
    final = {"coll": {"r": after}}
    parts = {k: orjson.dumps(v) for k, v in initial.items()}
    expected = {"scalars": [], "collections": {"coll": coll(changed=["r"])} if changed else {}}
    assert diff_plain_initial(initial, final, parts) == expected == diff_state(initial, final)
