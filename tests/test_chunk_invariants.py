"""Invariants every chunker must hold, on generated documents (Hypothesis)."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace

import pytest
from chunk_strategies import documents
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policy_assistant.chunk import Chunker, chunk_documents, make_chunker
from policy_assistant.chunk.base import section_runs
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.dispatch import parse_bytes
from policy_assistant.records import Block, Chunk, Document
from policy_assistant.text import count_words, word_spans

HEX16 = re.compile(r"[0-9a-f]{16}")

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


caps = st.one_of(st.integers(1, 12), st.integers(13, 120))
"""Word caps: small ones make the prefix rules bite."""


@st.composite
def chunkers(draw: st.DrawFn) -> Chunker:
    """Any chunker, with small settings so that every rule gets exercised."""
    name = draw(st.sampled_from(("fixed", "overlapping", "structure", "sentence")))
    if name == "fixed":
        return make_chunker(name, size=draw(st.integers(1, 60)))
    if name == "overlapping":
        size = draw(st.integers(1, 60))
        return make_chunker(name, size=size, overlap=draw(st.integers(0, size - 1)))
    if name == "structure":
        return make_chunker(name, max_words=draw(caps), max_table_words=draw(st.integers(1, 200)))
    return make_chunker(name, max_words=draw(caps), overlap_sentences=draw(st.integers(0, 3)))


def overlapping_blocks(doc: Document, chunk: Chunk) -> list[Block]:
    return [b for b in doc.blocks if b.start < chunk.end and b.end > chunk.start]


def check_records(doc: Document, chunker: Chunker, chunks: list[Chunk]) -> None:
    """Metadata, offsets, word counts, positions, order and IDs."""
    text = doc.text
    for position, chunk in enumerate(chunks):
        body = text[chunk.start : chunk.end]
        assert chunk.position == position
        assert (chunk.source, chunk.title, chunk.version) == (doc.source, doc.title, doc.version)
        assert (chunk.access, chunk.language) == (doc.access, doc.language)
        assert chunk.chunker == chunker.spec()
        assert body and chunk.text.endswith(body)
        assert chunk.text[chunk.prefix_length :] == body
        # Bodies start and end on word boundaries.
        assert not body[0].isspace() and not body[-1].isspace()
        assert chunk.start == 0 or text[chunk.start - 1].isspace()
        assert chunk.end == len(text) or text[chunk.end].isspace()
        assert chunk.words == count_words(chunk.text)
        assert HEX16.fullmatch(chunk.id)
        touched = overlapping_blocks(doc, chunk)
        assert chunk.sections == tuple(dict.fromkeys(b.section for b in touched))
        if doc.pages:
            # The pages of a chunk are the pages its body's words are on.
            words = word_spans(text, chunk.start, chunk.end)
            assert chunk.pages == tuple(sorted({bisect_right(doc.pages, s) for s, _ in words}))
        else:
            assert chunk.pages == tuple(sorted({p for b in touched for p in b.pages}))
    assert len({c.id for c in chunks}) == len(chunks)
    assert [c.start for c in chunks] == sorted({c.start for c in chunks})
    assert [c.end for c in chunks] == sorted({c.end for c in chunks})


def check_coverage(doc: Document, chunks: list[Chunk]) -> None:
    """Every word of the document lies inside some chunk's body."""
    starts = [c.start for c in chunks]
    for start, end in word_spans(doc.text):
        # Starts and ends both rise, so the last chunk starting at or before a word is the one.
        i = bisect_right(starts, start) - 1
        assert i >= 0 and chunks[i].end >= end, f"word {doc.text[start:end]!r} is in no chunk"


def check_caps(doc: Document, chunker: Chunker, chunks: list[Chunk]) -> None:
    """Size limits, per chunker."""
    s = chunker.settings()
    if chunker.name in ("fixed", "overlapping"):
        for chunk in chunks[:-1]:
            assert chunk.words == s["size"]
        assert all(c.words <= s["size"] for c in chunks[-1:])
        return
    for chunk in chunks:
        if chunk.words <= s["max_words"]:
            continue
        # Only a table (or a piece of one above the table limit), under its lone heading.
        assert chunker.name == "structure", (chunker.spec(), chunk.words, chunk.text)
        body = [b for b in overlapping_blocks(doc, chunk) if b.kind != "heading"]
        assert [b.kind for b in body] == ["table"], (chunker.spec(), chunk.words, chunk.text)
        table = body[0]
        part = doc.text[max(chunk.start, table.start) : min(chunk.end, table.end)]
        assert count_words(part) <= s["max_table_words"]


