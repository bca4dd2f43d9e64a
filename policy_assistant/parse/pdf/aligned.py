"""Tables set with whitespace: columns found from aligned text where no rule marks them.

Financial statements and statistics are often set without a single rule: a label on the
left and figures in columns, aligned only by their position. Such a table shows on the
page as a run of rows whose text stands in separate pieces with wide gaps between them.

- *Candidate regions* come from the page's lines alone (cheap): consecutive rows set in
  two or more pieces, with short one-piece rows (a "Current assets" label) allowed
  between them. Nothing else on the page is looked at again.
- *Columns* come from the x-positions of the region's words: an x that (nearly) no piece
  of a split row covers is a gutter, so right-aligned figures and left-aligned labels
  both give their columns; a piece that runs over a gutter goes to the cell it starts in.
- The region is a table only if it looks like one: a column of figures, short cells, and
  (the grid check of `pdf_tables.table_from_grid`) every word of the area in a cell. Two
  columns of prose, a definition list or an index page have no column of figures or no
  short cells, so they stay prose.

Rows come from the lines of text, so a row whose first cell is empty goes on the row above
(`table_from_grid`): the units row under the years joins the header row, and a table split
between chunks repeats both with every piece.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from policy_assistant.parse.pdf.lines import Line
from policy_assistant.parse.pdf.rules import Box
from policy_assistant.parse.pdf.tables import Table, Word, table_from_grid

ENABLED = True
"""Whether tables set with whitespace are looked for; off gives the parser without them,
which scripts/whitespace_tables.py measures against."""
GAP = 1.0
"""A gap between two pieces of one row at least this many font sizes wide parts cells."""
EDGE_BAND = 0.06
"""Share of the page's height at its top and at its bottom where only running lines stand."""
MIN_SPLIT_ROWS = 3
"""Rows set in two or more pieces a region needs."""
ROW_SPACING = 2.6
"""Rows further apart than this many line heights are not one table."""
LABEL_SHARE = 0.5
"""A one-piece row inside a region is at most this share of the region's width."""
SPANNING_SHARE = 0.15
"""A gutter may be crossed by at most this share of the split rows' pieces."""
NUMERIC_SHARE = 0.6
"""A column of figures has at least this share of its filled cells numeric."""
MIN_FIGURES = 3
"""...and at least this many."""
MIN_ASCENDING = 3
"""Columns of ascending whole numbers that make a table with no other figures."""
MAX_CELL_WORDS = 4.0
"""Cells outside the first column hold at most this many words on average."""
MAX_LABEL_WORDS = 6
"""...and half the first column's at most this many: more is a column of prose."""

_LEADER = re.compile(r"\.\s?\.|…")
_FIGURE = re.compile(
    r"^[(\-–—+]?[$€£¥]?[\d.,]*\d[\d.,]*\d?%?\)?[*†]?$|^[-–—]$|^\d[\d.,]*[-–]\d[\d.,]*$"
)
"""One figure: 12,345  (7,210)  -3.5  4%  $2.60  .95*  41–54, or a dash for nil; not "12,"."""
_CURRENCY = {"$", "€", "£", "¥", "%"}
MAX_FIGURES_IN_CELL = 4
"""A cell of figures holds at most this many (a colour's "0 0.74998 1 0")."""

Row = list[Line]


def _rows(lines: Sequence[Line]) -> list[Row]:
    """Group lines into rows: lines whose middles lie within one another's height."""
    rows: list[Row] = []
    top = bottom = 0.0
    for line in sorted(lines, key=lambda ln: ((ln.y0 + ln.y1) / 2, ln.x0)):
        middle = (line.y0 + line.y1) / 2
        if rows and top <= middle <= bottom:
            rows[-1].append(line)
            top, bottom = min(top, line.y0), max(bottom, line.y1)
        else:
            rows.append([line])
            top, bottom = line.y0, line.y1
    for row in rows:
        row.sort(key=lambda ln: ln.x0)
    return rows


def _pieces(row: Row) -> int:
    """Return how many pieces a row is set in, parted by gaps of GAP font sizes."""
    pieces = 1
    for before, after in itertools.pairwise(row):
        if after.x0 - before.x1 >= GAP * max(before.size, after.size, 1.0):
            pieces += 1
    return pieces


def _split(row: Row) -> bool:
    """Whether a row is set in pieces like a table row (not code, not a contents entry).

    Code beside its output is an example, not a table: a row with monospaced text is none.
    A row with dot leaders is none: it leads a contents or index entry to its pages.
    """
    if any(line.mono for line in row):
        return False
    if any(_LEADER.search(line.text) for line in row):
        return False  # a contents or index entry, in one column or two
    return _pieces(row) >= 2


