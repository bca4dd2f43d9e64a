"""The figures under the view: chunk sizes, the fate of each table, cuts and missing headings.

The definitions of a cut (a chunk starting inside a sentence, list item or table row) and of a
cut table are chunk/quality.py's; this module only adds what a drawing needs on top: which
chunk each cut is, which chunks each table went into, and word counts of overlap and gaps.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace

from policy_assistant.chunk.base import body_blocks
from policy_assistant.chunk.quality import Quality, quality
from policy_assistant.records import Block, Chunk, Document

CUT_FIELDS = (
    ("starts_in_sentence", "sentence"),
    ("starts_in_list_item", "list item"),
    ("starts_in_table_row", "table row"),
)
"""Quality's counters of cuts, and the unit each names."""


@dataclass(frozen=True, slots=True)
class _TableFate:
    """What a chunking did to one table."""

    number: int
    """The table's number in the document, from 1."""
    block: Block
    """The table block."""
    chunks: tuple[int, ...]
    """Numbers of the chunks whose bodies overlap it."""
    whole_in: int | None
    """Number of the first chunk that holds all of it, or None if none does."""

    @property
    def rows(self) -> int:
        """How many rows the table has."""
        return self.block.text.count("\n") + 1

    @property
    def cut(self) -> bool:
        """Whether two chunks or more hold some of it (quality.py's definition)."""
        return len(self.chunks) >= 2

    def describe(self) -> str:
        """Return the fate in words: 'whole in #3' or 'cut into 2 chunks (#4–#5)'."""
        if not self.chunks:
            return "in no chunk"
        if not self.cut:
            return f"whole in #{self.chunks[0]}"
        text = f"cut into {len(self.chunks)} chunks (#{self.chunks[0]}–#{self.chunks[-1]})"
        if self.whole_in is not None:
            text += f"; all of it is in #{self.whole_in}"
        return text


@dataclass(frozen=True, slots=True)
class Readout:
    """The numbers a person reads under the drawn chunks."""

    quality: Quality
    """chunk/quality.py's readout of the document's chunks."""
    tables: tuple[_TableFate, ...]
    """One per table block, in document order."""
    without_heading: int
    """Chunks with no prefix whose body does not open with a heading."""
    overlap_words: int
    """Words of the document held by two chunks or more."""
    uncovered_words: int
    """Words of the document held by no chunk."""

    @property
    def chunks(self) -> int:
        """How many chunks there are."""
        return self.quality.chunks

    def size_summary(self) -> str:
        """Return 'min 12 · median 98 · max 100 · mean 87.5', or '-' with no chunks."""
        q = self.quality
        if not q.chunks:
            return "-"
        mean = q.words_stored / q.chunks
        return (
            f"min {q.words_min} · median {q.words_median:g} · max {q.words_max} · mean {mean:.1f}"
        )

    def cut_summary(self) -> str:
        """Return '3 (2 sentence, 1 table row)' or '0'."""
        counts = [(getattr(self.quality, f), unit) for f, unit in CUT_FIELDS]
        total = sum(count for count, _ in counts)
        if not total:
            return "0"
        return f"{total} (" + ", ".join(f"{n} {unit}" for n, unit in counts if n) + ")"


def start_cuts(doc: Document, chunks: list[Chunk]) -> list[str | None]:
    """Return, for each chunk, the unit it starts inside (None at a clean start).

    Each chunk is read by quality() alone, so a cut here is exactly a cut there. It is read
    over the one block it starts in (the text up to that block's end, offsets unchanged): that
    is all the definition looks at, and it keeps the cost per chunk to one block.
    """
    blocks = body_blocks(doc)
    starts = [b.start for b in blocks]
    cuts: list[str | None] = []
    for chunk in chunks:
        index = bisect_right(starts, chunk.start) - 1
        if index < 0 or chunk.start >= blocks[index].end:
            cuts.append(None)  # between blocks: no unit to be inside
            continue
        block = blocks[index]
        alone = replace(doc, text=doc.text[: block.end], blocks=(block,))
        cuts.append(_cut_of(quality(alone, [chunk])))
    return cuts


def _cut_of(alone: Quality) -> str | None:
    return next((unit for field, unit in CUT_FIELDS if getattr(alone, field)), None)


def _opens_with_heading(blocks: tuple[Block, ...], chunk: Chunk) -> bool:
    """Return whether the chunk has a prefix or its body opens with a heading block."""
    if chunk.prefix_length > 0:
        return True
    return any(b.kind == "heading" and b.start == chunk.start for b in blocks)


def _table_fates(blocks: tuple[Block, ...], chunks: list[Chunk]) -> tuple[_TableFate, ...]:
    """Return what the chunks did to each table block."""
    fates = []
    tables = [b for b in blocks if b.kind == "table"]
    for number, table in enumerate(tables, start=1):
        touching = tuple(
            n for n, c in enumerate(chunks, start=1) if c.start < table.end and table.start < c.end
        )
        whole = next((n for n in touching if _holds(chunks[n - 1], table)), None)
        fates.append(_TableFate(number, table, touching, whole))
    return tuple(fates)


def _holds(chunk: Chunk, block: Block) -> bool:
    return chunk.start <= block.start and block.end <= chunk.end


def build_readout(
    doc: Document, chunks: list[Chunk], coverage: tuple[tuple[int, ...], ...]
) -> Readout:
    """Return the figures for `chunks` over `doc`, given the chunks covering each word."""
    blocks = body_blocks(doc)
    return Readout(
        quality=quality(doc, chunks),
        tables=_table_fates(blocks, chunks),
        without_heading=sum(not _opens_with_heading(blocks, c) for c in chunks),
        overlap_words=sum(len(numbers) > 1 for numbers in coverage),
        uncovered_words=sum(not numbers for numbers in coverage),
    )
