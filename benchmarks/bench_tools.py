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
from .common import Sizes, Table, case_label, interleaved, ratio, verdict
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


def _first_call_us(module: Any, name: str, tool_input: dict[str, Any]) -> float:
    """µs of the first call of ``name`` on a fresh world (world creation untimed)."""
    tool = {t.name: t for t in module.bind_tools(module.create_state())}[name]
    gc.collect()
    t0 = time.perf_counter()
    tool.execute(tool_input)
    return (time.perf_counter() - t0) * 1e6


def _bound(at: World) -> tuple[Any, dict[str, Any]]:
    """The world's environment module and its tools bound to one fresh world."""
    module = at.env("TASK-004").silo_env.module
    return module, {t.name: t for t in module.bind_tools(module.create_state())}


def bench_tools(sizes: Sizes, at: World | None = None) -> Table:
    at = at or world(1)
    table = Table(f"demo tools: Tool.execute per call, page of {PAGE} @ {at.label} ({at.name})")
    here_module, here = _bound(at)
    # Above 1x every figure is also taken on the 1x world, alternating with this one, so the
    # ratio compares calls made in the same moments (a shared machine drifts between runs).
    base_module, base = _bound(world(1)) if at.factor != 1 else (None, {})
    first_rounds = max(5, sizes.repeats * 3 // max(1, at.factor // 10))
    for kind, name, tool_input in CASES:
        label = case_label(kind, name, tool_input)
        calls = {"here": here[name]} | ({"1x": base[name]} if base else {})
        for tool in calls.values():
            result = tool.execute(tool_input)
            if result.get("isError"):
                raise AssertionError(f"{label} failed: {result['output']}")
        warm = interleaved({k: (lambda t=t, a=tool_input: t.execute(a)) for k, t in calls.items()},
                           max(1, sizes.loops // 4), sizes.repeats)
        scan = kind == "scan"
        table.add(f"{label} warm", warm["here"], "us", "reads the whole world by nature" if scan else "")
        if base:
            r = ratio(warm["here"], warm["1x"])
            table.add(f"{label} warm / 1x", r, "x", "" if scan else verdict(r, TARGET))
        if scan:
            continue
        firsts: dict[str, list[float]] = {k: [] for k in calls}
        for _ in range(first_rounds):
            firsts["here"].append(_first_call_us(here_module, name, tool_input))
            if base:
                firsts["1x"].append(_first_call_us(base_module, name, tool_input))
        first = {k: statistics.median(v) for k, v in firsts.items()}
        table.add(f"{label} first call", first["here"], "us")
        if base:
            r = ratio(first["here"], first["1x"])
            table.add(f"{label} first call / 1x", r, "x", verdict(r, TARGET))
    steps = bench_step(sizes, at)
    for metric, value, unit, note in steps.rows:
        if metric.endswith((" floor", "SiloEnv.step", "step / floor")):
            table.add(f"step: {metric}", value, unit, note)
    return table