def _box(rows: list[Row]) -> Box:
    lines = [line for row in rows for line in row]
    return (
        min(ln.x0 for ln in lines),
        min(ln.y0 for ln in lines),
        max(ln.x1 for ln in lines),
        max(ln.y1 for ln in lines),
    )


def _close_enough(above: Row, below: Row) -> bool:
    """Whether two rows follow each other at a table's spacing."""
    height = max(ln.y1 - ln.y0 for ln in above)
    return min(ln.y0 for ln in below) - max(ln.y1 for ln in above) <= ROW_SPACING * height


def _trim(run: list[Row]) -> list[Row]:
    """Drop the one-piece rows a run ends with: they follow the table, not belong to it."""
    while run and not _split(run[-1]):
        run.pop()
    return run


def candidate_regions(
    lines: Sequence[Line], taken: Sequence[Box], height: float = 0.0
) -> list[Box]:
    """Return the boxes of runs of split rows, outside the areas already taken by tables.

    Lines in the page's top and bottom bands (EDGE_BAND of its height) are left out: a
    running head with its page number is set in two pieces too.
    """
    top, bottom = EDGE_BAND * height, (1 - EDGE_BAND) * height if height else float("inf")
    free = [
        ln
        for ln in lines
        if ln.y1 > top and ln.y0 < bottom and not any(_inside(ln, box) for box in taken)
    ]
    rows = _rows(free)
    if all(len(row) == 1 for row in rows):
        return []  # no row in pieces: prose, the common page, costs one pass
    regions: list[Box] = []
    run: list[Row] = []
    for row in rows:
        if run and not _close_enough(run[-1], row):
            regions.extend(_region(_trim(run)))
            run = []
        if _split(row) or (run and _short(row, run)):
            run.append(row)
        else:
            regions.extend(_region(_trim(run)))
            run = []
    regions.extend(_region(_trim(run)))
    return regions


def _short(row: Row, run: list[Row]) -> bool:
    """Whether a one-piece row is short next to the run it would join (a label)."""
    x0, _, x1, _ = _box(run)
    return _box([row])[2] - _box([row])[0] <= LABEL_SHARE * (x1 - x0)


def _gap(above: Row, below: Row) -> float:
    return min(ln.y0 for ln in below) - max(ln.y1 for ln in above)


