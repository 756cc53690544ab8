"""The ERP variant generator: ``create_state(k)`` for an int ``0 <= k < 2**63`` (erp-world.md §11).

A variant starts from the canonical data files (the specs, not the totals, for the five derived
collections), changes what §11.2 lets it change and then runs the result through the same
``build_world`` derivation as the canonical world, so every line id, total and tax agrees by
construction. What changes, around the anchors of §11.5 that stay in their roles:

- the names of every user (and their e-mails), of the anchor vendors VEN-002, VEN-007, VEN-009,
  VEN-010, of the customers CUS-007 and CUS-008, of the products PRD-010, PRD-012, PRD-020 and of
  the warehouses WH-001 and WH-002; every mention of an old name in the data's free text follows
  (one regex pass, longest name first, so no replacement feeds another). Renaming a task's
  subject moves the figures ``scenario.task_parameters`` hands the agent (§11.3);
- VEN-002's contact e-mail domain (TASK-016's ``email``) follows its new name;
- the stock TASK-004 and TASK-006 look at, PRD-012's reorder quantity, PO-202-L1's ordered
  quantity (TASK-007: a different remaining figure) and SO-307's ordered quantity with the
  PRD-003 stock at three sites (TASK-014), each drawn inside the task's preconditions;
- PO-206-L1's agreed price and VINV-103's billed price (TASK-013), with MATCH-003's discrepancy;
- TASK-011's RFQ-002: the quantities (with PR-003's, which it came from), every quotation's prices,
  lead times and validity dates (QUO-006 stays the cheapest valid one and QUO-005 a cheaper lapsed
  one, by status or by date), a neutral note on each, and up to two distractor quotations from
  other vendors (dearer valid ones, or cheaper lapsed ones), so the count the instruction quotes
  moves too; the canonical QUO-006 note (which states the answer) is dropped;
- TASK-012's PO-203: ordered, received and billed bolt quantities (the receipt may come in one or
  two posted deliveries), both lines' prices, with GR-003, DISC-001, MATCH-004, the receipt
  movements, the audit summary and the inbound stock following;
- up to two distractor draft purchase orders after the canonical ones, so the next order id a tool
  issues moves (a replay that names the canonical new order id acts on the wrong order).

Determinism: one ``random.Random(k)`` drives every draw; pools are tuples; nothing reads the clock,
iterates a set or hashes a string. Every call builds new dicts and lists.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import orjson

from silo_gym import to_fixed

from .environment import build_world
from .scenario import task_parameters
from .state import ENTITY_KEYS, State, add_days, money

__all__ = ["build_variant"]

_DATA_DIR = Path(__file__).resolve().parent / "data"
#: The 26 data files: every state key but the clock.
_NAMES = tuple(key for key in ENTITY_KEYS if key != "now")

_FIRST = (
    "Amara",
    "Daniel",
    "Priya",
    "Tom",
    "Helen",
    "Marcus",
    "Sofia",
    "Ken",
    "Lucia",
    "Jonah",
    "Rina",
    "Oscar",
    "Grace",
    "Nadia",
    "Felix",
    "Ingrid",
    "Tariq",
    "Mei",
    "Rafael",
    "Elena",
    "Samuel",
    "Yara",
    "Viktor",
    "Leona",
    "Dmitri",
    "Chloe",
    "Hassan",
    "Bianca",
    "Arjun",
    "Freya",
    "Mateo",
    "Zainab",
)
_LAST = (
    "Okafor",
    "Reyes",
    "Nair",
    "Braddock",
    "Vasquez",
    "Lindqvist",
    "Duarte",
    "Adeyemi",
    "Moretti",
    "Wexler",
    "Kapoor",
    "Bell",
    "Yamamoto",
    "Castellano",
    "Brennan",
    "Haugen",
    "Mwangi",
    "Takahashi",
    "Oyelaran",
    "Sorensen",
    "Quintero",
    "Petrakis",
    "Delacroix",
    "Abernathy",
    "Fonseca",
    "Kowalczyk",
)
#: Anchor record -> names it may take (the canonical one first).
_RENAMES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "vendors",
        "VEN-002",
        (
            "Tri-State Fasteners",
            "Keystone Fastener Supply",
            "Bolt & Anchor Co",
            "Midland Threaded Parts",
            "Ridgeline Fasteners",
            "Copperfield Screw Works",
            "Harbor Point Fastening",
            "Greystone Bolt Company",
            "Allegheny Rivet & Pin",
        ),
    ),
    (
        "vendors",
        "VEN-007",
        (
            "Ironline Abrasives",
            "Flintcrest Grinding Supply",
            "Corundum Works",
            "Sandstone Abrasive Products",
            "Emberline Abrasives",
        ),
    ),
    (
        "vendors",
        "VEN-009",
        (
            "Summit Safety Products",
            "Guardwell Safety Supply",
            "Beacon Protective Gear",
            "Shieldcraft Safety",
            "Highmark Workwear & Safety",
        ),
    ),
    (
        "vendors",
        "VEN-010",
        (
            "Northfield Lubricants",
            "Silverbrook Oils",
            "Glideway Lubrication",
            "Tamarack Industrial Fluids",
            "Cold Creek Greases",
        ),
    ),
    (
        "customers",
        "CUS-007",
        (
            "Halcyon Paper Mills",
            "Birchwood Pulp & Paper",
            "Riverbend Paperboard",
            "Osprey Tissue Works",
            "Cedar Hollow Mills",
        ),
    ),
    (
        "customers",
        "CUS-008",
        (
            "Vertex Automotive Systems",
            "Apex Drivetrain Assembly",
            "Meridian Motor Works",
            "Ironbridge Vehicle Components",
            "Solano Auto Body Systems",
        ),
    ),
    (
        "products",
        "PRD-010",
        (
            "V-Belt A42",
            "V-Belt A38",
            "V-Belt B46",
            "V-Belt A50",
            "Cogged V-Belt AX42",
            "V-Belt B52",
            "V-Belt A36",
            "Cogged V-Belt BX50",
            "V-Belt B40",
        ),
    ),
    (
        "products",
        "PRD-012",
        (
            "Roller Chain RC80 (10ft)",
            "Roller Chain RC60 (10ft)",
            "Roller Chain RC50 (10ft)",
            "Roller Chain RC100 (10ft)",
            "Roller Chain RC80 (25ft)",
            "Roller Chain RC60 (25ft)",
            "Heavy Roller Chain RC80H (10ft)",
            "Roller Chain RC40 (10ft)",
        ),
    ),
    (
        "products",
        "PRD-020",
        (
            "Cut-Resistant Gloves Level 5 (case of 60)",
            "Cut-Resistant Gloves Level 4 (case of 60)",
            "Cut-Resistant Gloves Level 5 (case of 48)",
            "Cut-Resistant Gloves Level 3 (case of 72)",
            "Coated Cut-Resistant Gloves Level 5 (case of 60)",
            "Cut-Resistant Sleeves Level 5 (case of 24)",
            "Nitrile-Dipped Cut Gloves Level 4 (case of 48)",
        ),
    ),
    (
        "warehouses",
        "WH-001",
        ("Warehouse North", "North Distribution Centre", "Northgate Depot", "Upper Yard Store"),
    ),
    (
        "warehouses",
        "WH-002",
        ("Warehouse South", "South Distribution Centre", "Southport Depot", "Lower Yard Store"),
    ),
)

#: The canonical users' names: a new name never takes one of them (the free-text pass would
#: rewrite it).
_CANONICAL_USERS = (
    "Amara Okafor",
    "Daniel Reyes",
    "Priya Nair",
    "Tom Braddock",
    "Helen Vasquez",
    "Marcus Lindqvist",
    "Sofia Duarte",
    "Ken Adeyemi",
    "Lucia Moretti",
    "Jonah Wexler",
    "Rina Kapoor",
    "Oscar Bell",
    "Grace Yamamoto",
)

_raw: bytes | None = None


def _data() -> dict[str, Any]:
    """A fresh copy of the 26 parsed data files (read once per process)."""
    global _raw
    if _raw is None:
        _raw = orjson.dumps({n: orjson.loads((_DATA_DIR / f"{n}.json").read_bytes()) for n in _NAMES})
    data: dict[str, Any] = orjson.loads(_raw)
    return data


def _by_id(rows: list[dict[str, Any]], record_id: str) -> dict[str, Any]:
    for row in rows:
        if row["id"] == record_id:
            return row
    raise KeyError(record_id)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _rename(data: dict[str, Any], rng: random.Random) -> dict[str, str]:
    """Give anchors and users new names; returns old name -> new name (changed ones only)."""
    renamed: dict[str, str] = {}
    for collection, record_id, pool in _RENAMES:
        record = _by_id(data[collection], record_id)
        new = pool[rng.randrange(len(pool))]
        if new != record["name"]:
            renamed[record["name"]] = new
            record["name"] = new
            if "code" in record and collection != "warehouses":
                record["code"] = _slug(new).upper()[:12]
    vendor = _by_id(data["vendors"], "VEN-002")
    if vendor["name"] != "Tri-State Fasteners":
        vendor["contact"]["email"] = f"orders@{_slug(vendor['name'])}.example"
    canonical = _CANONICAL_USERS
    used: list[str] = []
    for user in data["users"]:
        while True:
            first = _FIRST[rng.randrange(len(_FIRST))]
            last = _LAST[rng.randrange(len(_LAST))]
            candidate = f"{first} {last}"
            if candidate not in used and (candidate == user["name"] or candidate not in canonical):
                break
        name = f"{first} {last}"
        used.append(name)
        if name != user["name"]:
            renamed[user["name"]] = name
            user["name"] = name
            domain = user["email"].split("@", 1)[1]
            user["email"] = f"{first.lower()}.{last.lower()}@{domain}"
    return renamed


#: Users whose role another user may take over in a variant (the canonical one is then
#: deactivated, so a replay that acts as them fails ``not_allowed``). A world where USR-003,
#: USR-004 or USR-008 has handed over does not serve the tasks that anchor them (TASK-004,
#: TASK-005, TASK-015: their preconditions say so); every other task follows the successor.
_HANDOVER = ("USR-002", "USR-003", "USR-004", "USR-005", "USR-006", "USR-007", "USR-008", "USR-009")
_HANDOVER_RATE = 0.6


def _hand_over(data: dict[str, Any], rng: random.Random) -> None:
    """Deactivate some role holders; a new user (next USR id) takes each one's role, department,
    approval limit and pending approvals. ``instructions.stand_in`` finds the successor again."""
    users = data["users"]
    taken = [user["name"] for user in users]
    number = data["sequences"]["USR"]
    for user_id in _HANDOVER:
        if rng.random() >= _HANDOVER_RATE:
            continue
        old = _by_id(users, user_id)
        while True:
            first = _FIRST[rng.randrange(len(_FIRST))]
            last = _LAST[rng.randrange(len(_LAST))]
            if f"{first} {last}" not in taken and f"{first} {last}" not in _CANONICAL_USERS:
                break
        taken.append(f"{first} {last}")
        number += 1
        new_id = f"USR-{number:03d}"
        domain = old["email"].split("@", 1)[1]
        users.append(
            {
                **old,
                "id": new_id,
                "name": f"{first} {last}",
                "email": f"{first.lower()}.{last.lower()}@{domain}",
                "isActive": True,
            }
        )
        old["isActive"] = False
        for approval in data["approvals"]:
            if approval["status"] == "pending" and approval["assignedToUserId"] == user_id:
                approval["assignedToUserId"] = new_id
    data["sequences"]["USR"] = number


def _restock(data: dict[str, Any], rng: random.Random) -> None:
    """Draw the figures TASK-004, -006, -007 and -014 read, inside their preconditions."""
    provisional = build_world({**data, "company": data["company"]})
    inventory = {row["id"]: row for row in data["inventory"]}
    products = {row["id"]: row for row in data["products"]}
    # TASK-004: fewer than `requested` available at WH-001; a new reorder quantity.
    requested = task_parameters("TASK-004", provisional)["requested"]
    stock = inventory["STK-PRD-012-WH-001"]
    stock["quantityOnHand"] = stock["quantityReserved"] + rng.randrange(requested)
    products["PRD-012"]["reorderQuantity"] = rng.choice((60, 80, 100, 120, 150, 200))
    # TASK-006: WH-002 below its point and back above it after `quantity`; WH-001 well stocked.
    quantity = task_parameters("TASK-006", provisional)["quantity"]
    point = products["PRD-010"]["reorderPoint"]
    south = inventory["STK-PRD-010-WH-002"]
    south["quantityOnHand"] = rng.randrange(max(0, point - quantity), point)
    north = inventory["STK-PRD-010-WH-001"]
    north["quantityOnHand"] = max(quantity, point) + north["quantityReserved"] + rng.randrange(10, 400)
    # TASK-007: a different number of cylinders outstanding on PO-202-L1.
    line = _by_id(data["purchaseOrders"], "PO-202")["lines"][0]
    old_remaining = line["ordered"] - line["received"] - (line.get("rejected") or 0)
    line["ordered"] = line["received"] + (line.get("rejected") or 0) + rng.randrange(3, 61)
    inventory["STK-PRD-007-WH-001"]["quantityInbound"] += (
        line["ordered"] - line["received"] - (line.get("rejected") or 0) - old_remaining
    )
    # TASK-014: no site covers SO-307's quantity; WH-001 and WH-002 together do.
    sites = [inventory[f"STK-PRD-003-WH-00{n}"] for n in (1, 2, 3)]
    for record, (low, high) in zip(sites, ((20, 100), (40, 140), (5, 40)), strict=True):
        record["quantityOnHand"] = record["quantityReserved"] + rng.randrange(low, high + 1)
    available = [r["quantityOnHand"] - r["quantityReserved"] for r in sites]
    order_line = _by_id(data["salesOrders"], "SO-307")["lines"][0]
    order_line["ordered"] = rng.randrange(max(available) + 1, available[0] + available[1] + 1)


def _reprice(data: dict[str, Any], rng: random.Random) -> None:
    """TASK-013: a new agreed price on PO-206-L1 and a billed price 3-12 % above it on VINV-103,
    with MATCH-003's price discrepancy (expected, actual, message in the §3.6 format) to match."""
    agreed = money(rng.randrange(6000, 12001, 25) / 100)["amount"]
    billed = money(agreed * (1 + rng.randrange(3, 13) / 100))["amount"]
    _by_id(data["purchaseOrders"], "PO-206")["lines"][0]["unitPrice"] = agreed
    _by_id(data["vendorInvoices"], "VINV-103")["lines"][0]["unitPrice"] = billed
    variance = (billed - agreed) / agreed * 100
    for discrepancy in _by_id(data["threeWayMatches"], "MATCH-003")["discrepancies"]:
        if discrepancy["type"] == "price" and discrepancy["purchaseOrderLineId"] == "PO-206-L1":
            discrepancy.update(
                expected=agreed,
                actual=billed,
                message=f"Invoiced unit price {to_fixed(billed, 2)} exceeds purchase order price "
                f"{to_fixed(agreed, 2)} by {to_fixed(variance, 2)}%.",
            )


