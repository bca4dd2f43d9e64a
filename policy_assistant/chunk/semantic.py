"""Semantic chunks: a new chunk where the meaning of neighbouring sentences jumps.

As the common implementations do (LangChain's SemanticChunker, LlamaIndex's
SemanticSplitterNodeParser): each sentence is embedded with `buffer` sentences either side of
it, the cosine distance between each sentence's vector and the next one's is measured, and a
chunk ends after every sentence whose distance to the next lies above the document's
`percentile`-th percentile of those distances (strictly above, as theirs do). The encoder is
injected (chunk/ imports no model): eval gives one that caches vectors by content.

The units are the project's sentences (sentences.py): sentences of prose blocks and lines of
code, while a table is one unit, never split up to `max_table_words` (as the structure chunker
keeps it), longer ones split between rows. A chunk also ends where the next unit would take it
past `max_words` (prefix included), so no chunk is larger than the other chunkers' cap; a table
over the cap has a chunk of its own, and a sentence over the cap is split between words.

A chunk never crosses a document; a document has one access label, so a chunk never mixes
labels either. It may cross a heading when the meaning runs on; its prefix (title, heading
path) is that of the block it starts in, as for the other section-aware chunkers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from policy_assistant.chunk.base import (
    ChunkEmitter,
    Chunker,
    Prefix,
    Prefixer,
    block_word_start,
    body_blocks,
    check_not_negative,
    check_positive,
    word_runs,
)
from policy_assistant.chunk.structure import DEFAULT_MAX_TABLE_WORDS, DEFAULT_MAX_WORDS
from policy_assistant.errors import UsageError
from policy_assistant.records import Block, Chunk, Document
from policy_assistant.sentences import line_spans, unit_spans
from policy_assistant.text import count_words

DEFAULT_PERCENTILE = 95
"""Distances above this percentile of a document's distances end a chunk."""
DEFAULT_BUFFER = 1
"""Sentences either side of a sentence embedded with it (LangChain's buffer_size)."""


class SentenceEncoder(Protocol):
    """What turns texts into vectors (embed.encoder.Encoder, a caching one, or a test's fake)."""

    def encode(self, texts: Sequence[str]) -> Any:
        """Return one vector per text, (len(texts), dimension)."""


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence, line or table (piece) of one document: its span, words and block."""

    start: int
    end: int
    words: int
    block: int
    """Index of the block it lies in."""
    table: bool
    """Whether it is a table or a piece of one: it may pass max_words, up to max_table_words."""


class SemanticChunker(Chunker):
    """Chunks that end where the embedding distance between neighbouring sentences jumps."""

    name: ClassVar[str] = "semantic"
    setting_names: ClassVar[tuple[str, ...]] = (
        "max_words",
        "percentile",
        "buffer",
        "max_table_words",
    )

    def __init__(
        self,
        max_words: int = DEFAULT_MAX_WORDS,
        percentile: int = DEFAULT_PERCENTILE,
        buffer: int = DEFAULT_BUFFER,
        max_table_words: int = DEFAULT_MAX_TABLE_WORDS,
        encoder: SentenceEncoder | None = None,
    ) -> None:
        self.max_words = check_positive("max_words", max_words)
        self.percentile = check_not_negative("percentile", percentile)
        if percentile > 100:
            raise UsageError(f"percentile must be at most 100, got {percentile}")
        self.buffer = check_not_negative("buffer", buffer)
        self.max_table_words = check_positive("max_table_words", max_table_words)
        self.encoder = encoder
        """What embeds the sentences; given by the caller (eval: its model, cached)."""

    def spec(self) -> dict[str, Any]:
        """Return the name and settings, and the model when the encoder names one: another
        model draws other breakpoints, so its chunks must get other IDs."""
        spec = super().spec()
        # Encoder and its caching wrapper carry an identity; a test's fake need not.
        identity = getattr(self.encoder, "identity", None)
        model = getattr(identity, "name", None)
        return {**spec, "model": model} if isinstance(model, str) else spec

    def chunk(self, doc: Document) -> list[Chunk]:
        """Return the semantic chunks of one document."""
        if self.encoder is None:
            raise UsageError("the semantic chunker needs an embedding model (eval --model PATH)")
        blocks = body_blocks(doc)
        emitter = ChunkEmitter(doc, self.spec(), blocks)
        prefixer = Prefixer(doc, self.max_words)
        units = _document_units(doc.text, blocks, self, prefixer)
        if units:
            texts = [doc.text[u.start : u.end] for u in units]
            ends = breakpoints(self.encoder.encode(buffered(texts, self.buffer)), self.percentile)
            pack(units, ends, blocks, self.max_words, prefixer, emitter)
        return emitter.chunks


def _document_units(
    text: str, blocks: tuple[Block, ...], chunker: SemanticChunker, prefixer: Prefixer
) -> list[Unit]:
    """Return the document's units in order: sentences and lines, tables whole (or by rows)."""
    units: list[Unit] = []
    for index, block in enumerate(blocks):
        if block.kind == "table":
            units += _table_units(text, block, index, chunker.max_table_words)
            continue
        budget = max(chunker.max_words - prefixer.widest(block), 1)
        for start, end in unit_spans(text, block):
            words = count_words(text[start:end])
            if words <= budget:
                units.append(Unit(start, end, words, index, False))
            else:
                runs = word_runs(text, start, end, budget)
                units += [Unit(s, e, w, index, False) for s, e, w in runs]
    return units


