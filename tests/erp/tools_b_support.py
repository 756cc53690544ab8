"""A fresh ERP world bound to the tools of some domain modules, for the tools-b tests."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from silo_gym import bind_tools, canonical

from . import submodule

B_DOMAINS = (
    "receiving",
    "vendor_invoices",
    "payments",
    "sales_orders",
    "customer_invoices",
    "expenses",
    "budgets",
    "reporting",
    "audit",
)


class World:
    """A fresh world with the tools of every tools-b domain bound to it."""

    def __init__(self, env: ModuleType) -> None:
        self.state = env.create_state()
        tools: list[Any] = []
        for name in B_DOMAINS:
            tools += submodule(env, f"tools.{name}").TOOLS
        self.tools = {t.name: t for t in bind_tools(self.state, tools)}

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.tools[name].execute(args or {})

    def ok(self, name: str, args: dict[str, Any] | None = None) -> Any:
        result = self.call(name, args)
        assert "isError" not in result, result
        return result["output"]

    def err(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, args)
        assert result.get("isError") is True, result
        return result["output"]  # type: ignore[no-any-return]

    def snapshot(self) -> bytes:
        return canonical(self.state)

    def last_audit(self) -> dict[str, Any]:
        return self.state["auditLog"][-1]  # type: ignore[no-any-return]
