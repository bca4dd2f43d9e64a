"""The file table: unchanged files known by their stat, neither read nor parsed, same bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.corpora import write_pipeline_corpus
from support.pipeline import parser_spy, tree_digest
from support.spies import SourceSpy

from policy_assistant.chunk import make_chunker
from policy_assistant.index import open_index
from policy_assistant.index.store.folder import live_generation
from policy_assistant.index.store.units import stored_documents
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import CorpusOptions, read_corpus, reading
from policy_assistant.parse import cache as cache_module
from policy_assistant.parse import file_table as table_module
from policy_assistant.parse.pdf import ocr as pdf_ocr
from policy_assistant.parse.read_records import Reused

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
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    assert reads.take() == ["a.md", "b.md", "staff/c.md"]
    before = tree_digest(index)
    spy = parser_spy(monkeypatch)
    summary = ingest(corpus, index, STRUCTURE)
    assert reads.take() == [] and spy.sources == []
    assert summary.unchanged == ["a.md", "b.md", "staff/c.md"] and not summary.written
    assert tree_digest(index) == before


@pytest.mark.slow
def test_one_changed_file_is_the_only_one_read_and_the_index_equals_a_cold_build(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    (corpus / "b.md").write_text("# Mowers\n\nRide-on mowers carry a three year warranty.\n")
    reads.take()
    summary = ingest(corpus, index, STRUCTURE)
    assert reads.take() == ["b.md"] and summary.changed == ["b.md"]
    assert same_as_cold(index, corpus, tmp_path)  # units of the kept files included


def test_same_size_and_mtime_but_new_bytes_is_caught_by_ctime(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
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
    corpus, options = (
        write_pipeline_corpus(tmp_path / "c"),
        CorpusOptions(cache_dir=tmp_path / "cache"),
    )
    read_corpus(corpus, options)
    spy = read_spy(monkeypatch)  # RACY_NS as shipped: files written just now are too young
    read_corpus(corpus, options)
    assert spy.take() == ["a.md", "b.md", "staff/c.md"]


def test_a_damaged_table_reads_every_file_and_is_written_again(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, options = (
        write_pipeline_corpus(tmp_path / "c"),
        CorpusOptions(cache_dir=tmp_path / "cache"),
    )
    read_corpus(corpus, options)
    (table,) = (tmp_path / "cache" / "files").iterdir()
    table.write_bytes(b"\x00not a table")
    reads.take()
    again = read_corpus(corpus, options)
    assert reads.take() == ["a.md", "b.md", "staff/c.md"] and len(again.documents) == 3
    read_corpus(corpus, options)
    assert reads.take() == []


@pytest.mark.slow
def test_a_catalog_change_makes_its_file_parsed_again_not_kept(
    tmp_path: Path, reads: SourceSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
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


@pytest.mark.slow
def test_a_removed_file_leaves_the_table(tmp_path: Path, reads: SourceSpy) -> None:
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
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
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE, units=False)
    summary = ingest(corpus, index, STRUCTURE)
    assert summary.rebuilt == "retrieval units asked for"
    assert same_as_cold(index, corpus, tmp_path)


@pytest.mark.slow
def test_damaged_units_are_rebuilt_from_the_corpus_on_the_next_change(
    tmp_path: Path, reads: SourceSpy
) -> None:
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index, STRUCTURE)
    segment = next((live_generation(index) / "units").glob("useg-*"))
    (segment / "blocks.jsonl").write_bytes(b"{broken\n")
    (corpus / "b.md").write_text("# Mowers\n\nRide-on mowers carry a three year warranty.\n")
    ingest(corpus, index, STRUCTURE)
    assert same_as_cold(index, corpus, tmp_path)


def many_files(corpus: Path, count: int, word: str) -> None:
    """Write count labelled Markdown files, each naming its number and word."""
    for i in range(count):
        path = corpus / f"d{i:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\naccess: public\n---\n# Doc {i}\n\nItem {i} is {word}.\n")


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_files_kept_by_stat_among_pooled_parses_keep_source_order(
    tmp_path: Path, reads: SourceSpy, workers: int
) -> None:
    corpus, index = tmp_path / "c", tmp_path / "i"
    many_files(corpus, 90, "blue")
    options = CorpusOptions(cache_dir=tmp_path / "cache", workers=workers)
    ingest(corpus, index, STRUCTURE, options=options)
    for i in range(0, 90, 2):  # 45 changed files: enough for the pool, kept ones between them
        (corpus / f"d{i:03d}.md").write_text(f"---\naccess: public\n---\n# Doc {i}\n\nred {i}.\n")
    reads.take()
    summary = ingest(corpus, index, STRUCTURE, options=options)
    changed = [f"d{i:03d}.md" for i in range(0, 90, 2)]
    assert reads.take() == changed and summary.changed == changed
    assert summary.unchanged == [f"d{i:03d}.md" for i in range(1, 90, 2)]
    assert same_as_cold(index, corpus, tmp_path)


def test_a_pooled_read_lists_kept_files_in_source_order(tmp_path: Path, reads: SourceSpy) -> None:
    corpus = tmp_path / "c"
    many_files(corpus, 90, "blue")
    for i in range(1, 90, 6):  # unlabelled: kept with a warning, on the full path
        (corpus / f"d{i:03d}.md").write_text(f"# Doc {i}\n\nItem {i} is blue.\n")
    options = CorpusOptions(cache_dir=tmp_path / "cache", workers=2)
    read_corpus(corpus, options)
    for i in range(0, 90, 2):
        (corpus / f"d{i:03d}.md").write_text(f"---\naccess: public\n---\n# Doc {i}\n\nred {i}.\n")
    again = read_corpus(corpus, options, reuse=lambda file: Reused(False))
    assert [f.source for f in again.reused] == [f"d{i:03d}.md" for i in range(1, 90, 2)]
    assert [d.source for d in again.documents] == [f"d{i:03d}.md" for i in range(0, 90, 2)]


def test_the_table_stores_every_kind_of_row_and_reads_it_back(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    infos = {name: os.stat(corpus / name) for name in ("a.md", "b.md", "staff/c.md")}
    meta = table_module.DocMeta("Sprinklers", "1", "public", "en", True, False)
    table = table_module.FileTable(tmp_path / "cache", corpus, "parser 1")
    table.young = 10**30  # every stat old enough to trust
    table.note("a.md", infos["a.md"], "a" * 64, {"access": "public"}, meta)
    table.note("b.md", infos["b.md"], "b" * 64)  # bytes known, no parse recorded
    table.young = -1  # this one too young: its stat is not kept
    table.note("staff/c.md", infos["staff/c.md"], "c" * 64, {}, meta)
    table.save(whole=True)
    again = table_module.FileTable(tmp_path / "cache", corpus, "parser 1")
    assert again.known("a.md", infos["a.md"], {"access": "public"}) == ("a" * 64, meta)
    assert again.known("a.md", infos["a.md"], {}) == ("a" * 64, None)  # other fields
    assert again.known("b.md", infos["b.md"], {}) == ("b" * 64, None)
    assert again.known("staff/c.md", infos["staff/c.md"], {}) is None  # its stat was young
    assert again.meta_of("staff/c.md", "c" * 64, {}) == meta
    other = table_module.FileTable(tmp_path / "cache", corpus, "parser 2")
    assert other.meta_of("staff/c.md", "c" * 64, {}) is None  # another parser's parse


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data.update(sha256=data["sha256"][:-1]),
        lambda data: data.update(stats=data["stats"] + [1]),
        lambda data: data.pop("titles"),
        lambda data: data.update(version=1),
    ],
)
def test_a_table_whose_columns_disagree_reads_as_empty(tmp_path: Path, damage: Any) -> None:
    corpus, options = (
        write_pipeline_corpus(tmp_path / "c"),
        CorpusOptions(cache_dir=tmp_path / "cache"),
    )
    read_corpus(corpus, options)
    (path,) = (tmp_path / "cache" / "files").iterdir()
    data = json.loads(path.read_text())
    assert len(data["sources"]) == 3
    damage(data)
    path.write_text(json.dumps(data))
    table = table_module.FileTable(tmp_path / "cache", corpus, data["parser"])
    assert "a.md" not in table and not table.meta_valid


def test_rows_kept_from_the_loaded_table_are_written_back_as_they_were(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    infos = {name: os.stat(corpus / name) for name in ("a.md", "b.md", "staff/c.md")}
    meta = table_module.DocMeta("Sprinklers", "1", "public", "en", True, False)
    table = table_module.FileTable(tmp_path / "cache", corpus, "parser 1")
    table.young = 10**30
    table.note("a.md", infos["a.md"], "a" * 64, {"access": "public"}, meta)
    table.note("b.md", infos["b.md"], "b" * 64)
    table.save(whole=True)
    loaded = table_module.FileTable(tmp_path / "cache", corpus, "parser 1")
    rows = [loaded.columns.row(n) for n in range(2)]
    loaded.keep("a.md")
    loaded.keep("b.md")
    loaded.young = 10**30
    other = table_module.DocMeta("Till codes", "2", "staff", "de", True, True)
    loaded.note("staff/c.md", infos["staff/c.md"], "c" * 64, {"access": "staff"}, other)
    loaded.save(whole=True)
    again = table_module.FileTable(tmp_path / "cache", corpus, "parser 1")
    assert again.columns.sources == ["a.md", "b.md", "staff/c.md"]
    assert [again.columns.row(n) for n in range(2)] == rows
    assert again.known("staff/c.md", infos["staff/c.md"], {"access": "staff"}) == ("c" * 64, other)
    assert again.known("a.md", infos["a.md"], {"access": "public"}) == ("a" * 64, meta)


def test_installing_tesseract_keeps_every_recorded_parse_but_a_pdfs(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    (corpus / "scan.pdf").write_bytes(b"%PDF-1.4 stand-in: only its row is tested")
    infos = {name: os.stat(corpus / name) for name in ("a.md", "scan.pdf")}
    meta = table_module.DocMeta("Sprinklers", "1", "public", "en", True, False)
    table = table_module.FileTable(tmp_path / "cache", corpus, "parser 1", "absent")
    table.young = 10**30
    table.note("a.md", infos["a.md"], "a" * 64, {}, meta)
    table.note("scan.pdf", infos["scan.pdf"], "p" * 64, {}, meta)
    table.save(whole=True)
    same = table_module.FileTable(tmp_path / "cache", corpus, "parser 1", "absent")
    assert same.known("scan.pdf", infos["scan.pdf"], {}) == ("p" * 64, meta)
    now = table_module.FileTable(tmp_path / "cache", corpus, "parser 1", "on")
    assert now.known("a.md", infos["a.md"], {}) == ("a" * 64, meta)
    assert now.known("scan.pdf", infos["scan.pdf"], {}) == ("p" * 64, None)  # parse again
    now.young = 10**30
    now.note("a.md", infos["a.md"], "a" * 64)  # a read that saw a.md alone
    now.save(whole=False)
    later = table_module.FileTable(tmp_path / "cache", corpus, "parser 1", "on")
    assert later.known("a.md", infos["a.md"], {}) == ("a" * 64, meta)
    # the unseen PDF's parse, made without OCR, is not written under the new state
    assert later.known("scan.pdf", infos["scan.pdf"], {}) == ("p" * 64, None)


def test_a_no_op_ingest_after_tesseract_appears_parses_no_markdown_file(
    tmp_path: Path, reads: SourceSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
    monkeypatch.setattr(pdf_ocr.shutil, "which", lambda name: None)
    ingest(corpus, index, STRUCTURE)
    assert pdf_ocr.ocr_state() == "absent" and reads.take() == ["a.md", "b.md", "staff/c.md"]
    monkeypatch.setattr(pdf_ocr.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert pdf_ocr.ocr_state() == "on"
    spy = parser_spy(monkeypatch)
    summary = ingest(corpus, index, STRUCTURE)
    assert reads.take() == [] and spy.sources == []
    assert summary.unchanged == ["a.md", "b.md", "staff/c.md"] and not summary.written


def test_the_parse_cache_key_of_a_pdf_alone_holds_the_ocr_state() -> None:
    key = cache_module.ParseCache.key
    assert key("a.md", "a" * 64, {}, "absent") == key("a.md", "a" * 64, {}, "on")
    assert key("a.pdf", "a" * 64, {}, "absent") != key("a.pdf", "a" * 64, {}, "on")
