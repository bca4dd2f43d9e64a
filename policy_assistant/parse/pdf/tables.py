"""Tables on a PDF page: MuPDF's finder where pdf_rules sees signs of one, then cell texts.

A cell's text is built from the page's words, each placed in the cell where it starts:
text that overflows its column (a long word, a URL) stays whole in its own cell instead
of being cut at the column rule, and the lines of a wrapped cell are joined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policy_assistant.parse.pdf.lines import Line, clean_text, join_wrapped
from policy_assistant.parse.pdf.rules import THIN, Box, vertical_rules

Word = tuple[float, float, float, float, str, int, int, int]
"""A word as pymupdf's get_text("words") gives it: x0, y0, x1, y1, text, block, line, number."""

CELL_SEPARATOR = " | "
"""Cells of one table row are joined by this in a table block's text."""


@dataclass(slots=True)
class Table:
    """A table found on one page: its area and its rows of cell texts, header row first."""

    x0: float
    """Left edge."""
    y0: float
    """Top edge."""
    x1: float
    """Right edge."""
    y1: float
    """Bottom edge."""
    page: int
    """1-based page number."""
    rows: list[list[str]]
    """Rows of cell texts; the first row is the header."""

    def contains(self, line: Line) -> bool:
        """Whether the centre of line lies inside the table."""
        cx = (line.x0 + line.x1) / 2
        cy = (line.y0 + line.y1) / 2
        return self.x0 - 1 <= cx <= self.x1 + 1 and self.y0 - 1 <= cy <= self.y1 + 1

    @property
    def columns(self) -> int:
        """Number of columns."""
        return max((len(row) for row in self.rows), default=0)


