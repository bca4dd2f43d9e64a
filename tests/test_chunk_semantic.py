"""The semantic chunker: breakpoints where neighbouring sentences' vectors jump, within caps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.chunk_checks import check_caps, check_coverage, check_records
from support.chunk_strategies import documents, warranty_like_document

from policy_assistant.chunk import MODEL_CHUNKERS, SemanticChunker, make_chunker
from policy_assistant.chunk.semantic import breakpoints, buffered
from policy_assistant.errors import UsageError
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta

MODEL = Path(__file__).resolve().parent.parent / "build" / "models" / "all-MiniLM-L6-v2"
TOPICS = ("cat", "dog", "tax")


class TopicEncoder:
    """A fake: a text's vector counts the topic words it holds (cat, dog, tax): whole numbers,
    so equal topics give a distance of exactly 0 and disjoint ones exactly 1."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = [[t.lower().count(w) for w in TOPICS] for t in texts]
        return np.array(rows, dtype=np.float32)


def prose(*paragraphs: str, heading: str = "Cats") -> Document:
    b = DocumentBuilder()
    b.heading(heading, 1)
    for text in paragraphs:
        b.add("paragraph", text)
    return b.build("pets.md", "0" * 64, DocumentMeta(access="public"), "pets")


def bodies(doc: Document, chunker: SemanticChunker) -> list[str]:
    return [doc.text[c.start : c.end] for c in chunker.chunk(doc)]


def test_a_chunk_ends_where_the_topic_changes() -> None:
    # buffer 0: vectors cat (the heading), cat, cat, dog, dog; distances 0, 0, 1, 0; their
    # 95th percentile is 0.85, so only the cat -> dog jump lies above it.
    doc = prose("Cats purr. The cat naps. A dog barks. The dog runs.")
    chunker = SemanticChunker(buffer=0, encoder=TopicEncoder())
    assert bodies(doc, chunker) == [
        "Cats\n\nCats purr. The cat naps.",
        "A dog barks. The dog runs.",
    ]


def test_the_percentile_sets_how_many_jumps_break() -> None:
    # Distances: cat->cat 0, cat->dog 1, dog->tax 1, tax->tax 0, tax->cat 1.
    doc = prose("A cat. A dog. A tax. Tax again. A cat.")
    encoder = TopicEncoder()
    # At 50 the threshold is one of the equal jumps: none lies strictly above it.
    assert len(bodies(doc, SemanticChunker(buffer=0, percentile=50, encoder=encoder))) == 1
    # At 0 the threshold is the smallest distance (0): every jump breaks.
    at_zero = bodies(doc, SemanticChunker(buffer=0, percentile=0, encoder=encoder))
    assert at_zero == ["Cats\n\nA cat.", "A dog.", "A tax. Tax again.", "A cat."]


def test_each_sentence_is_embedded_with_its_buffer_of_neighbours() -> None:
    assert buffered(["a", "b", "c", "d"], 1) == ["a b", "a b c", "b c d", "c d"]
    assert buffered(["a", "b"], 0) == ["a", "b"]
    encoder = TopicEncoder()
    doc = prose("Cats purr. The cat naps. A dog barks.")
    SemanticChunker(encoder=encoder).chunk(doc)
    # The heading is a unit too: it opens the document.
    assert encoder.calls == [
        ["Cats Cats purr.", "Cats Cats purr. The cat naps.", "Cats purr. The cat naps. A dog "
         "barks.", "The cat naps. A dog barks."]
    ]  # fmt: skip


def test_breakpoints_are_distances_strictly_above_the_percentile() -> None:
    vectors = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 0]], dtype=np.float32)
    # Distances 0, 1, 0, 1: the 95th percentile is 1, nothing lies above it.
    assert breakpoints(vectors, 95) == set()
    # The 40th lies at 0.2: both jumps break, before units 2 and 4.
    assert breakpoints(vectors, 40) == {2, 4}
    assert breakpoints(vectors[:1], 0) == set()


