"""``silo_gym.kit`` world plumbing: read/write tool constructors, ``pick``, ``StateMaker``,
``binder`` and the read-only proof (``sample_inputs``, ``read_only_breaches``)."""

from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from silo_gym import kit

BOOKS = kit.Collection("books", "BK", "Book")


def _seed(tmp_path: Path) -> kit.SeedWorld:
    data = tmp_path / "data"
    data.mkdir()
    (data / "books.json").write_text(json.dumps([{"id": "BK-001", "title": "A"}, {"id": "BK-002", "title": "B"}]))
    (data / "auditLog.json").write_text("[]")
    (data / "sequences.json").write_text('{"BK": 2}')
    return kit.SeedWorld(data, "2026-01-01", ("books",))


def _get(state, args):
    return BOOKS.require(state, args["bookId"])


def _retitle(state, args):
    BOOKS.require(state, args["bookId"])["title"] = args["title"]
    return {"ok": True}


GET = kit.read_tool(name="get_book", description="d", input_schema=kit.schema(
    {"bookId": kit.prop("string", "id")}, ["bookId"]), run=_get)
RETITLE = kit.write_tool(name="retitle", description="d", input_schema=kit.schema(
    {"bookId": kit.prop("string", "id"), "title": kit.prop("string", "t")}, ["bookId", "title"]), run=_retitle)


def test_read_and_write_tool_tag_what_they_make():
    assert (GET.access, RETITLE.access) == ("read", "write")
    assert isinstance(GET, kit.KitTool) and kit.read_tools([GET, RETITLE]) == [GET]
    assert GET.input_schema["required"] == ["bookId"] and GET.run is _get


def test_pick_keeps_the_order_of_the_keys():
    assert list(kit.pick({"a": 1, "b": 2, "c": 3}, ("c", "a")).items()) == [("c", 3), ("a", 1)]
    with pytest.raises(KeyError):
        kit.pick({"a": 1}, ("b",))


def test_state_maker_seed_variants_cache_and_refusal(tmp_path: Path):
    module = tmp_path / "gen_for_kit_test.py"
    module.write_text("CALLS = []\ndef make(k):\n    CALLS.append(k)\n    return {'now': 'x', 'k': k}\n")
    sys.path.insert(0, str(tmp_path))
    try:
        seed = _seed(tmp_path)
        make = kit.StateMaker(seed, "gen_for_kit_test:make", package=None, cache=2,
                              refuse="variant must be a number, got {variant!r}.")
        first, second = make(), make()
        assert first == second and first is not second and first["books"] is not second["books"]
        assert list(first) == ["now", "books", "auditLog", "sequences"]
        a, b = make(5), make(5)
        assert a == b == {"now": "x", "k": 5} and a is not b
        import gen_for_kit_test as gen

        assert gen.CALLS == [5]  # the second one came from the cache
        make(6), make(7), make(5)
        assert gen.CALLS == [5, 6, 7, 5]  # 5 was dropped: only two are kept
        for bad in (True, -1, "3"):
            with pytest.raises(ValueError, match="variant must be a number, got"):
                make(bad)  # type: ignore[arg-type]
        uncached = kit.StateMaker(seed, "gen_for_kit_test:make", package=None)
        uncached(1), uncached(1)
        assert gen.CALLS[-2:] == [1, 1]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("gen_for_kit_test", None)


def test_binder_binds_every_tool_in_order(tmp_path: Path):
    state = _seed(tmp_path).create()
    bound = kit.binder([GET, RETITLE])(state)
    assert [t.name for t in bound] == ["get_book", "retitle"]
    assert bound[0].execute({"bookId": "BK-002"})["output"] == {"id": "BK-002", "title": "B"}


def test_sample_inputs_fill_required_keys_and_run_over_ids(tmp_path: Path):
    state = _seed(tmp_path).create()
    assert list(kit.sample_inputs(GET, state, {"bookId": "books"})) == [{"bookId": "BK-001"}, {"bookId": "BK-002"}]
    assert list(kit.sample_inputs(RETITLE, state, {"bookId": "books"}, {"title": "Z"}, every_id=True)) == [
        {"bookId": "BK-001", "title": "Z"}, {"bookId": "BK-002", "title": "Z"}]
    with pytest.raises(KeyError):
        list(kit.sample_inputs(RETITLE, state, {"bookId": "books"}))


def test_read_only_breaches_finds_a_read_tool_that_writes(tmp_path: Path):
    state = _seed(tmp_path).create()

    def inputs(tool):
        return kit.sample_inputs(tool, state, {"bookId": "books"}, {"title": "Z"})

    assert kit.read_only_breaches([GET, RETITLE], state, inputs) == ([], {"get_book"})
    assert state["books"]["BK-001"]["title"] == "A"  # the write tool is not run
    leaky = kit.read_tool(name="leaky", description="d", input_schema=RETITLE.input_schema, run=_retitle)
    breaches, answered = kit.read_only_breaches([leaky], state, inputs)
    assert breaches == ["leaky({'bookId': 'BK-001', 'title': 'Z'})", "leaky({'bookId': 'BK-002', 'title': 'Z'})"]
    assert answered == {"leaky"}
    missing = kit.read_only_breaches([GET], state, lambda tool: [{"bookId": "BK-404"}])
    assert missing == ([], set())  # an error answer changes nothing and is not counted as answered


