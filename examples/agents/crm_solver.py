"""Reference solver for the demo CRM environment (demo-crm.md §10).

The solver sees only the task instruction. It recognises a task by its marker phrase (checked in
task order, case-sensitively) and replays a fixed plan of tool calls, reading ids and figures
from the tool outputs to build its final answer.

One plan, two faces:

- ``plan(instruction)`` is a generator. It yields actions (``{"tool": name, "input": {...}}``),
  receives each tool result dict (``{"output": ...}`` or ``{"output": ..., "isError": True}``)
  through ``send``, and finally yields ``{"answer": "<sentence>"}``.
- ``agent(task, tools, call_tool, signal)`` is the Silo-style agent (silo-format §5.6) that
  drives the plan through ``call_tool``.
- ``CrmSolverPolicy`` / ``make_policy()`` is the Gymnasium-policy form:
  ``policy(observation, info) -> action``. The reset observation is the instruction; each later
  observation is the compact JSON text of a tool result.

Run it directly to solve demo tasks through ``silo_gym.run_task`` (each run is recorded under
``.silo/runs`` of the current directory, as ``silo-gym run`` does)::

    python examples/agents/crm_solver.py [TASK-001 ...]
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Generator
from typing import Any

from silo_gym import format_number

__all__ = ["CrmSolverPolicy", "MARKERS", "agent", "make_policy", "plan", "run_plan"]

Action = dict[str, Any]
ToolResult = dict[str, Any]
Plan = Generator[Action, ToolResult, None]

NO_SCRIPT_ANSWER = "I have no scripted solution for this task."


def _call(tool: str, tool_input: dict[str, Any]) -> Action:
    return {"tool": tool, "input": tool_input}


def _answer(text: str) -> Action:
    return {"answer": text}


def _failed(tool: str, result: ToolResult) -> Action | None:
    """An answer explaining a failed call, or ``None`` when the call succeeded."""
    if not isinstance(result, dict):
        return _answer(f"I could not finish: {tool} returned no usable result.")
    if result.get("isError"):
        output = result.get("output")
        message = output.get("message") if isinstance(output, dict) else None
        return _answer(f"I could not finish: {tool} failed ({message or 'no message'}).")
    return None


# ---------------------------------------------------------------------------------------------
# The six scripts
# ---------------------------------------------------------------------------------------------


def _convert_fjord_lead() -> Plan:
    """TASK-001: find the Fjord Maritime lead and convert it with a new account and deal."""
    found = yield _call("search_leads", {"query": "Fjord Maritime"})
    if (stop := _failed("search_leads", found)) is not None:
        yield stop
        return
    results = found["output"].get("results") or []
    if not results:
        yield _answer("I could not find a lead for Fjord Maritime, so nothing was converted.")
        return
    lead_id = results[0]["id"]
    converted = yield _call(
        "convert_lead",
        {
            "leadId": lead_id,
            "createOpportunity": True,
            "opportunityName": "Fjord Maritime vessel operations rollout",
            "amount": 140000,
            "expectedCloseDate": "2026-06-30",
            "actorUserId": "USR-002",
        },
    )
    if (stop := _failed("convert_lead", converted)) is not None:
        yield stop
        return
    out = converted["output"]
    opportunity = out.get("opportunity") or {}
    yield _answer(
        f"I converted lead {lead_id}: it is now account {out['account']['id']}, "
        f"contact {out['contact']['id']} and open opportunity {opportunity.get('id')}."
    )


def _rehome_departed_pipeline() -> Plan:
    """TASK-002: hand every open deal of USR-004 to USR-003, acting as USR-001."""
    listed = yield _call("list_opportunities", {"ownerId": "USR-004", "status": "open"})
    if (stop := _failed("list_opportunities", listed)) is not None:
        yield stop
        return
    moved: list[str] = []
    for opp in listed["output"].get("results") or []:
        result = yield _call(
            "reassign_opportunity",
            {"opportunityId": opp["id"], "newOwnerId": "USR-003", "actorUserId": "USR-001"},
        )
        if (stop := _failed("reassign_opportunity", result)) is not None:
            yield stop
            return
        moved.append(result["output"]["updated"]["id"])
    if not moved:
        yield _answer("The departed rep had no open opportunities, so nothing needed moving.")
        return
    listed_ids = moved[0] if len(moved) == 1 else ", ".join(moved[:-1]) + " and " + moved[-1]
    yield _answer(f"I handed {listed_ids} over to Priya Nair (USR-003); they remain open.")


def _book_lumen_win() -> Plan:
    """TASK-003: close OPP-007 won at the contracted figure and log a note about the contract."""
    closed = yield _call(
        "close_opportunity_won",
        {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"},
    )
    if (stop := _failed("close_opportunity_won", closed)) is not None:
        yield stop
        return
    deal = closed["output"]["updated"]
    logged = yield _call(
        "log_activity",
        {
            "type": "note",
            "subject": "Signed contract received",
            "relatedType": "opportunity",
            "relatedId": deal["id"],
            "ownerId": "USR-005",
            "notes": "The signed point-of-sale contract came back today at the contracted amount.",
            "actorUserId": "USR-005",
        },
    )
    if (stop := _failed("log_activity", logged)) is not None:
        yield stop
        return
    note_id = logged["output"]["created"]["id"]
    yield _answer(
        f"I closed {deal['id']} as won at {format_number(deal['amount']['amount'])} USD "
        f"and logged note {note_id} recording that the signed contract came back today."
    )


def _weighted_pipeline() -> Plan:
    """TASK-004: read the weighted total of the open pipeline from the forecast report."""
    report = yield _call("forecast_report", {})
    if (stop := _failed("forecast_report", report)) is not None:
        yield stop
        return
    weighted = report["output"]["weightedAmount"]["amount"]
    # The figure must be the last number in the text, and no other number may appear.
    yield _answer(
        f"The probability-weighted value of all open deals across the team is ${format_number(weighted)}."
    )


def _most_stalled_rep() -> Plan:
    """TASK-005: the owner at the top of the stale-deal count."""
    report = yield _call("stale_opportunities", {})
    if (stop := _failed("stale_opportunities", report)) is not None:
        yield stop
        return
    by_owner = report["output"].get("countByOwner") or []
    if not by_owner:
        yield _answer("No rep has any deal stuck in its stage for that long.")
        return
    top = by_owner[0]
    name = top.get("name") if top.get("name") is not None else top.get("userId")
    yield _answer(f"{name} has the most stalled open deals: {format_number(top['count'])} of them.")


def _weakest_active_rep() -> Plan:
    """TASK-006: the active rep with the lowest non-null quota attainment."""
    report = yield _call("rep_performance", {"activeOnly": True})
    if (stop := _failed("rep_performance", report)) is not None:
        yield stop
        return
    lowest: dict[str, Any] | None = None
    for row in report["output"].get("results") or []:
        percent = row.get("quotaAttainmentPercent")
        if percent is None:
            continue
        if lowest is None or percent < lowest["quotaAttainmentPercent"]:
            lowest = row
    if lowest is None:
        yield _answer("No active rep has a quota to measure attainment against.")
        return
    yield _answer(
        f"{lowest['name']} has the lowest attainment among active reps, "
        f"at {format_number(lowest['quotaAttainmentPercent'])}% of quota from closed-won business."
    )


#: Marker phrases in task order (TASK-001 first), each with its script.
MARKERS: list[tuple[str, Callable[[], Plan]]] = [
    ("Fjord Maritime", _convert_fjord_lead),
    ("Tomas Bergstrom", _rehome_departed_pipeline),
    ("Lumen Retail", _book_lumen_win),
    ("probability-weighted", _weighted_pipeline),
    ("not moved stage", _most_stalled_rep),
    ("quota attainment", _weakest_active_rep),
]


def plan(instruction: str) -> Plan:
    """The solver's plan for an instruction: yields actions, receives tool results via ``send``,
    and ends by yielding ``{"answer": ...}``."""
    text = instruction if isinstance(instruction, str) else ""
    for phrase, script in MARKERS:
        if phrase in text:
            yield from script()
            return
    yield _answer(NO_SCRIPT_ANSWER)


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


class CrmSolverPolicy:
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
            return dict(self._last_answer or _answer(NO_SCRIPT_ANSWER))
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


def make_policy() -> CrmSolverPolicy:
    """A fresh solver policy (one per env: it keeps the current plan)."""
    return CrmSolverPolicy()


def _main(argv: list[str]) -> int:
    import silo_gym

    task_ids = argv or [f"TASK-00{n}" for n in range(1, 7)]
    worst = 1.0
    for task_id in task_ids:
        result = silo_gym.run_task("demo", task_id, agent)
        worst = min(worst, result.reward)
        print(f"{task_id}\tpassed={str(result.passed).lower()}\treward={format_number(result.reward)}")
    return 0 if worst == 1 else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
