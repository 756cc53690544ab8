"""The scaled demo worlds of the benchmarks (``benchmarks/worlds.py``, issue 14 item 1).

A scaled world is only useful if it is the demo world made bigger: every reference resolves,
each record keeps as many links as in the demo, no id collides with one the tools will issue,
and the reference solver solves the six tasks with the same reward as on the demo.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, subprocess_env

from silo_gym import SiloEnv


def _load_worlds() -> Any:
    """``benchmarks/worlds.py`` loaded by path, writing no bytecode into the repository."""
    spec = importlib.util.spec_from_file_location("_bench_worlds", REPO_ROOT / "benchmarks" / "worlds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    was, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = was
    return module


worlds = _load_worlds()
COLLECTIONS, parse_scales, scale_records, write_scaled_demo = (
    worlds.COLLECTIONS, worlds.parse_scales, worlds.scale_records, worlds.write_scaled_demo)

DEMO = REPO_ROOT / "environments" / "demo"
REFS = {
    "users": {"managerId": "users"},
    "accounts": {"ownerId": "users"},
    "contacts": {"accountId": "accounts"},
    "leads": {"ownerId": "users", "convertedAccountId": "accounts", "convertedContactId": "contacts",
              "convertedOpportunityId": "opportunities"},
    "opportunities": {"accountId": "accounts", "primaryContactId": "contacts", "ownerId": "users",
                      "sourceLeadId": "leads"},
    "activities": {"ownerId": "users"},
}
RELATED = {"lead": "leads", "account": "accounts", "contact": "contacts", "opportunity": "opportunities"}


def _demo_data() -> dict[str, Any]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (DEMO / "data").glob("*.json")}


def _links(data: dict[str, Any]) -> dict[str, int]:
    """How many records point at each record id (over every reference field)."""
    counts: dict[str, int] = {}
    for collection, fields in REFS.items():
        for record in data[collection]:
            targets = [record[f] for f in fields if record.get(f) is not None]
            if collection == "activities":
                targets.append(record["relatedTo"]["id"])
            for t in targets:
                counts[t] = counts.get(t, 0) + 1
    return counts


@pytest.fixture(scope="module")
def scaled() -> dict[str, Any]:
    return scale_records(_demo_data(), 3, "2026-03-16")


def test_counts_multiply_and_the_rest_is_kept(scaled):
    demo = _demo_data()
    for collection in COLLECTIONS:
        assert len(scaled[collection]) == 3 * len(demo[collection]), collection
    for kept in ("stages", "auditLog", "sequences"):
        assert scaled[kept] == demo[kept], kept


def test_ids_are_unique_sorted_and_never_ones_the_tools_issue(scaled):
    demo = _demo_data()
    issued = re.compile(r"[A-Z]+-[0-9]+")
    for collection in COLLECTIONS:
        ids = [r["id"] for r in scaled[collection]]
        assert ids == sorted(ids) and len(set(ids)) == len(ids), collection
        originals = {r["id"] for r in demo[collection]}
        # Every id of the tools' PREFIX-NNN form is an original one, so next_id never collides.
        assert {i for i in ids if issued.fullmatch(i)} == originals, collection
        # The originals are unchanged, byte for byte.
        assert [r for r in scaled[collection] if r["id"] in originals] == demo[collection]


def test_every_reference_resolves_and_links_do_not_grow(scaled):
    ids = {c: {r["id"] for r in scaled[c]} for c in COLLECTIONS}
    for collection, fields in REFS.items():
        for record in scaled[collection]:
            for field, target in fields.items():
                ref = record.get(field)
                assert ref is None or ref in ids[target], (record["id"], field, ref)
            if collection == "activities":
                assert record["relatedTo"]["id"] in ids[RELATED[record["relatedTo"]["type"]]]
    demo_links = _links(_demo_data())
    links = _links(scaled)
    for record_id, n in demo_links.items():
        for k in (2, 3):
            assert links[f"{record_id}-{k}"] == n, (record_id, k)


def test_copies_never_become_the_tasks_answers(scaled):
    # TASK-005: a copied open deal is never stale; TASK-006: a copied rep's quota is lower.
    demo_users = {u["id"]: u for u in _demo_data()["users"]}
    for opp in scaled["opportunities"]:
        if "-" in opp["id"][4:] and opp["status"] == "open":
            assert opp["stageEnteredDate"] >= "2026-02-14", opp["id"]
    for user in scaled["users"]:
        if user["id"] not in demo_users:
            original = demo_users[user["id"].rsplit("-", 1)[0]]
            assert user["quota"]["amount"] == original["quota"]["amount"] * 9 // 10 or original["quota"]["amount"] == 0
            assert user["name"] != original["name"] and user["email"] != original["email"]


def _solve(env: SiloEnv, solver: Any) -> tuple[bool, float]:
    policy = solver.make_policy()
    obs, info = env.reset(seed=0)
    while True:
        obs, reward, terminated, truncated, info = env.step(policy(obs, info))
        if terminated or truncated:
            return info["passed"], float(reward)


def test_the_reference_solver_solves_a_scaled_world_as_the_demo(tmp_path):
    spec = importlib.util.spec_from_file_location("_worlds_solver", REPO_ROOT / "examples" / "agents" / "crm_solver.py")
    assert spec is not None and spec.loader is not None
    solver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solver)
    path = write_scaled_demo(tmp_path, 4)
    assert path.name == "demo4x"
    assert json.loads((path / "silo.environment.json").read_text(encoding="utf-8"))["name"] == "demo4x"
    for n in range(1, 7):
        task = f"TASK-00{n}"
        big = SiloEnv("demo4x", task, path=str(path))
        assert len(big.silo_env.create_state()["opportunities"]) == 4 * 16
        assert _solve(big, solver) == _solve(SiloEnv("demo", task), solver) == (True, 1.0), task


def test_parse_scales():
    assert parse_scales("1,10,100") == [1, 10, 100]
    assert parse_scales(" 100x , 1 ") == [100, 1]
    for bad, message in (("0", "whole number >= 1"), ("1,ten", "'ten'"), ("1,1", "listed twice"), (",", "no scale")):
        with pytest.raises(ValueError, match=message):
            parse_scales(bad)


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
def test_bench_runs_at_each_scale_and_compares(tmp_path: Path):
    out = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "step", "--scale", "1,2", "--out", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=subprocess_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["step-2x.json", "step-scales.json", "step.json"]
    assert "@ 2x (demo2x)" in proc.stdout and "== step at 1x, 2x ==" in proc.stdout
    summary = json.loads((out / "step-scales.json").read_text(encoding="utf-8"))
    assert summary["scales"] == ["1x", "2x"]
    one = json.loads((out / "step.json").read_text(encoding="utf-8"))["results"]
    two = json.loads((out / "step-2x.json").read_text(encoding="utf-8"))["results"]
    for metric, row in summary["results"].items():
        assert row["values"] == {"1x": one[metric]["value"], "2x": two[metric]["value"]}
        assert row["ratio"] == pytest.approx(two[metric]["value"] / one[metric]["value"])


def test_a_bad_scale_is_refused(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--scale", "1,0", "--out", str(tmp_path)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, env=subprocess_env())
    assert proc.returncode == 2
    assert "--scale: a scale must be a whole number >= 1" in proc.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
def test_tools_bench_compares_each_size_with_1x_side_by_side(tmp_path: Path):
    out = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "tools", "--scale", "1,2", "--out", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=subprocess_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    one = json.loads((out / "tools.json").read_text(encoding="utf-8"))["results"]
    two = json.loads((out / "tools-2x.json").read_text(encoding="utf-8"))["results"]
    assert not any(m.endswith("/ 1x") for m in one)  # nothing to compare with at 1x
    label = "lookup: get_account(accountId=ACC-001)"
    for figure in ("warm", "first call"):
        row = two[f"{label} {figure} / 1x"]
        assert row["unit"] == "x" and row["value"] > 0 and row["note"].startswith("target <= 2: ")
        assert one[f"{label} {figure}"]["value"] > 0 and two[f"{label} {figure}"]["value"] > 0
    assert two["scan: pipeline_summary() warm / 1x"]["note"] == ""  # a scan has no target
    assert "step: typical read step / floor" in two
