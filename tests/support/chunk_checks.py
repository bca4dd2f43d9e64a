"""Checks every chunker's output must pass: records, coverage, caps and sections."""

from __future__ import annotations

import re
from bisect import bisect_right

from policy_assistant.chunk import Chunker
from policy_assistant.chunk.base import section_runs
from policy_assistant.records import Block, Chunk, Document
from policy_assistant.text import count_words, word_spans

HEX16 = re.compile(r"[0-9a-f]{16}")


def overlapping_blocks(doc: Document, chunk: Chunk) -> list[Block]:
    return [b for b in doc.blocks if b.start < chunk.end and b.end > chunk.start]


def check_records(doc: Document, chunker: Chunker, chunks: list[Chunk]) -> None:
    """Metadata, offsets, word counts, positions, order and IDs."""
    text = doc.text
    words = word_spans(text)
    starts, ends = {s for s, _ in words}, {e for _, e in words}
    for position, chunk in enumerate(chunks):
        body = text[chunk.start : chunk.end]
        assert chunk.position == position
        assert (chunk.source, chunk.title, chunk.version) == (doc.source, doc.title, doc.version)
        assert (chunk.access, chunk.language) == (doc.access, doc.language)
        assert chunk.chunker == chunker.spec()
        assert body and chunk.text.endswith(body)
        assert chunk.text[chunk.prefix_length :] == body
        # Bodies start and end on word boundaries (inside a Japanese run, between characters).
        assert chunk.start in starts and chunk.end in ends
        assert chunk.words == count_words(chunk.text)
        assert HEX16.fullmatch(chunk.id)
        touched = overlapping_blocks(doc, chunk)
        assert chunk.sections == tuple(dict.fromkeys(b.section for b in touched))
        if doc.pages:
            # The pages of a chunk are the pages its body's words are on.
            inside = word_spans(text, chunk.start, chunk.end)
            assert chunk.pages == tuple(sorted({bisect_right(doc.pages, s) for s, _ in inside}))
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
        assert chunker.name in ("structure", "semantic"), (chunker.spec(), chunk.words, chunk.text)
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
