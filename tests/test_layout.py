"""The package's layering: arrows point one way down the pipeline, no cycles, no private reach.

Every import is read from the source (function-level and type-checking imports included), so
a lazy import cannot hide an arrow the wrong way.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "policy_assistant"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "<root>",
            "records",
            "boxes",
            "errors",
            "ids",
            "text",
            "sentences",
            "atomic",
            "collector",
            "jsonio",
            "codec",
        }
    ),
    frozenset({"procs"}),
    frozenset({"parse"}),
    frozenset({"chunk"}),
    frozenset({"embed"}),
    frozenset({"index.base"}),
    frozenset({"index.chunks"}),
    frozenset({"index.context"}),
    frozenset({"index.store"}),
    frozenset({"index"}),
    frozenset({"ingest"}),
    frozenset({"inspect"}),
    frozenset({"evaluate"}),
    frozenset({"cli", "__main__"}),
)
"""Lowest first: a module may import its own layer and those below, never one above."""


def module_name(path: Path) -> str:
    """Return the dotted module name of a file of the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def imports() -> dict[str, set[tuple[str, str]]]:
    """Return, per module, the (module imported, name imported) pairs of our package."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "policy_assistant"
            ):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    target = full if full in modules else str(node.module)
                    found[name].add((target, "" if target == full else alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("policy_assistant"):
                        found[name].add((alias.name, ""))
        found[name].discard((name, ""))
        found.setdefault(name, set())
    return dict(found)


def layer_of(module: str) -> str:
    """Return the layer key of a module."""
    parts = module.split(".")[1:]
    if not parts:
        return "<root>"
    if parts[0] == "index":
        if len(parts) == 1:
            return "index"
        return f"index.{parts[1]}" if parts[1] in ("chunks", "context", "store") else "index.base"
    return parts[0]


def rank(module: str) -> int:
    """Return the position of a module's layer, lowest first."""
    key = layer_of(module)
    return next(i for i, layer in enumerate(LAYERS) if key in layer)


def test_every_module_has_a_layer() -> None:
    for module in imports():
        assert rank(module) >= 0, module


def test_imports_point_down_the_pipeline() -> None:
    upward = [
        f"{module} imports {target}"
        for module, targets in sorted(imports().items())
        for target, _ in sorted(targets)
        if rank(target) > rank(module)
    ]
    assert upward == []


def test_parse_imports_nothing_of_ours_above_records_and_text() -> None:
    allowed = LAYERS[0] | {"procs", "parse"}
    wrong = [
        f"{module} imports {target}"
        for module, targets in sorted(imports().items())
        if layer_of(module) == "parse"
        for target, _ in sorted(targets)
        if layer_of(target) not in allowed
    ]
    assert wrong == []


def test_no_import_cycles() -> None:
    graph = {module: {t for t, _ in targets} for module, targets in imports().items()}
    cycles = strongly_connected(graph)
    assert cycles == []


def test_no_private_name_is_imported_across_modules() -> None:
    reached = [
        f"{module} imports {target}.{name}"
        for module, targets in sorted(imports().items())
        for target, name in sorted(targets)
        if name.startswith("_") and not name.startswith("__")
    ]
    assert reached == []


@pytest.mark.parametrize("package", sorted({module_name(p) for p in PACKAGE.rglob("__init__.py")}))
def test_each_package_says_what_it_owns(package: str) -> None:
    path = PACKAGE.parent.joinpath(*package.split("."), "__init__.py")
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 8 and "TODO" not in doc, package


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the cycles of a graph: its strongly connected components of two or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
