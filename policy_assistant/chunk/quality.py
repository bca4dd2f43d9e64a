"""The quality readout: what a chunker did to a document's structure, and what it costs.

Definitions (one per field of Quality):
- a chunk *starts inside a sentence* when its body starts in a paragraph or heading away from
  the block's start and from every sentence start (sentences.py), or in a code block away from
  a line start; *inside a list item* when it starts in a list item away from its start; *inside
  a table row* when it starts in a table away from a line start.
- a table is *cut* when the bodies of two or more chunks overlap it; `table_chunks` counts the
  chunks the cut tables went into.
- a chunk *mixes sections* when its body touches two or more sections (section_runs: a heading
  and the blocks up to the next heading) and holds at least one of them only in part.
- `stored_ratio` is the words of every chunk's text, prefixes and overlaps included, over the
  words of the documents: the cost of overlap and prefixes in index size and reading time.
"""

from __future__ import annotations

import statistics
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from policy_assistant.chunk.base import block_word_start, body_blocks, section_runs
from policy_assistant.records import Block, Chunk, Document
from policy_assistant.sentences import sentence_spans
from policy_assistant.text import count_words


@dataclass(frozen=True, slots=True)
class Quality:
    """The readout of one document's chunks, or of a whole corpus's."""

    documents: int
    """Documents counted."""
    chunks: int
    """Chunks made."""
    words_min: int
    """Fewest words in a chunk's text (0 when there are no chunks)."""
    words_median: float
    """Median words in a chunk's text."""
    words_max: int
    """Most words in a chunk's text."""
    tables: int
    """Table blocks in the documents."""
    tables_cut: int
    """Tables whose text went into two or more chunks."""
    table_chunks: int
    """Chunks the cut tables went into, all told."""
    starts_in_sentence: int
    """Chunks starting inside a sentence (or a code line)."""
    starts_in_list_item: int
    """Chunks starting inside a list item."""
    starts_in_table_row: int
    """Chunks starting inside a table row."""
    mixed_sections: int
    """Chunks holding parts of two or more sections."""
    words_stored: int
    """Words in the chunks' texts, prefixes and overlaps included."""
    document_words: int
    """Words in the documents."""

    @property
    def starts_inside(self) -> int:
        """Chunks starting inside a sentence, list item or table row."""
        return self.starts_in_sentence + self.starts_in_list_item + self.starts_in_table_row

    @property
    def stored_ratio(self) -> float:
        """Words stored per word of the documents (0.0 for empty documents)."""
        return self.words_stored / self.document_words if self.document_words else 0.0

    def to_dict(self) -> dict[str, int | float]:
        """Return the JSON form, derived figures included."""
        # Hand-written: the derived figures (starts_inside, stored_ratio rounded) added.
        out: dict[str, int | float] = asdict(self)
        out["starts_inside"] = self.starts_inside
        out["stored_ratio"] = round(self.stored_ratio, 4)
        return out


def quality(doc: Document, chunks: Sequence[Chunk]) -> Quality:
    """Return the readout of one document's chunks (chunks of other documents are ignored)."""
    own = [c for c in chunks if c.source == doc.source]
    return _combine([_Tally.of(doc, own)], [c.words for c in own])


def corpus_quality(docs: Iterable[Document], chunks: Sequence[Chunk]) -> Quality:
    """Return the readout over a corpus: counts added up, word figures over every chunk."""
    by_source: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_source.setdefault(chunk.source, []).append(chunk)
    tallies = [_Tally.of(doc, by_source.get(doc.source, [])) for doc in docs]
    sources = {t.source for t in tallies}
    words = [c.words for c in chunks if c.source in sources]
    return _combine(tallies, words)


@dataclass(slots=True)
class _Tally:
    source: str
    tables: int = 0
    tables_cut: int = 0
    table_chunks: int = 0
    starts_in_sentence: int = 0
    starts_in_list_item: int = 0
    starts_in_table_row: int = 0
    mixed_sections: int = 0
    words_stored: int = 0
    document_words: int = 0

    @classmethod
    def of(cls, doc: Document, chunks: Sequence[Chunk]) -> _Tally:
        blocks = body_blocks(doc)
        tally = cls(doc.source, document_words=count_words(doc.text))
        tally.words_stored = sum(c.words for c in chunks)
        tally.count_tables(blocks, chunks)
        tally.count_starts(doc.text, blocks, chunks)
        tally.mixed_sections = _mixed_sections(blocks, chunks)
        return tally

    def count_tables(self, blocks: tuple[Block, ...], chunks: Sequence[Chunk]) -> None:
        starts = sorted(c.start for c in chunks)
        ends = sorted(c.end for c in chunks)
        for block in blocks:
            if block.kind != "table":
                continue
            self.tables += 1
            # Chunks overlapping [start, end): those starting before its end, less those ending
            # at or before its start (which all start before its end too).
            touching = bisect_left(starts, block.end) - bisect_right(ends, block.start)
            if touching >= 2:
                self.tables_cut += 1
                self.table_chunks += touching

    def count_starts(self, text: str, blocks: tuple[Block, ...], chunks: Sequence[Chunk]) -> None:
        block_starts = [b.start for b in blocks]
        sentence_starts: dict[int, set[int]] = {}
        for chunk in chunks:
            index = bisect_right(block_starts, chunk.start) - 1
            if index < 0:
                continue
            block = blocks[index]
            if chunk.start >= block.end or chunk.start == block_word_start(block):
                continue
            if block.kind == "list_item":
                self.starts_in_list_item += 1
            elif block.kind == "table":
                self.starts_in_table_row += not _at_line_start(text, block, chunk.start)
            elif block.kind == "code":
                self.starts_in_sentence += not _at_line_start(text, block, chunk.start)
            else:
                if index not in sentence_starts:
                    spans = sentence_spans(text, block.start, block.end)
                    sentence_starts[index] = {s for s, _ in spans}
                self.starts_in_sentence += chunk.start not in sentence_starts[index]


def _at_line_start(text: str, block: Block, offset: int) -> bool:
    line_start = text.rfind("\n", block.start, offset) + 1 or block.start
    return not text[line_start:offset].strip()


def _mixed_sections(blocks: tuple[Block, ...], chunks: Sequence[Chunk]) -> int:
    extents = [(block_word_start(blocks[r.start]), blocks[r[-1]].end) for r in section_runs(blocks)]
    run_starts = [start for start, _ in extents]
    mixed = 0
    for chunk in chunks:
        first = max(bisect_right(run_starts, chunk.start) - 1, 0)
        last = bisect_left(run_starts, chunk.end)
        touched = extents[first:last]
        partial = any(s < chunk.start or e > chunk.end for s, e in touched)
        mixed += len(touched) >= 2 and partial
    return mixed


def _combine(tallies: list[_Tally], words: list[int]) -> Quality:
    def total(name: str) -> int:
        return sum(int(getattr(t, name)) for t in tallies)

    return Quality(
        documents=len(tallies),
        chunks=len(words),
        words_min=min(words, default=0),
        words_median=float(statistics.median(words)) if words else 0.0,
        words_max=max(words, default=0),
        tables=total("tables"),
        tables_cut=total("tables_cut"),
        table_chunks=total("table_chunks"),
        starts_in_sentence=total("starts_in_sentence"),
        starts_in_list_item=total("starts_in_list_item"),
        starts_in_table_row=total("starts_in_table_row"),
        mixed_sections=total("mixed_sections"),
        words_stored=total("words_stored"),
        document_words=total("document_words"),
    )
