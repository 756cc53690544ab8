"""Scaled copies of the demo CRM world, generated at run time (issue 14, item 1).

``world(10)`` writes a copy of the demo environment into a temporary directory whose entity data
files hold 10x the records, registers it as ``demo10x`` and returns a :class:`World` naming it;
``world(1)`` is the shipped ``demo`` itself. Nothing is written into the repository, and the
directories are removed when the process exits.

How a world is multiplied (factor ``n``):

- Every record of ``users``, ``accounts``, ``contacts``, ``leads``, ``opportunities`` and
  ``activities`` keeps its place, and gains ``n - 1`` copies ``<id>-<k>`` (``k`` = 2..n,
  zero-padded to the width of ``n``). Such ids never collide with the ``PREFIX-NNN`` ids the tools
  issue, so ``sequences`` is kept and a tool creates ``ACC-012`` in every world, as in the demo.
- A copy's references (``ownerId``, ``managerId``, ``accountId``, ``primaryContactId``,
  ``sourceLeadId``, ``converted*Id``, ``relatedTo``) point at the copies with the same ``k``, so
  every reference resolves and each record has as many links at 100x as at 1x. The pipeline
  (``stages``), ``auditLog`` and ``sequences`` are not multiplied.
- Copies carry a `` #k`` tag in their names and a ``.k`` in their e-mail addresses. Two changes
  keep the six tasks' answers unique, so the reference solver passes with the same reward at
  every size: a copied user's quota is 10% lower (their attainment is never the lowest), and a
  copied open deal entered its stage at most 30 days ago (it is never stale).
- Each data file is written sorted by id (demo-crm.md §1: files are in id order).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import orjson

import silo_gym
from silo_gym import SiloEnv
from silo_gym.loader import open_environment_at, shipped_environments_dir

__all__ = ["SCALES", "World", "parse_scales", "scale_project", "scale_records", "world", "write_scaled_demo"]

#: The sizes the issue asks for.
SCALES = (1, 10, 100)

#: Entity collections multiplied, in the world's key order.
COLLECTIONS = ("users", "accounts", "contacts", "leads", "opportunities", "activities")

#: Which collection a reference field points into.
_REFS: dict[str, dict[str, str]] = {
    "users": {"managerId": "users"},
    "accounts": {"ownerId": "users"},
    "contacts": {"accountId": "accounts"},
    "leads": {
        "ownerId": "users",
        "convertedAccountId": "accounts",
        "convertedContactId": "contacts",
        "convertedOpportunityId": "opportunities",
    },
    "opportunities": {
        "accountId": "accounts",
        "primaryContactId": "contacts",
        "ownerId": "users",
        "sourceLeadId": "leads",
    },
    "activities": {"ownerId": "users"},
}
_RELATED = {"lead": "leads", "account": "accounts", "contact": "contacts", "opportunity": "opportunities"}
_NAME_FIELDS = {"users": "name", "accounts": "name", "contacts": "lastName", "leads": "company",
                "opportunities": "name"}
_STALE_DAYS = 30


@dataclass(frozen=True)
class World:
    """One world size: ``name`` is the environment name (``demo``, ``demo10x``), ``factor`` the
    multiplier of the demo's record counts, ``path`` its directory."""

    name: str
    factor: int
    path: Path

    @property
    def label(self) -> str:
        return f"{self.factor}x"

    def env(self, task_id: str, **kwargs: Any) -> SiloEnv:
        """A ``SiloEnv`` on one of its tasks (keyword arguments as ``SiloEnv`` takes them)."""
        return SiloEnv(self.name, task_id, path=str(self.path), **kwargs)

    def env_id(self, task_id: str) -> str:
        """The Gymnasium id of one of its tasks, e.g. ``silo/demo10x-TASK-004``."""
        return f"silo/{self.name}-{task_id}"


def parse_scales(text: str) -> list[int]:
    """``"1,10,100"`` -> ``[1, 10, 100]``; each a whole number >= 1, no repeats.

    Raises:
        ValueError: naming the entry that is not a whole number >= 1, or the repeat.
    """
    scales: list[int] = []
    for part in text.split(","):
        part = part.strip().lower().removesuffix("x")
        if not part:
            continue
        if not part.isdigit() or int(part) < 1:
            raise ValueError(f"a scale must be a whole number >= 1 (like 1, 10 or 100x), got {part!r}")
        if int(part) in scales:
            raise ValueError(f"scale {int(part)} is listed twice")
        scales.append(int(part))
    if not scales:
        raise ValueError("no scale given; use for example --scale 1,10,100")
    return scales


def _copy_id(record_id: str, k: int, width: int) -> str:
    return f"{record_id}-{k:0{width}d}"


def _tag_email(email: Any, k: int) -> Any:
    if not isinstance(email, str) or "@" not in email:
        return email
    local, _, domain = email.partition("@")
    return f"{local}.{k}@{domain}"