def test_no_chunk_passes_the_cap_even_inside_one_topic() -> None:
    doc = prose(" ".join(f"The cat number {i} sleeps." for i in range(40)))
    chunks = SemanticChunker(max_words=30, encoder=TopicEncoder()).chunk(doc)
    assert len(chunks) > 1
    assert all(c.words <= 30 for c in chunks)
    check_coverage(doc, chunks)


def test_a_table_is_never_split_and_may_pass_the_cap_alone() -> None:
    doc = warranty_like_document()
    chunker = SemanticChunker(max_words=40, percentile=0, encoder=TopicEncoder())
    chunks = chunker.chunk(doc)
    table = next(b for b in doc.blocks if b.kind == "table")
    holders = [c for c in chunks if c.start < table.end and c.end > table.start]
    assert len(holders) == 1
    assert holders[0].start <= table.start and holders[0].end >= table.end
    check_caps(doc, chunker, chunks)


def test_a_table_above_its_limit_is_split_between_rows() -> None:
    doc = warranty_like_document()
    table = next(b for b in doc.blocks if b.kind == "table")
    chunker = SemanticChunker(max_words=40, max_table_words=30, encoder=TopicEncoder())
    inside = [c for c in chunker.chunk(doc) if table.start <= c.start < table.end]
    assert len(inside) > 1
    assert all(doc.text[c.start - 1] == "\n" for c in inside if c.start > table.start)


def test_chunks_never_cross_documents_and_keep_their_label() -> None:
    public = prose("Cats purr. A dog barks.")
    staff = replace(public, source="s.md", access="staff")
    encoder = TopicEncoder()
    chunker = SemanticChunker(percentile=100, encoder=encoder)
    for doc in (public, staff):
        chunks = chunker.chunk(doc)
        assert {(c.source, c.access) for c in chunks} == {(doc.source, doc.access)}
    assert len(encoder.calls) == 2  # one call a document: neighbours never span two


def test_it_is_registered_apart_and_needs_an_encoder() -> None:
    assert {"semantic": SemanticChunker} == MODEL_CHUNKERS
    chunker = make_chunker("semantic", percentile=90)
    assert chunker.settings() == {
        "max_words": 200, "percentile": 90, "buffer": 1, "max_table_words": 800,
    }  # fmt: skip
    with pytest.raises(UsageError, match="needs an embedding model"):
        chunker.chunk(prose("Cats purr."))
    with pytest.raises(UsageError, match="at most 100"):
        make_chunker("semantic", percentile=101)


def test_the_same_input_gives_the_same_chunks() -> None:
    doc = warranty_like_document()
    first = SemanticChunker(encoder=TopicEncoder()).chunk(doc)
    again = SemanticChunker(encoder=TopicEncoder()).chunk(doc)
    assert [c.to_dict() for c in first] == [c.to_dict() for c in again]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents(), cap=st.integers(1, 120), percentile=st.integers(0, 100))
def test_the_invariants_hold(doc: Document, cap: int, percentile: int) -> None:
    chunker = SemanticChunker(max_words=cap, percentile=percentile, encoder=TopicEncoder())
    chunks = chunker.chunk(doc)
    check_records(doc, chunker, chunks)
    check_coverage(doc, chunks)
    check_caps(doc, chunker, chunks)


def test_with_the_real_model_a_change_of_subject_breaks() -> None:
    if not MODEL.is_dir():
        pytest.skip("build/models/all-MiniLM-L6-v2 is absent: `make model` fetches it")
    pytest.importorskip("tokenizers", reason="the dense extra is not installed")
    from policy_assistant.embed.encoder import Encoder
    from policy_assistant.embed.model import resolve_model

    doc = prose(
        "Cats sleep for most of the day. A cat grooms its fur with its tongue. Kittens play "
        "with string. Income tax is due by the end of April. Late tax returns pay a penalty. "
        "The tax office sends a reminder.",
        heading="Notes",
    )
    chunker = SemanticChunker(buffer=0, percentile=80, encoder=Encoder(resolve_model(MODEL)))
    found = bodies(doc, chunker)
    assert found[-1].startswith("Income tax is due"), found
    assert chunker.spec()["model"]
