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
import re
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

__all__ = [
    "ERP_COLLECTIONS",
    "SCALES",
    "World",
    "erp_world",
    "parse_scales",
    "scale_erp",
    "scale_project",
    "scale_records",
    "world",
    "write_scaled_demo",
    "write_scaled_erp",
]

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
    """One world size: ``name`` is the environment name (``demo``, ``demo10x``, ``erp100x``),
    ``factor`` the multiplier of the shipped world's record counts, ``path`` its directory and
    ``kind`` the shipped world it scales (``"demo"`` or ``"erp"``)."""

    name: str
    factor: int
    path: Path
    kind: str = "demo"

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


# ---------------------------------------------------------------------------------------------
# The ERP world (erp-world.md), scaled the same way
#
# Every record of the 23 keyed collections and every audit event keeps its place and gains
# ``n - 1`` copies. A copy's id is ``<id>-<k>`` (an inventory record's is ``STK-<product>-<warehouse>``
# of its copied product and warehouse); every string in it that names a record (``VEN-002``), a
# document line (``PO-201-L1``) or a stock record is pointed at copy ``k`` of that record, so each
# copy links only to copies with its own ``k`` and every reference resolves. ``company`` and
# ``sequences`` are kept, so a tool creates ``PO-210`` in every world, as in the canonical one.
# Three changes keep the 18 tasks' answers unique, so the reference solver scores 1.0 at every size:
# every date and instant of a copy is 728 days (104 weeks) later (no copied invoice is overdue or due
# within a week, no copied order is late), a copied user is inactive (never an approver a tool
# proposes), and copied names, codes, SKUs and e-mail addresses carry ``#k`` / ``-k`` / ``.k`` tags.

#: How far a copy's dates move (104 weeks: the weekday is kept).
ERP_SHIFT_DAYS = 728

#: The ERP data files that hold keyed records, in the world's key order (the rest: ``company``, ``auditLog``, ``sequences``).
ERP_COLLECTIONS = (
    "departments", "users", "vendors", "customers", "products", "warehouses", "inventory",
    "inventoryMovements", "requisitions", "approvals", "rfqs", "quotations", "purchaseOrders",
    "goodsReceipts", "receivingDiscrepancies", "vendorInvoices", "threeWayMatches", "payments",
    "salesOrders", "fulfillments", "customerInvoices", "expenses", "budgets",
)
_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(T.*)?$")
_LINE_ID = re.compile(r"^(.+)-L(\d+)$")
_TAGGED_TEXT = ("name", "title")
_TAGGED_CODES = ("code", "sku")


def _shift_date(text: str) -> str:
    match = _ISO_DATE.match(text)
    if match is None:
        return text
    day = date.fromisoformat(match.group(1)) + timedelta(days=ERP_SHIFT_DAYS)
    return day.isoformat() + (match.group(2) or "")


