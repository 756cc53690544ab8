"""Verifier registry of the inventory world."""

import re

from silo_gym import canonical, check, define_verifier, optional

from ..state import units_in_stock


def _check(final, initial, context):
    expected = units_in_stock(initial)
    numbers = [int(n) for n in re.findall(r"[0-9]+", context.agent_output)]
    return [
        check("The answer states the stock", expected in numbers, f"expected {expected}"),
        optional("Nothing changed", canonical(final) == canonical(initial)),
    ]


ver_001 = define_verifier(id="VER-001", task_id="TASK-001", name="Stock count reported", check=_check)

verifiers = [
    ver_001,
]
