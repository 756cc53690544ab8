"""Reference solver for the project environment (project-world.md §10).

The solver sees only the task instruction and the tool results. It recognises a task by its
marker phrase (checked in task order, case-sensitively) and runs a plan of tool calls. Every id and
figure comes from the instruction or from a tool output, never from memory:

- the acting member is the one member id in a state-changing instruction (``MEM-<digits>``);
- the names it looks up (titles, member names, sprint names, project keys, the state ``Backlog``,
  the team ``Platform``) are read from the instruction's wording;
- a search hit is used only when its title, name or key *equals* the looked-up text;
- list calls that may run past one page ask for ``limit: 500``.

So the same plans solve the canonical tasks and every variant world (§11).

One plan, two faces (as in ``crm_solver.py``):

- ``plan(instruction)`` is a generator. It yields actions (``{"tool": name, "input": {...}}``),
  receives each tool result dict (``{"output": ...}`` or ``{"output": ..., "isError": True}``)
  through ``send``, and finally yields ``{"answer": "<sentence>"}``.
- ``agent(task, tools, call_tool, signal)`` is the Silo-style agent (silo-format §5.6).
- ``ProjectSolverPolicy`` / ``make_policy()`` is the Gymnasium-policy form:
  ``policy(observation, info) -> action``. The reset observation is the instruction; each later
  observation is the compact JSON text of a tool result.

Run it directly to solve project tasks through ``silo_gym.run_task`` (each run is recorded under
``.silo/runs`` of the current directory, as ``silo-gym run`` does)::

    python examples/agents/project_solver.py [TASK-001 ...]
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Generator
from typing import Any

from silo_gym import format_number

__all__ = ["MARKERS", "ProjectSolverPolicy", "agent", "make_policy", "plan", "run_plan"]

Action = dict[str, Any]
ToolResult = dict[str, Any]
Plan = Generator[Action, ToolResult, None]

NO_SCRIPT_ANSWER = "I have no scripted solution for this task."
BIG_PAGE = 500


class _Stop(Exception):
    """Ends a plan early with an answer explaining why."""

    def __init__(self, answer: str) -> None:
        super().__init__(answer)
        self.answer = answer


def _call(tool: str, tool_input: dict[str, Any]) -> Action:
    return {"tool": tool, "input": tool_input}


def _output(tool: str, result: ToolResult) -> Any:
    """The output of a successful call; raises ``_Stop`` for a failed one."""
    if not isinstance(result, dict) or "output" not in result:
        raise _Stop(f"I could not finish: {tool} returned no usable result.")
    if result.get("isError"):
        output = result.get("output")
        message = output.get("message") if isinstance(output, dict) else None
        raise _Stop(f"I could not finish: {tool} failed ({message or 'no message'}).")
    return result["output"]


def _find(pattern: str, text: str, what: str) -> str:
    """The first group of ``pattern`` in the instruction; raises ``_Stop`` when it is absent."""
    match = re.search(pattern, text)
    if match is None:
        raise _Stop(f"I could not tell {what} from the instruction.")
    return match.group(1)


def _actor(text: str) -> str:
    ids = re.findall(r"MEM-[0-9]+", text)
    if len(ids) != 1:
        raise _Stop("I could not tell which member is acting from the instruction.")
    return ids[0]


def _exact(results: list[dict[str, Any]], field: str, value: str, what: str) -> dict[str, Any]:
    """The first result whose ``field`` equals ``value`` (other hits are ignored)."""
    for row in results:
        if row.get(field) == value:
            return row
    raise _Stop(f"I could not find {what} {value!r}.")


def _search(tool: str, query: str, field: str, what: str) -> Generator[Action, ToolResult, dict[str, Any]]:
    out = _output(tool, (yield _call(tool, {"query": query})))
    return _exact(out["results"], field, query, what)


def _done_state(results: list[dict[str, Any]]) -> str:
    for row in results:
        if row["isDone"]:
            return row["id"]
    raise _Stop("The workflow has no done state.")


def _ids(ids: list[str]) -> str:
    if len(ids) <= 1:
        return "".join(ids)
    return ", ".join(ids[:-1]) + " and " + ids[-1]


# ---------------------------------------------------------------------------------------------
# The fifteen plans
# ---------------------------------------------------------------------------------------------


def _finish_item(text: str) -> Plan:
    """TASK-001: set the named item to the done state."""
    title = _find(r'record "([^"]+)" as done', text, "the work item")
    actor = _actor(text)
    item = yield from _search("search_work_items", title, "title", "the work item")
    states = _output("list_workflow_states", (yield _call("list_workflow_states", {})))
    done = _done_state(states["results"])
    _output(
        "set_work_item_status",
        (yield _call("set_work_item_status", {"workItemId": item["id"], "status": done, "actorMemberId": actor})),
    )
    yield {"answer": f"{item['id']} ({title}) is now marked done."}


def _unblock_and_finish(text: str) -> Plan:
    """TASK-002: finish every unfinished dependency of the item, then the item itself."""
    title = _find(r'mark "([^"]+)" itself as done', text, "the work item")
    actor = _actor(text)
    item = yield from _search("search_work_items", title, "title", "the work item")
    states = _output("list_workflow_states", (yield _call("list_workflow_states", {})))
    done = _done_state(states["results"])
    detail = _output("get_work_item", (yield _call("get_work_item", {"workItemId": item["id"]})))
    blockers = list(detail["unresolvedDependencies"])
    for blocker in [*blockers, item["id"]]:
        _output(
            "set_work_item_status",
            (yield _call("set_work_item_status", {"workItemId": blocker, "status": done, "actorMemberId": actor})),
        )
    yield {"answer": f"I finished {_ids(blockers)}, then marked {item['id']} done."}


def _hand_over_open_work(text: str) -> Plan:
    """TASK-003: every open item of the departed member goes to the named teammate."""
    departed_name = _find(r"^(.+?) has left", text, "who left")
    owner_name = _find(r"not done to (.+?);", text, "the new owner")
    actor = _actor(text)
    departed = yield from _search("search_members", departed_name, "name", "the member")
    owner = yield from _search("search_members", owner_name, "name", "the member")
    listed = _output(
        "list_work_items",
        (yield _call("list_work_items", {"assigneeId": departed["id"], "openOnly": True, "limit": BIG_PAGE})),
    )
    moved = []
    for row in listed["results"]:
        _output(
            "assign_work_item",
            (yield _call("assign_work_item",
                         {"workItemId": row["id"], "assigneeId": owner["id"], "actorMemberId": actor})),
        )
        moved.append(row["id"])
    yield {"answer": f"I moved {len(moved)} open items ({_ids(moved)}) from {departed['id']} to {owner['id']}."}


def _assign_tightest_fit(text: str) -> Plan:
    """TASK-004: the active team member left with the least room after taking the estimate."""
    title = _find(r"^(.+?) is sitting unassigned", text, "the work item")
    team_name = _find(r"member of the (.+?) team", text, "the team")
    actor = _actor(text)
    item = yield from _search("search_work_items", title, "title", "the work item")
    estimate = item["estimatePoints"]
    teams = _output("list_teams", (yield _call("list_teams", {})))
    team = _exact(teams["results"], "name", team_name, "the team")
    load = _output("member_load", (yield _call("member_load", {"teamId": team["id"], "activeOnly": True})))
    fits = [
        (row["remainingCapacityPoints"] - estimate, row["memberId"])
        for row in load["results"]
        if row["remainingCapacityPoints"] - estimate >= 0
    ]
    if not fits:
        raise _Stop(f"Nobody on the {team_name} team has room for {format_number(estimate)} points.")
    room, member_id = min(fits)
    _output(
        "assign_work_item",
        (yield _call("assign_work_item", {"workItemId": item["id"], "assigneeId": member_id, "actorMemberId": actor})),
    )
    yield {
        "answer": f"I assigned {item['id']} ({format_number(estimate)} points) to {member_id}, "
        f"who has {format_number(room)} points of room left."
    }


def _note_blocker(text: str) -> Plan:
    """TASK-005: a comment on the bug naming the id of the item it waits on."""
    target_title = _find(r'on the "([^"]+)" bug', text, "the bug")
    blocker_title = _find(r'waiting on the "([^"]+)" work item', text, "the blocking work item")
    actor = _actor(text)
    target = yield from _search("search_work_items", target_title, "title", "the work item")
    blocker = yield from _search("search_work_items", blocker_title, "title", "the work item")
    body = (
        f"Waiting on {blocker['id']} ({blocker_title}): this bug cannot be closed until that work is "
        "finished."
    )
    _output(
        "add_comment",
        (yield _call("add_comment", {"workItemId": target["id"], "body": body, "actorMemberId": actor})),
    )
    yield {"answer": f"I added a comment to {target['id']} saying it waits on {blocker['id']}."}


def _load_empty_sprint(text: str) -> Plan:
    """TASK-006: the project's unassigned items in the named state go into the named sprint."""
    sprint_name = _find(r"^(.+?) is empty", text, "the sprint")
    key = _find(r"\(key ([A-Z]+)\)", text, "the project key")
    state_name = _find(r"in the (.+?) state", text, "the workflow state")
    actor = _actor(text)
    project = yield from _search("search_projects", key, "key", "the project with key")
    sprints = _output("list_sprints", (yield _call("list_sprints", {"projectId": project["id"]})))
    sprint = _exact(sprints["results"], "name", sprint_name, "the sprint")
    states = _output("list_workflow_states", (yield _call("list_workflow_states", {})))
    wfs = _exact(states["results"], "name", state_name, "the workflow state")
    listed = _output(
        "list_work_items",
        (yield _call("list_work_items", {"projectId": project["id"], "status": wfs["id"], "unassigned": True,
                                         "limit": BIG_PAGE})),
    )
    moved = []
    for row in listed["results"]:
        _output(
            "move_work_item_to_sprint",
            (yield _call("move_work_item_to_sprint",
                         {"workItemId": row["id"], "sprintId": sprint["id"], "actorMemberId": actor})),
        )
        moved.append(row["id"])
    yield {"answer": f"I moved {len(moved)} items ({_ids(moved)}) into {sprint['id']}."}