def _copy(collection: str, record: dict[str, Any], k: int, width: int, ids: dict[str, set[str]],
          now: str) -> dict[str, Any]:
    """Copy ``k`` of ``record``: new id, references to the copies ``k``, tagged names."""
    out = dict(record)
    out["id"] = _copy_id(record["id"], k, width)
    for field, target in _REFS[collection].items():
        ref = record.get(field)
        if ref is not None:
            if ref not in ids[target]:
                raise ValueError(f'{collection} {record["id"]}: {field} "{ref}" does not resolve')
            out[field] = _copy_id(ref, k, width)
    if collection == "activities":
        related = record["relatedTo"]
        target = _RELATED[related["type"]]
        if related["id"] not in ids[target]:
            raise ValueError(f'activities {record["id"]}: relatedTo "{related["id"]}" does not resolve')
        out["relatedTo"] = {"type": related["type"], "id": _copy_id(related["id"], k, width)}
    name_field = _NAME_FIELDS.get(collection)
    if name_field is not None and isinstance(record.get(name_field), str):
        out[name_field] = f"{record[name_field]} #{k}"
    if "email" in record:
        out["email"] = _tag_email(record["email"], k)
    if collection == "users":
        quota = record["quota"]
        out["quota"] = {**quota, "amount": quota["amount"] - quota["amount"] // 10}
    if collection == "opportunities" and record["status"] == "open":
        earliest = (date.fromisoformat(now) - timedelta(days=_STALE_DAYS)).isoformat()
        out["stageEnteredDate"] = max(record["stageEnteredDate"], earliest)
    return out


def scale_records(data: dict[str, list[dict[str, Any]]], factor: int, now: str) -> dict[str, list[dict[str, Any]]]:
    """The demo's entity data files multiplied by ``factor`` (see the module docstring); every
    list sorted by id. ``data`` maps a collection to its records; other keys are returned as-is.

    Raises:
        ValueError: a factor below 1, or a reference in ``data`` that does not resolve.
    """
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    width = len(str(factor))
    ids = {c: {r["id"] for r in data[c]} for c in COLLECTIONS}
    out = dict(data)
    for collection in COLLECTIONS:
        records = list(data[collection])
        for k in range(2, factor + 1):
            records.extend(_copy(collection, r, k, width, ids, now) for r in data[collection])
        records.sort(key=lambda r: r["id"])
        out[collection] = records
    return out


def write_scaled_demo(root: Path, factor: int) -> Path:
    """Write ``root/demo<factor>x``: the demo environment's code, tasks and manifest, with its data
    multiplied by ``factor``; returns the directory."""
    source = shipped_environments_dir() / "demo"
    name = f"demo{factor}x"
    target = root / name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "data"))
    manifest = orjson.loads((source / "silo.environment.json").read_bytes())
    manifest["name"] = name
    (target / "silo.environment.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n")
    data_dir = source / "data"
    data = {p.stem: orjson.loads(p.read_bytes()) for p in sorted(data_dir.glob("*.json"))}
    now = open_environment_at("demo", source).module.SIMULATION_NOW
    scaled = scale_records(data, factor, now)
    (target / "data").mkdir()
    for stem, records in scaled.items():
        (target / "data" / f"{stem}.json").write_bytes(orjson.dumps(records, option=orjson.OPT_INDENT_2) + b"\n")
    return target


_worlds: dict[int, World] = {}
_tmp: tempfile.TemporaryDirectory[str] | None = None


def world(factor: int) -> World:
    """The demo world at ``factor`` times its size, registered with Gymnasium; generated once per
    process (``factor`` 1 is the shipped ``demo``)."""
    global _tmp
    found = _worlds.get(factor)
    if found is not None:
        return found
    if factor == 1:
        made = World("demo", 1, shipped_environments_dir() / "demo")
    else:
        if _tmp is None:
            _tmp = tempfile.TemporaryDirectory(prefix="silo-gym-bench-worlds-")
            atexit.register(_tmp.cleanup)
        path = write_scaled_demo(Path(_tmp.name), factor)
        silo_gym.register_environment(path, override=True)
        made = World(path.name, factor, path)
    _worlds[factor] = made
    return made


#: Where each collection's link fields point.
_PROJECT_REFS: dict[str, dict[str, str]] = {
    "projects": {"leadId": "members"},
    "workItems": {"assigneeId": "members", "projectId": "projects", "sprintId": "sprints", "parentId": "workItems"},
    "sprints": {"projectId": "projects"},
    "members": {"teamId": "teams"},
    "teams": {"leadId": "members"},
    "timeLogs": {"workItemId": "workItems", "memberId": "members"},
}


def _project_copy_id(record_id: Any, k: int) -> Any:
    return record_id if record_id is None else f"{record_id}-{k:03d}"


def scale_project(state: dict[str, Any], factor: int) -> dict[str, Any]:
    """The project world ``state`` with ``factor`` times its records, in memory (``state`` itself
    at 1): every project, work item, sprint, member, team and time log gains copies ``<id>-<k>``
    (k = 2..factor, three digits) whose links point at the copies with the same ``k``; the
    workflow states are shared."""
    if factor == 1:
        return state
    out = dict(state)
    for key, refs in _PROJECT_REFS.items():
        records = dict(state[key])
        for k in range(2, factor + 1):
            for record in state[key].values():
                copy = dict(record)
                copy["id"] = _project_copy_id(record["id"], k)
                for field in refs:
                    copy[field] = _project_copy_id(record[field], k)
                if key == "workItems":
                    copy["dependsOn"] = [_project_copy_id(d, k) for d in record["dependsOn"]]
                    copy["comments"] = [dict(c, authorId=_project_copy_id(c["authorId"], k)) for c in record["comments"]]
                records[copy["id"]] = copy
        out[key] = dict(sorted(records.items()))
    return out
