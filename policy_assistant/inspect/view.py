"""The marked view: which chunks cover each word, where each chunk starts and ends, and why a
start is a cut (✂). Pure: a Document and its chunks in, a View out; the terminal and the HTML
page draw the same View.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from policy_assistant.inspect.layout import Layout, build_layout
from policy_assistant.inspect.readout import Readout, build_readout, start_cuts
from policy_assistant.records import Chunk, Document

UNCOVERED = "uncovered"
"""State of a word that no chunk holds."""
OVERLAP = "overlap"
"""State of a word that two chunks or more hold."""
SLOTS = ("a", "b")
"""States of a word in one chunk: odd chunks are drawn in the first colour, even in the second."""


@dataclass(frozen=True, slots=True)
class ChunkMark:
    """Where one chunk is drawn over the layout."""

    chunk: Chunk
    """The chunk itself."""
    number: int
    """Its number as shown, from 1 (position + 1 for a chunker's own output)."""
    first: int
    """Index of the body's first word, or -1 for a body without words."""
    last: int
    """Index of the body's last word, or -2 for a body without words."""
    start_at: int
    """The drawn word the start mark ⟦n goes before."""
    end_at: int | None
    """The drawn word the end mark n⟧ goes after; None where the next chunk's start shows it."""
    cut: str | None
    """What the chunk starts inside ('sentence', 'list item', 'table row', ...) or None."""

    @property
    def slot(self) -> str:
        """The colour slot of the chunk's words that no other chunk holds."""
        return SLOTS[(self.number - 1) % len(SLOTS)]


@dataclass(frozen=True, slots=True)
class View:
    """A document with its chunks drawn over it."""

    document: Document
    """The document as the parser reads it."""
    layout: Layout
    """Its words and lines."""
    marks: tuple[ChunkMark, ...]
    """One per chunk, in the chunks' order."""
    coverage: tuple[tuple[int, ...], ...]
    """For each word, the numbers of the chunks that hold it."""
    readout: Readout
    """The figures under the view."""

    def state(self, word: int) -> str:
        """Return how word `word` is drawn: 'a' or 'b' (one chunk), OVERLAP or UNCOVERED."""
        numbers = self.coverage[word]
        if not numbers:
            return UNCOVERED
        if len(numbers) > 1:
            return OVERLAP
        return SLOTS[(numbers[0] - 1) % len(SLOTS)]

    def starts_before(self) -> dict[int, list[ChunkMark]]:
        """Return the chunks whose start mark goes before each drawn word."""
        found: dict[int, list[ChunkMark]] = {}
        for mark in self.marks:
            found.setdefault(mark.start_at, []).append(mark)
        return found

    def ends_after(self) -> dict[int, list[ChunkMark]]:
        """Return the chunks whose end mark goes after each drawn word."""
        found: dict[int, list[ChunkMark]] = {}
        for mark in self.marks:
            if mark.end_at is not None:
                found.setdefault(mark.end_at, []).append(mark)
        return found


def build_view(doc: Document, chunks: list[Chunk], layout: Layout | None = None) -> View:
    """Return the view of `chunks` (one document's, in order) drawn over `doc`."""
    layout = layout or build_layout(doc)
    spans = [_word_range(layout, chunk.start, chunk.end) for chunk in chunks]
    cuts = start_cuts(doc, chunks)
    marks = tuple(
        _mark(layout, chunk, number, spans, cuts[number - 1])
        for number, chunk in enumerate(chunks, start=1)
    )
    coverage = _coverage(len(layout.words), spans)
    readout = build_readout(doc, chunks, coverage)
    return View(doc, layout, marks, coverage, readout)


def _word_range(layout: Layout, start: int, end: int) -> tuple[int, int]:
    """Return the first and last index of the words that text[start:end] touches."""
    first = bisect_right(layout.ends, start)
    last = bisect_left(layout.starts, end) - 1
    return (first, last) if first <= last else (-1, -2)


def _coverage(count: int, spans: list[tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    cover: list[list[int]] = [[] for _ in range(count)]
    for number, (first, last) in enumerate(spans, start=1):
        for word in range(max(first, 0), last + 1):
            cover[word].append(number)
    return tuple(tuple(numbers) for numbers in cover)


def _mark(
    layout: Layout,
    chunk: Chunk,
    number: int,
    spans: list[tuple[int, int]],
    cut: str | None,
) -> ChunkMark:
    first, last = spans[number - 1]
    if first < 0:
        # A body without words still gets its start mark, at the word after its offset.
        at = max(min(bisect_left(layout.starts, chunk.start), len(layout.words) - 1), 0)
        return ChunkMark(chunk, number, first, last, _drawn_from(layout, at), at, cut)
    following = spans[number] if number < len(spans) else None
    # The end goes without saying where the next chunk starts on the very next word.
    implied = following is not None and following[0] == last + 1
    end_at = None if implied else _drawn_back(layout, last, first)
    return ChunkMark(chunk, number, first, last, _drawn_from(layout, first), end_at, cut)


def _drawn_from(layout: Layout, word: int) -> int:
    """Return the first drawn word at or after `word` (or `word` if none is)."""
    for index in range(word, len(layout.words)):
        if index not in layout.hidden:
            return index
    return word


def _drawn_back(layout: Layout, word: int, floor: int) -> int:
    """Return the last drawn word at or before `word`, not before `floor` (or `word`)."""
    for index in range(word, floor - 1, -1):
        if index not in layout.hidden:
            return index
    return word