def _roll_sprint_over(text: str) -> Plan:
    """TASK-007: complete the finished sprint, then start the next one (in that order)."""
    finished_name = _find(r"^(.+?) ran to its end date", text, "the finished sprint")
    next_name = _find(r"then start (.+?)\. ", text, "the next sprint")
    actor = _actor(text)
    sprints = _output("list_sprints", (yield _call("list_sprints", {})))
    finished = _exact(sprints["results"], "name", finished_name, "the sprint")
    following = _exact(sprints["results"], "name", next_name, "the sprint")
    _output("complete_sprint", (yield _call("complete_sprint", {"sprintId": finished["id"], "actorMemberId": actor})))
    _output("start_sprint", (yield _call("start_sprint", {"sprintId": following["id"], "actorMemberId": actor})))
    yield {"answer": f"I completed {finished['id']} with its carry-over in place and started {following['id']}."}


def _finish_and_close_project(text: str) -> Plan:
    """TASK-008: finish the project's open items in dependency order, then close it."""
    key = _find(r"key ([A-Z]+)\)", text, "the project key")
    actor = _actor(text)
    project = yield from _search("search_projects", key, "key", "the project with key")
    states = _output("list_workflow_states", (yield _call("list_workflow_states", {})))
    done = _done_state(states["results"])
    listed = _output(
        "list_work_items",
        (yield _call("list_work_items", {"projectId": project["id"], "openOnly": True, "limit": BIG_PAGE})),
    )
    waiting = {row["id"]: row["dependsOn"] for row in listed["results"]}
    finished = []
    while waiting:
        ready = sorted(i for i, deps in waiting.items() if not any(d in waiting for d in deps))
        if not ready:
            raise _Stop(f"The open items of {project['id']} wait on each other in a cycle.")
        item_id = ready[0]
        _output(
            "set_work_item_status",
            (yield _call("set_work_item_status", {"workItemId": item_id, "status": done, "actorMemberId": actor})),
        )
        del waiting[item_id]
        finished.append(item_id)
    _output("close_project", (yield _call("close_project", {"projectId": project["id"], "actorMemberId": actor})))
    yield {"answer": f"I marked {_ids(finished)} done and closed {project['id']} as completed."}


