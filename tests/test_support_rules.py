"""Test modules share helpers through tests/support/ only: none imports another test module."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def is_test_module(name: str) -> bool:
    """Whether a dotted module name is a test module: test_x, tests.test_x, tests.browser.test_x."""
    return name.rpartition(".")[2].startswith("test_")


def imported_modules(path: Path) -> list[str]:
    """Return every module a file imports, at any depth (relative imports by their dotted tail)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            found.append(base)
            if not base or node.level:  # from . import test_x
                found += [f"{base}.{alias.name}".lstrip(".") for alias in node.names]
    return found


def test_no_test_module_imports_another_test_module() -> None:
    offenders = [
        f"{path.relative_to(TESTS)} imports {name}"
        for path in sorted(TESTS.rglob("*.py"))
        if "fixtures" not in path.relative_to(TESTS).parts
        for name in imported_modules(path)
        if is_test_module(name)
    ]
    assert offenders == []


def test_the_helpers_live_in_support() -> None:
    """Beside the test modules, tests/ holds conftest.py files only; helpers are in support/."""
    strays = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if not {"support", "fixtures", "golden"} & set(path.relative_to(TESTS).parts)
        and not path.name.startswith("test_")
        and path.name != "conftest.py"
    ]
    assert strays == []
    assert (TESTS / "support" / "__init__.py").is_file()


def test_the_rule_sees_every_form_of_import(tmp_path: Path) -> None:
    source = tmp_path / "test_probe.py"
    source.write_text(
        "import test_a\nfrom test_b import x\nfrom tests.test_c import y\nfrom . import test_d\n"
        "def f():\n    from tests.browser.test_e import z\n"
        "from support.cli import APP\nimport pytest\n"
    )
    tested = [name for name in imported_modules(source) if is_test_module(name)]
    assert tested == ["test_a", "test_b", "tests.test_c", "test_d", "tests.browser.test_e"]
