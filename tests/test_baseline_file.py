"""`make baseline` writes the committed questions/baseline.json again, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import APP, runner

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "questions" / "baseline.json"


@pytest.mark.slow
def test_make_baseline_reproduces_the_committed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # as make runs it: the paths the report records are relative to it
    out = tmp_path / "baseline.json"
    cache = tmp_path / "parse-cache"
    # The Makefile's command, with the output and the parse cache moved out of the repository.
    args = ["eval", "--summary", "--out", str(out), "-q", "--parse-cache", str(cache)]
    result = runner.invoke(APP, args)
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == BASELINE.read_bytes(), (
        "questions/baseline.json is not what `make baseline` writes: run it and review the diff"
    )
    gate = runner.invoke(
        APP, ["eval", "-q", "--baseline", str(BASELINE), "--parse-cache", str(cache)]
    )
    assert gate.exit_code == 0, gate.output  # and `make eval` passes on it
