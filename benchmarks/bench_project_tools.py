"""Project world tools at 1x, 10x and 100x its records: a page of a list or a lookup by id should
cost what the page costs, not what the world costs (issue 23, item 2).

The bigger worlds are made in memory from the shipped world (``worlds.scale_project``): every
project, work item, sprint, member, team and time log gains ``n - 1`` copies ``<id>-<k>`` whose
links point at the copies with the same ``k`` (so each record has as many links at 100x as at
1x); the workflow states are shared. Each case runs through ``Tool.execute`` with a page of 5,
warm (the call repeated on one world), alternating with the same call on the 1x world.

``BENCH_PROJECT_DIR`` names another copy of the project world to measure (for a before/after
comparison against an older checkout).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from silo_gym.loader import open_environment_at, shipped_environments_dir

from .common import Sizes, Table, tool_scaling_table
from .worlds import scale_project

PAGE = 5
FACTORS = (1, 10, 100)
TARGET = 2.0

#: (kind, tool, input); "scan" cases read the whole world by nature (a search, a report).
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("list", "list_work_items", {"limit": PAGE}),
    ("list", "list_members", {"limit": PAGE}),
    ("list", "list_projects", {"limit": 2}),  # the 1x world has 3 projects and 2 teams
    ("list", "list_teams", {"limit": 2}),
    ("link", "list_work_items", {"projectId": "PROJ-001", "limit": PAGE}),
    ("link", "list_work_items", {"assigneeId": "MEM-002", "openOnly": True, "limit": PAGE}),
    ("link", "list_members", {"teamId": "TEAM-001", "limit": PAGE}),
    ("lookup", "get_work_item", {"workItemId": "WI-003"}),
    ("lookup", "get_member", {"memberId": "MEM-002"}),
    ("lookup", "get_project", {"projectId": "PROJ-001"}),
    ("lookup", "get_sprint", {"sprintId": "SPR-002"}),
    ("scan", "search_work_items", {"query": "billing", "limit": PAGE}),
    ("scan", "list_time_logs", {"limit": PAGE}),  # totalHours adds up every matching log
]

def _tools(module: Any, factor: int) -> dict[str, Any]:
    return {t.name: t for t in module.bind_tools(scale_project(module.create_state(), factor))}


def bench_project_tools(sizes: Sizes) -> Table:
    path = Path(os.environ.get("BENCH_PROJECT_DIR") or shipped_environments_dir() / "project")
    module = open_environment_at("project", path).module
    title = f"project tools: Tool.execute per call, page of {PAGE}, at {'/'.join(f'{f}x' for f in FACTORS)}"
    return tool_scaling_table(title, {f: _tools(module, f) for f in FACTORS}, CASES, sizes, TARGET)