def closing_lines(
    bboxes: list[tuple[float, float, float, float]], drawings: list[dict[str, Any]]
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Return rules that close tables whose column rules run on past their top or bottom.

    A table split across pages often loses the rule above its first row on the new page
    (or below its last row on the old one); the finder then drops that open row.
    """
    rules = vertical_rules(drawings)
    lines = []
    for x0, y0, x1, y1 in bboxes:
        touching = [
            r for r in rules if x0 - 2 <= r[0] <= x1 + 2 and r[2] >= y0 - 1 and r[1] <= y1 + 1
        ]
        if not touching:
            continue
        top = min(r[1] for r in touching)
        bottom = max(r[2] for r in touching)
        if top < y0 - THIN:
            lines.append(((x0, top), (x1, top)))
        if bottom > y1 + THIN:
            lines.append(((x0, bottom), (x1, bottom)))
    return lines


Cell = tuple[int, int, Box]
"""(row, column, box) of one cell of a grid."""


def _cell_of(word: Word, cells: list[Cell]) -> tuple[int, int] | None:
    """Return (row, column) of the cell where a word starts; None if it starts in none.

    The smallest cell holding the point wins: a cell spanning rows or columns holds the
    cells it covers in its box, and they come out of MuPDF's grid as no cell at all.
    cells need only be those whose height holds the word's middle.
    """
    start = word[0] + min(1.0, (word[2] - word[0]) / 2)
    for x in (start, (word[0] + word[2]) / 2):
        holding = [(r, c, box) for r, c, box in cells if box[0] - 0.5 <= x <= box[2] + 0.5]
        if holding:
            r, c, _ = min(holding, key=lambda h: (h[2][2] - h[2][0]) * (h[2][3] - h[2][1]))
            return r, c
    return None


def _cells_at(cells: list[Cell], centre_y: float, memo: dict[float, list[Cell]]) -> list[Cell]:
    """Return the cells whose height holds centre_y; the words of one line share them."""
    if centre_y not in memo:
        memo[centre_y] = [
            cell for cell in cells if cell[2][1] - 0.5 <= centre_y <= cell[2][3] + 0.5
        ]
    return memo[centre_y]


def _cell_text(words: list[Word]) -> str:
    """Join a cell's words: spaces within a line, wrapped lines mended."""
    text = ""
    line: tuple[int, int] | None = None
    for word in words:
        piece = clean_text(word[4], mono=False)
        if not piece:
            continue
        key = (word[5], word[6])
        if not text:
            text = piece
        elif key == line:
            text = f"{text} {piece}"
        else:
            text = join_wrapped(text, piece)
        line = key
    return text


def _cell_texts(
    rows: list[list[Box | None]], words: list[Word]
) -> tuple[list[list[str]], list[Word]]:
    """Return the text of every cell of a table grid from the words of its area.

    Also return the words of the area that start in no cell: a grid that leaves words
    out is no table of that area (a paragraph between two tables, a figure's labels).
    """
    cells = [(r, c, box) for r, row in enumerate(rows) for c, box in enumerate(row) if box]
    placed: list[list[list[Word]]] = [[[] for _ in row] for row in rows]
    unplaced: list[Word] = []
    memo: dict[float, list[Cell]] = {}
    for word in sorted(words, key=lambda w: (w[5], w[6], w[7])):
        found = _cell_of(word, _cells_at(cells, (word[1] + word[3]) / 2, memo))
        if found is not None:
            placed[found[0]][found[1]].append(word)
        elif any(ch.isalnum() for ch in word[4]):
            unplaced.append(word)
    return [[_cell_text(cell) for cell in row] for row in placed], unplaced


def widen(grid: list[list[Box | None]], found: Box, area: Box) -> Box:
    """Stretch a grid's outer columns, in place, to the ends of its area; return the box.

    The area is padded for the finder's sake: the box returned lies just inside its rules.
    """
    left, right = min(found[0], area[0] + 3), max(found[2], area[2] - 3)
    for row in grid:
        if row and row[0] is not None:
            row[0] = (left, *row[0][1:])
        if row and row[-1] is not None:
            row[-1] = (*row[-1][:2], right, row[-1][3])
    return (left, found[1], right, found[3])


def _join_continued_rows(rows: list[list[str]]) -> list[list[str]]:
    """Merge a row whose first cell is empty into the row above: its wrapped cells go on."""
    merged: list[list[str]] = []
    for row in rows:
        if merged and not row[0] and len(row) == len(merged[-1]):
            merged[-1] = [
                join_wrapped(a, b) if a and b else a or b
                for a, b in zip(merged[-1], row, strict=True)
            ]
        else:
            merged.append(row)
    return merged


def table_from_grid(
    grid: list[list[Box | None]], words: list[Word], box: Box, page: int, ruled: bool
) -> Table | None:
    """Turn a grid of cell boxes found by MuPDF into a Table; None for no real table.

    Rows of a table without horizontal rules between them come from its lines of text,
    so there a row that leaves its first cell empty continues the row above. A grid whose
    cells do not account for every word of its area is not taken: its lines stay prose.
    """
    # The first row of the grid is the header. MuPDF's guess at a header above the ruled
    # area is not used: it takes the heading or the sentence just above the table.
    texts, unplaced = _cell_texts(grid, words)
    if unplaced:
        return None
    rows = [row for row in texts if any(row)]
    if not ruled:
        rows = _join_continued_rows(rows)
    # Columns that no row fills are gaps the text strategy took for columns.
    keep = [
        c
        for c in range(max((len(r) for r in rows), default=0))
        if any(c < len(r) and r[c] for r in rows)
    ]
    rows = [[r[c] if c < len(r) else "" for c in keep] for r in rows]
    if len(rows) < 2 or len(keep) < 2:
        # A boxed paragraph is found as a 1-row or 1-column "table": keep it as prose.
        return None
    return Table(*box, page, rows)


def table_text(rows: list[list[str]]) -> str:
    """Return a table's text: one row per line, cells joined by ' | ', header first."""
    # An empty first or last cell would leave a space at the row's end: a block's text
    # neither starts nor ends with one.
    return "\n".join(CELL_SEPARATOR.join(row).strip() for row in rows)


def same_row(a: list[str], b: list[str]) -> bool:
    """Whether two rows hold the same cell texts, ignoring case and spacing."""
    return [" ".join(c.split()).casefold() for c in a] == [
        " ".join(c.split()).casefold() for c in b
    ]
