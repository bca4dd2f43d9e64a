from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.corpora import write_corpus
from typer.testing import CliRunner

from policy_assistant.cli import app

runner = CliRunner()


FILES = {
    "catalog.toml": '["a.md"]\naccess = "public"\nversion = "1"\n',
    "a.md": "# Alpha\n\nFirst paragraph.\n\n| h1 | h2 |\n|--|--|\n| x | y |\n",
}
"""One catalogued document with a paragraph and a table."""


def test_parse_json_lines_on_stdout(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(app, ["parse", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()
    doc = json.loads(line)
    assert doc["source"] == "a.md"
    assert [b["kind"] for b in doc["blocks"]] == ["heading", "paragraph", "table"]


def test_parse_out_writes_the_file_and_prints_the_summary(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    target = tmp_path / "out" / "docs.jsonl"
    result = runner.invoke(app, ["parse", str(corpus), "--out", str(target)])
    assert result.exit_code == 0, result.output
    assert "1 documents parsed" in result.stdout
    assert json.loads(target.read_text())["title"] == "Alpha"


def test_a_bad_file_exits_1_and_the_rest_are_parsed(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    (corpus / "broken.md").write_bytes(b"\xff")
    result = runner.invoke(app, ["parse", str(corpus), "--json"])
    assert result.exit_code == 1
    assert [json.loads(x)["source"] for x in result.stdout.splitlines()] == ["a.md"]
    assert "error: broken.md: not UTF-8 text" in result.stderr


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["parse", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no such file or folder" in result.stderr


def test_unknown_option_is_a_usage_error() -> None:
    result = runner.invoke(app, ["parse", "--frobnicate"])
    assert result.exit_code == 2


@pytest.mark.slow
def test_installed_entry_point_runs(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    script = Path(sys.executable).parent / "policy-assistant"
    done = subprocess.run(
        [str(script), "parse", str(corpus), "--json"], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["source"] == "a.md"
    module = subprocess.run(
        [sys.executable, "-m", "policy_assistant", "--version"], capture_output=True, check=False
    )
    assert module.stdout.decode().startswith("policy-assistant ")
