"""Reference solver for the demo CRM environment (demo-crm.md §10).

The solver sees only the task instruction and the tool outputs, and it reads, it does not remember:
it solves the canonical demo tasks and every variant of them (``gym.make(id, variants=True)``,
docs/variants.md). It recognises a task by a marker phrase of the task's fixed wording (checked in
task order, case-sensitively), reads the names, ids, amounts, dates and thresholds it needs from
the instruction, and the records it acts on and the figures it reports from the tool outputs. The
one thing it brings is the id of the deal TASK-003 closes (``SIGNED_DEAL_ID``), which is the
task's own entity and the same in every variant.

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
import re
import sys
import threading
from collections.abc import Callable, Generator
from typing import Any

from silo_gym import format_number

__all__ = ["MARKERS", "SIGNED_DEAL_ID", "CrmSolverPolicy", "agent", "make_policy", "plan", "run_plan"]

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
# Reading the instruction
# ---------------------------------------------------------------------------------------------

_ID = r"[A-Z]+-[0-9]+"
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_DOLLARS = r"\$([0-9][0-9,]*(?:\.[0-9]+)?)"


def _read(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text)


def _dollars(text: str) -> int | float:
    """``12,500`` -> 12500 (an int when whole, as the task states it)."""
    value = float(text.replace(",", ""))
    return int(value) if value.is_integer() else value


def _unreadable(what: str) -> Action:
    return _answer(f"I could not read {what} from the instruction, so I changed nothing.")


def _deal_name(short_company: str, title: Any) -> str:
    """A name for the new deal: the company and the area its contact runs
    (``Head of Field Service`` at ``Acme Freight`` -> ``Acme Freight field service rollout``)."""
    if isinstance(title, str) and " of " in title:
        return f"{short_company} {title.split(' of ', 1)[1].lower()} rollout"
    return f"{short_company} rollout"


# ---------------------------------------------------------------------------------------------
# The six scripts
# ---------------------------------------------------------------------------------------------


def _convert_qualified_lead(instruction: str) -> Plan:
    """TASK-001: find the qualified lead by its company, convert it with a new account and a deal
    at the amount and close date the instruction gives, as the lead's owner."""
    who = _read(r"(.+?) of (.+?) has been qualified\. (.+?) is not one of our customers yet", instruction)
    amount = _read(r"deal worth " + _DOLLARS, instruction)
    close = _read(r"expected close date of (" + _DATE + ")", instruction)
    owner = _read(r"The lead belongs to .+? \((" + _ID + r")\)", instruction)
    if who is None or amount is None or close is None or owner is None:
        yield _unreadable("the lead, the deal terms or the owner")
        return
    person, short = who.group(1), who.group(3)
    found = yield _call("search_leads", {"query": short})
    if (stop := _failed("search_leads", found)) is not None:
        yield stop
        return
    results = found["output"].get("results") or []
    matches = [r for r in results if r.get("name") == person] or results
    if not matches:
        yield _answer(f"I could not find a lead for {short}, so nothing was converted.")
        return
    lead = next((r for r in matches if r.get("status") == "qualified"), matches[0])
    converted = yield _call(
        "convert_lead",
        {
            "leadId": lead["id"],
            "createOpportunity": True,
            "opportunityName": _deal_name(short, lead.get("title")),
            "amount": _dollars(amount.group(1)),
            "expectedCloseDate": close.group(1),
            "actorUserId": owner.group(1),
        },
    )
    if (stop := _failed("convert_lead", converted)) is not None:
        yield stop
        return
    out = converted["output"]
    opportunity = out.get("opportunity") or {}
    yield _answer(
        f"I converted lead {lead['id']}: it is now account {out['account']['id']}, "
        f"contact {out['contact']['id']} and open opportunity {opportunity.get('id')}."
    )


