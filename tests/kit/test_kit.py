"""``silo_gym.kit``: contracts and specs, the typed-function decorator, collections and their
indexes, builders, read/write tagging, guards, audit, money, verifier and variant helpers,
templateVersion."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Annotated, Literal

import orjson
import pytest

from silo_gym import SiloError, ToolError, bind_tools, kit
from silo_gym.kit import index

PROJECT_STYLE = kit.Contract(enum_reads_string=True, date_reads_string=True, boolean_default=False)


def _error(fn, *args):
    with pytest.raises(ToolError) as info:
        fn(*args)
    return info.value.code, info.value.message, info.value.details


# ---------------------------------------------------------------------------------------------
# Contract and specs


def test_default_contract_wording_and_strict_enums():
    c = kit.Contract()
    assert _error(c.read_string, {"s": "  "}, "s") == ("invalid_input", '"s" must be a non-empty string.', None)
    assert _error(c.read_enum, {"e": 3}, "e", ("a", "b")) == (
        "invalid_input", '"e" must be one of: a, b.', {"received": 3})
    assert _error(c.read_enum, {"e": " a "}, "e", ("a", "b"))[2] == {"received": " a "}
    assert _error(c.read_date, {"d": 5}, "d") == (
        "invalid_input", '"d" must be a date in YYYY-MM-DD format.', {"received": 5})
    assert _error(c.read_date, {"d": "2026-02-30"}, "d")[1] == '"d" must be a date in YYYY-MM-DD format.'
    assert _error(c.read_number, {"n": 0.05}, "n", False, 0.1)[1] == '"n" must be at least 0.1.'
    assert _error(c.read_number, {"n": 7}, "n", True, None, 5)[1] == '"n" must be at most 5.'
    assert _error(c.read_number, {"n": float("nan")}, "n")[1] == '"n" must be a number.'
    assert c.read_boolean({}, "b", True) is True and c.read_boolean({}, "b") is False
    assert type(c.read_number({"n": 5.0}, "n", True)) is int


def test_project_style_contract_reads_strings_first_and_defaults_booleans():
    c = PROJECT_STYLE
    assert _error(c.read_enum, {"e": 3}, "e", ("a",))[1] == '"e" must be a non-empty string.'
    assert c.read_enum({"e": " a "}, "e", ("a",)) == "a"
    assert _error(c.read_date, {"d": ""}, "d")[1] == '"d" must be a non-empty string.'
    assert c.boolean_prop("x") == {"type": "boolean", "description": "x", "default": False}
    assert kit.Contract().boolean_prop("x") == {"type": "boolean", "description": "x"}


def test_wording_is_configurable():
    c = kit.Contract(wording=kit.Wording(string="{field} is required, as text."))
    assert _error(c.read_string, {}, "name")[1] == "name is required, as text."


def test_specs_give_property_and_reader():
    params = {
        "name": kit.String("Name.", required=True),
        "tier": kit.Enum(("a", "b"), "Tier.", default="a"),
        "due": kit.Date("Due date."),
        "limit": kit.Integer("Page size.", minimum=1, maximum=9, default=3),
    }
    s = kit.params_schema(params)
    assert s["required"] == ["name"] and s["additionalProperties"] is False
    assert s["properties"]["due"]["description"] == "Due date. Format: YYYY-MM-DD."
    assert s["properties"]["limit"] == {"type": "integer", "description": "Page size.", "minimum": 1,
                                        "maximum": 9, "default": 3}
    assert kit.read_params(params, {"name": " x "}) == {"name": "x", "tier": "a", "due": None, "limit": 3}
    assert _error(kit.read_params, params, {"name": "x", "limit": 10})[1] == '"limit" must be at most 9.'
    with pytest.raises(ValueError, match="not properties"):
        kit.schema({"a": kit.prop("string", "A")}, ["b"])


# ---------------------------------------------------------------------------------------------
# The decorator


@kit.tool("write", contract=PROJECT_STYLE)
def _rate(
    state,
    book_id: str,
    stars: Annotated[int, kit.Bounds(1, 5)],
    mood: Literal["glad", "sad"] = "glad",
    public: bool = False,
    note: str | None = None,
    read_on: Annotated[str | None, kit.Date("Day read.")] = None,
    weight: Annotated[float, kit.Bounds(0)] = 1.0,
):
    """Rate a book.

    Args:
        book_id: The book's id.
        stars: One to five stars,
            five the best.
        mood: How it left you.

    Returns:
        the rating.
    """
    state.setdefault("ratings", []).append([book_id, stars, mood, public, note, read_on, weight])
    return {"ok": True}


def test_decorator_derives_the_schema_from_signature_and_docstring():
    assert _rate.name == "_rate" and _rate.description == "Rate a book." and _rate.access == "write"
    props = _rate.input_schema["properties"]
    assert list(props) == ["bookId", "stars", "mood", "public", "note", "readOn", "weight"]
    assert _rate.input_schema["required"] == ["bookId", "stars"]
    assert props["stars"] == {"type": "integer", "description": "One to five stars, five the best.", "minimum": 1,
                              "maximum": 5}
    assert props["mood"] == {"type": "string", "enum": ["glad", "sad"], "description": "How it left you.",
                             "default": "glad"}
    assert props["public"]["default"] is False and props["readOn"]["description"] == "Day read. Format: YYYY-MM-DD."
    assert props["weight"] == {"type": "number", "description": "", "minimum": 0, "default": 1.0}


def test_decorated_tool_is_validated_by_the_compiled_schema_path():
    state: dict = {}
    (tool,) = bind_tools(state, [_rate])
    bad = tool.execute({"bookId": "B-1", "stars": 9})
    assert bad["isError"] and bad["output"]["code"] == "invalid_input"
    assert "stars" in bad["output"]["message"]
    assert tool.execute({"bookId": "B-1", "stars": 2, "extra": 1})["isError"]
    assert tool.execute({"bookId": " B-1 ", "stars": 4, "mood": "sad", "readOn": "2026-01-02"}) == {"output": {"ok": True}}
    assert state["ratings"] == [["B-1", 4, "sad", False, None, "2026-01-02", 1.0]]
    assert _error(_rate.run, {}, {"bookId": "B", "stars": 3, "readOn": "2026-13-01"})[1] == (
        '"readOn" must be a date in YYYY-MM-DD format.')


def test_decorator_refuses_what_it_cannot_read():
    with pytest.raises(TypeError, match="kit reads"):
        @kit.tool("read")
        def _bad(state, things: list):
            """Bad."""
    with pytest.raises(ValueError, match="access"):
        kit.kit_tool(name="x", description="", input_schema={}, run=len, access="maybe")  # type: ignore[arg-type]


def test_access_tag_survives_pickling_and_filters():
    tools = [_rate, kit.kit_tool(name="r", description="", input_schema={}, run=len, access="read")]
    assert [t.name for t in kit.read_tools(tools)] == ["r"] and [t.name for t in kit.write_tools(tools)] == ["_rate"]
    assert pickle.loads(pickle.dumps(tools[1])).access == "read"
    assert kit.camel_case("actor_user_id") == "actorUserId"


# ---------------------------------------------------------------------------------------------
# Collections, indexes and builders

AUTHORS = kit.Collection("authors", "AU", "Author")
BOOKS = kit.Collection("books", "BK", "Book", links=("authorId",))


def _world(n: int = 30) -> dict:
    rng = random.Random(7)
    books = {}
    for i in range(1, n + 1):
        books[f"BK-{i:03d}"] = {"id": f"BK-{i:03d}", "title": f"Title {i}", "authorId": f"AU-{rng.randint(1, 3)}",
                                "genre": rng.choice(["fiction", "poetry"])}
    authors = {f"AU-{i}": {"id": f"AU-{i}", "name": f"Author {i}", "active": i != 3} for i in range(1, 4)}
    return {"now": "2026-03-01", "authors": authors, "books": books, "auditLog": [], "sequences": {"BK": n}}


LIST = kit.list_tool(
    name="list_books", description="List books.", collection=BOOKS,
    summary=lambda state, b: {"id": b["id"], "author": AUTHORS.field_of(state, b["authorId"])},
    filters={"authorId": kit.Filter(kit.String("By author."), link="authorId"),
             "genre": kit.Filter(kit.Enum(("fiction", "poetry"), "Genre."), field="genre"),
             "title": kit.Filter(kit.String("Title text."), field="title", match="contains")},
)
GET = kit.get_tool(name="get_book", description="One book.", collection=BOOKS, id_key="bookId",
                   id_description="The id.", show=lambda state, b: dict(b))


def _reference_page(world, args):
    rows = [b for b in sorted(world["books"].values(), key=lambda b: b["id"])
            if all(args.get(k) is None or (b[k] == args[k] if k != "title" else args[k].lower() in b[k].lower())
                   for k in ("authorId", "genre", "title"))]
    limit, offset = args.get("limit", 50), args.get("offset", 0)
    page = [{"id": b["id"], "author": world["authors"][b["authorId"]]["name"]} for b in rows[offset:offset + limit]]
    return {"total": len(rows), "count": len(page), "offset": offset, "results": page}


def test_list_builder_matches_a_plain_filter_sort_and_slice():
    world = _world()
    for args in ({}, {"authorId": "AU-2"}, {"genre": "poetry", "limit": 3, "offset": 2},
                 {"authorId": "AU-1", "genre": "fiction"}, {"title": "TITLE 1"}, {"authorId": "nobody"}):
        assert LIST.run(world, args) == _reference_page(world, args), args
    assert LIST.input_schema["required"] == [] and list(LIST.input_schema["properties"])[-2:] == ["limit", "offset"]


def test_read_tools_do_not_change_the_world():
    world = _world()
    before = orjson.dumps(world)
    for tool, args in ((LIST, {"authorId": "AU-1"}), (LIST, {}), (GET, {"bookId": "BK-004"})):
        assert tool.access == "read"
        tool.run(world, args)
    assert orjson.dumps(world) == before
    assert _error(GET.run, world, {"bookId": "BK-999"}) == ("not_found", 'Book "BK-999" was not found.', None)


def test_indexes_follow_additions_and_set_link():
    world = _world(5)
    assert BOOKS.ids(world) == ["BK-001", "BK-002", "BK-003", "BK-004", "BK-005"]
    added = BOOKS.add(world, {"id": BOOKS.new_id(world), "title": "New", "authorId": "AU-9", "genre": "poetry"})
    assert added["id"] == "BK-006" and world["sequences"]["BK"] == 6
    assert BOOKS.linked_ids(world, "authorId", "AU-9") == ["BK-006"]
    BOOKS.set_link(world, world["books"]["BK-002"], "authorId", "AU-9")
    assert BOOKS.linked_ids(world, "authorId", "AU-9") == ["BK-002", "BK-006"]
    assert BOOKS.ids_where(world, {"authorId": "AU-9", "genre": None}) == ["BK-002", "BK-006"]
    assert BOOKS.ids_where(world, {}) == BOOKS.ids(world)
    world["books"]["BK-006"]["authorId"] = "AU-1"  # behind the kit's back: caught on the old link
    assert BOOKS.linked_ids(world, "authorId", "AU-9") == ["BK-002"]


def test_an_object_link_counts_by_its_id():
    records = {"N-1": {"id": "N-1", "about": {"type": "book", "id": "BK-1"}},
               "N-2": {"id": "N-2", "about": {"type": "author", "id": "BK-1"}}}
    assert index.linked_ids(records, "about", "BK-1") == ["N-1", "N-2"]
    assert index.linked_ids(records, "about.type", "author") == ["N-2"]


def test_a_page_costs_the_same_work_at_any_size():
    """Counted, not timed: the summary runs once per record on the page, whatever the world holds."""
    calls = []
    tool = kit.list_tool(name="l", description="", collection=BOOKS, summary=lambda s, b: calls.append(1) or b["id"])
    for n in (10, 1000):
        calls.clear()
        assert tool.run(_world(n), {"limit": 5})["total"] == n
        assert len(calls) == 5


# ---------------------------------------------------------------------------------------------
# Guards, actor, audit, money


def test_actor_guards_and_audit():
    world = _world(2)
    actor = kit.Actor(AUTHORS, "actorId", "Who acts.")
    assert actor.read(world, {"actorId": "AU-1"})["name"] == "Author 1"
    assert _error(actor.read, world, {"actorId": "AU-3"}) == (
        "not_allowed", 'Author "AU-3" (Author 3) is deactivated and cannot act.', None)
    assert _error(actor.read, world, {"actorId": "AU-7"})[0] == "not_found"
    log = kit.AuditLog("actorId")
    entry = log.record(world, world["authors"]["AU-1"], "rate", "book", "BK-001", "Rated.")
    assert entry == {"id": "AUD-0001", "at": "2026-03-01", "actorId": "AU-1", "action": "rate",
                     "entityType": "book", "entityId": "BK-001", "detail": "Rated."}
    assert world["auditLog"] == [entry]
    assert kit.conflict("dup").code == kit.CONFLICT and kit.invalid_transition("x").code == kit.NOT_ALLOWED


def test_money_rounds_like_javascript():
    assert kit.money(0.125) == {"amount": 0.13, "currency": "USD"}
    assert kit.money(140000.0) == {"amount": 140000, "currency": "USD"} and type(kit.money(1.0)["amount"]) is int
    assert kit.sum_money([0.1, {"amount": 0.2}]) == {"amount": 0.3, "currency": "USD"}
    assert kit.round1(0.25) == 0.3 and kit.round1_plain(2.0) == 2 and kit.percent(1, 0) is None
    assert kit.percent(1, 3) == 33.3


# ---------------------------------------------------------------------------------------------
# Verifier and variant helpers


def test_answer_parsing_and_untouched_except():
    assert kit.numbers_in("$1,234.5 and 7") == [1234.5, 7.0] and kit.final_number("none") is None
    assert kit.states_number("about 41.996", 42) and not kit.states_number("41.9", 42)
    assert kit.mentions("Met ANN today", "ann") and not kit.mentions(None, "x")
    assert kit.ids_in("see bk-2 and BK-10, not BK-", "BK") == ["BK-2", "BK-10"]
    assert kit.show(None) == "null" and kit.show(2.0) == "2" and kit.show(True) == "true"
    initial = _world(3)
    final = copy.deepcopy(initial)
    final["books"]["BK-001"]["title"] = "Changed"
    final["auditLog"].append({"id": "AUD-0001"})
    assert kit.untouched(initial, copy.deepcopy(initial)) and not kit.untouched(final, initial)
    keys = ["authors", "books"]
    assert kit.untouched_except(final, initial, {"books": ["BK-001"], "auditLog": None}, keys) == []
    assert kit.untouched_except(final, initial, {"auditLog": None}, keys) == ["books/BK-001"]
    assert kit.untouched_except(final, initial, {"books": ["BK-001"]}, keys) == ["auditLog"]


def test_variant_helpers_are_deterministic():
    a, b = kit.variant_rng("TASK-001", 4), kit.variant_rng("TASK-001", 4)
    pool = kit.Pool(["Ann", "Bo", "Cy", "Di"])
    assert pool.sample(a, 2, avoid=["Bo"]) == pool.sample(b, 2, avoid=["Bo"])
    assert "Bo" not in pool.sample(kit.variant_rng("TASK-001", 5), 3, avoid=["Bo"])
    with pytest.raises(ValueError, match="usable values"):
        pool.sample(a, 4, avoid=["Bo"])
    assert kit.remap_ids({"BK-1": {"authorId": "AU-1", "tags": ["AU-1", 3]}}, {"BK-1": "BK-7", "AU-1": "AU-2"}) == {
        "BK-7": {"authorId": "AU-2", "tags": ["AU-2", 3]}}
    assert kit.render("Rate {title}.", {"title": "Dune"}) == "Rate Dune."
    with pytest.raises(KeyError, match="title"):
        kit.render("Rate {title}.", {})


# ---------------------------------------------------------------------------------------------
# templateVersion


def test_template_version_compatibility():
    assert kit.compatible(kit.KIT_VERSION)
    assert kit.compatible("0.3.0", "0.3.4") and not kit.compatible("0.3.5", "0.3.4")
    assert not kit.compatible("0.2.0", "0.3.0") and kit.compatible("1.1.0", "1.4.0")
    assert not kit.compatible("2.0.0", "1.9.9")
    with pytest.raises(SiloError) as info:
        kit.check_template_version("9.0.0", "bookshop")
    assert info.value.code == "runtime_contract_invalid"
    assert "bookshop was made with silo_gym.kit 9.0.0" in info.value.message and kit.KIT_VERSION in info.value.message


def test_loading_a_world_made_for_another_kit_says_so(tmp_path):
    from silo_gym.loader import open_environment_at

    env = tmp_path / "old"
    env.mkdir()
    (env / "silo.environment.json").write_text('{"name": "old", "templateVersion": "7.0.0"}', "utf-8")
    (env / "__init__.py").write_text("def create_state():\n    return {}\ntools = []\nverifiers = []\n", "utf-8")
    with pytest.raises(SiloError) as info:
        open_environment_at("old", env)
    assert info.value.code == "runtime_contract_invalid"
    assert 'Environment "old" was made with silo_gym.kit 7.0.0' in info.value.message
    assert info.value.details == {"templateVersion": "7.0.0", "kitVersion": kit.KIT_VERSION}


def test_clock_tool_reads_the_world_date():
    clock = kit.clock_tool("Today's date. Read-only.")
    assert (clock.name, clock.access, clock.input_schema["properties"]) == ("get_current_date", "read", {})
    assert clock.run({"now": "2026-03-16"}, {}) == {"today": "2026-03-16"}


def test_require_given_checks_an_optional_link_only_when_given():
    books = kit.Collection("books", "BK", "Book")
    state = {"books": {"BK-001": {"id": "BK-001"}}}
    assert books.require_given(state, None) is None
    assert books.require_given(state, "BK-001") == {"id": "BK-001"}
    assert _error(books.require_given, state, "BK-9")[:2] == ("not_found", 'Book "BK-9" was not found.')
