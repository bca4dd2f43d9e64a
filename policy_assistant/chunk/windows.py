"""Word windows: `fixed` (one after the other) and `overlapping` (each `size - overlap` on).

These are the textbook baselines: plain windows over the document's text with no prefix, blind
to blocks, sections and tables. A window of `size` words is one regular-expression match, so the
text is scanned once, in C, whatever the document's length: no per-chunk search of the rest.

For n words, `fixed` gives ceil(n / size) windows and `overlapping` gives
ceil((n - overlap) / (size - overlap)) when n > size (one window otherwise).
"""

from __future__ import annotations

from typing import ClassVar

from policy_assistant.chunk.base import (
    NO_PREFIX,
    ChunkEmitter,
    Chunker,
    body_blocks,
    check_not_negative,
    check_positive,
    window_pattern,
)
from policy_assistant.errors import UsageError
from policy_assistant.records import Chunk, Document
from policy_assistant.text import count_words, has_unspaced

DEFAULT_SIZE = 100
"""Words per window."""
DEFAULT_OVERLAP = 25
"""Words each overlapping window shares with the one before it."""


class OverlappingChunker(Chunker):
    """Windows of `size` words, each starting `size - overlap` words after the one before."""

    name: ClassVar[str] = "overlapping"
    setting_names: ClassVar[tuple[str, ...]] = ("size", "overlap")

    def __init__(self, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP) -> None:
        self.size = check_positive("size", size)
        self.overlap = check_not_negative("overlap", overlap)
        if self.overlap >= self.size:
            raise UsageError(
                f"overlap must be smaller than size, got overlap {overlap} and size {size}"
            )

    def chunk(self, doc: Document) -> list[Chunk]:
        """Return the windows of one document."""
        text = doc.text
        last_end = len(text.rstrip())
        emitter = ChunkEmitter(doc, self.spec(), body_blocks(doc))
        pattern = window_pattern(self.size - self.overlap, self.overlap, has_unspaced(text))
        for match in pattern.finditer(text, 0, last_end):
            start, end = match.start(), match.end(1)
            if end == last_end:
                # Only the window reaching the end can fall short of `size` words.
                emitter.emit(start, end, NO_PREFIX, count_words(text[start:end]))
                break
            emitter.emit(start, end, NO_PREFIX, self.size)
        return emitter.chunks


class FixedChunker(OverlappingChunker):
    """Windows of `size` words, one after the other."""

    name: ClassVar[str] = "fixed"
    setting_names: ClassVar[tuple[str, ...]] = ("size",)

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        super().__init__(size=size, overlap=0)
