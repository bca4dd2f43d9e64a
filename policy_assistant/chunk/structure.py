"""Structure-aware chunks: one per section, split between blocks, tables kept whole.

A section runs from its heading to the next heading (a heading with nothing under it but a
subsection travels with that subsection). A section longer than `max_words` is split between
blocks; a block longer than the cap is split between sentences, and a sentence longer than the
cap between words. Blocks and sentences are packed greedily, so a chunk ends as late as the cap
allows. A table up to `max_table_words` is never split, even past `max_words`: one too long to
share a chunk gets one of its own, with its section's heading when that would otherwise be left
alone. A longer table
is split between rows, and every piece after the first repeats the header row in its prefix
(unless the header alone would take more than half the table limit); a piece's rows and header
together stay within the table limit.

Every chunk's text opens with a prefix (see Prefixer): the document's title, then the heading
path when the body does not open with its section's heading, so a chunk read alone still says
which document and section it is from. Caps count the prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from policy_assistant.chunk.base import (
    ChunkEmitter,
    Chunker,
    Prefix,
    Prefixer,
    block_word_start,
    body_blocks,
    check_positive,
    pack_by_section,
    word_runs,
)
from policy_assistant.records import Block, Chunk, Document
from policy_assistant.sentences import line_spans, unit_spans
from policy_assistant.text import count_words

DEFAULT_MAX_WORDS = 200
"""Words a chunk may hold, prefix included."""
DEFAULT_MAX_TABLE_WORDS = 800
"""Words up to which a table is never split."""

Piece = tuple[int, int, int]
"""A span of the document's text and the words it holds: (start, end, words)."""


class StructureChunker(Chunker):
    """One chunk per section under a word cap; tables whole up to a table limit."""

    name: ClassVar[str] = "structure"
    setting_names: ClassVar[tuple[str, ...]] = ("max_words", "max_table_words")

    def __init__(
        self, max_words: int = DEFAULT_MAX_WORDS, max_table_words: int = DEFAULT_MAX_TABLE_WORDS
    ) -> None:
        self.max_words = check_positive("max_words", max_words)
        self.max_table_words = check_positive("max_table_words", max_table_words)

    def chunk(self, doc: Document) -> list[Chunk]:
        """Return the section chunks of one document."""
        blocks = body_blocks(doc)
        packer = _SectionPacker(doc, blocks, self)
        pack_by_section(blocks, lambda index: packer.add_block(blocks[index]), packer.flush)
        return packer.emitter.chunks


@dataclass(slots=True)
class _OpenChunk:
    """The chunk being filled: its body span, words, budget and prefix."""

    start: int
    end: int
    words: int
    """Words of the body so far."""
    budget: int
    """Words the body may hold: the cap less the prefix."""
    prefix: Prefix
    has_body: bool
    """Whether it holds more than headings."""


