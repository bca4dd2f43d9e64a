"""Reading order on a page: blocks split at gutters, bands split by wide blocks, columns,
and footnotes moved to the end of their page's body."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

from policy_assistant.parse.pdf.layout import PageContent
from policy_assistant.parse.pdf.lines import Line
from policy_assistant.parse.pdf.tables import Table

WIDE_SHARE = 0.6
"""A region wider than this share of the text area spans the columns and splits bands."""
ROW_TOLERANCE = 3.0
"""Regions whose tops are this close (points) stand on one row."""
GUTTER_WIDTH = 6.0
"""A gutter between columns is at least this wide (points)."""
MIN_COLUMN_LINES = 3
"""Lines a column of text holds at least, on each side of a gutter..."""
COLUMN_SHARE = 0.2
"""...and the share of the band's width it is at least as wide as."""
FOOTNOTE_ZONE = 0.5
"""Footnotes start below this share of the page height."""

_FOOTNOTE_MARK = re.compile(r"^(?:\d{1,3}\.?|[*†‡§¶]+|[\u00b9\u00b2\u00b3\u2070-\u2079]+)\s*\S")


@dataclass(slots=True)
class Region:
    """A text block or a table: the unit that reading order moves."""

    x0: float
    """Left edge."""
    y0: float
    """Top edge."""
    x1: float
    """Right edge."""
    y1: float
    """Bottom edge."""
    lines: list[Line] = field(default_factory=list)
    """The block's lines; empty for a table."""
    table: Table | None = None
    """The table, if the region is one."""


def _split_at_gutters(lines: list[Line]) -> list[list[Line]]:
    """Split one MuPDF block into columns where its lines stand side by side across a gap.

    MuPDF may put two columns' lines, set on the same baselines with a narrow gutter, in
    one block; read as one, the columns interleave line by line. The lines' x extents
    that overlap form one column; columns that share no height are one block after all.
    """
    # Code keeps its columns: a comment set far right belongs to its line.
    if len(lines) < 2 or any(line.mono for line in lines):
        return [lines]
    groups: list[list[Line]] = []
    right = -math.inf
    for line in sorted(lines, key=lambda ln: ln.x0):
        if line.x0 > right:
            groups.append([])
        groups[-1].append(line)
        right = max(right, line.x1)
    if len(groups) < 2 or not _groups_side_by_side(groups):
        return [lines]
    order = {id(line): index for index, line in enumerate(lines)}
    return [sorted(group, key=lambda ln: order[id(ln)]) for group in groups]


def _groups_side_by_side(groups: list[list[Line]]) -> bool:
    """Whether some line of one group shares height with a line of the next group."""
    for a, b in itertools.pairwise(groups):
        if any(min(x.y1, y.y1) - max(x.y0, y.y0) > 0 for x in a for y in b):
            return True
    return False


def _regions(page: PageContent) -> list[Region]:
    """Group a page's lines by MuPDF block, and add its tables, as regions."""
    by_block: dict[int, list[Line]] = {}
    for line in page.lines:
        by_block.setdefault(line.block, []).append(line)
    regions = [
        Region(
            min(ln.x0 for ln in lines),
            min(ln.y0 for ln in lines),
            max(ln.x1 for ln in lines),
            max(ln.y1 for ln in lines),
            lines,
        )
        for block in by_block.values()
        for lines in _split_at_gutters(block)
    ]
    regions.extend(Region(t.x0, t.y0, t.x1, t.y1, table=t) for t in page.tables)
    return regions


def _row_aligned(columns: list[list[Region]]) -> bool:
    """Whether most regions are short lines level with one in another column: a form."""
    level = 0
    for index, column in enumerate(columns):
        others = [r.y0 for j, col in enumerate(columns) if j != index for r in col]
        level += sum(
            1
            for r in column
            if len(r.lines) <= 2 and any(abs(r.y0 - y0) < ROW_TOLERANCE for y0 in others)
        )
    return level > sum(len(col) for col in columns) / 2


def _columns(band: list[Region]) -> list[list[Region]] | None:
    """Split a band's regions into columns by gaps in x; None if it is not column text."""
    ordered = sorted(band, key=lambda r: r.x0)
    columns: list[list[Region]] = []
    right = -math.inf
    for region in ordered:
        if region.x0 > right:
            columns.append([])
        columns[-1].append(region)
        right = max(right, region.x1)
    # Labels level with their values read across, row by row, not down each column; and
    # blocks that never stand side by side (a centred caption below an indented list
    # item) are one column read top to bottom.
    if len(columns) < 2 or _row_aligned(columns) or not _side_by_side(columns):
        return None
    return columns


def _side_by_side(columns: list[list[Region]]) -> bool:
    """Whether some region of one column shares height with a region of another column."""
    for index, column in enumerate(columns):
        for other in columns[index + 1 :]:
            for a in column:
                if any(min(a.y1, b.y1) - max(a.y0, b.y0) > 0 for b in other):
                    return True
    return False


def _gutters(band: list[Region]) -> list[tuple[float, float]]:
    """Return the x intervals, GUTTER_WIDTH wide or more, that no region of a band covers."""
    gutters: list[tuple[float, float]] = []
    right = min((r.x1 for r in band), default=0.0)
    for region in sorted(band, key=lambda r: r.x0):
        if region.x0 - right >= GUTTER_WIDTH:
            gutters.append((right, region.x0))
        right = max(right, region.x1)
    return gutters