def _blocked_items(text: str) -> Plan:
    """TASK-009: the count and the ids of the blocked items, and nothing else."""
    out = _output("blocked_items", (yield _call("blocked_items", {})))
    ids = sorted(row["id"] for row in out["workItems"])
    yield {"answer": f"{format_number(out['count'])} work items are held up: {_ids(ids)}."}


def _top_velocity(text: str) -> Plan:
    """TASK-010: the completed sprint with the most delivered points (ties by sprint id)."""
    out = _output("velocity_report", (yield _call("velocity_report", {"completedOnly": True})))
    if not out["sprints"]:
        raise _Stop("No sprint has been completed yet.")
    best = min(out["sprints"], key=lambda row: (-row["deliveredPoints"], row["sprintId"]))
    yield {"answer": f"{best['name']} delivered the most: {format_number(best['deliveredPoints'])} points."}


def _project_hours(text: str) -> Plan:
    """TASK-011: the project's total hours, as the last number of the answer."""
    key = _find(r"\(key ([A-Z]+)\)", text, "the project key")
    project = yield from _search("search_projects", key, "key", "the project with key")
    out = _output("project_time_report", (yield _call("project_time_report", {"projectId": project["id"]})))
    yield {"answer": f"Everyone together has logged {format_number(out['totalHours'])} hours on that project."}


