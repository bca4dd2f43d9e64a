"""The sentence chunker: whole sentences, packed, within sections, with sentence overlap."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.chunk_strategies import documents, warranty_like_document

from policy_assistant.chunk import make_chunker
from policy_assistant.chunk.base import section_runs
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Chunk, Document, DocumentMeta
from policy_assistant.sentences import unit_spans
from policy_assistant.text import count_words


def units(doc: Document) -> list[tuple[int, int]]:
    return [span for block in doc.blocks for span in unit_spans(doc.text, block)]


def section_of(doc: Document, offset: int) -> int:
    runs = section_runs(doc.blocks)
    return next(i for i, r in enumerate(runs) if doc.blocks[r[-1]].end >= offset)


def sentences_in(doc: Document, chunk: Chunk) -> list[tuple[int, int]]:
    return [(s, e) for s, e in units(doc) if chunk.start <= s and e <= chunk.end]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents(), cap=st.integers(40, 150))
def test_chunks_hold_whole_sentences_packed_up_to_the_cap(doc: Document, cap: int) -> None:
    spans = units(doc)
    # A sentence longer than the room a prefix leaves is split between words.
    assume(all(count_words(doc.text[s:e]) <= cap // 2 for s, e in spans))
    chunks = make_chunker("sentence", max_words=cap).chunk(doc)
    starts, ends = {s for s, _ in spans}, {e for _, e in spans}
    for chunk in chunks:
        assert chunk.start in starts and chunk.end in ends
        assert chunk.words <= cap
    for chunk, following in itertools.pairwise(chunks):
        if section_of(doc, chunk.start) == section_of(doc, following.start):
            first_next = sentences_in(doc, following)[0]
            assert chunk.words + count_words(doc.text[first_next[0] : first_next[1]]) > cap


def paragraphs_document(sentences_per_paragraph: int, paragraphs: int) -> Document:
    b = DocumentBuilder()
    b.heading("Guide", 1)
    n = 0
    for _ in range(paragraphs):
        text = []
        for _ in range(sentences_per_paragraph):
            text.append(f"Sentence {n} has exactly six words.")
            n += 1
        b.add("paragraph", " ".join(text))
    b.heading("Other", 2)
    b.add("paragraph", "A second section.")
    return b.build("g.md", "0" * 64, DocumentMeta(), "g")


def test_overlap_repeats_the_last_sentences_of_the_previous_chunk() -> None:
    doc = paragraphs_document(5, 4)
    chunks = make_chunker("sentence", max_words=40, overlap_sentences=2).chunk(doc)
    in_first_section = [c for c in chunks if c.sections[0] == ("Guide",)]
    assert len(in_first_section) > 2
    for chunk, following in itertools.pairwise(in_first_section):
        assert sentences_in(doc, following)[:2] == sentences_in(doc, chunk)[-2:]
    # No overlap across the section boundary.
    assert chunks[-1].text.endswith("Other\n\nA second section.")
    assert chunks[-1].start == doc.blocks[-2].start


def test_without_overlap_chunks_do_not_share_text() -> None:
    doc = paragraphs_document(5, 4)
    chunks = make_chunker("sentence", max_words=40).chunk(doc)
    for chunk, following in itertools.pairwise(chunks):
        assert chunk.end < following.start


def test_sentence_chunks_cut_tables_between_rows_only() -> None:
    doc = warranty_like_document()
    chunks = make_chunker("sentence", max_words=60).chunk(doc)
    table = next(b for b in doc.blocks if b.kind == "table")
    inside = [c for c in chunks if table.start < c.start < table.end]
    assert inside
    assert all(doc.text[c.start - 1] == "\n" for c in inside)
    assert all(
        c.text.startswith("Warranty Policy\n2. Warranty periods by category\n\n") for c in inside
    )


def test_an_overlap_that_leaves_no_room_is_trimmed_so_every_chunk_moves_on() -> None:
    doc = paragraphs_document(6, 1)
    chunks = make_chunker("sentence", max_words=8, overlap_sentences=3).chunk(doc)
    assert all(c.words <= 8 for c in chunks)
    assert [c.start for c in chunks] == sorted({c.start for c in chunks})