def _table_units(text: str, block: Block, index: int, limit: int) -> list[Unit]:
    """Return a table as one unit, or, above `limit` words, runs of rows each within it."""
    words = count_words(block.text)
    start = block_word_start(block)
    if words <= limit:
        return [Unit(start, block.end, words, index, True)]
    units: list[Unit] = []
    for row_start, row_end in line_spans(text, block.start, block.end):
        row_words = count_words(text[row_start:row_end])
        pieces = [(row_start, row_end, row_words)] if row_words <= limit else []
        pieces = pieces or word_runs(text, row_start, row_end, limit)
        for s, e, w in pieces:
            last = units[-1] if units else None
            if last is not None and last.words + w <= limit:
                units[-1] = Unit(last.start, e, last.words + w, index, True)
            else:
                units.append(Unit(s, e, w, index, True))
    return units


def buffered(texts: Sequence[str], buffer: int) -> list[str]:
    """Return each text joined with `buffer` neighbours either side, as is embedded."""
    return [" ".join(texts[max(i - buffer, 0) : i + buffer + 1]) for i in range(len(texts))]


def breakpoints(vectors: Any, percentile: int) -> set[int]:
    """Return the units that open a chunk: i where distance(i - 1, i) lies above the
    percentile of the document's distances (cosine distance, 1 - cos)."""
    matrix = np.asarray(vectors, dtype=np.float64)
    if len(matrix) < 2:
        return set()
    norms = np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    unit = matrix / norms
    distances = 1.0 - np.einsum("ij,ij->i", unit[:-1], unit[1:])
    threshold = np.percentile(distances, percentile)
    return {int(i) + 1 for i in np.flatnonzero(distances > threshold)}


def pack(
    units: Sequence[Unit], opens: set[int], blocks: tuple[Block, ...], max_words: int,
    prefixer: Prefixer, emitter: ChunkEmitter,
) -> None:  # fmt: skip
    """Emit chunks of consecutive units: a new one at each breakpoint, or where the next unit
    would pass the cap (a table over the cap alone in its chunk)."""
    first = 0
    words = 0
    prefix = Prefix("", 0)
    for i, unit in enumerate(units):
        if i > first and (i in opens or words + unit.words > max_words - prefix.words):
            emitter.emit(units[first].start, units[i - 1].end, prefix)
            first = i
        if i == first:
            block = blocks[unit.block]
            prefix = prefixer.at(block, unit.start == block_word_start(block))
            words = 0
        words += unit.words
        if words > max_words - prefix.words and i + 1 < len(units):
            # Only a table passes the cap (the test above put it first): nothing joins it.
            emitter.emit(unit.start, unit.end, prefix)
            first, words = i + 1, 0
    if first < len(units):
        emitter.emit(units[first].start, units[-1].end, prefix)
