"""`make ingest` installs only what ingest and eval need, saying so; `make test` the extras."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY_EXTRAS = ("peers", "tokens", "dense", "browser")


def planned(target: str) -> list[str]:
    """Return the commands `make` would run for target from scratch (-n: none is run)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_make_ingest_installs_the_package_alone_and_make_test_the_extras() -> None:
    lines = planned("ingest")
    installs = [n for n, line in enumerate(lines) if " install " in line and "pip" in line]
    assert installs, lines
    for n in installs:
        assert "[" not in lines[n], f"make ingest installs extras: {lines[n]}"
        assert "--quiet" not in lines[n].split() and " -q" not in lines[n], lines[n]
        assert lines[n - 1].startswith('echo "== '), "no line says what is being installed"
    # The heavy extras are still there for the tests that cover them.
    tests = [line for line in planned("test") if " install " in line and "pip" in line]
    assert any(all(extra in line for extra in HEAVY_EXTRAS) for line in tests), tests


def test_make_test_fetches_the_model_first_so_no_embedding_test_skips() -> None:
    for target in ("test", "test-all"):
        lines = planned(target)
        fetch = [n for n, line in enumerate(lines) if "scripts/fetch_model.py" in line]
        tests = [n for n, line in enumerate(lines) if "bin/pytest" in line]
        assert fetch and tests and fetch[0] < tests[0], (target, lines)
