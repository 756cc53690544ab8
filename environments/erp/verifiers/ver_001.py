"""VER-001 (TASK-001): the vendor moved to the agreed payment terms (erp-world.md §9.2)."""

from __future__ import annotations

from typing import Any

from silo_gym import check, define_verifier, optional

from ..scenario import task_parameters
from .shared import field, record, same, text


def _check(final: Any, initial: Any, context: Any) -> list:
    terms = task_parameters("TASK-001", initial)["terms"]
    v = record(final, "vendors", "VEN-002")
    return [
        check(
            "The vendor is on the agreed payment terms",
            same(field(v, "paymentTerms"), terms),
            f"paymentTerms = {text(field(v, 'paymentTerms'))}",
        ),
        optional(
            "The vendor is still active",
            same(field(v, "status"), "active"),
            f"status = {text(field(v, 'status'))}",
        ),
    ]


ver_001 = define_verifier(
    id="VER-001", task_id="TASK-001", name="Vendor moved to the agreed terms", check=_check
)
