"""Invariants every chunker must hold, on generated documents (Hypothesis)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.chunk_checks import check_caps, check_coverage, check_records, check_sections
from support.chunk_strategies import documents

from policy_assistant.chunk import Chunker, chunk_documents, make_chunker
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.dispatch import parse_bytes
from policy_assistant.records import Document

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


@pytest.mark.slow
@SETTINGS
@given(doc=documents(), chunker=chunkers())
def test_every_chunker_holds_the_invariants(doc: Document, chunker: Chunker) -> None:
    chunks = chunker.chunk(doc)
    check_records(doc, chunker, chunks)
    check_coverage(doc, chunks)
    check_caps(doc, chunker, chunks)
    check_sections(doc, chunker, chunks)


@pytest.mark.slow
@SETTINGS
@given(doc=documents(max_blocks=6), chunker=chunkers())
def test_ids_are_stable_across_runs_and_chunker_instances(doc: Document, chunker: Chunker) -> None:
    again = make_chunker(chunker.name, **chunker.settings())
    assert [c.to_dict() for c in chunker.chunk(doc)] == [c.to_dict() for c in again.chunk(doc)]


@pytest.mark.slow
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