def _drop_detached_top(run: list[Row]) -> list[Row]:
    """Drop leading rows set apart from the rest by more than twice the usual spacing.

    A running head with its page number is a row in two pieces above the body; a table's
    header row stands as close to its first row as the rows stand to one another.
    """
    while len(run) >= MIN_SPLIT_ROWS + 1:
        gaps = sorted(_gap(a, b) for a, b in itertools.pairwise(run))
        usual = gaps[len(gaps) // 2]
        if _gap(run[0], run[1]) <= 2 * max(usual, 1.0):
            break
        run = run[1:]
    return run


def _region(run: list[Row]) -> list[Box]:
    run = _drop_detached_top(run)
    if sum(1 for row in run if _split(row)) < MIN_SPLIT_ROWS:
        return []
    return [_box(run)]


def _inside(line: Line, box: Box) -> bool:
    cx, cy = (line.x0 + line.x1) / 2, (line.y0 + line.y1) / 2
    return box[0] - 1 <= cx <= box[2] + 1 and box[1] - 1 <= cy <= box[3] + 1


def _word_rows(words: list[Word]) -> list[list[Word]]:
    """Group words into rows by their middle height, each row left to right."""
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        middle = (word[1] + word[3]) / 2
        if rows and min(w[1] for w in rows[-1]) <= middle <= max(w[3] for w in rows[-1]):
            rows[-1].append(word)
        else:
            rows.append([word])
    for row in rows:
        row.sort(key=lambda w: w[0])
    return rows


def _word_pieces(row: list[Word]) -> list[tuple[float, float]]:
    """Return the x extents of a row's pieces: words closer than GAP heights are one."""
    pieces: list[list[float]] = []
    for word in row:
        height = word[3] - word[1]
        if pieces and word[0] - pieces[-1][1] < GAP * 0.8 * height:
            pieces[-1][1] = max(pieces[-1][1], word[2])
        else:
            pieces.append([word[0], word[2]])
    return [(a, b) for a, b in pieces]


def _gutters(rows: list[list[Word]], box: Box) -> list[float]:
    """Return the x of each gutter: the middle of a stretch few split rows' pieces cover."""
    split = [p for p in (_word_pieces(row) for row in rows) if len(p) >= 2]
    if not split:
        return []
    left, right = int(box[0]), int(box[2]) + 1
    cover = [0] * (right - left + 1)
    for pieces in split:
        for a, b in pieces:
            for x in range(max(int(a), left), min(int(b) + 1, right) + 1):
                cover[x - left] += 1
    allowed = int(SPANNING_SHARE * len(split))
    height = min(w[3] - w[1] for row in rows for w in row)
    gutters: list[float] = []
    start: int | None = None
    for i, count in enumerate([*cover, allowed + 1]):
        if count <= allowed and start is None:
            start = i
        elif count > allowed and start is not None:
            if start > 0 and i < len(cover) and i - start >= 0.5 * height:
                gutters.append(left + (start + i) / 2)
            start = None
    return gutters


def _numeric(cell: str) -> bool:
    """Whether a cell holds figures only, a few of them (a lone currency sign aside)."""
    words = [word for word in cell.split() if word not in _CURRENCY]
    if not words or len(words) > MAX_FIGURES_IN_CELL:
        return False
    return all(_FIGURE.match(word) and not word.endswith(",") for word in words)


def _mean_words(cells: list[str]) -> float:
    return sum(len(cell.split()) for cell in cells) / len(cells) if cells else 0.0


def _ascending(cells: list[str]) -> bool:
    """Whether cells are whole numbers that never go down: line, equation or page numbers."""
    bare = [cell.strip().strip("()") for cell in cells]
    numbers = [int(cell) for cell in bare if cell.isdigit()]
    steps = [b - a for a, b in itertools.pairwise(numbers)]
    return len(numbers) == len(cells) and bool(steps) and all(step >= 0 for step in steps)


def looks_like_table(rows: list[list[str]]) -> bool:
    """Whether rows of cells read as a table: a column of figures, short cells elsewhere.

    Figures hold a digit: a column of dashes is a syntax diagram's, not a table's. A first
    column of long cells is prose. Columns of whole numbers that never go down are line
    numbers beside prose, or the page numbers of a contents list (two of them when it is
    set in two columns), unless there are MIN_ASCENDING of them.
    """
    columns = max((len(row) for row in rows), default=0)
    figures: list[bool] = []
    rest: list[str] = []
    for c in range(1, columns):
        filled = [row[c] for row in rows if c < len(row) and row[c].strip()]
        numbers = sum(_numeric(cell) for cell in filled)
        digits = sum(_numeric(cell) and any(ch.isdigit() for ch in cell) for cell in filled)
        if digits >= MIN_FIGURES and numbers >= NUMERIC_SHARE * len(filled):
            figures.append(not _ascending(filled))
        rest += filled
    labels = [row[0] for row in rows if row and row[0].strip()]
    label_words = sorted(len(label.split()) for label in labels)
    prose = bool(label_words) and label_words[len(label_words) // 2] > MAX_LABEL_WORDS
    short = _mean_words(rest) <= MAX_CELL_WORDS and not prose
    return (any(figures) or len(figures) >= MIN_ASCENDING) and short


def aligned_table(words: list[Word], region: Box, page: int) -> Table | None:
    """Return the table set with whitespace in a candidate region, or None if it is none."""
    inside = [w for w in words if _word_inside(w, region)]
    rows = _word_rows(inside)
    gutters = _gutters(rows, region)
    if not gutters or len(rows) < 2:
        return None
    edges = [region[0] - 1, *gutters, region[2] + 1]
    tops = [region[1] - 1]
    tops += [(max(w[3] for w in a) + min(w[1] for w in b)) / 2 for a, b in itertools.pairwise(rows)]
    tops.append(region[3] + 1)
    grid: list[list[Box | None]] = [
        [(edges[c], tops[r], edges[c + 1], tops[r + 1]) for c in range(len(edges) - 1)]
        for r in range(len(rows))
    ]
    box = (edges[0], tops[0], edges[-1], tops[-1])
    table = table_from_grid(grid, inside, box, page, ruled=False)
    if table is None or not looks_like_table(table.rows):
        return None
    return table


def _word_inside(word: Word, box: Box) -> bool:
    middle = (word[1] + word[3]) / 2
    return box[0] - 1 <= word[0] + 1 <= box[2] + 1 and box[1] - 1 <= middle <= box[3] + 1