def _active_overdue_points(text: str) -> Plan:
    """TASK-012: overdue points of items held by active members, with no other number."""
    out = _output("overdue_items", (yield _call("overdue_items", {"activeAssigneesOnly": True})))
    yield {
        "answer": f"Overdue work held by active members adds up to {format_number(out['overduePoints'])} "
        "estimate points."
    }


def _over_capacity(text: str) -> Plan:
    """TASK-013: the member furthest over capacity (ties by id) and by how much."""
    out = _output("member_load", (yield _call("member_load", {})))
    over = [row for row in out["results"] if row["overCapacityBy"] > 0]
    if not over:
        raise _Stop("Nobody is committed beyond their weekly capacity.")
    top = min(over, key=lambda row: (-row["overCapacityBy"], row["memberId"]))
    yield {"answer": f"{top['name']} is over capacity by {format_number(top['overCapacityBy'])} points."}


def _backlog_count(text: str) -> Plan:
    """TASK-014: the number of items in the named state, as the last number of the answer."""
    state_name = _find(r"in the (.+?) state right now", text, "the workflow state")
    states = _output("list_workflow_states", (yield _call("list_workflow_states", {})))
    wfs = _exact(states["results"], "name", state_name, "the workflow state")
    out = _output("list_work_items", (yield _call("list_work_items", {"status": wfs["id"]})))
    yield {"answer": f"Work items in that state right now: {format_number(out['total'])}."}


def _carried_over(text: str) -> Plan:
    """TASK-015: the first completed sprint, by id, that still holds unfinished points."""
    out = _output("velocity_report", (yield _call("velocity_report", {"completedOnly": True})))
    rows = sorted((row for row in out["sprints"] if row["carriedOverPoints"] > 0), key=lambda row: row["sprintId"])
    if not rows:
        raise _Stop("No completed sprint holds unfinished work.")
    row = rows[0]
    yield {
        "answer": f"{row['name']} was closed with {format_number(row['carriedOverPoints'])} points of "
        "unfinished work."
    }