def test_state_maker_from_data_is_a_state_maker_over_a_seed(tmp_path: Path):
    _seed(tmp_path)
    make = kit.StateMaker.from_data(tmp_path / "data", "2026-01-01", ("books",), "json:loads", package=None)
    assert make()["books"]["BK-002"] == {"id": "BK-002", "title": "B"} and make("[1]") == [1]  # type: ignore[arg-type]


NOTES = kit.Collection("notes", "N", "Note", links=("bookId", "authorId"))


def _notes():
    notes = {}
    for n in range(1, 31):
        notes[f"N-{n:03d}"] = {"id": f"N-{n:03d}", "bookId": f"BK-{n % 3}", "authorId": f"AU-{n % 4}",
                               "text": f"note {n}" + (" urgent" if n % 5 == 0 else ""), "order": 30 - n}
    return {"notes": dict(reversed(list(notes.items())))}  # stored out of id order


def test_search_filter_and_several_links_match_a_plain_filter():
    world = _notes()
    tool = kit.list_tool(name="l", description="", collection=NOTES, summary=lambda s, r: r["id"], filters={
        "bookId": kit.Filter(kit.String("b"), link="bookId"),
        "authorId": kit.Filter(kit.String("a"), link="authorId"),
        "query": kit.search_filter("q", lambda s, r: (r["text"], None)),
    })
    assert tool.input_schema["required"] == ["query"]
    for args in ({"query": "URGENT"}, {"query": "note 1", "bookId": "BK-1"},
                 {"query": "note", "bookId": "BK-2", "authorId": "AU-1", "limit": 2, "offset": 1}):
        want = sorted(i for i, r in world["notes"].items()
                      if args["query"].lower() in r["text"] and all(r[k] == args[k] for k in ("bookId", "authorId") if k in args))
        page = tool.run(world, args)
        offset, limit = args.get("offset", 0), args.get("limit", 50)
        assert (page["total"], page["results"]) == (len(want), want[offset:offset + limit]), args


def test_catalog_tool_lists_in_order_stably():
    world = {"notes": {"N-1": {"id": "N-1", "order": 2}, "N-2": {"id": "N-2", "order": 1}, "N-3": {"id": "N-3", "order": 2}}}
    tool = kit.catalog_tool(name="c", description="d", collection=NOTES, summary=lambda s, r: r["id"])
    assert tool.access == "read" and tool.input_schema["properties"] == {}
    assert tool.run(world, {}) == {"results": ["N-2", "N-1", "N-3"]}
    by_id = kit.catalog_tool(name="c", description="d", collection=NOTES, summary=lambda s, r: r["order"],
                             order=lambda r: r["id"])
    assert by_id.run(world, {}) == {"results": [2, 1, 2]}


def test_declared_fields_and_shape_problems():
    shaped = kit.Collection("books", "BK", "Book", fields=("id", "title"))
    world = {"books": {"BK-1": {"id": "BK-1", "title": "A"}, "BK-2": {"title": "B", "id": "BK-2"}}}
    assert shaped.fields == ("id", "title") and BOOKS.fields == () and BOOKS.shape_problems(world) == []
    assert shaped.shape_problems(world) == ["books[BK-2] has the fields ['title', 'id'], not ['id', 'title']."]


def test_per_task_collects_one_function_per_task_in_id_order():
    def _t010(): return 10  # noqa: E704
    def _t002(): return 2  # noqa: E704
    namespace = {"_t010": _t010, "_t002": _t002, "_t": len, "_t003x": len, "_t004": "not callable", "other": len}
    assert kit.per_task(namespace, "_t") == {"TASK-002": _t002, "TASK-010": _t010}
    assert list(kit.per_task({"_task_007": _t002}, "_task_", "JOB-")) == ["JOB-007"]


@pytest.mark.parametrize(("world", "says"), [
    ([1, 2], "returned a list, not a world"),
    (None, "returned None, not a world"),
    ({"now": "2026-01-01", "tags": {"a", "b"}}, "top-level key 'tags' does not hold plain JSON"),
    ({"now": "2026-01-01", "rows": {1: {"id": 1}}}, "top-level key 'rows' does not hold plain JSON"),
    ({"now": "2026-01-01", "big": 2**70}, "top-level key 'big' does not hold plain JSON"),
    ({"now": datetime.date(2026, 1, 1)}, "top-level key 'now' does not hold plain JSON"),
])
def test_a_canonical_world_that_is_no_json_world_is_refused_by_name(world: Any, says: str) -> None:
    with pytest.raises(TypeError, match=re.escape(says)):
        kit.CanonicalWorld(lambda: world).create()
