"""Demo tools at each world size: a paged list or a lookup by id should cost what its page or
the record's own links cost, not what the world costs (issue 14, item 4).

Every case runs through ``Tool.execute`` (schema check, ``run``, output clone) on a world created
for the measurement, with a page of 5 (every collection of the 1x world has more), so the output
is the same size at every scale. Two figures per case:

- **warm**: the call repeated on one world (what every call after the first in an episode costs);
- **first call**: the call on a world nobody has read yet, as the first call after ``reset``
  (it includes whatever the tools build lazily per world).

Scans (a filter on a plain field, a search, a report) must read the whole world and are listed
for reference, without a target. The last rows repeat ``step``'s figures for the typical read tool
and the cheapest tool against their floors at this size.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

from .bench_core import bench_step
from .common import Sizes, Table, per_call_us
from .worlds import World, world

PAGE = 5

#: (kind, tool, input). Kinds: "list" (a page), "link" (a page of one record's links),
#: "lookup" (one record by id, with its links), "scan" (reads the whole world by nature).
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("list", "list_users", {"limit": PAGE}),
    ("list", "list_accounts", {"limit": PAGE}),
    ("list", "list_contacts", {"limit": PAGE}),
    ("list", "list_leads", {"limit": PAGE}),
    ("list", "list_opportunities", {"limit": PAGE}),
    ("list", "list_activities", {"limit": PAGE}),
    ("list", "list_opportunities", {"limit": PAGE, "offset": 10}),
    ("link", "list_contacts", {"accountId": "ACC-001", "limit": PAGE}),
    ("link", "list_accounts", {"ownerId": "USR-002", "limit": PAGE}),
    ("link", "list_opportunities", {"ownerId": "USR-002", "limit": PAGE}),
    ("link", "list_opportunities", {"accountId": "ACC-001", "status": "open", "limit": PAGE}),
    ("link", "list_activities", {"relatedType": "opportunity", "relatedId": "OPP-001", "limit": PAGE}),
    ("lookup", "get_user", {"userId": "USR-002"}),
    ("lookup", "get_account", {"accountId": "ACC-001"}),
    ("lookup", "get_contact", {"contactId": "CON-001"}),
    ("lookup", "get_lead", {"leadId": "LEAD-004"}),
    ("lookup", "get_opportunity", {"opportunityId": "OPP-003"}),
    ("lookup", "get_activity", {"activityId": "ACT-001"}),
    ("scan", "list_opportunities", {"status": "open", "limit": PAGE}),
    ("scan", "search_accounts", {"query": "helios", "limit": PAGE}),
    ("scan", "pipeline_summary", {}),
]
#: At 100x, a list or lookup costs at most this many times its 1x cost (issue 14, item 4).
TARGET = 2.0


def case_label(kind: str, name: str, tool_input: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v}" for k, v in tool_input.items() if k != "limit")
    return f"{kind}: {name}({args})"


def _first_call_us(module: Any, name: str, tool_input: dict[str, Any], repeats: int) -> float:
    """Median µs of the first call of ``name`` on fresh worlds (world creation untimed)."""
    samples = []
    for _ in range(repeats):
        tool = {t.name: t for t in module.bind_tools(module.create_state())}[name]
        gc.collect()
        t0 = time.perf_counter()
        tool.execute(tool_input)
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def bench_tools(sizes: Sizes, at: World | None = None) -> Table:
    at = at or world(1)
    table = Table(f"demo tools: Tool.execute per call, page of {PAGE} @ {at.label} ({at.name})")
    env = at.env("TASK-004")
    module = env.silo_env.module
    tools = {t.name: t for t in module.bind_tools(module.create_state())}
    for kind, name, tool_input in CASES:
        tool = tools[name]
        result = tool.execute(tool_input)
        if result.get("isError"):
            raise AssertionError(f"{name}({tool_input}) failed: {result['output']}")
        label = case_label(kind, name, tool_input)
        warm = per_call_us(lambda tool=tool, tool_input=tool_input: tool.execute(tool_input),
                           max(1, sizes.loops // 4), sizes.repeats)
        note = "reads the whole world by nature" if kind == "scan" else ""
        table.add(f"{label} warm", warm, "us", note)
        if kind != "scan":
            first = _first_call_us(module, name, tool_input, max(2, sizes.repeats * 3 // max(1, at.factor // 10)))
            table.add(f"{label} first call", first, "us")
    steps = bench_step(sizes, at)
    for metric, value, unit, note in steps.rows:
        if metric.endswith((" floor", "SiloEnv.step", "step / floor")):
            table.add(f"step: {metric}", value, unit, note)
    return table