#: Active vendors outside every task's anchors: they may quote on RFQ-002 or hold a draft order.
_SPARE_VENDORS = ("VEN-001", "VEN-005", "VEN-006")
_QUOTE_NOTES = (
    None,
    "Standard terms; the vendor has the stock.",
    "Prices exclude freight.",
    "Delivery in two drops is possible.",
    "Quoted from the vendor's current price list.",
)


def _quote_total(lines: list[list[Any]]) -> float:
    """A quotation's total from its spec lines, rounded as ``derive_quotation`` rounds it."""
    raw = 0.0
    for _product, quantity, price in lines:
        raw += money(quantity * price)["amount"]
    total: float = money(raw)["amount"]
    return total


def _scaled(lines: list[list[Any]], rng: random.Random, low: int, high: int) -> list[list[Any]]:
    """``lines`` with each price moved by a whole percentage drawn from ``low..high``."""
    return [
        [product, quantity, money(price * (1 + rng.randrange(low, high + 1) / 100))["amount"]]
        for product, quantity, price in lines
    ]


def _lapsed(rng: random.Random) -> tuple[str, str]:
    """(status, validUntil) of a quotation that is no longer valid at ``now``: expired by status,
    or still ``received`` with its validity date passed (at most today's midnight)."""
    until = add_days("2026-03-16T00:00:00.000Z", -rng.randrange(0, 12))
    return ("expired" if rng.random() < 0.5 else "received"), until


