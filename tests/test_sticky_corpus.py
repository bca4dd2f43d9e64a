"""Corpus options are sticky like the chunker's, and a label change re-labels without re-parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.corpora import write_corpus
from support.pipeline import parser_spy
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.index import load_manifest

runner = CliRunner()

UNLABELLED = {
    "a.md": "# Sprinklers\n\nOscillating sprinklers carry an 18 month warranty.\n",
    "b.md": "# Mowers\n\nLawn mowers carry a two year warranty.\n",
    "drafts/c.md": "# Draft\n\nA draft about hoses.\n",
}


def ingest(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["ingest", *args, "-q", "--json", "--workers", "1"])


def accesses(index: Path) -> dict[str, str]:
    return {e.source: e.access for e in load_manifest(index).documents}


def test_a_plain_ingest_keeps_the_corpus_options_and_says_so(tmp_path: Path) -> None:
    corpus, index = str(write_corpus(tmp_path / "c", UNLABELLED)), tmp_path / "i"
    first = ingest(
        corpus, "--index", str(index), "--default-access", "public", "--exclude", "drafts/**"
    )
    assert first.exit_code == 0, first.output
    assert load_manifest(index).corpus == {"default_access": "public", "exclude": ["drafts/**"]}
    plain = ingest(corpus, "--index", str(index))
    assert plain.exit_code == 0, plain.output
    assert json.loads(plain.stdout)["written"] is False
    assert accesses(index) == {"a.md": "public", "b.md": "public"}
    assert "kept from the index: default access public; exclude drafts/**" in plain.stderr
    changed = ingest(corpus, "--index", str(index), "--exclude", "")
    assert "settings changed: exclude drafts/** -> none" in changed.stderr
    assert "default access public" in changed.stderr  # still kept, and said
    assert sorted(accesses(index)) == ["a.md", "b.md", "drafts/c.md"]
    assert load_manifest(index).corpus == {"default_access": "public"}


def test_a_changed_size_limit_is_recorded_even_when_no_document_changes(tmp_path: Path) -> None:
    corpus, index = str(write_corpus(tmp_path / "c", UNLABELLED)), tmp_path / "i"
    ingest(corpus, "--index", str(index), "--default-access", "public")
    again = ingest(corpus, "--index", str(index), "--max-file-size", "5")
    assert "settings changed: max file size 256 MiB -> 5 MiB" in again.stderr, again.stderr
    assert load_manifest(index).corpus["max_file_size"] == 5 * 1024 * 1024


def test_a_catalog_label_change_relabels_without_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {**UNLABELLED, "catalog.toml": '[defaults]\naccess = "public"\n'}
    corpus, index = write_corpus(tmp_path / "c", files), tmp_path / "i"
    spy = parser_spy(monkeypatch)
    assert ingest(str(corpus), "--index", str(index)).exit_code == 0
    assert len(spy.take()) == 3
    (corpus / "catalog.toml").write_text(
        '[defaults]\naccess = "public"\n["b.md"]\naccess = "staff"\n', encoding="utf-8"
    )
    again = ingest(str(corpus), "--index", str(index))
    assert again.exit_code == 0, again.output
    assert accesses(index)["b.md"] == "staff"
    assert spy.take() == []


def test_the_rebuilt_row_is_a_phrase_not_a_dict(tmp_path: Path) -> None:
    corpus, index = str(write_corpus(tmp_path / "c", UNLABELLED)), str(tmp_path / "i")
    ingest(corpus, "--index", index, "--default-access", "public")
    again = runner.invoke(app, ["ingest", corpus, "--index", index, "--bm25", "okapi", "-q"])
    row = next(line for line in again.stdout.splitlines() if "rebuilt" in line)
    assert "{" not in row and "lucene" in row and "okapi" in row
