"""Checks every parser's output must pass: exact offsets, and the chunker invariants."""

from __future__ import annotations

from policy_assistant.chunk import make_chunker
from policy_assistant.records import Document
from support.chunk_checks import check_caps, check_coverage, check_records, check_sections

CHUNKER_SETTINGS = (
    ("fixed", {"size": 7}),
    ("overlapping", {"size": 9, "overlap": 3}),
    ("structure", {"max_words": 12, "max_table_words": 20}),
    ("structure", {}),
    ("sentence", {"max_words": 10, "overlap_sentences": 1}),
)
"""Small settings, so that every rule of every chunker bites on short fixtures."""


def check_offsets(doc: Document) -> None:
    """Blocks map back to the text exactly and are joined by one blank line."""
    assert doc.blocks, "the parser found no blocks"
    for block in doc.blocks:
        assert doc.text[block.start : block.end] == block.text
    for before, after in zip(doc.blocks, doc.blocks[1:], strict=False):
        assert doc.text[before.end : after.start] == "\n\n"
    assert doc.blocks[0].start == 0 and doc.blocks[-1].end == len(doc.text)
    for block in doc.blocks:
        if block.kind == "heading":
            assert block.section and block.section[-1] == block.text


def check_document(doc: Document) -> None:
    """Offsets, then every chunker's invariants on the parsed document."""
    check_offsets(doc)
    for name, settings in CHUNKER_SETTINGS:
        chunker = make_chunker(name, **settings)
        chunks = chunker.chunk(doc)
        assert chunks
        check_records(doc, chunker, chunks)
        check_coverage(doc, chunks)
        check_caps(doc, chunker, chunks)
        check_sections(doc, chunker, chunks)


def kinds(doc: Document) -> list[tuple[str, str]]:
    """Return (kind, text) of every block, for golden-style comparisons."""
    return [(b.kind, b.text) for b in doc.blocks]
