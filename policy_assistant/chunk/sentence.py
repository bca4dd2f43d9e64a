"""Sentence chunks: whole sentences packed up to a word cap, never across a section.

The units are sentences of prose blocks and lines of tables and code (see sentences.py); a
unit longer than the cap is split between words. Units are packed greedily within a section.
With `overlap_sentences` = k, each chunk after the first in a section opens with the last k
units of the one before it (fewer when they would not leave room for a new unit, and never all
of them, so every chunk moves on).

Decision: the sentence chunker is section-aware, so its chunks carry the same prefix as the
structure chunker's (title, then heading path when the body does not open with its heading),
and its cap counts the prefix. It does not treat tables specially: rows are units like any.
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
    check_not_negative,
    check_positive,
    pack_by_section,
    word_runs,
)
from policy_assistant.chunk.structure import DEFAULT_MAX_WORDS
from policy_assistant.records import Block, Chunk, Document
from policy_assistant.sentences import unit_spans
from policy_assistant.text import count_words

DEFAULT_OVERLAP_SENTENCES = 0
"""Sentences each chunk repeats from the one before it in the same section."""


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence, line or whole block in a chunk: its span, words and block."""

    start: int
    end: int
    words: int
    block: int
    """Index of the block it lies in."""
    whole: bool
    """Whether it is the whole block, not yet split into sentences."""


@dataclass(slots=True)
class _Open:
    units: list[Unit]
    words: int
    budget: int
    prefix: Prefix


class SentenceChunker(Chunker):
    """Whole sentences up to `max_words`, within a section, with optional sentence overlap."""

    name: ClassVar[str] = "sentence"
    setting_names: ClassVar[tuple[str, ...]] = ("max_words", "overlap_sentences")

    def __init__(
        self,
        max_words: int = DEFAULT_MAX_WORDS,
        overlap_sentences: int = DEFAULT_OVERLAP_SENTENCES,
    ) -> None:
        self.max_words = check_positive("max_words", max_words)
        self.overlap_sentences = check_not_negative("overlap_sentences", overlap_sentences)

    def chunk(self, doc: Document) -> list[Chunk]:
        """Return the sentence chunks of one document."""
        blocks = body_blocks(doc)
        packer = _SentencePacker(doc, blocks, self)
        pack_by_section(blocks, packer.add_block, packer.flush)
        return packer.emitter.chunks


class _SentencePacker:
    """Pack one document's sentences into chunks, section by section."""

    def __init__(self, doc: Document, blocks: tuple[Block, ...], chunker: SentenceChunker):
        self.text = doc.text
        self.blocks = blocks
        self.max_words = chunker.max_words
        self.overlap = chunker.overlap_sentences
        self.emitter = ChunkEmitter(doc, chunker.spec(), blocks)
        self.prefixer = Prefixer(doc, chunker.max_words)
        self.cur: _Open | None = None
        self._units: dict[int, list[Unit]] = {}

    def add_block(self, index: int) -> None:
        """Add one block: whole when all of it fits (the same as sentence by sentence)."""
        block = self.blocks[index]
        words = count_words(block.text)
        whole = Unit(block_word_start(block), block.end, words, index, True)
        cur = self.cur
        if cur is not None and cur.words + words <= cur.budget:
            cur.units.append(whole)
            cur.words += words
        elif cur is None and words <= self._open_budget([whole])[0]:
            self._open([whole])
        else:
            for unit in self._block_units(index):
                self._add_unit(unit)

    def flush(self) -> None:
        """Emit the open chunk, if any, and start the next section afresh."""
        if self.cur is not None:
            self._emit(self.cur)
        self.cur = None
        # Sentences are only ever carried within a section: keep memory flat on long documents.
        self._units.clear()

    def _emit(self, cur: _Open) -> None:
        self.emitter.emit(cur.units[0].start, cur.units[-1].end, cur.prefix, cur.words)

    def _add_unit(self, unit: Unit) -> None:
        cur = self.cur
        if cur is not None and cur.words + unit.words <= cur.budget:
            cur.units.append(unit)
            cur.words += unit.words
            return
        carry = self._carry(cur) if cur is not None else []
        if cur is not None:
            self._emit(cur)
        units = [*carry, unit]
        # Drop carried sentences from the front until the new one fits.
        while len(units) > 1 and sum(u.words for u in units) > self._open_budget(units)[0]:
            units.pop(0)
        self._open(units)

    def _open_budget(self, units: list[Unit]) -> tuple[int, Prefix]:
        first = units[0]
        block = self.blocks[first.block]
        prefix = self.prefixer.at(block, first.start == block_word_start(block))
        return self.max_words - prefix.words, prefix

    def _open(self, units: list[Unit]) -> None:
        budget, prefix = self._open_budget(units)
        self.cur = _Open(units, sum(u.words for u in units), budget, prefix)

    def _carry(self, cur: _Open) -> list[Unit]:
        """Return the last sentences of `cur` to repeat, never all of them."""
        if not self.overlap:
            return []
        tail: list[Unit] = []
        for unit in reversed(cur.units):
            parts = self._block_units(unit.block) if unit.whole else [unit]
            tail[:0] = parts
            if len(tail) > self.overlap:
                return tail[-self.overlap :]
        return tail[1:]

    def _block_units(self, index: int) -> list[Unit]:
        """Return the block's sentences or lines, a long one split between words."""
        units = self._units.get(index)
        if units is not None:
            return units
        block = self.blocks[index]
        budget = self.max_words - self.prefixer.widest(block)
        units = []
        for start, end in unit_spans(self.text, block):
            words = count_words(self.text[start:end])
            if words <= budget:
                units.append(Unit(start, end, words, index, False))
            else:
                units.extend(
                    Unit(s, e, w, index, False)
                    for s, e, w in word_runs(self.text, start, end, budget)
                )
        self._units[index] = units
        return units