def _valid_until(rng: random.Random) -> str:
    return add_days("2026-03-17T00:00:00.000Z", rng.randrange(0, 45))


def _requote(data: dict[str, Any], rng: random.Random) -> None:
    """TASK-011: new quantities on RFQ-002 (and PR-003), new prices, lead times and validity dates
    on its quotations, and up to two distractor quotations (§11.5's conditions by construction:
    QUO-006 strictly cheapest valid, QUO-005 invalid and strictly cheaper)."""
    rfq = _by_id(data["rfqs"], "RFQ-002")
    quantities = [rng.randrange(200, 1001, 50), rng.randrange(200, 801, 50)]
    for line, quantity in zip(rfq["lines"], quantities, strict=True):
        line["quantity"] = quantity
    requisition = _by_id(data["requisitions"], "PR-003")
    raw = 0.0
    for line, quantity in zip(requisition["lines"], quantities, strict=True):
        line["quantity"] = quantity
        raw += money(quantity * line["estimatedUnitPrice"]["amount"])["amount"]
    requisition["estimatedTotal"] = money(raw)
    _by_id(data["approvals"], "APR-003")["amount"] = money(raw)
    products = [line["productId"] for line in rfq["lines"]]
    best = [
        [product, quantity, rng.randrange(500, 851, 5) / 100]
        for product, quantity in zip(products, quantities, strict=True)
    ]
    best_total = _quote_total(best)
    quotes = {q["id"]: q for q in data["quotations"] if q["rfqId"] == "RFQ-002"}
    winner = quotes["QUO-006"]
    winner.update(lines=best, validUntil=_valid_until(rng), leadTimeDays=rng.randrange(7, 31), notes=None)

    def cheaper() -> list[list[Any]]:
        while True:
            lines = _scaled(best, rng, -9, 2)
            if _quote_total(lines) < best_total:
                return lines

    def dearer() -> list[list[Any]]:
        # one line may undercut the winner's, the total never does
        while True:
            lines = _scaled(best, rng, -4, 9)
            if _quote_total(lines) > best_total:
                return lines

    status, until = _lapsed(rng)
    quotes["QUO-005"].update(lines=cheaper(), status=status, validUntil=until)
    quotes["QUO-004"].update(lines=dearer(), validUntil=_valid_until(rng))
    for quote in (quotes["QUO-004"], quotes["QUO-005"]):
        quote.update(leadTimeDays=rng.randrange(7, 46), notes=_QUOTE_NOTES[rng.randrange(len(_QUOTE_NOTES))])
    number = data["sequences"]["QUO"]
    spare = list(_SPARE_VENDORS)
    for _ in range(rng.randrange(3)):
        vendor_id = spare.pop(rng.randrange(len(spare)))
        number += 1
        if rng.random() < 0.5:
            lines, status, until = dearer(), "received", _valid_until(rng)
        else:
            lines = cheaper()
            status, until = _lapsed(rng)
        received = add_days("2026-03-04T08:00:00.000Z", rng.randrange(0, 9))
        received = received[:11] + f"{rng.randrange(8, 17):02d}:{rng.randrange(0, 60, 5):02d}" + received[16:]
        data["quotations"].append(
            {
                "id": f"QUO-{number:03d}",
                "rfqId": "RFQ-002",
                "vendorId": vendor_id,
                "status": status,
                "lines": lines,
                "leadTimeDays": rng.randrange(7, 46),
                "validUntil": until,
                "receivedAt": received,
                "notes": _QUOTE_NOTES[rng.randrange(len(_QUOTE_NOTES))],
            }
        )
        rfq["invitedVendorIds"].append(vendor_id)
    data["sequences"]["QUO"] = number


