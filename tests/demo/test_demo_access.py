"""Every demo tool is tagged read or write through ``silo_gym.kit``, and a read tool never changes
the world: over every record of the seed world and over the worlds the reference solver's
episodes leave (``kit.read_only_breaches`` compares the world's bytes around each call)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from silo_gym import kit

from . import ENV_DIR, SOLVER_PATH, load_demo, load_file

#: The 20 tools that change the world (demo-crm.md §7); the other 22 only read it.
WRITES = {
    "create_account", "update_account", "create_contact", "update_contact", "link_contact_to_account",
    "create_lead", "update_lead", "qualify_lead", "disqualify_lead", "convert_lead", "create_opportunity",
    "update_opportunity", "set_opportunity_stage", "advance_opportunity_stage", "close_opportunity_won",
    "close_opportunity_lost", "reassign_opportunity", "log_activity", "schedule_followup", "complete_activity",
}  # fmt: skip
ID_SOURCES = {
    "userId": "users", "accountId": "accounts", "contactId": "contacts", "leadId": "leads",
    "opportunityId": "opportunities", "activityId": "activities",
}  # fmt: skip
VALUES = {"query": "a"}
TASK_IDS = [f"TASK-{n:03d}" for n in range(1, 7)]


@pytest.fixture(scope="module")
def demo():
    return load_demo()


def read_all(tools: list[Any], state: dict[str, Any], every_id: bool) -> set[str]:
    def inputs(tool: Any) -> Any:
        return kit.sample_inputs(tool, state, ID_SOURCES, VALUES, every_id=every_id)

    breaches, answered = kit.read_only_breaches(tools, state, inputs)
    assert breaches == []
    return answered


def test_every_tool_is_tagged(demo):
    assert all(isinstance(t, kit.KitTool) for t in demo.tools)
    assert {t.name for t in kit.write_tools(demo.tools)} == WRITES
    assert (len(kit.read_tools(demo.tools)), len(kit.write_tools(demo.tools))) == (22, 20)
    # Every read tool says so to the agent, and no write tool claims to be read-only.
    assert all(t.description.endswith("Read-only.") == (t.name not in WRITES) for t in demo.tools)


def test_read_tools_leave_the_seed_world_unchanged(demo):
    answered = read_all(demo.tools, demo.create_state(), every_id=True)
    assert answered == {t.name for t in kit.read_tools(demo.tools)}


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_read_tools_leave_the_solver_episode_worlds_unchanged(demo, task_id):
    solver = load_file("_crm_solver_for_access_tests", SOLVER_PATH)
    task = json.loads((ENV_DIR / "tasks" / f"{task_id}.json").read_text(encoding="utf-8"))
    state = demo.create_state()
    tools = {t.name: t for t in demo.bind_tools(state)}
    calls: list[str] = []

    def call_tool(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        calls.append(name)
        before = orjson.dumps(state)
        result = tools[name].execute(tool_input)
        if name not in WRITES:
            assert orjson.dumps(state) == before, f"{task_id}: {name}({tool_input}) changed the world"
        return result

    solver.run_plan(task["instruction"], call_tool)
    assert calls
    answered = read_all(demo.tools, state, every_id=False)
    assert len(answered) == 22


def test_a_read_tool_that_writes_is_caught(demo):
    state = demo.create_state()
    listed = next(t for t in demo.tools if t.name == "list_users")

    def leaky(world: dict[str, Any], args: Any) -> Any:
        world["users"]["USR-001"]["active"] = not world["users"]["USR-001"]["active"]
        return listed.run(world, args)

    tool = kit.read_tool(name="list_users", description="", input_schema=listed.input_schema, run=leaky)
    breaches, _ = kit.read_only_breaches([tool], state, lambda t: [{}])
    assert breaches == ["list_users({})"]


@pytest.mark.parametrize("variant", [None, 0, 1, 2, 3])
def test_every_record_has_its_collections_declared_fields_in_order(demo, variant):
    import importlib

    world = importlib.import_module(demo.__name__ + ".tools.helpers").WORLD
    state = demo.create_state(variant)
    assert world.keys() == ["users", "accounts", "contacts", "leads", "opportunities", "stages", "activities"]
    assert all(world[key].fields for key in world.keys())
    assert [p for key in world.keys() for p in world[key].shape_problems(state)] == []
    state["users"]["USR-001"]["extra"] = 1
    assert world["users"].shape_problems(state) == [
        "users[USR-001] has the fields ['id', 'name', 'email', 'role', 'managerId', 'quota', 'active', 'extra'], "
        "not ['id', 'name', 'email', 'role', 'managerId', 'quota', 'active']."
    ]
