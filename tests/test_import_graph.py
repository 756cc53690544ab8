"""The shape of silo_gym's imports (issue 23): no circular import, no private name across modules.

The graph is read from the source with :mod:`ast`, so modules that need an uninstalled extra are
checked too. An edge ``a -> b`` means module ``a`` imports from module ``b``; importing
``silo_gym.x.y`` also runs the package ``silo_gym.x``, so that package is an edge as well (except
the importer's own packages, which are already being imported when it runs).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import silo_gym

PACKAGE = Path(silo_gym.__file__).parent


def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package ``__init__``)."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["silo_gym", *path.relative_to(PACKAGE).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = (path, is_package)
    return found


MODULES = _modules()


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module name ``node`` imports from (``from ..x import y`` in ``module``)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _top_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported: module body, ``if``/``try`` blocks, but not
    ``if TYPE_CHECKING:`` blocks and not function bodies."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The silo_gym modules an import statement runs."""
    names: set[str] = set()
    if isinstance(node, ast.Import):
        names = {alias.name for alias in node.names}
    else:
        source = _absolute(module, is_package, node)
        for alias in node.names:
            sub = f"{source}.{alias.name}"
            names.add(sub if sub in MODULES else source)
    own_packages = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)}
    targets: set[str] = set()
    for name in names:
        if not name.startswith("silo_gym"):
            continue
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in MODULES and (prefix == name or prefix not in own_packages):
                targets.add(prefix)
    targets.discard(module)
    return targets


def _graph(*, deferred: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes: list[ast.Import | ast.ImportFrom] = _top_level_imports(tree)
        if deferred:
            typing_only = _type_checking_imports(tree)
            nodes = [
                n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in typing_only
            ]
        graph[module] = set().union(*(_targets(module, is_package, n) for n in nodes)) if nodes else set()
    return graph


def _type_checking_imports(tree: ast.Module) -> set[int]:
    """The ``id`` of every import under an ``if TYPE_CHECKING:`` (never run)."""
    found: set[int] = set()
    for parent in ast.walk(tree):
        if isinstance(parent, ast.If) and "TYPE_CHECKING" in ast.unparse(parent.test):
            for stmt in parent.body:
                found.update(id(n) for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    # A finder that never reports anything would make the tests below pass vacuously.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_the_real_imports() -> None:
    graph = _graph(deferred=False)
    assert "silo_gym.errors" in graph["silo_gym.data.episodes"]
    assert "silo_gym.data.episodes" in graph["silo_gym.data.local_backend"]
    assert "silo_gym.data.episodes" in graph["silo_gym.data.collect"]
    # A deferred import (inside a function) is an edge of the full graph only.
    assert "silo_gym.data.local_backend" not in graph["silo_gym.data.collect"]
    assert "silo_gym.data.local_backend" in _graph(deferred=True)["silo_gym.data.collect"]


@pytest.mark.parametrize("deferred", [False, True], ids=["top-level", "with-deferred"])
def test_no_circular_import_in_silo_gym(deferred: bool) -> None:
    # Top-level cycles break imports outright; deferred ones (imports inside functions) are a
    # circle of concepts all the same (data.collect <-> local_backend <-> ray_backend was one).
    assert _cycles(_graph(deferred=deferred)) == []


def test_no_private_name_is_imported_across_modules() -> None:
    crossing: list[str] = []
    for module, (path, is_package) in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _absolute(module, is_package, node)
            if not source.startswith("silo_gym"):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    crossing.append(f"{module}: from {source} import {alias.name}")
    assert crossing == []


def test_names_moved_to_episodes_still_import_from_collect() -> None:
    # ``silo_gym.data.collect`` the attribute is the function; the module is in sys.modules.
    collect_module = importlib.import_module("silo_gym.data.collect")
    episodes = importlib.import_module("silo_gym.data.episodes")

    for name in episodes.__all__:
        assert getattr(collect_module, name) is getattr(episodes, name)
