"""The project world's lists and lookups served from the kit's indexes (issue 23, item 2) give
what a plain scan gives, on a bigger world and after the tools move links."""

from __future__ import annotations

import importlib.util
import random
import sys

import pytest

from . import ROOT, load_project


def _scale_project(state, factor):
    """``benchmarks/worlds.py``'s ``scale_project``, loaded without writing bytecode."""
    spec = importlib.util.spec_from_file_location("_project_index_worlds", ROOT / "benchmarks" / "worlds.py")
    assert spec is not None and spec.loader is not None
    worlds = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = worlds
    was, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(worlds)
    finally:
        sys.dont_write_bytecode = was
    return worlds.scale_project(state, factor)


@pytest.fixture
def tools():
    env = load_project()
    state = _scale_project(env.create_state(), 4)
    return state, {t.name: t for t in env.bind_tools(state)}


def _ids(result):
    return [r["id"] for r in result["output"]["results"]]


def _all_pages(tool, args):
    """Every id a list gives, page by page (a page of 7), and the total it reports."""
    ids, offset = [], 0
    while True:
        out = tool.execute({**args, "limit": 7, "offset": offset})["output"]
        ids += [r["id"] for r in out["results"]]
        offset += 7
        if offset >= out["total"]:
            return ids, out["total"]


def test_pages_are_slices_of_the_filtered_records(tools):
    state, by_name = tools
    items = state["workItems"]
    cases = [
        ({}, sorted(items)),
        ({"projectId": "PROJ-001-003"}, sorted(k for k, i in items.items() if i["projectId"] == "PROJ-001-003")),
        ({"assigneeId": "MEM-002", "sprintId": "SPR-002"},
         sorted(k for k, i in items.items() if i["assigneeId"] == "MEM-002" and i["sprintId"] == "SPR-002")),
        ({"unassigned": True, "type": "bug"},
         sorted(k for k, i in items.items() if i["assigneeId"] is None and i["type"] == "bug")),
    ]
    for args, expected in cases:
        assert _all_pages(by_name["list_work_items"], args) == (expected, len(expected)), args
    members = state["members"]
    assert _all_pages(by_name["list_members"], {"teamId": "TEAM-002-004"}) == (
        sorted(k for k, m in members.items() if m["teamId"] == "TEAM-002-004"),
        sum(1 for m in members.values() if m["teamId"] == "TEAM-002-004"))
    children = by_name["get_work_item"].execute({"workItemId": "WI-001-002"})["output"]["children"]
    assert children == sorted(k for k, i in items.items() if i["parentId"] == "WI-001-002") and children


def test_lists_follow_the_tools_that_move_links(tools):
    state, by_name = tools
    rng = random.Random(3)
    actor = {"actorMemberId": "MEM-001"}
    open_items = [k for k, i in state["workItems"].items() if i["assigneeId"] is not None]
    for item_id in rng.sample(open_items, 6):
        by_name["unassign_work_item"].execute({"workItemId": item_id, **actor})
    unassigned = sorted(k for k, i in state["workItems"].items() if i["assigneeId"] is None)
    assert _all_pages(by_name["list_work_items"], {"unassigned": True}) == (unassigned, len(unassigned))
    for member_id in ("MEM-002", "MEM-003-002"):
        expected = sorted(k for k, i in state["workItems"].items() if i["assigneeId"] == member_id)
        assert _all_pages(by_name["list_work_items"], {"assigneeId": member_id}) == (expected, len(expected))
        load = sum(i["estimatePoints"] for i in state["workItems"].values()
                   if i["assigneeId"] == member_id and not state["workflowStates"][i["status"]]["isDone"])
        assert by_name["get_member"].execute({"memberId": member_id})["output"]["assignedPoints"] == load
