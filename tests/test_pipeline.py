from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from support.pipeline import STRUCTURE, parser_spy, tree_digest
from support.spies import SourceSpy

from policy_assistant.chunk import make_chunker
from policy_assistant.errors import BadIndex, DocumentError
from policy_assistant.index import BM25Settings, load_manifest, open_index
from policy_assistant.index.settings import UNIT_SETTINGS
from policy_assistant.ingest.pipeline import ingest


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> SourceSpy:
    return parser_spy(monkeypatch)


def test_first_ingest_indexes_every_document(tmp_path: Path, spy: SourceSpy) -> None:
    summary = ingest(write_pipeline_corpus(tmp_path / "c"), tmp_path / "i", STRUCTURE)
    assert summary.added == ["a.md", "b.md", "staff/c.md"]
    assert summary.written
    assert spy.sources == ["a.md", "b.md", "staff/c.md"]
    with open_index(tmp_path / "i") as index:
        assert {c.source for c in index.chunks()} == {"a.md", "b.md", "staff/c.md"}


def test_unchanged_corpus_parses_nothing_and_writes_the_same_bytes(
    tmp_path: Path, spy: SourceSpy
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    before = tree_digest(tmp_path / "i")
    spy.sources.clear()
    summary = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert spy.sources == []
    assert summary.unchanged == ["a.md", "b.md", "staff/c.md"]
    assert not summary.written
    assert tree_digest(tmp_path / "i") == before


def test_a_fresh_build_of_the_same_corpus_gives_identical_bytes(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "one", STRUCTURE)
    ingest(corpus, tmp_path / "two", STRUCTURE)
    assert tree_digest(tmp_path / "one") == tree_digest(tmp_path / "two")


@pytest.mark.slow
def test_only_the_changed_document_is_parsed_again(tmp_path: Path, spy: SourceSpy) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    (corpus / "b.md").write_text("# Mowers\n\nLawn mowers now carry a three year warranty.\n")
    spy.sources.clear()
    summary = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert spy.sources == ["b.md"]
    assert (summary.changed, summary.unchanged) == (["b.md"], ["a.md", "staff/c.md"])
    with open_index(tmp_path / "i") as index:
        assert "three year" in index.search("mower warranty", 1, "public")[0].chunk.text


def test_removed_document_is_dropped(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    (corpus / "a.md").unlink()
    summary = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert summary.removed == ["a.md"]
    assert [d.source for d in load_manifest(tmp_path / "i").documents] == ["b.md", "staff/c.md"]


@pytest.mark.slow
def test_a_catalog_change_re_chunks_with_the_new_label(tmp_path: Path, spy: SourceSpy) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    catalog = (corpus / "catalog.toml").read_text()
    (corpus / "catalog.toml").write_text(
        catalog.replace('["a.md"]\naccess = "public"', '["a.md"]\naccess = "staff"')
    )
    spy.sources.clear()
    summary = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert spy.sources == []  # a label is no parse input: the cached parse is relabelled
    assert summary.changed == ["a.md"]
    with open_index(tmp_path / "i") as index:
        hits = index.search("oscillating sprinklers", 5, "public")
        assert all(hit.chunk.source != "a.md" for hit in hits)


def test_new_chunker_settings_rebuild_everything_and_say_why(
    tmp_path: Path, spy: SourceSpy
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    spy.sources.clear()
    summary = ingest(corpus, tmp_path / "i", make_chunker("fixed", size=50))
    assert spy.sources == []  # the parse cache serves the unchanged files: only chunking is redone
    assert summary.rebuilt is not None
    assert "chunker settings changed" in summary.rebuilt
    assert summary.changed == ["a.md", "b.md", "staff/c.md"]
    assert load_manifest(tmp_path / "i").chunker == {"name": "fixed", "size": 50}


def test_a_bad_file_is_listed_and_the_rest_are_indexed(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    (corpus / "broken.md").write_bytes(b"\xff\xfd")
    summary = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert [str(f) for f in summary.failures] == [
        "broken.md: not UTF-8 text (byte 0xff at offset 0)"
    ]
    assert summary.added == ["a.md", "b.md", "staff/c.md"]


def test_strict_stops_at_the_first_bad_file_and_keeps_the_old_index(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    before = tree_digest(tmp_path / "i")
    (corpus / "a.md").write_text("# Sprinklers\n\nchanged text\n")
    (corpus / "b.md").write_bytes(b"\xff")
    with pytest.raises(DocumentError, match=r"b\.md"):
        ingest(corpus, tmp_path / "i", STRUCTURE, strict=True)
    assert tree_digest(tmp_path / "i") == before


def test_a_damaged_index_is_rebuilt_by_ingest(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    generation = (tmp_path / "i" / "CURRENT").read_text().strip()
    (tmp_path / "i" / generation / "manifest.json").write_text("{not json")
    with pytest.raises(BadIndex, match="run `policy-assistant ingest"):
        open_index(tmp_path / "i")
    summary = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert summary.rebuilt is not None and "unusable" in summary.rebuilt
    assert open_index(tmp_path / "i").search("mowers", 1, "public")


def test_okapi_index_is_reused_when_nothing_changed(tmp_path: Path, spy: SourceSpy) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE, bm25=BM25Settings("okapi"))
    spy.sources.clear()
    summary = ingest(corpus, tmp_path / "i", STRUCTURE, bm25=BM25Settings("okapi"))
    assert (summary.rebuilt, summary.written, spy.sources) == (None, False, [])
    assert load_manifest(tmp_path / "i").bm25.variant == "okapi"
    back = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert back.rebuilt is not None and "BM25 settings changed" in back.rebuilt


def test_an_index_cut_into_other_units_is_rebuilt_and_says_why(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    assert load_manifest(tmp_path / "i").units == UNIT_SETTINGS
    # An index written before units were bounded records no unit settings.
    generation = tmp_path / "i" / (tmp_path / "i" / "CURRENT").read_text().strip()
    data = json.loads((generation / "manifest.json").read_text())
    del data["units"]
    (generation / "manifest.json").write_text(json.dumps(data))
    summary = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert summary.rebuilt is not None and "retrieval unit settings changed" in summary.rebuilt
    assert load_manifest(tmp_path / "i").units == UNIT_SETTINGS
