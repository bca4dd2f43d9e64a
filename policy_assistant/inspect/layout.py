"""The document as it is drawn: words, lines, table cells and page breaks, with no chunks yet.

The layout depends on the document alone, so a page that shows twelve chunkings of one
document computes it once. Words are `text.word_spans`, the project's one definition of a word;
every word, drawn or not, keeps its index, so chunk coverage is counted on the same words the
chunkers count. The cell separator of a table row (the word "|") is the one word not drawn: the
cells are drawn as a grid instead.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from policy_assistant.chunk.base import body_blocks
from policy_assistant.records import Block, Document
from policy_assistant.text import word_spans

CELL_SEPARATOR = "|"
"""The word between two cells of a table row (the parser joins cells with ' | ')."""


@dataclass(frozen=True, slots=True)
class Line:
    """One drawn line: a heading, a paragraph, a list item, a code line or a table row."""

    kind: str
    """The kind of the block the line belongs to."""
    block: int
    """Index of that block in the document's blocks."""
    level: int | None
    """Heading level, None for other kinds."""
    cells: tuple[tuple[int, ...], ...]
    """Word indices of each cell: a table row has one tuple per cell, other lines one."""
    indent: int = 0
    """Characters of leading whitespace (code lines keep their indentation)."""
    bullet: bool = False
    """Whether the line is an unordered list item: the parser keeps ordinals, not bullets."""


@dataclass(frozen=True, slots=True)
class PageBreak:
    """The place where a PDF page starts."""

    page: int
    """The 1-based page that starts here."""


@dataclass(frozen=True, slots=True)
class Layout:
    """A document's words and the lines they are drawn in, in reading order."""

    words: tuple[tuple[int, int], ...]
    """Half-open span of every word in the document's text."""
    starts: tuple[int, ...]
    """Offset where each word starts (for bisecting)."""
    ends: tuple[int, ...]
    """Offset one past where each word ends (for bisecting)."""
    items: tuple[Line | PageBreak, ...]
    """Lines and page breaks, in reading order."""
    hidden: frozenset[int]
    """Indices of words that are not drawn (table cell separators)."""

    def word_text(self, text: str, index: int) -> str:
        """Return the text of word `index` in the document's `text`."""
        start, end = self.words[index]
        return text[start:end]

    def lines(self) -> list[Line]:
        """Return the lines alone, without the page breaks."""
        return [item for item in self.items if isinstance(item, Line)]


def build_layout(doc: Document) -> Layout:
    """Return the drawn layout of a document (blocks, their lines and the page breaks)."""
    words = tuple(word_spans(doc.text))
    starts = tuple(start for start, _ in words)
    builder = _LayoutBuilder(doc, words)
    for index, block in enumerate(body_blocks(doc)):
        for line_start, line_end in _line_spans(doc.text, block):
            first = bisect_left(starts, line_start)
            last = bisect_left(starts, line_end)
            builder.add_line(block, index, line_start, range(first, last))
    builder.finish()
    ends = tuple(end for _, end in words)
    return Layout(words, starts, ends, tuple(builder.items), frozenset(builder.hidden))


def is_ordinal(word: str) -> bool:
    """Return whether a word is a list item's ordinal: '1.', '12)', 'b.'."""
    return len(word) <= 4 and word[-1:] in (".", ")") and word[:-1].isalnum()


def _line_spans(text: str, block: Block) -> list[tuple[int, int]]:
    """Return the spans of a block's lines: tables and code line by line, the rest whole."""
    if block.kind not in ("table", "code"):
        return [(block.start, block.end)]
    spans = []
    pos = block.start
    while pos <= block.end:
        stop = text.find("\n", pos, block.end)
        stop = block.end if stop < 0 else stop
        if text[pos:stop].strip():
            spans.append((pos, stop))
        pos = stop + 1
    return spans


class _LayoutBuilder:
    """Collect lines, splitting one where a page starts inside it."""

    def __init__(self, doc: Document, words: tuple[tuple[int, int], ...]) -> None:
        self.text = doc.text
        self.words = words
        self.breaks = list(enumerate(doc.pages[1:], start=2))
        self.items: list[Line | PageBreak] = []
        self.hidden: set[int] = set()

    def add_line(self, block: Block, index: int, line_start: int, indices: range) -> None:
        """Add one line of a block, with a page break before any word that starts a page."""
        is_table = block.kind == "table"
        cells: list[list[int]] = [[]]
        for word in indices:
            pages = self._pages_starting_before(word)
            if pages:
                self._emit(block, index, cells, line_start)
                self.items.extend(PageBreak(page) for page in pages)
                cells = [[]]
            if is_table and self._word(word) == CELL_SEPARATOR:
                self.hidden.add(word)
                cells.append([])
            else:
                cells[-1].append(word)
        self._emit(block, index, cells, line_start)

    def finish(self) -> None:
        """Add the page breaks that no word follows (blank trailing pages)."""
        self.items.extend(PageBreak(page) for page, _ in self.breaks)
        self.breaks = []

    def _word(self, index: int) -> str:
        start, end = self.words[index]
        return self.text[start:end]

    def _pages_starting_before(self, word: int) -> list[int]:
        pages = []
        while self.breaks and self.breaks[0][1] <= self.words[word][0]:
            pages.append(self.breaks.pop(0)[0])
        return pages

    def _emit(self, block: Block, index: int, cells: list[list[int]], line_start: int) -> None:
        if not any(cells):
            return
        first = next(cell[0] for cell in cells if cell)
        indent = self.words[first][0] - line_start if block.kind == "code" else 0
        level = block.level if block.kind == "heading" else None
        bullet = block.kind == "list_item" and not is_ordinal(self._word(first))
        frozen = tuple(tuple(c) for c in cells)
        self.items.append(Line(block.kind, index, level, frozen, max(indent, 0), bullet))
