"""The scaled ERP worlds of the benchmarks (``benchmarks/worlds.py``: ``erp10x``, ``erp100x``).

A scaled world is only useful if it is the ERP world made bigger: every collection multiplied,
every reference of a copy resolving to a copy with its own number, the ids the tools issue unchanged,
and the reference solver scoring 1.0 on all 18 tasks as on the canonical world.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from silo_gym import SiloEnv

from . import ENV_DIR, ROOT, TASK_IDS, load_solver


def _load_worlds() -> Any:
    """``benchmarks/worlds.py`` loaded by path, writing no bytecode into the repository."""
    spec = importlib.util.spec_from_file_location("_bench_erp_worlds", ROOT / "benchmarks" / "worlds.py")
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
KEYED = worlds.ERP_COLLECTIONS


def _data() -> dict[str, Any]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (ENV_DIR / "data").glob("*.json")}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_every_collection_is_multiplied_and_sorted() -> None:
    data = _data()
    scaled = worlds.scale_erp(data, 3)
    for key in KEYED:
        ids = [r["id"] for r in scaled[key]]
        assert len(ids) == 3 * len(data[key]) == len(set(ids)), key
        assert ids == sorted(ids), key
    assert len(scaled["auditLog"]) == 3 * len(data["auditLog"])
    assert scaled["auditLog"][: len(data["auditLog"])] == data["auditLog"]
    assert scaled["company"] == data["company"] and scaled["sequences"] == data["sequences"]
    assert worlds.scale_erp(data, 1)["vendors"] == sorted(data["vendors"], key=lambda r: r["id"])
    with pytest.raises(ValueError, match="factor must be >= 1"):
        worlds.scale_erp(data, 0)


def test_a_copy_links_only_to_copies_with_its_own_number() -> None:
    data = _data()
    scaled = worlds.scale_erp(data, 3)
    originals = {r["id"] for key in KEYED for r in data[key]}
    every = {r["id"] for key in KEYED for r in scaled[key]}
    vendor = next(v for v in scaled["vendors"] if v["id"] == "VEN-002-2")
    assert vendor["name"] == "Tri-State Fasteners #2" and vendor["code"].endswith("-2")
    assert vendor["contact"]["email"].split("@")[0].endswith(".2")
    stock = next(r for r in scaled["inventory"] if r["id"] == "STK-PRD-001-3-WH-001-3")
    assert (stock["productId"], stock["warehouseId"]) == ("PRD-001-3", "WH-001-3")
    line = next(o for o in scaled["receivingDiscrepancies"] if o["id"] == "DISC-001-2")
    assert line["purchaseOrderLineId"] == "PO-203-2-L1"
    for key in KEYED:
        for record in scaled[key]:
            if record["id"] in originals:
                continue
            suffix = record["id"].rsplit("-", 1)[1]
            for text in _strings(record):
                base = text.rsplit("-L", 1)[0] if "-L" in text else text
                if base in every:
                    assert base.endswith(f"-{suffix}"), (key, record["id"], text)
                assert text not in originals, (key, record["id"], text)
    assert all(not u["isActive"] for u in scaled["users"] if u["id"] not in originals)
    order = next(o for o in scaled["purchaseOrders"] if o["id"] == "PO-202-3")
    original = next(o for o in data["purchaseOrders"] if o["id"] == "PO-202")
    assert original["createdAt"].startswith("2026-") and order["createdAt"].startswith("2028-")


def test_the_reference_solver_scores_one_on_a_scaled_world(tmp_path: Path) -> None:
    path = worlds.write_scaled_erp(tmp_path, 3)
    assert path.name == "erp3x"
    assert json.loads((path / "silo.environment.json").read_text(encoding="utf-8"))["name"] == "erp3x"
    solver = load_solver()
    for task in TASK_IDS:
        env = SiloEnv("erp3x", task, path=str(path))
        assert len(env.silo_env.create_state()["purchaseOrders"]) == 3 * 9
        policy = solver.make_policy()
        obs, info = env.reset(seed=0)
        while True:
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            if terminated or truncated:
                break
        assert (info["passed"], float(reward)) == (True, 1.0), (task, info["result"])
        env.close()
