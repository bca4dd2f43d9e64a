"""The file table: unchanged files known by their stat, neither read nor parsed, same bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from spies import SourceSpy
from test_pipeline import parser_spy, tree_digest, write_corpus

from policy_assistant.chunk import make_chunker
from policy_assistant.index import open_index
from policy_assistant.index.folder import live_generation
from policy_assistant.index.unit_store import stored_documents
from policy_assistant.parse import CorpusOptions, read_corpus, reading
from policy_assistant.parse import file_table as table_module
from policy_assistant.pipeline import ingest

STRUCTURE = make_chunker("structure")


def same_as_cold(index: Path, corpus: Path, scratch: Path) -> bool:
    """Whether the index holds what a cold ingest of the corpus (another cache) holds: the
    same chunks, the same stored documents and the same contexts (segments differ: a change
    adds one)."""
    cold = scratch / "cold"
    ingest(corpus, cold, STRUCTURE, options=CorpusOptions(cache_dir=scratch / "other"))
    chunks, units = [], []
    for folder in (index, cold):
        with open_index(folder) as opened:
            chunks.append([c.to_dict() for c in sorted(opened.chunks(), key=lambda c: c.id)])
            contexts = [opened.context(q, 60, "staff") for q in ("mower warranty", "refund")]
        units.append((stored_documents(live_generation(folder) / "units"), contexts))
    return bool(chunks[0]) and chunks[0] == chunks[1] and units[0] == units[1]


def read_spy(monkeypatch: pytest.MonkeyPatch) -> SourceSpy:
    """Record every source whose bytes the reader reads."""
    return SourceSpy(monkeypatch, reading, "read_regular")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> SourceSpy:
    # Files written by a test are younger than any real corpus: trust every stat at once.
    monkeypatch.setattr(table_module, "RACY_NS", -(10**12))
    return read_spy(monkeypatch)


def test_a_no_op_ingest_reads_no_file_and_writes_nothing(
    tmp_path: Path, reads: SourceSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, index = write_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    assert reads.take() == ["a.md", "b.md", "staff/c.md"]
    before = tree_digest(index)
    spy = parser_spy(monkeypatch)
    summary = ingest(corpus, index, STRUCTURE)
    assert reads.take() == [] and spy.sources == []
    assert summary.unchanged == ["a.md", "b.md", "staff/c.md"] and not summary.written
    assert tree_digest(index) == before


def test_one_changed_file_is_the_only_one_read_and_the_index_equals_a_cold_build(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, index = write_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    (corpus / "b.md").write_text("# Mowers\n\nRide-on mowers carry a three year warranty.\n")
    reads.take()
    summary = ingest(corpus, index, STRUCTURE)
    assert reads.take() == ["b.md"] and summary.changed == ["b.md"]
    assert same_as_cold(index, corpus, tmp_path)  # units of the kept files included


def test_same_size_and_mtime_but_new_bytes_is_caught_by_ctime(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, index = write_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    path = corpus / "a.md"
    old = path.stat()
    path.write_text(path.read_text().replace("18 month", "24 month"))
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))  # the content's clock put back
    assert path.stat().st_size == old.st_size and path.stat().st_mtime_ns == old.st_mtime_ns
    reads.take()
    summary = ingest(corpus, index, STRUCTURE)
    assert reads.take() == ["a.md"] and summary.changed == ["a.md"]


def test_a_young_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, options = write_corpus(tmp_path / "c"), CorpusOptions(cache_dir=tmp_path / "cache")
    read_corpus(corpus, options)
    spy = read_spy(monkeypatch)  # RACY_NS as shipped: files written just now are too young
    read_corpus(corpus, options)
    assert spy.take() == ["a.md", "b.md", "staff/c.md"]


def test_a_damaged_table_reads_every_file_and_is_written_again(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, options = write_corpus(tmp_path / "c"), CorpusOptions(cache_dir=tmp_path / "cache")
    read_corpus(corpus, options)
    (table,) = (tmp_path / "cache" / "files").iterdir()
    table.write_bytes(b"\x00not a table")
    reads.take()
    again = read_corpus(corpus, options)
    assert reads.take() == ["a.md", "b.md", "staff/c.md"] and len(again.documents) == 3
    read_corpus(corpus, options)
    assert reads.take() == []


def test_a_catalog_change_makes_its_file_parsed_again_not_kept(
    tmp_path: Path, reads: SourceSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, index = write_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    catalog = corpus / "catalog.toml"
    catalog.write_text(
        catalog.read_text().replace(
            '["b.md"]\naccess = "public"\nversion = "1"',
            '["b.md"]\naccess = "public"\nversion = "2"',
        )
    )
    spy = parser_spy(monkeypatch)
    summary = ingest(corpus, index, STRUCTURE)
    assert spy.sources == ["b.md"] and summary.changed == ["b.md"]
    assert summary.unchanged == ["a.md", "staff/c.md"]


def test_a_removed_file_leaves_the_table(tmp_path: Path, reads: SourceSpy) -> None:
    corpus, index = write_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    (corpus / "a.md").unlink()
    summary = ingest(corpus, index, STRUCTURE)
    assert summary.removed == ["a.md"]
    assert same_as_cold(index, corpus, tmp_path)
    (corpus / "a.md").write_text("# Sprinklers\n\nBack again.\n")
    reads.take()
    ingest(corpus, index, STRUCTURE)
    assert reads.take() == ["a.md"]


def test_units_asked_for_after_an_index_without_them_equal_a_cold_build(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, index = write_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE, units=False)
    summary = ingest(corpus, index, STRUCTURE)
    assert summary.rebuilt == "retrieval units asked for"
    assert same_as_cold(index, corpus, tmp_path)


def test_damaged_units_are_rebuilt_from_the_corpus_on_the_next_change(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, index = write_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    segment = next((live_generation(index) / "units").glob("useg-*"))
    (segment / "blocks.jsonl").write_bytes(b"{broken\n")
    (corpus / "b.md").write_text("# Mowers\n\nRide-on mowers carry a three year warranty.\n")
    ingest(corpus, index, STRUCTURE)
    assert same_as_cold(index, corpus, tmp_path)
