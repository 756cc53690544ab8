"""The bookshop of docs/authoring.md, built from the guide's own blocks, is the world it claims:
three collections, six tools tagged read or write, two tasks whose verifiers pass the guide's
agent and fail doing nothing, deterministic variants, and well under 200 lines of Python."""

from __future__ import annotations

import shlex
from pathlib import Path

import orjson
import pytest

from silo_gym import kit, run_task
from silo_gym.loader import open_environment_at

from .test_docs import blocks

ENV = Path(".silo/environments/bookshop")


@pytest.fixture
def bookshop(project: Path, cli) -> Path:
    """The project with the guide's commands run and its files written (no snippet executed)."""
    for lang, body in blocks():
        if lang == "bash":
            for line in body.replace("\\\n", " ").splitlines():
                code, out, err = cli(*shlex.split(line)[1:])
                assert (code, err) == (0, ""), (line, out, err)
        elif lang == "python" and body.startswith("# ") and body.splitlines()[0].endswith(".py"):
            (project / body.splitlines()[0][2:]).write_text(body, encoding="utf-8")
    return project


def test_the_guide_bookshop_is_small():
    files = [body for lang, body in blocks() if lang == "python" and body.startswith("# .silo/environments/bookshop/")]
    lines = sum(len([line for line in body.splitlines() if line.strip()]) for body in files)
    assert len(files) == 7 and lines < 200, lines


def test_the_bookshop_is_what_the_guide_says(bookshop: Path):
    env = open_environment_at("bookshop", bookshop / ENV)
    module = env.module
    state = module.create_state()
    assert [k for k, v in state.items() if isinstance(v, dict) and k != "sequences"] == ["authors", "books", "orders"]
    tools = module.bind_tools(state)
    assert [t.name for t in tools] == ["list_authors", "list_books", "get_book", "place_order", "restock_book",
                                       "list_orders"]
    access = {t.name: kit.access_of(t.source) for t in tools}
    assert access == {"list_authors": "read", "list_books": "read", "get_book": "read", "place_order": "write",
                      "restock_book": "write", "list_orders": "read"}
    before = orjson.dumps(state)
    by_name = {t.name: t for t in tools}
    assert by_name["list_books"].execute({"authorId": "AU-1"})["output"]["total"] == 2
    assert by_name["get_book"].execute({"bookId": "BK-9"})["output"]["message"] == 'Book "BK-9" was not found.'
    assert orjson.dumps(state) == before  # read tools leave the world as it was
    refused = by_name["place_order"].execute({"bookId": "BK-2", "customer": "Ann"})
    assert refused["isError"] and refused["output"]["code"] == "not_allowed" and orjson.dumps(state) == before
    made = by_name["place_order"].execute({"bookId": "BK-3", "customer": "Ann", "quantity": 2})["output"]["created"]
    assert made == {"id": "ORD-001", "bookId": "BK-3", "customer": "Ann", "quantity": 2,
                    "total": {"amount": 19.98, "currency": "USD"}}
    assert state["books"]["BK-3"]["stock"] == 3
    assert [t.id for t in env.tasks] == ["TASK-001", "TASK-002"]


def test_the_guide_agent_passes_both_tasks_and_doing_nothing_fails(bookshop: Path):
    for task in ("TASK-001", "TASK-002"):
        done = run_task("bookshop", task, "silo.agent.py")
        assert (done.passed, done.reward) == (True, 1.0)
    (bookshop / "idle.py").write_text("def agent(task, tools, call_tool, signal):\n    return {'output': 'no'}\n")
    idle = [run_task("bookshop", task, "idle.py") for task in ("TASK-001", "TASK-002")]
    assert [(r.passed, r.reward) for r in idle] == [(False, 0.33), (False, 0.5)]


def test_the_bookshop_variants_are_streams(bookshop: Path):
    module = open_environment_at("bookshop", bookshop / ENV).module
    canonical = module.create_state()
    assert orjson.dumps(module.create_state(None)) == orjson.dumps(canonical)
    worlds = [orjson.dumps(module.create_state(k)) for k in range(20)]
    assert worlds == [orjson.dumps(module.create_state(k)) for k in range(20)]
    assert len(set(worlds)) == 20
    for k in range(20):
        world = module.create_state(k)
        assert module.world_problems(world) == [] and world["books"]["BK-1"]["stock"] >= 2