class _SectionPacker:
    """Pack one document's blocks into chunks, section by section."""

    def __init__(self, doc: Document, blocks: tuple[Block, ...], chunker: StructureChunker):
        self.text = doc.text
        self.max_words = chunker.max_words
        self.max_table_words = chunker.max_table_words
        self.emitter = ChunkEmitter(doc, chunker.spec(), blocks)
        self.prefixer = Prefixer(doc, chunker.max_words)
        self.cur: _OpenChunk | None = None

    def add_block(self, block: Block) -> None:
        """Add one block: whole if it can be, else as the pieces the rules allow."""
        words = count_words(block.text)
        cur = self.cur
        if block.kind == "table" and words > self.max_table_words:
            self._add_split_table(block)
        elif cur is not None and cur.words + words <= cur.budget:
            cur.end = block.end
            cur.words += words
            cur.has_body = cur.has_body or block.kind != "heading"
        elif block.kind == "table":
            self._add_whole_table(block, words)
        elif (cur is None or cur.has_body) and words <= self._budget(block, True):
            self.flush()
            self._open(block_word_start(block), block.end, words, block, block.kind != "heading")
        else:
            for piece in self._pieces(block):
                self._add_piece(piece, block)

    def flush(self) -> None:
        """Emit the open chunk, if any."""
        cur = self.cur
        if cur is not None:
            self.emitter.emit(cur.start, cur.end, cur.prefix, cur.words)
            self.cur = None

    def _budget(self, block: Block, at_block_start: bool) -> int:
        return self.max_words - self.prefixer.at(block, at_block_start).words

    def _open(self, start: int, end: int, words: int, block: Block, has_body: bool) -> None:
        prefix = self.prefixer.at(block, start == block_word_start(block))
        self.cur = _OpenChunk(start, end, words, self.max_words - prefix.words, prefix, has_body)

    def _add_piece(self, piece: Piece, block: Block) -> None:
        start, end, words = piece
        cur = self.cur
        if cur is not None and cur.words + words <= cur.budget:
            cur.end = end
            cur.words += words
            cur.has_body = True
        else:
            self.flush()
            self._open(start, end, words, block, True)

    def _pieces(self, block: Block) -> list[Piece]:
        """Split a block longer than the cap between sentences (words for a long sentence)."""
        budget = self.max_words - self.prefixer.widest(block)
        pieces: list[Piece] = []
        for start, end in unit_spans(self.text, block):
            words = count_words(self.text[start:end])
            if words <= budget:
                pieces.append((start, end, words))
            else:
                pieces.extend(word_runs(self.text, start, end, budget))
        return pieces

    def _add_whole_table(self, block: Block, words: int) -> None:
        """Give a table within the table limit a chunk of its own, under a lone heading."""
        cur = self.cur
        if cur is not None and not cur.has_body:
            cur.end = block.end
            cur.words += words
            cur.has_body = True
        else:
            self.flush()
            self._open(block_word_start(block), block.end, words, block, True)
        if self.cur is not None and self.cur.words > self.cur.budget:
            self.flush()

    def _add_split_table(self, block: Block) -> None:
        """Split a table above the table limit between rows, repeating the header row."""
        text = self.text
        rows = [(s, e, count_words(text[s:e])) for s, e in line_spans(text, block.start, block.end)]
        header_start, header_end, header_words = rows[0]
        repeat = header_words <= self.max_table_words // 2
        budget = self.max_table_words - (header_words if repeat else 0)
        pieces = _group(_split_long(text, rows, budget), budget, first_budget=self.max_table_words)
        start, end, words = pieces[0]
        cur = self.cur
        if cur is not None and not cur.has_body:
            # Keep a lone heading on top of the table's first piece.
            start, words = cur.start, cur.words + words
            prefix = cur.prefix
        else:
            self.flush()
            prefix = self.prefixer.at(block, True)
        self.cur = None
        self.emitter.emit(start, end, prefix, words)
        later = self.prefixer.at(block, False)
        if repeat:
            header = text[header_start:header_end]
            later = Prefix(f"{later.text}{header}\n", later.words + header_words)
        for start, end, words in pieces[1:]:
            self.emitter.emit(start, end, later, words)


def _split_long(text: str, units: list[Piece], budget: int) -> list[Piece]:
    """Split every unit longer than `budget` words into runs of `budget` words."""
    out: list[Piece] = []
    for unit in units:
        start, end, words = unit
        if words <= budget:
            out.append(unit)
        else:
            out.extend(word_runs(text, start, end, budget))
    return out


def _group(units: list[Piece], budget: int, first_budget: int) -> list[Piece]:
    """Pack consecutive units greedily into pieces of at most `budget` words (the first: more)."""
    pieces: list[Piece] = []
    start, end, words = units[0]
    for unit_start, unit_end, unit_words in units[1:]:
        limit = first_budget if not pieces else budget
        if words + unit_words <= limit:
            end, words = unit_end, words + unit_words
        else:
            pieces.append((start, end, words))
            start, end, words = unit_start, unit_end, unit_words
    pieces.append((start, end, words))
    return pieces
