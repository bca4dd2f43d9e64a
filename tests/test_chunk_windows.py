"""The fixed and overlapping windows: counts, positions, and the textbook lesson."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunk_strategies import phrase, warranty_like_document

from policy_assistant.chunk import make_chunker, quality
from policy_assistant.records import Document
from policy_assistant.text import word_spans


def plain_document(text: str) -> Document:
    return Document("plain.md", "Plain", "1", "public", "en", "0" * 64, text)


@st.composite
def sized_windows(draw: st.DrawFn) -> tuple[str, int, int]:
    text = draw(phrase(1, 400))
    size = draw(st.integers(1, 50))
    return text, size, draw(st.integers(0, size - 1))


@settings(max_examples=80, deadline=None)
@given(case=sized_windows())
def test_overlapping_count_and_positions_follow_the_formula(case: tuple[str, int, int]) -> None:
    text, size, overlap = case
    doc = plain_document(text)
    spans = word_spans(text)
    n, step = len(spans), size - overlap
    chunks = make_chunker("overlapping", size=size, overlap=overlap).chunk(doc)
    expected = math.ceil((n - overlap) / (size - overlap)) if n > size else 1
    assert len(chunks) == expected
    for i, chunk in enumerate(chunks):
        first, last = i * step, min(i * step + size, n) - 1
        assert (chunk.start, chunk.end) == (spans[first][0], spans[last][1])
        assert chunk.text == text[chunk.start : chunk.end]
        assert chunk.words == last - first + 1


@settings(max_examples=80, deadline=None)
@given(case=sized_windows())
def test_fixed_windows_follow_one_another(case: tuple[str, int, int]) -> None:
    text, size, _ = case
    spans = word_spans(text)
    chunks = make_chunker("fixed", size=size).chunk(plain_document(text))
    assert len(chunks) == math.ceil(len(spans) / size)
    assert [c.start for c in chunks] == [s for s, _ in spans[::size]]
    assert [c.end for c in chunks] == [e for _, e in spans[size - 1 :: size]] + (
        [spans[-1][1]] if len(spans) % size else []
    )


def test_overlapping_count_on_a_known_document() -> None:
    doc = plain_document(" ".join(f"w{i}" for i in range(1000)))
    chunks = make_chunker("overlapping", size=100, overlap=25).chunk(doc)
    # ceil((1000 - 25) / 75) = 13; the last window holds words 900..999.
    assert len(chunks) == 13
    assert chunks[-1].text.split()[0] == "w900"
    assert chunks[1].text.split()[:2] == ["w75", "w76"]


def table_block(doc: Document) -> tuple[int, int]:
    table = next(b for b in doc.blocks if b.kind == "table")
    return table.start, table.end


def test_fixed_windows_cut_the_warranty_table_and_start_inside_rows() -> None:
    doc = warranty_like_document()
    chunks = make_chunker("fixed", size=100).chunk(doc)
    start, end = table_block(doc)
    holders = [c for c in chunks if c.start < end and c.end > start]
    assert len(holders) >= 2
    rows_starts = {start} | {
        start + i + 1 for i, ch in enumerate(doc.text[start:end]) if ch == "\n"
    }
    inside_rows = [c for c in holders if start < c.start < end and c.start not in rows_starts]
    assert inside_rows
    readout = quality(doc, chunks)
    assert readout.tables_cut == 1 and readout.table_chunks == len(holders)
    assert readout.starts_in_table_row == len(inside_rows)


def test_overlapping_windows_give_more_chunks_and_overlap_the_first() -> None:
    doc = warranty_like_document()
    fixed = make_chunker("fixed", size=100).chunk(doc)
    overlapping = make_chunker("overlapping", size=100, overlap=25).chunk(doc)
    assert len(overlapping) > len(fixed)
    assert overlapping[1].start < fixed[0].end
    assert quality(doc, overlapping).stored_ratio > quality(doc, fixed).stored_ratio == 1.0


def test_windows_carry_no_prefix() -> None:
    doc = warranty_like_document()
    for name in ("fixed", "overlapping"):
        for chunk in make_chunker(name, size=30).chunk(doc):
            assert chunk.prefix_length == 0
