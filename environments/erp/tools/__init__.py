"""Tool registry of the ERP world: the 185 tools in registration order (erp-tools.md §7.0).

Each domain module exposes ``TOOLS``, its tools in registration order; ``load_tools()`` concatenates
them in the order of ``DOMAINS`` and checks the count and that names are unique. The registry is
built on first use (``tools`` is a lazy attribute), so importing ``tools.helpers`` or one domain
module never imports the other eighteen.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["DOMAINS", "TOOL_COUNT", "load_tools", "tools"]

#: Domain modules with their tool counts, in registration order.
DOMAINS: tuple[tuple[str, int], ...] = (
    ("clock", 3),
    ("vendors", 8),
    ("customers", 8),
    ("products", 8),
    ("inventory", 14),
    ("requisitions", 12),
    ("approvals", 7),
    ("rfqs", 9),
    ("quotations", 9),
    ("purchase_orders", 15),
    ("receiving", 10),
    ("vendor_invoices", 17),
    ("payments", 12),
    ("sales_orders", 14),
    ("customer_invoices", 11),
    ("expenses", 8),
    ("budgets", 10),
    ("reporting", 6),
    ("audit", 4),
)

TOOL_COUNT = 185

_tools: list[Any] | None = None


def load_tools() -> list[Any]:
    """The 185 tools, in registration order (built once per load of the environment).

    Raises:
        RuntimeError: a domain module's ``TOOLS`` has the wrong length, or a name repeats.
    """
    global _tools
    if _tools is not None:
        return _tools
    collected: list[Any] = []
    for name, count in DOMAINS:
        module = importlib.import_module(f"{__name__}.{name}")
        domain_tools = list(module.TOOLS)
        if len(domain_tools) != count:
            raise RuntimeError(
                f"tools/{name}.py registers {len(domain_tools)} tools; erp-tools.md §7.0 lists {count}"
            )
        collected.extend(domain_tools)
    names = [t.name for t in collected]
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise RuntimeError(f"tool names registered twice: {repeated}")
    if len(collected) != TOOL_COUNT:
        raise RuntimeError(f"{len(collected)} tools registered; the ERP world has {TOOL_COUNT}")
    _tools = collected
    return collected


def __getattr__(name: str) -> Any:
    if name == "tools":
        return load_tools()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
