"""Verifier registry of the orders world."""

from silo_gym import check, define_verifier, optional


def _check(final, initial, context):
    order = final["orders"]["O-1"]
    others_same = all(final["orders"][k] == v for k, v in initial["orders"].items() if k != "O-1")
    return [
        check("O-1 is shipped", order["status"] == "shipped", f"status = {order['status']}"),
        check("O-1 went express", order["carrier"] == "express", f"carrier = {order['carrier']}"),
        optional("No other order changed", others_same),
    ]


ver_001 = define_verifier(id="VER-001", task_id="TASK-001", name="Order O-1 shipped express", check=_check)

verifiers = [
    ver_001,
]
