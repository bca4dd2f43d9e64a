"""Every chunker on the whole bundled corpus, and the textbook lesson on its warranty policy."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.chunk_checks import check_caps, check_coverage, check_records, check_sections

from policy_assistant.chunk import CHUNKERS, Chunker, chunk_documents, make_chunker, quality
from policy_assistant.parse import parse_path
from policy_assistant.records import Chunk, Document

WARRANTY = "policies/warranty-policy.pdf"
TABLE_HEADING = "2. Warranty periods by category"
SETTINGS: dict[str, dict[str, int]] = {
    "fixed": {},
    "overlapping": {},
    "structure": {},
    "sentence": {"overlap_sentences": 1},
}


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> list[Document]:
    result = parse_path(corpus_dir)
    assert not result.failures
    assert len(result.documents) >= 10
    return result.documents


@pytest.fixture(scope="module")
def warranty(corpus: list[Document]) -> Document:
    return next(d for d in corpus if d.source == WARRANTY)


def warranty_table(doc: Document) -> tuple[int, int]:
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert len(tables) == 1 and len(tables[0].text.splitlines()) == 13  # header and 12 rows
    return tables[0].start, tables[0].end


def holders(chunks: list[Chunk], span: tuple[int, int]) -> list[Chunk]:
    return [c for c in chunks if c.start < span[1] and c.end > span[0]]


@pytest.mark.parametrize("name", list(CHUNKERS))
def test_every_chunker_holds_the_invariants_on_the_corpus(
    corpus: list[Document], name: str
) -> None:
    chunker: Chunker = make_chunker(name, **SETTINGS[name])
    chunks = chunk_documents(corpus, chunker)
    by_source: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_source.setdefault(chunk.source, []).append(chunk)
    assert set(by_source) == {d.source for d in corpus}
    for doc in corpus:
        own = by_source[doc.source]
        check_records(doc, chunker, own)
        check_coverage(doc, own)
        check_caps(doc, chunker, own)
        check_sections(doc, chunker, own)
    assert len({c.id for c in chunks}) == len(chunks)
    again = chunk_documents(corpus, make_chunker(name, **SETTINGS[name]))
    assert [c.id for c in again] == [c.id for c in chunks]


def test_fixed_windows_cut_the_warranty_table_and_start_inside_rows(warranty: Document) -> None:
    chunks = make_chunker("fixed", size=100).chunk(warranty)
    table = warranty_table(warranty)
    assert len(holders(chunks, table)) >= 2
    readout = quality(warranty, chunks)
    assert readout.tables_cut == 1
    assert readout.starts_in_table_row >= 1


def test_overlapping_windows_give_more_chunks_that_overlap(warranty: Document) -> None:
    fixed = make_chunker("fixed", size=100).chunk(warranty)
    overlapping = make_chunker("overlapping", size=100, overlap=25).chunk(warranty)
    assert len(overlapping) > len(fixed)
    assert overlapping[1].start < fixed[0].end


@pytest.mark.parametrize("cap", [100, 200, 400])
def test_structure_keeps_the_warranty_table_whole_under_title_and_heading(
    warranty: Document, cap: int
) -> None:
    chunks = make_chunker("structure", max_words=cap).chunk(warranty)
    table = warranty_table(warranty)
    (chunk,) = holders(chunks, table)
    assert chunk.start <= table[0] and table[1] <= chunk.end
    assert chunk.text.startswith(f"{warranty.title}\n")
    header = warranty.text[table[0] : warranty.text.index("\n", table[0])]
    assert chunk.text.index(TABLE_HEADING) < chunk.text.index(header)
    assert quality(warranty, chunks).tables_cut == 0


def test_chunks_of_either_pressure_washer_guide_say_which_model(corpus: list[Document]) -> None:
    guides = [d for d in corpus if "pressure-washer" in d.source]
    assert len(guides) == 2
    for name in ("structure", "sentence"):
        for guide in guides:
            model = "PW-2200" if "2200" in guide.source else "PW-3100"
            chunks = make_chunker(name, max_words=100).chunk(guide)
            assert chunks and all(model in c.text[: c.prefix_length + 80] for c in chunks)
