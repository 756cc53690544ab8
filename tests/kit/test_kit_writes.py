"""``silo_gym.kit.writes``: write tools on one record (actor first, one audit entry last) and
``set_given``."""

from __future__ import annotations

import pytest

from silo_gym import ToolError, kit

C = kit.Contract()
USERS = kit.Collection("users", "USR", "User")
BOOKS = kit.Collection("books", "BK", "Book shelf")
ACTOR = kit.Actor(USERS, "actorUserId", "Who acts.", contract=C)
WRITES = kit.Writes(ACTOR, kit.AuditLog("actorUserId"))
BOOK = WRITES.on(BOOKS, "bookId", lambda state, book: {"id": book["id"], "title": book["title"]})


@BOOK.create({"title": kit.String("Its title.", required=True), "pages": kit.Integer("Pages.")})
def add_book(state, acting, args):
    """Add a book.

    Args:
        args: the tool's input (the docstring's text before ``Args:`` is the description).
    """
    book = {"id": BOOKS.new_id(state), "title": C.read_string(args, "title")}
    return book, (f"Added {book['title']}.", {"shelfSize": len(state["books"]) + 1})


@BOOK.change("The book.", {"title": kit.String("New title.", required=True)})
def rename_book(state, acting, book, args):
    """Rename a
    book."""
    old = book["title"]
    book["title"] = C.read_string(args, "title")
    return f"Renamed {old}."


def _world():
    return {
        "now": "2026-03-01",
        "users": {"USR-001": {"id": "USR-001", "name": "Ann", "active": True},
                  "USR-002": {"id": "USR-002", "name": "Bo", "active": False}},
        "books": {},
        "auditLog": [],
        "sequences": {},
    }


def _error(tool, state, args):
    with pytest.raises(ToolError) as info:
        tool.run(state, args)
    return info.value.code, info.value.message


def test_schemas_end_with_the_actor_and_tools_are_tagged_write():
    assert add_book.name == "add_book" and add_book.access == "write" and add_book.description == "Add a book."
    assert list(add_book.input_schema["properties"]) == ["title", "pages", "actorUserId"]
    assert add_book.input_schema["required"] == ["title", "actorUserId"]
    assert add_book.input_schema["properties"]["actorUserId"] == {"type": "string", "description": "Who acts."}
    assert rename_book.description == "Rename a book."  # the docstring's lines joined by spaces
    assert list(rename_book.input_schema["properties"]) == ["bookId", "title", "actorUserId"]
    assert rename_book.input_schema["required"] == ["bookId", "title", "actorUserId"]
    assert WRITES.schema({}) == kit.schema({"actorUserId": ACTOR.prop()}, ["actorUserId"])


def test_create_stores_the_record_audits_it_and_returns_its_summary_with_extras():
    state = _world()
    out = add_book.run(state, {"title": "Dune", "actorUserId": "USR-001"})
    assert out == {"created": {"id": "BK-001", "title": "Dune"}, "shelfSize": 1}
    assert list(out) == ["created", "shelfSize"] and state["books"]["BK-001"]["title"] == "Dune"
    assert state["auditLog"] == [{"id": "AUD-0001", "at": "2026-03-01", "actorUserId": "USR-001",
                                  "action": "add_book", "entityType": "book_shelf", "entityId": "BK-001",
                                  "detail": "Added Dune."}]


def test_change_reads_the_actor_then_the_record_then_changes_and_audits():
    state = _world()
    add_book.run(state, {"title": "Dune", "actorUserId": "USR-001"})
    assert rename_book.run(state, {"bookId": "BK-001", "title": "Emma", "actorUserId": "USR-001"}) == {
        "updated": {"id": "BK-001", "title": "Emma"}}
    assert state["auditLog"][-1]["action"] == "rename_book" and state["auditLog"][-1]["detail"] == "Renamed Dune."
    # The actor is read first: a missing actor wins over a missing record.
    assert _error(rename_book, state, {"bookId": "BK-9"})[0] == "invalid_input"
    assert _error(rename_book, state, {"bookId": "BK-9", "actorUserId": "USR-001"}) == (
        "not_found", 'Book shelf "BK-9" was not found.')
    assert _error(rename_book, state, {"bookId": "BK-001", "actorUserId": "USR-002"})[0] == "not_allowed"
    assert len(state["auditLog"]) == 2  # a refused call writes nothing


def test_a_refused_create_stores_nothing():
    state = _world()
    assert _error(add_book, state, {"actorUserId": "USR-001"})[0] == "invalid_input"
    assert state["books"] == {} and state["auditLog"] == []
    assert state["sequences"] == {"BK": 1}  # the function's own order: the id was taken before the title


def test_set_given_sets_only_the_values_given_in_order():
    record = {"a": 1, "b": 2, "c": 3}
    kit.set_given(record, {"c": 30, "a": None, "b": False})
    assert record == {"a": 1, "b": False, "c": 30} and list(record) == ["a", "b", "c"]
    kit.set_given(record, {"d": 4})
    assert list(record) == ["a", "b", "c", "d"]


@BOOK.get("The book.")
def get_book(state, book):
    """Get one book
    by id."""
    return {"id": book["id"], "pages": len(book["title"])}


@BOOK.list
def list_books():
    """List the books."""
    return {"title": kit.Filter(kit.String("Only this title."), field="title")}


def test_get_and_list_are_read_tools_named_and_described_by_the_function():
    state = _world()
    for title in ("Dune", "Emma", "Dune"):
        add_book.run(state, {"title": title, "actorUserId": "USR-001"})
    assert (get_book.name, get_book.access, get_book.description) == ("get_book", "read", "Get one book by id.")
    assert get_book.input_schema == kit.schema({"bookId": C.string_prop("The book.")}, ["bookId"])
    assert get_book.run(state, {"bookId": "BK-002"}) == {"id": "BK-002", "pages": 4}
    assert _error(get_book, state, {"bookId": "BK-9"})[0] == "not_found"
    assert (list_books.name, list_books.access, list_books.description) == ("list_books", "read", "List the books.")
    assert list(list_books.input_schema["properties"]) == ["title", "limit", "offset"]
    page = list_books.run(state, {"title": "Dune", "limit": 1})
    assert page == {"total": 2, "count": 1, "offset": 0, "results": [{"id": "BK-001", "title": "Dune"}]}


def test_transition_moves_a_record_and_restarts_its_clock():
    record = {"status": "open", "since": "2026-01-01"}
    assert kit.transition(record, "status", "done", "since", "2026-03-01") == "open"
    assert record == {"status": "done", "since": "2026-03-01"}
