"""Tables on a PDF page: a cheap test for signs of one, then MuPDF's finder, then text rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policy_assistant.parse.pdf_lines import Line, clean_text, join_wrapped

CELL_SEPARATOR = " | "
"""Cells of one table row are joined by this in a table block's text."""
MIN_RULES = 3
"""Horizontal and vertical rules a page needs (each) before table detection runs on it."""
_THIN = 3.0
_MIN_RULE_LENGTH = 8.0
_AREA_PAD = 4.0


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


def _count_rules(items: list[tuple[Any, ...]]) -> tuple[int, int]:
    """Return (horizontal, vertical) rule counts among a path's items."""
    horizontal = vertical = 0
    for item in items:
        if item[0] == "l":
            (ax, ay), (bx, by) = item[1], item[2]
            w, h = abs(bx - ax), abs(by - ay)
        elif item[0] == "re":
            x0, y0, x1, y1 = item[1]
            w, h = abs(x1 - x0), abs(y1 - y0)
            if w >= _MIN_RULE_LENGTH and h >= _MIN_RULE_LENGTH:
                # A box has two rules of each kind: a cell or a frame.
                horizontal += 2
                vertical += 2
                continue
        else:
            continue
        if h < _THIN and w >= _MIN_RULE_LENGTH:
            horizontal += 1
        elif w < _THIN and h >= _MIN_RULE_LENGTH:
            vertical += 1
    return horizontal, vertical


def has_table_signs(drawings: list[dict[str, Any]]) -> bool:
    """Whether a page's vector drawings hold enough straight rules to frame a table."""
    horizontal = vertical = 0
    for path in drawings:
        h, v = _count_rules(path.get("items", ()))
        horizontal += h
        vertical += v
        if horizontal >= MIN_RULES and vertical >= MIN_RULES:
            return True
    return False


def _vertical(item: tuple[Any, ...]) -> tuple[float, float, float] | None:
    """Return (x, top, bottom) if a path item is a vertical rule."""
    if item[0] == "l":
        (ax, ay), (bx, by) = item[1], item[2]
    elif item[0] == "re":
        ax, ay, bx, by = item[1]
    else:
        return None
    if abs(bx - ax) < _THIN and abs(by - ay) >= _MIN_RULE_LENGTH:
        return (ax + bx) / 2, min(ay, by), max(ay, by)
    return None


def table_area(drawings: list[dict[str, Any]]) -> tuple[float, float, float, float] | None:
    """Return the box around a page's vertical rules and ruled boxes, where tables can be.

    The table finder reads every character inside its clip one by one; clipping it to
    the ruled area keeps a small table on a page of prose cheap.
    """
    boxes: list[tuple[float, float, float, float]] = []
    for path in drawings:
        for item in path.get("items", ()):
            if (rule := _vertical(item)) is not None:
                boxes.append((rule[0], rule[1], rule[0], rule[2]))
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1]
                if abs(x1 - x0) >= _MIN_RULE_LENGTH and abs(y1 - y0) >= _MIN_RULE_LENGTH:
                    boxes.append((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
    if not boxes:
        return None
    pad = _AREA_PAD
    return (
        min(b[0] for b in boxes) - pad,
        min(b[1] for b in boxes) - pad,
        max(b[2] for b in boxes) + pad,
        max(b[3] for b in boxes) + pad,
    )


def closing_lines(
    bboxes: list[tuple[float, float, float, float]], drawings: list[dict[str, Any]]
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Return rules that close tables whose column rules run on past their top or bottom.

    A table split across pages often loses the rule above its first row on the new page
    (or below its last row on the old one); the finder then drops that open row.
    """
    rules = [v for path in drawings for item in path.get("items", ()) if (v := _vertical(item))]
    lines = []
    for x0, y0, x1, y1 in bboxes:
        touching = [
            r for r in rules if x0 - 2 <= r[0] <= x1 + 2 and r[2] >= y0 - 1 and r[1] <= y1 + 1
        ]
        if not touching:
            continue
        top = min(r[1] for r in touching)
        bottom = max(r[2] for r in touching)
        if top < y0 - _THIN:
            lines.append(((x0, top), (x1, top)))
        if bottom > y1 + _THIN:
            lines.append(((x0, bottom), (x1, bottom)))
    return lines


def clean_cell(cell: str | None) -> str:
    """Return a cell's text on one line: wrapped lines joined, hyphenation mended."""
    if not cell:
        return ""
    text = ""
    for raw in cell.split("\n"):
        piece = clean_text(raw, mono=False)
        if piece:
            text = join_wrapped(text, piece) if text else piece
    return text


def table_from_found(found: Any, page: int) -> Table | None:
    """Turn one of MuPDF's tables into a Table; None for a frame that is no real table."""
    # The first ruled row is the header. MuPDF's guess at a header above the ruled area
    # is not used: it takes the heading or the sentence just above the table.
    rows = [[clean_cell(cell) for cell in row] for row in found.extract()]
    rows = [row for row in rows if any(row)]
    if len(rows) < 2 or max(len(row) for row in rows) < 2:
        # A boxed paragraph is found as a 1-row or 1-column "table": keep it as prose.
        return None
    x0, y0, x1, y1 = found.bbox
    return Table(x0, y0, x1, y1, page, rows)


def table_text(rows: list[list[str]]) -> str:
    """Return a table's text: one row per line, cells joined by ' | ', header first."""
    # An empty last cell would leave a trailing space that the builder strips anyway.
    return "\n".join(CELL_SEPARATOR.join(row).rstrip() for row in rows)


def same_row(a: list[str], b: list[str]) -> bool:
    """Whether two rows hold the same cell texts, ignoring case and spacing."""
    return [" ".join(c.split()).casefold() for c in a] == [
        " ".join(c.split()).casefold() for c in b
    ]
