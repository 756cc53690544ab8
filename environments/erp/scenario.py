"""Figures a task hands the agent (erp-world.md §11.3): ``task_parameters(task_id, state)``.

Each figure derives from the identity of the task's subject: the canonical subject gives the
reference's figure; any other name draws from ``sha256(name)`` so a variant that renames the
subject changes the figure, deterministically, in every process. Verifiers read (P) figures from
here, so the canonical world grades exactly as the reference does.
"""

from __future__ import annotations

import hashlib
from typing import Any

from silo_gym import round2

from .state import State

__all__ = ["task_parameters"]

_TERMS = ("NET_15", "NET_30", "NET_45", "NET_60", "DUE_ON_RECEIPT")


def _draw(name: str, values: list[Any], second: bool = False) -> Any:
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    chunk = digest[8:16] if second else digest[:8]
    return values[int.from_bytes(chunk, "big") % len(values)]


def _name(state: State, collection: str, record_id: str) -> str:
    found = state.get(collection, {}).get(record_id) or {}
    name = found.get("name")
    return name if isinstance(name, str) else ""


def task_parameters(task_id: str, state: State) -> dict[str, Any]:
    """The figures ``task_id``'s instruction hands the agent, read from the initial ``state``.

    ``{}`` for a task that hands none. Keys: TASK-001 ``terms``; TASK-004 ``requested``; TASK-006
    ``quantity``; TASK-016 ``email``; TASK-017 ``quantity``, ``unitPrice``.
    """
    if task_id == "TASK-001":
        name = _name(state, "vendors", "VEN-002")
        if name == "Tri-State Fasteners":
            return {"terms": "NET_30"}
        current = (state["vendors"].get("VEN-002") or {}).get("paymentTerms")
        return {"terms": _draw(name, [t for t in _TERMS if t != current])}
    if task_id == "TASK-004":
        name = _name(state, "products", "PRD-012")
        if name == "Roller Chain RC80 (10ft)":
            return {"requested": 40}
        return {"requested": _draw(name, list(range(10, 121, 5)))}
    if task_id == "TASK-006":
        name = _name(state, "products", "PRD-010")
        if name == "V-Belt A42":
            return {"quantity": 200}
        return {"quantity": _draw(name, list(range(50, 401, 10)))}
    if task_id == "TASK-016":
        contact = (state["vendors"].get("VEN-002") or {}).get("contact") or {}
        email = contact.get("email") or ""
        domain = email.split("@", 1)[1] if "@" in email else "tristatefasteners.example"
        return {"email": f"ar@{domain}"}
    if task_id == "TASK-017":
        product = state["products"].get("PRD-020") or {}
        name = _name(state, "products", "PRD-020")
        if name == "Cut-Resistant Gloves Level 5 (case of 60)":
            return {"quantity": 20, "unitPrice": 154}
        cost = ((product.get("standardCost") or {}).get("amount")) or 0
        prices = [round2(cost * (100 - pct) / 100) for pct in range(1, 11)]
        return {"quantity": _draw(name, list(range(5, 61))), "unitPrice": _draw(name, prices, second=True)}
    return {}