class _ErpCopier:
    """Copy ``k`` of ERP records: ids and references moved to copy ``k``, dates shifted."""

    def __init__(self, data: dict[str, Any], k: int, width: int) -> None:
        self.k, self.suffix = k, f"-{k:0{width}d}"
        self.ids: dict[str, str] = {}
        for key in ERP_COLLECTIONS:
            for record in data[key]:
                if key != "inventory":
                    self.ids[record["id"]] = record["id"] + self.suffix
        for record in data["inventory"]:
            product, warehouse = self.ids[record["productId"]], self.ids[record["warehouseId"]]
            self.ids[record["id"]] = f"STK-{product}-{warehouse}"

    def value(self, value: Any) -> Any:
        if type(value) is str:
            found = self.ids.get(value)
            if found is not None:
                return found
            line = _LINE_ID.match(value)
            if line is not None and line.group(1) in self.ids:
                return f"{self.ids[line.group(1)]}-L{line.group(2)}"
            return _shift_date(value)
        if type(value) is dict:
            return {key: self.value(v) for key, v in value.items()}
        if type(value) is list:
            return [self.value(v) for v in value]
        return value

    def record(self, collection: str, record: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = self.value(record)
        for field in _TAGGED_TEXT:
            if isinstance(out.get(field), str):
                out[field] = f"{out[field]} #{self.k}"
        for field in _TAGGED_CODES:
            if isinstance(out.get(field), str):
                out[field] = out[field] + self.suffix
        contact = out.get("contact")
        if isinstance(contact, dict) and "email" in contact:
            out["contact"] = {**contact, "email": _tag_email(contact["email"], self.k)}
        if "email" in out:
            out["email"] = _tag_email(out["email"], self.k)
        if collection == "users":
            out["isActive"] = False
        return out


def scale_erp(data: dict[str, Any], factor: int) -> dict[str, Any]:
    """The ERP's data files (file stem -> parsed JSON) multiplied by ``factor`` (see the comment
    above :data:`ERP_SHIFT_DAYS`): each keyed list sorted by id, the audit log's copies after its
    originals in time order, ``company`` and ``sequences`` as they are.

    Raises:
        ValueError: a factor below 1.
    """
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    width = len(str(factor))
    copiers = [_ErpCopier(data, k, width) for k in range(2, factor + 1)]
    out = dict(data)
    for key in ERP_COLLECTIONS:
        records = list(data[key])
        for copier in copiers:
            records.extend(copier.record(key, r) for r in data[key])
        records.sort(key=lambda r: r["id"])
        out[key] = records
    copies = [copier.record("auditLog", e) for copier in copiers for e in data["auditLog"]]
    copies.sort(key=lambda e: e["at"])
    out["auditLog"] = [*data["auditLog"], *copies]
    return out


def write_scaled_erp(root: Path, factor: int) -> Path:
    """Write ``root/erp<factor>x``: the ERP environment's code, tasks and manifest, with its data
    multiplied by ``factor`` (:func:`scale_erp`); returns the directory."""
    source = shipped_environments_dir() / "erp"
    name = f"erp{factor}x"
    target = root / name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "data"))
    manifest = orjson.loads((source / "silo.environment.json").read_bytes())
    manifest["name"] = name
    (target / "silo.environment.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n")
    data = {p.stem: orjson.loads(p.read_bytes()) for p in sorted((source / "data").glob("*.json"))}
    (target / "data").mkdir()
    for stem, records in scale_erp(data, factor).items():
        (target / "data" / f"{stem}.json").write_bytes(orjson.dumps(records, option=orjson.OPT_INDENT_2) + b"\n")
    return target


_worlds: dict[tuple[str, int], World] = {}
_tmp: tempfile.TemporaryDirectory[str] | None = None


def world(factor: int, kind: str = "demo") -> World:
    """The ``kind`` world (``"demo"`` or ``"erp"``) at ``factor`` times its size, registered with
    Gymnasium; generated once per process (``factor`` 1 is the shipped world itself).

    Raises:
        ValueError: an unknown ``kind``.
    """
    global _tmp
    if kind not in ("demo", "erp"):
        raise ValueError(f'kind must be "demo" or "erp", not {kind!r}')
    found = _worlds.get((kind, factor))
    if found is not None:
        return found
    if factor == 1:
        made = World(kind, 1, shipped_environments_dir() / kind, kind)
    else:
        if _tmp is None:
            _tmp = tempfile.TemporaryDirectory(prefix="silo-gym-bench-worlds-")
            atexit.register(_tmp.cleanup)
        write = write_scaled_demo if kind == "demo" else write_scaled_erp
        path = write(Path(_tmp.name), factor)
        silo_gym.register_environment(path, override=True)
        made = World(path.name, factor, path, kind)
    _worlds[(kind, factor)] = made
    return made


def erp_world(factor: int) -> World:
    """``world(factor, "erp")``: the ERP world at ``factor`` times its size (``erp``, ``erp10x``)."""
    return world(factor, "erp")


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