def _rehome_departed_pipeline(instruction: str) -> Plan:
    """TASK-002: hand every open deal of the departed rep (found by name among the open deals) to
    the new owner, acting as the user the instruction names."""
    departed = _read(r"^(.+?) has left the company", instruction)
    new_owner = _read(r"over to (.+?) \((" + _ID + r")\)", instruction)
    actor = _read(r"(" + _ID + r")\) is the one making this change", instruction)
    if departed is None or new_owner is None or actor is None:
        yield _unreadable("the departed rep, the new owner or who makes the change")
        return
    theirs: list[str] = []
    offset = 0
    while True:
        page_input: dict[str, Any] = {"status": "open"} if offset == 0 else {"status": "open", "offset": offset}
        listed = yield _call("list_opportunities", page_input)
        if (stop := _failed("list_opportunities", listed)) is not None:
            yield stop
            return
        page = listed["output"]
        results = page.get("results") or []
        theirs += [o["id"] for o in results if o.get("ownerName") == departed.group(1)]
        offset += len(results)
        if not results or offset >= page.get("total", 0):
            break
    moved: list[str] = []
    for opp_id in theirs:
        result = yield _call(
            "reassign_opportunity",
            {"opportunityId": opp_id, "newOwnerId": new_owner.group(2), "actorUserId": actor.group(1)},
        )
        if (stop := _failed("reassign_opportunity", result)) is not None:
            yield stop
            return
        moved.append(result["output"]["updated"]["id"])
    if not moved:
        yield _answer("The departed rep had no open opportunities, so nothing needed moving.")
        return
    listed_ids = moved[0] if len(moved) == 1 else ", ".join(moved[:-1]) + " and " + moved[-1]
    yield _answer(f"I handed {listed_ids} over to {new_owner.group(1)} ({new_owner.group(2)}); they remain open.")


#: The deal TASK-003 is about. The one fact the solver brings: the task's entity, the same deal in
#: every variant (only its name, account, owner and amounts change), and the golden run pins two
#: calls, which leaves no room to look it up.
SIGNED_DEAL_ID = "OPP-007"


def _book_signed_win(instruction: str) -> Plan:
    """TASK-003: close the deal won at the contracted figure the instruction gives and log a note
    about the signed contract, as the deal's owner."""
    signed = _read(r"for " + _DOLLARS + r", which is not the figure", instruction)
    owner = _read(r"\((" + _ID + r")\) owns this deal", instruction)
    if signed is None or owner is None:
        yield _unreadable("the signed amount or the deal's owner")
        return
    actor = owner.group(1)
    closed = yield _call(
        "close_opportunity_won",
        {"opportunityId": SIGNED_DEAL_ID, "finalAmount": _dollars(signed.group(1)), "actorUserId": actor},
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
            "ownerId": actor,
            "notes": "The signed contract came back today at the contracted amount.",
            "actorUserId": actor,
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


def _weighted_pipeline(instruction: str) -> Plan:
    """TASK-004: read the weighted total of the open pipeline from the forecast report, up to the
    cut-off date when the instruction gives one."""
    cutoff = _read(r"expected to close on or before (" + _DATE + ")", instruction)
    report = yield _call("forecast_report", {} if cutoff is None else {"closingOnOrBefore": cutoff.group(1)})
    if (stop := _failed("forecast_report", report)) is not None:
        yield stop
        return
    weighted = format_number(report["output"]["weightedAmount"]["amount"])
    # The figure must be the last number in the text.
    if cutoff is None:
        yield _answer(f"The probability-weighted value of all open deals across the team is ${weighted}.")
    else:
        yield _answer(
            f"The probability-weighted value of the open deals across the team expected to close "
            f"on or before {cutoff.group(1)} is ${weighted}."
        )


def _most_stalled_rep(instruction: str) -> Plan:
    """TASK-005: the owner at the top of the stale-deal count, at the instruction's threshold."""
    days = _read(r"more than ([0-9]+) days", instruction)
    if days is None:
        yield _unreadable("how many days make a deal stalled")
        return
    report = yield _call("stale_opportunities", {"thresholdDays": int(days.group(1))})
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


def _weakest_active_rep(instruction: str) -> Plan:
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


#: Marker phrases in task order (TASK-001 first), each with its script. They are the fixed wording
#: of each task's instruction, present in the canonical task and in every variant of it.
MARKERS: list[tuple[str, Callable[[str], Plan]]] = [
    ("has been qualified.", _convert_qualified_lead),
    ("has left the company", _rehome_departed_pipeline),
    ("has signed the", _book_signed_win),
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
            yield from script(text)
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