def _shares_height(region: Region, others: list[Region]) -> bool:
    """Whether another region stands level with this one for more than a point."""
    return any(o is not region and min(region.y1, o.y1) - max(region.y0, o.y0) > 1 for o in others)


def _text_column(regions: list[Region], span: float) -> bool:
    """Whether regions make a column of text: MIN_COLUMN_LINES lines, COLUMN_SHARE wide.

    Margin notes, line numbers, slide symbols and a code line's comment stand beside the
    text too, but narrow or short: they make no columns to read one after the other.
    """
    lines = sum(len(r.lines) for r in regions)
    if not regions or lines < MIN_COLUMN_LINES:
        return False
    width = max(r.x1 for r in regions) - min(r.x0 for r in regions)
    return width >= COLUMN_SHARE * span and not all(ln.mono for r in regions for ln in r.lines)


def _straddling(band: list[Region]) -> list[Region]:
    """Return the regions that stand alone across a gutter between columns of the band.

    The gutters come from the regions that stand level with another one; a region level
    with none that runs across such a gutter (a centred title, a caption, an abstract) is
    no column's, and only where the regions left and right of the gutter stand side by side.
    """
    alone = [r for r in band if not _shares_height(r, band)]
    paired = [r for r in band if _shares_height(r, band)]
    span = max(r.x1 for r in band) - min(r.x0 for r in band)
    found: dict[int, Region] = {}
    for lo, hi in _gutters(paired):
        left = [r for r in paired if r.x1 <= lo]
        right = [r for r in paired if r.x0 >= hi]
        if _text_column(left, span) and _text_column(right, span) and _side_by_side([left, right]):
            # Across its middle: a column's ragged line may reach into the gutter a little.
            middle = (lo + hi) / 2
            found.update((id(r), r) for r in alone if r.x0 < middle < r.x1)
    return list(found.values())


def _order_band(band: list[Region]) -> list[Region]:
    """Order a band of regions: split at regions across a gutter, then column by column.

    Each part between two regions that cross the columns' gutter has its own columns (two
    above a figure's caption, three below it) and is ordered on its own.
    """
    across = _straddling(band) if len(band) > 2 else []
    if across and len(across) < len(band):
        ids = {id(r) for r in across}
        ordered: list[Region] = []
        part: list[Region] = []
        for region in sorted(band, key=lambda r: (r.y0, r.x0)):
            if id(region) in ids:
                ordered.extend(_order_band(part))
                ordered.append(region)
                part = []
            else:
                part.append(region)
        return ordered + _order_band(part)
    return _order_columns(band)


def _order_columns(band: list[Region]) -> list[Region]:
    """Order a band of regions column by column, each column top to bottom."""
    columns = _columns(band)
    if columns is None:
        return sorted(band, key=lambda r: (round(r.y0), r.x0))
    return [r for col in columns for r in sorted(col, key=lambda r: (r.y0, r.x0))]


def _is_body(region: Region, body: float) -> bool:
    """Whether a region is a table or holds a line in body type or larger."""
    return region.table is not None or any(line.size >= body - 0.5 for line in region.lines)


def _footnotes(regions: list[Region], page: PageContent, body: float) -> list[Region]:
    """Return the footnotes among a page's regions: small type under the body, marked.

    A footnote starts with its mark (a number, a symbol or a superscript digit), stands in
    the lower part of the page, and no body text of its column lies below it; small
    regions straight below a footnote go on with it.
    """
    notes: list[Region] = []
    for region in sorted(regions, key=lambda r: r.y0):
        if region.table is not None or region.y0 < FOOTNOTE_ZONE * page.height:
            continue
        if _is_body(region, body):
            continue
        below = [
            other
            for other in regions
            if other.y0 >= region.y1 - 1 and other.x0 < region.x1 and region.x0 < other.x1
        ]
        if any(_is_body(other, body) for other in below):
            continue
        under_note = any(
            n.y1 <= region.y0 + 1 and n.x0 < region.x1 and region.x0 < n.x1 for n in notes
        )
        if under_note or _FOOTNOTE_MARK.match(region.lines[0].text):
            notes.append(region)
    return notes


def reading_order(page: PageContent, body: float | None = None) -> list[Region]:
    """Return a page's regions in reading order: bands split by wide regions, then columns.

    Given the body type size, footnotes come last, after the whole body of the page: at
    the foot of a column they would cut the sentence that goes on in the next column.
    """
    regions = _regions(page)
    if len(regions) < 2:
        return regions
    notes = _footnotes(regions, page, body) if body else []
    if notes:
        ids = {id(note) for note in notes}
        regions = [region for region in regions if id(region) not in ids]
        return _body_order(regions, page) + _body_order(notes, page)
    return _body_order(regions, page)


def _body_order(regions: list[Region], page: PageContent) -> list[Region]:
    """Order regions: bands split by wide regions, columns within each band."""
    if len(regions) < 2:
        return regions
    left = min(r.x0 for r in regions)
    # The text area mirrors its left margin: a short last column must not shrink it.
    span = max(max(r.x1 for r in regions), page.width - left) - left
    ordered: list[Region] = []
    band: list[Region] = []
    for region in sorted(regions, key=lambda r: (r.y0, r.x0)):
        if region.x1 - region.x0 > WIDE_SHARE * span:
            ordered.extend(_order_band(band))
            band = []
            ordered.append(region)
        else:
            band.append(region)
    ordered.extend(_order_band(band))
    return ordered
