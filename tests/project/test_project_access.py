"""Every project tool is tagged read or write through ``silo_gym.kit``, and a read tool never changes
the world: over every record of the seed world and over the worlds the reference solver's
episodes leave (``kit.read_only_breaches`` compares the world's bytes around each call)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from silo_gym import kit

from . import ENV_DIR, TASK_IDS, load_project, load_solver

#: The 26 tools that change the world (project-world.md §7); the other 28 only read it.
WRITES = {
    "create_member", "update_member", "deactivate_member", "reactivate_member", "create_team",
    "reassign_team_lead", "create_project", "update_project", "close_project", "reassign_project_lead",
    "create_sprint", "start_sprint", "complete_sprint", "create_work_item", "update_work_item",
    "assign_work_item", "unassign_work_item", "set_work_item_status", "add_work_item_dependency",
    "remove_work_item_dependency", "add_comment", "move_work_item_to_sprint", "remove_work_item_from_sprint",
    "set_work_item_due_date", "log_time", "update_time_log",
}  # fmt: skip
ID_SOURCES = {
    "memberId": "members", "projectId": "projects", "sprintId": "sprints", "teamId": "teams",
    "workItemId": "workItems",
}  # fmt: skip
VALUES = {"query": "a", "additionalPoints": 3}


@pytest.fixture(scope="module")
def project():
    return load_project()


def read_all(tools: list[Any], state: dict[str, Any], every_id: bool) -> set[str]:
    def inputs(tool: Any) -> Any:
        return kit.sample_inputs(tool, state, ID_SOURCES, VALUES, every_id=every_id)

    breaches, answered = kit.read_only_breaches(tools, state, inputs)
    assert breaches == []
    return answered


def test_every_tool_is_tagged(project):
    assert all(isinstance(t, kit.KitTool) for t in project.tools)
    assert {t.name for t in kit.write_tools(project.tools)} == WRITES
    assert (len(kit.read_tools(project.tools)), len(kit.write_tools(project.tools))) == (28, 26)
    # Every read tool says so to the agent, and no write tool claims to be read-only.
    assert all(t.description.endswith("Read-only.") == (t.name not in WRITES) for t in project.tools)


def test_read_tools_leave_the_seed_world_unchanged(project):
    answered = read_all(project.tools, project.create_state(), every_id=True)
    assert answered == {t.name for t in kit.read_tools(project.tools)}


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_read_tools_leave_the_solver_episode_worlds_unchanged(project, task_id):
    solver = load_solver()
    task = json.loads((ENV_DIR / "tasks" / f"{task_id}.json").read_text(encoding="utf-8"))
    state = project.create_state()
    tools = {t.name: t for t in project.bind_tools(state)}
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
    answered = read_all(project.tools, state, every_id=False)
    assert len(answered) == 28


def test_a_read_tool_that_writes_is_caught(project):
    state = project.create_state()
    listed = next(t for t in project.tools if t.name == "list_members")

    def leaky(world: dict[str, Any], args: Any) -> Any:
        world["members"]["MEM-001"]["active"] = not world["members"]["MEM-001"]["active"]
        return listed.run(world, args)

    tool = kit.read_tool(name="list_members", description="", input_schema=listed.input_schema, run=leaky)
    breaches, _ = kit.read_only_breaches([tool], state, lambda t: [{}])
    assert breaches == ["list_members({})"]


@pytest.mark.parametrize("variant", [None, 0, 1, 2, 3])
def test_every_record_has_its_collections_declared_fields_in_order(project, variant):
    import importlib

    world = importlib.import_module(project.__name__ + ".state").WORLD
    state = project.create_state(variant)
    assert world.keys() == ["projects", "workItems", "sprints", "members", "teams", "workflowStates", "timeLogs"]
    assert all(world[key].fields for key in world.keys())
    assert [p for key in world.keys() for p in world[key].shape_problems(state)] == []