#: Marker phrases in task order (TASK-001 first), each with its plan (project-world.md §8).
MARKERS: list[tuple[str, Callable[[str], Plan]]] = [
    ("tax rules engine", _finish_item),
    ("payment retry scheduler", _unblock_and_finish),
    ("Devon Ito", _hand_over_open_work),
    ("Usage metering", _assign_tightest_fit),
    ("Leave a note", _note_blocker),
    ("Atlas Sprint 13 is empty", _load_empty_sprint),
    ("ran to its end date", _roll_sprint_over),
    ("ledger data migration", _finish_and_close_project),
    ("held up by an unfinished dependency", _blocked_items),
    ("delivered the most points", _top_velocity),
    ("total number of hours", _project_hours),
    ("who is still active", _active_overdue_points),
    ("weekly capacity allows", _over_capacity),
    ("Backlog state right now", _backlog_count),
    ("closed out while work was still unfinished", _carried_over),
]


def plan(instruction: str) -> Plan:
    """The solver's plan for an instruction: yields actions, receives tool results via ``send``,
    and ends by yielding ``{"answer": ...}``."""
    text = instruction if isinstance(instruction, str) else ""
    for phrase, script in MARKERS:
        if phrase in text:
            steps = script(text)
            try:
                action = next(steps)
                while True:
                    result = yield action
                    if "answer" in action:
                        return
                    action = steps.send(result)
            except _Stop as stop:
                yield {"answer": stop.answer}
            except StopIteration:
                pass
            finally:
                steps.close()
            return
    yield {"answer": NO_SCRIPT_ANSWER}


# ---------------------------------------------------------------------------------------------
# Face 1: the Silo-style agent
# ---------------------------------------------------------------------------------------------


def run_plan(
    instruction: str,
    call_tool: Callable[[str, dict[str, Any]], ToolResult],
    signal: threading.Event | None = None,
) -> Any:
    """Drive ``plan(instruction)`` with ``call_tool`` and return the final answer."""
    steps = plan(instruction)
    try:
        action = next(steps)
        while "answer" not in action:
            if signal is not None and signal.is_set():
                return "I stopped early because the run was ended."
            action = steps.send(call_tool(action["tool"], action["input"]))
        return action["answer"]
    finally:
        steps.close()


def agent(
    task: str, tools: list[dict[str, Any]], call_tool: Callable[..., ToolResult], signal: threading.Event
) -> dict[str, Any]:
    """Silo-style agent (silo-format §5.6): the same plan, driven through ``call_tool``."""
    return {"output": run_plan(task, call_tool, signal)}


# ---------------------------------------------------------------------------------------------
# Face 2: the Gymnasium policy
# ---------------------------------------------------------------------------------------------


class ProjectSolverPolicy:
    """Gymnasium policy ``policy(observation, info) -> action`` running the same plan.

    A reset (an ``info`` without ``"call_id"``) starts a new plan from the instruction; every later
    observation is parsed as the JSON text of a tool result and fed to the plan.
    """

    def __init__(self) -> None:
        self._plan: Plan | None = None
        self._last_answer: Action | None = None

    def __call__(self, observation: Any, info: dict[str, Any] | None) -> Action:
        if info is None or "call_id" not in info:
            if self._plan is not None:
                self._plan.close()
            self._plan = plan(observation if isinstance(observation, str) else "")
            self._last_answer = None
            action = next(self._plan)
        elif self._plan is None:
            # The plan already answered; repeat the answer rather than invent a call.
            return dict(self._last_answer or {"answer": NO_SCRIPT_ANSWER})
        else:
            try:
                result = json.loads(observation) if isinstance(observation, str) else observation
            except ValueError:
                result = {"output": {"message": "unreadable observation"}, "isError": True}
            action = self._plan.send(result)
        if "answer" in action:
            self._plan.close()
            self._plan = None
            self._last_answer = action
        return action


def make_policy() -> ProjectSolverPolicy:
    """A fresh solver policy (one per env: it keeps the current plan)."""
    return ProjectSolverPolicy()


def _main(argv: list[str]) -> int:
    import silo_gym

    task_ids = argv or [f"TASK-{n:03d}" for n in range(1, 16)]
    worst = 1.0
    for task_id in task_ids:
        result = silo_gym.run_task("project", task_id, agent)
        worst = min(worst, result.reward)
        print(f"{task_id}\tpassed={str(result.passed).lower()}\treward={format_number(result.reward)}")
    return 0 if worst == 1 else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