def check_sections(doc: Document, chunker: Chunker, chunks: list[Chunk]) -> None:
    """Section-aware chunkers never cross a section; structure never splits a table it may keep."""
    if chunker.name not in ("structure", "sentence"):
        return
    runs = section_runs(doc.blocks)
    for chunk in chunks:
        touched = [
            r
            for r in runs
            if doc.blocks[r.start].start < chunk.end and doc.blocks[r[-1]].end > chunk.start
        ]
        assert len(touched) == 1
        if count_words(doc.title) <= chunker.settings()["max_words"] // 2:
            assert chunk.text.startswith(doc.title.strip())
    if chunker.name == "structure":
        for table in (b for b in doc.blocks if b.kind == "table"):
            if count_words(table.text) <= chunker.settings()["max_table_words"]:
                holders = [c for c in chunks if c.start < table.end and c.end > table.start]
                assert len(holders) == 1


@SETTINGS
@given(doc=documents(), chunker=chunkers())
def test_every_chunker_holds_the_invariants(doc: Document, chunker: Chunker) -> None:
    chunks = chunker.chunk(doc)
    check_records(doc, chunker, chunks)
    check_coverage(doc, chunks)
    check_caps(doc, chunker, chunks)
    check_sections(doc, chunker, chunks)


@SETTINGS
@given(doc=documents(max_blocks=6), chunker=chunkers())
def test_ids_are_stable_across_runs_and_chunker_instances(doc: Document, chunker: Chunker) -> None:
    again = make_chunker(chunker.name, **chunker.settings())
    assert [c.to_dict() for c in chunker.chunk(doc)] == [c.to_dict() for c in again.chunk(doc)]


@SETTINGS
@given(docs=st.lists(documents(max_blocks=6), min_size=1, max_size=4), chunker=chunkers())
def test_no_chunk_crosses_documents(docs: list[Document], chunker: Chunker) -> None:
    docs = [replace(d, source=f"doc{i}.md") for i, d in enumerate(docs)]
    chunks = chunk_documents(docs, chunker)
    by_source = {d.source: d for d in docs}
    for chunk in chunks:
        doc = by_source[chunk.source]
        assert doc.text[chunk.start : chunk.end] == chunk.text[chunk.prefix_length :]
        assert (chunk.access, chunk.version) == (doc.access, doc.version)
    assert len({c.id for c in chunks}) == len(chunks)
    assert len(chunks) == sum(len(chunker.chunk(d)) for d in docs)


def empty_document(text: str = "") -> Document:
    return Document("empty.md", "Empty", "1", "public", "en", "0" * 64, text)


def test_an_empty_document_gives_no_chunks() -> None:
    for name in ("fixed", "overlapping", "structure", "sentence"):
        chunker = make_chunker(name)
        assert chunker.chunk(empty_document()) == []
        assert chunker.chunk(empty_document(" \n\n\t ")) == []


def test_a_document_without_blocks_is_still_chunked_whole() -> None:
    doc = empty_document("  one two three.  Four five ")
    for name in ("fixed", "overlapping", "structure", "sentence"):
        chunks = make_chunker(name).chunk(doc)
        assert [doc.text[c.start : c.end] for c in chunks] == ["one two three.  Four five"]


@pytest.mark.parametrize("name", ["structure", "sentence"])
def test_a_block_cut_to_fit_fits_behind_the_longer_of_its_prefixes(name: str) -> None:
    # At the heading's start its path loses the heading itself, so the path fits the prefix
    # and makes it longer than inside the heading: the pieces must fit behind that one too.
    text = "# e.g.\n\n## e.g.\n\n### e.g. e.g. e.g.\n"
    doc = parse_bytes(text.encode(), "a.md", Catalog())
    chunks = make_chunker(name, max_words=4).chunk(doc)
    assert chunks and all(c.words <= 4 for c in chunks), [(c.words, c.text) for c in chunks]
