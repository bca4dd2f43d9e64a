"""watchdog is the `watch` extra: only `ingest --watch` needs it, and without it says so."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from support.cli import APP, runner
from support.corpora import write_pipeline_corpus

import policy_assistant

PACKAGE = Path(policy_assistant.__file__).resolve().parent


def test_only_the_watch_loop_imports_watchdog() -> None:
    users = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name.split(".")[0] == "watchdog" for name in names):
                users.add(path.relative_to(PACKAGE).as_posix())
    assert users == {"ingest/events.py"}


def test_watch_without_watchdog_exits_2_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "watchdog", None)  # as if it were not installed
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = tmp_path / "index"
    result = runner.invoke(APP, ["ingest", str(corpus), "--index", str(index), "--watch"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --watch needs watchdog (the watch extra): pip install 'policy-assistant[watch]'"
    ]
    assert not index.exists(), "nothing is ingested before the watch is refused"