def _rebill(data: dict[str, Any], rng: random.Random) -> None:
    """TASK-012: new ordered, received and billed quantities and prices on PO-203 and VINV-104.

    The bolt line (PO-203-L1) is billed in full while only part of it arrived, in GR-003 alone or
    in GR-003 and a later posted delivery; the nut line (PO-203-L2) arrived and is billed in full.
    Every record that quotes these figures follows: GR-003 and its note, DISC-001, MATCH-004's
    discrepancy, the receipt movements, the shortage's audit summary and WH-002's inbound bolts.
    """
    order = _by_id(data["purchaseOrders"], "PO-203")
    bolts, nuts = order["lines"]
    old_remaining = bolts["ordered"] - bolts["received"] - (bolts.get("rejected") or 0)
    ordered = rng.randrange(200, 801, 10)
    received = rng.randrange(ordered * 3 // 10, ordered - 9)
    first = received if rng.random() < 0.5 else rng.randrange(received // 3, received - 4)
    later = received - first
    nut_quantity = rng.randrange(100, 501, 10)
    bolt_price = rng.randrange(900, 1401, 5) / 100
    nut_price = rng.randrange(700, 1101, 5) / 100
    bolts.update(ordered=ordered, received=received, invoiced=ordered, unitPrice=bolt_price)
    nuts.update(ordered=nut_quantity, received=nut_quantity, invoiced=nut_quantity, unitPrice=nut_price)
    invoice = _by_id(data["vendorInvoices"], "VINV-104")
    invoice["lines"][0].update(quantity=ordered, unitPrice=bolt_price)
    invoice["lines"][1].update(quantity=nut_quantity, unitPrice=nut_price)
    receipt = _by_id(data["goodsReceipts"], "GR-003")
    receipt["lines"][0].update(
        quantityReceived=first, note=f"Delivered short; {ordered - first} boxes are on back order."
    )
    receipt["lines"][1]["quantityReceived"] = nut_quantity
    shortage = _by_id(data["receivingDiscrepancies"], "DISC-001")
    shortage.update(quantityExpected=ordered, quantityReceived=first)
    for entry in data["auditLog"]:
        if entry["entityId"] == "DISC-001":
            entry["summary"] = f"Shortage reported on GR-003: {first} of {ordered} boxes arrived."
    movements = {row["id"]: row for row in data["inventoryMovements"]}
    movements["MOV-010"]["quantityDelta"] = first
    movements["MOV-011"]["quantityDelta"] = nut_quantity
    match = _by_id(data["threeWayMatches"], "MATCH-004")
    match["discrepancies"][0].update(
        expected=received,
        actual=ordered,
        message=f"Invoiced quantity {ordered} exceeds received quantity {received} on PO-203.",
    )
    if later:
        number = data["sequences"]["GR"] + 1
        receipt_id = f"GR-{number:03d}"
        data["sequences"]["GR"] = number
        data["goodsReceipts"].append(
            {
                **receipt,
                "id": receipt_id,
                "number": receipt_id,
                "lines": [
                    {
                        "id": f"{receipt_id}-L1",
                        "purchaseOrderLineId": "PO-203-L1",
                        "productId": bolts["productId"],
                        "quantityReceived": later,
                        "quantityRejected": 0,
                        "note": "Part of the back order.",
                    }
                ],
                "deliveryNote": f"TSF-DN-{51240 + rng.randrange(3, 40)}",
                "receivedAt": "2026-03-09T10:40:00.000Z",
                "postedAt": "2026-03-09T11:05:00.000Z",
            }
        )
        move = data["sequences"]["MOV"] + 1
        data["sequences"]["MOV"] = move
        data["inventoryMovements"].append(
            {
                **movements["MOV-010"],
                "id": f"MOV-{move:03d}",
                "quantityDelta": later,
                "referenceId": receipt_id,
                "occurredAt": "2026-03-09T11:05:00.000Z",
                "note": "Part of the back order on PO-203.",
            }
        )
        for record in (invoice, match):
            record["goodsReceiptIds"] = [*record["goodsReceiptIds"], receipt_id]
    stock = next(row for row in data["inventory"] if row["id"] == "STK-PRD-004-WH-002")
    stock["quantityInbound"] += ordered - received - old_remaining


def _draft_orders(data: dict[str, Any], rng: random.Random) -> None:
    """Up to two draft purchase orders of spare vendors after the canonical ones (nothing
    inbound, nothing committed): the next ``PO`` id a tool issues moves with them."""
    products = {row["id"]: row for row in data["products"]}
    vendors = {row["id"]: row for row in data["vendors"]}
    number = data["sequences"]["PO"]
    for _ in range(rng.randrange(3) if rng.random() < 0.6 else 0):
        vendor_id = ("VEN-005", "VEN-006")[rng.randrange(2)]
        stocked = [p for p in products.values() if vendor_id in p["preferredVendorIds"]]
        product = stocked[rng.randrange(len(stocked))]
        number += 1
        created = add_days("2026-03-12T00:00:00.000Z", rng.randrange(0, 4))
        created = created[:11] + f"{rng.randrange(8, 17):02d}:{rng.randrange(0, 60, 5):02d}" + created[16:]
        due = add_days(created[:11] + "00:00:00.000Z", rng.randrange(10, 30))
        data["purchaseOrders"].append(
            {
                "id": f"PO-{number:03d}",
                "vendorId": vendor_id,
                "status": "draft",
                "warehouseId": ("WH-001", "WH-003")[rng.randrange(2)],
                "paymentTerms": vendors[vendor_id]["paymentTerms"],
                "createdByUserId": "USR-002",
                "createdAt": created,
                "expectedDeliveryDate": due,
                "budgetId": "BUD-001",
                "lines": [
                    {
                        "productId": product["id"],
                        "description": product["name"],
                        "ordered": rng.randrange(5, 41) * 5,
                        "unitPrice": product["standardCost"]["amount"],
                        "expectedDate": due,
                    }
                ],
            }
        )
    data["sequences"]["PO"] = number


def _settle_approvals(world: State) -> None:
    """Every approval's amount equals its document's derived total (§11.6)."""
    sources = {"purchase_order": "purchaseOrders", "vendor_invoice": "vendorInvoices"}
    for approval in world["approvals"].values():
        collection = sources.get(approval["entityType"])
        document = world[collection].get(approval["entityId"]) if collection else None
        if document is not None:
            approval["amount"] = dict(document["totalAmount"])


def build_variant(k: int) -> State:
    """Variant ``k`` of the ERP world: a fresh world with the canonical keys, order and types.

    Raises:
        ValueError: ``k`` is not an int with ``0 <= k < 2**63``.
    """
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < 2**63:
        raise ValueError(f"variant must be an int with 0 <= k < 2**63, got {k!r}")
    rng = random.Random(k)
    data = _data()
    renamed = _rename(data, rng)
    _by_id(data["quotations"], "QUO-006")["notes"] = None
    if renamed:
        names = sorted(renamed, key=lambda name: (-len(name), name))
        pattern = re.compile("|".join(re.escape(name) for name in names))
        text = orjson.dumps(data).decode("utf-8")
        data = orjson.loads(pattern.sub(lambda m: renamed[m.group(0)], text))
    _hand_over(data, rng)
    _restock(data, rng)
    _reprice(data, rng)
    _requote(data, rng)
    _rebill(data, rng)
    _draft_orders(data, rng)
    world = build_world(data)
    _settle_approvals(world)
    return world
