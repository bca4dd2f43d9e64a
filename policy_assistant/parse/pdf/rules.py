"""Straight rules drawn on a page, and the areas they mark out as possible tables.

Table detection is the dearest step of a parse, so it runs only where a page shows signs
of a table, and only inside the area that shows them:

- a *grid*: horizontal and vertical rules (or boxes) that touch one another, with at
  least one column rule inside the area. Its outer borders may be missing (LaTeX and
  DocBook tables often draw inner column rules only), so the area reaches as far as its
  horizontal rules do, and closing lines are added at both ends for the finder;
- a *booktabs* table: three or more horizontal rules of the same width stacked without
  any column rule, with text set in columns between them (several rows whose line is
  broken into separate pieces). Its columns come from the alignment of the text.

Rules framing a note, a code listing or a heading are no sign of a table: a frame has no
column rule inside it, and the text between two note rules runs in one piece per line.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from policy_assistant.parse.pdf.lines import Line

THIN = 3.0
"""A rule is thinner than this (points)."""
MIN_RULE_LENGTH = 8.0
"""...and at least this long."""
MIN_BOOKTABS_RULES = 3
"""Horizontal rules (top, middle, bottom) a table without column rules needs."""
PROSE_WIDTH = 0.6
"""A line in one piece across this share of a rule stack's width is prose, not a row."""
_TOUCH = 2.0
_PAD = 4.0
_SAME_END = 3.0

Box = tuple[float, float, float, float]
Segment = tuple[tuple[float, float], tuple[float, float]]


@dataclass(slots=True)
class TableArea:
    """Where to look for a table on a page, and how."""

    box: Box
    """The area, padded a little: the finder's clip."""
    ruled: bool
    """Whether column rules exist: the finder follows rules, else the text's alignment."""
    closing: list[Segment] = field(default_factory=list)
    """Vertical lines to add at the area's outer ends, where borders are missing."""
    cells: int = 0
    """Cells its rules mark out, about: what the table finder's work grows with."""
    grid: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    """(column edges, row edges) when every rule runs the whole width or height (the outer
    columns may be the closing lines): a plain grid, read without MuPDF's finder; None when
    cells span or rules stop short."""


def _rule(item: tuple[Any, ...]) -> tuple[str, Box] | None:
    """Return ('h' | 'v' | 'box', bbox) for a path item that is a rule or a box."""
    if item[0] == "l":
        (ax, ay), (bx, by) = item[1], item[2]
    elif item[0] == "re":
        ax, ay, bx, by = item[1]
    else:
        return None
    box = (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
    w, h = box[2] - box[0], box[3] - box[1]
    if h < THIN and w >= MIN_RULE_LENGTH:
        return "h", box
    if w < THIN and h >= MIN_RULE_LENGTH:
        return "v", box
    if item[0] == "re" and w >= MIN_RULE_LENGTH and h >= MIN_RULE_LENGTH:
        return "box", box
    return None


def _page_rules(drawings: list[dict[str, Any]]) -> list[tuple[str, Box]]:
    """Return every rule and box among a page's vector drawings."""
    return [rule for path in drawings for item in path.get("items", ()) if (rule := _rule(item))]


def _merge_horizontal(rules: list[Box]) -> list[Box]:
    """Join horizontal segments that continue one another on the same line."""
    merged: list[Box] = []
    for x0, y0, x1, y1 in sorted(rules, key=lambda r: (round((r[1] + r[3]) / 2), r[0])):
        if merged:
            px0, py0, px1, py1 = merged[-1]
            if abs((y0 + y1) / 2 - (py0 + py1) / 2) <= 1 and x0 <= px1 + _TOUCH:
                merged[-1] = (px0, min(py0, y0), max(px1, x1), max(py1, y1))
                continue
        merged.append((x0, y0, x1, y1))
    return merged


def near(a: Box, b: Box, reach: float) -> bool:
    """Whether two boxes (lines too: boxes without width or height) come within reach."""
    return (
        a[0] - reach <= b[2]
        and b[0] - reach <= a[2]
        and a[1] - reach <= b[3]
        and b[1] - reach <= a[3]
    )


def chained(boxes: Sequence[Box], reach: float) -> list[list[int]]:
    """Return the boxes (as indices) in sets that come within reach of one another, directly
    or in a chain: each set ascending, the sets in the order of their first box."""
    parent = list(range(len(boxes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # A sweep down the page: a box can reach only those starting above its bottom + reach.
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][1])
    for position, i in enumerate(order):
        bottom = boxes[i][3] + reach
        for j in order[position + 1 :]:
            if boxes[j][1] > bottom:
                break
            if near(boxes[i], boxes[j], reach):
                parent[find(i)] = find(j)
    sets: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        sets.setdefault(find(i), []).append(i)
    return list(sets.values())


def _components(items: list[tuple[str, Box]]) -> list[list[tuple[str, Box]]]:
    """Group rules and boxes into sets that touch one another, directly or in a chain."""
    return [[items[i] for i in found] for found in chained([b for _, b in items], _TOUCH)]


def hull(boxes: Sequence[Box]) -> Box:
    """Return the box round every box."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _padded(box: Box) -> Box:
    return (box[0] - _PAD, box[1] - _PAD, box[2] + _PAD, box[3] + _PAD)


def _grid_area(group: list[tuple[str, Box]]) -> TableArea | None:
    """Return the area of a set of touching rules if it has a column rule inside it."""
    box = hull([b for _, b in group])
    x0, y0, x1, y1 = box
    edges = [b[0] for kind, b in group if kind != "h"]
    edges += [b[2] for kind, b in group if kind == "box"]
    rows = sum(1 for kind, _ in group if kind == "h") + 2 * sum(1 for k, _ in group if k == "box")
    if rows < 2 or not any(x0 + _PAD < x < x1 - _PAD for x in edges):
        return None
    closing = [((x0, y0), (x0, y1)), ((x1, y0), (x1, y1))]
    columns = sum(1 for kind, _ in group if kind == "v")
    boxes = sum(1 for kind, _ in group if kind == "box")
    cells = max(max(rows - 1, 1) * max(columns - 1, 1), boxes)
    return TableArea(_padded(box), True, closing, cells, plain_grid(group, box))


def _edges(group: list[tuple[str, Box]]) -> tuple[list[Box], list[Box]]:
    """Return the horizontal and vertical segments of rules and of the sides of boxes."""
    across = [b for kind, b in group if kind == "h"]
    down = [b for kind, b in group if kind == "v"]
    for kind, (x0, y0, x1, y1) in group:
        if kind == "box":
            across += [(x0, y0, x1, y0), (x0, y1, x1, y1)]
            down += [(x0, y0, x0, y1), (x1, y0, x1, y1)]
    return across, down


def _lines_at(segments: list[Box], axis: int) -> list[tuple[float, list[tuple[float, float]]]]:
    """Group segments by their position on one axis (0: x of vertical ones, 1: y of
    horizontal ones): each line's position and the spans it covers along the other axis."""
    lines: list[tuple[float, list[tuple[float, float]]]] = []
    for seg in sorted(segments, key=lambda b: (b[axis] + b[axis + 2]) / 2):
        at = (seg[axis] + seg[axis + 2]) / 2
        span = (seg[1 - axis], seg[3 - axis])
        if lines and at - lines[-1][0] <= _TOUCH:
            lines[-1][1].append(span)
        else:
            lines.append((at, [span]))
    return lines


def _covers(spans: list[tuple[float, float]], start: float, end: float) -> bool:
    """Whether spans, joined where they touch, cover start..end."""
    reach = start
    for a, b in sorted(spans):
        if a > reach + _TOUCH:
            return False
        reach = max(reach, b)
    return reach >= end - _TOUCH


def _with_closing(
    columns: list[tuple[float, list[tuple[float, float]]]], box: Box
) -> list[tuple[float, list[tuple[float, float]]]]:
    """Add the outer column rules the finder is given as closing lines, where none is drawn.

    DocBook and LaTeX tables often draw inner column rules only; their rows still run the
    whole width, so the area's closing lines make a plain grid of them.
    """
    if not columns:
        return columns
    x0, y0, x1, y1 = box
    if columns[0][0] - x0 > _TOUCH:
        columns = [(x0, [(y0, y1)]), *columns]
    if x1 - columns[-1][0] > _TOUCH:
        columns = [*columns, (x1, [(y0, y1)])]
    return columns


def plain_grid(
    group: list[tuple[str, Box]], box: Box
) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """Return the column and row edges of a grid whose every line runs edge to edge.

    Such a grid's cells are plain rectangles between consecutive lines, which is all that
    MuPDF's table finder would find in it, at a small part of its cost.
    """
    across, down = _edges(group)
    x0, y0, x1, y1 = box
    rows, columns = _lines_at(across, 1), _with_closing(_lines_at(down, 0), box)
    if len(rows) < 2 or len(columns) < 2:
        return None
    if abs(columns[0][0] - x0) > _TOUCH or abs(columns[-1][0] - x1) > _TOUCH:
        return None
    if abs(rows[0][0] - y0) > _TOUCH or abs(rows[-1][0] - y1) > _TOUCH:
        return None
    if not all(_covers(spans, x0, x1) for _, spans in rows):
        return None
    if not all(_covers(spans, y0, y1) for _, spans in columns):
        return None
    return tuple(at for at, _ in columns), tuple(at for at, _ in rows)


def _split_rows(lines: list[Line], box: Box) -> tuple[int, int]:
    """Return (text rows, rows set in separate pieces) among the lines inside box."""
    inside = [
        ln
        for ln in lines
        if box[0] - 1 <= ln.x0 and ln.x1 <= box[2] + 1 and box[1] <= ln.y0 and ln.y1 <= box[3]
    ]
    rows: list[list[Line]] = []
    for line in sorted(inside, key=lambda ln: (ln.y0, ln.x0)):
        if rows and abs(line.y0 - rows[-1][0].y0) < 0.5 * line.size:
            rows[-1].append(line)
        else:
            rows.append([line])
    split = 0
    for row in rows:
        row.sort(key=lambda ln: ln.x0)
        if any(b.x0 - a.x1 >= 0.8 * b.size for a, b in itertools.pairwise(row)):
            split += 1
    return len(rows), split


def _stacks(rules: list[Box], grids: list[Box]) -> list[list[Box]]:
    """Group horizontal rules of one width, top to bottom; a grid table ends a stack."""
    stacks: list[list[Box]] = []
    for rule in sorted(rules, key=lambda r: r[1]):
        for stack in stacks:
            top = stack[-1]
            same = abs(top[0] - rule[0]) <= _SAME_END and abs(top[2] - rule[2]) <= _SAME_END
            if same and not any(top[1] <= g[1] and g[3] <= rule[3] for g in grids):
                stack.append(rule)
                break
        else:
            stacks.append([rule])
    return stacks


def _prose_between(lines: list[Line], top: Box, bottom: Box) -> bool:
    """Whether a line of prose runs across most of the width between two rules.

    A line wider than the rules counts too (a paragraph set at full measure between two
    narrow tables): no row of a table runs past its rules, and a paragraph inside the
    table's area would be cut at the area's edge.
    """
    width = top[2] - top[0]
    return any(
        top[3] <= ln.y0
        and ln.y1 <= bottom[1]
        and ln.x1 - ln.x0 > PROSE_WIDTH * width
        and ln.x0 < top[2]
        and top[0] < ln.x1
        for ln in lines
    )


def _split_at_prose(stack: list[Box], lines: list[Line]) -> list[list[Box]]:
    """Split a stack of rules where a paragraph stands between two of them.

    Two booktabs tables of one width with a paragraph between them stack their rules
    into one pile; the paragraph is no row of either table.
    """
    parts = [[stack[0]]]
    for top, bottom in itertools.pairwise(stack):
        if _prose_between(lines, top, bottom):
            parts.append([])
        parts[-1].append(bottom)
    return parts


def _booktabs_areas(rules: list[Box], grids: list[Box], lines: list[Line]) -> list[TableArea]:
    """Return areas between stacked horizontal rules of one width whose text is in columns."""
    areas = []
    stacks = [part for pile in _stacks(rules, grids) for part in _split_at_prose(pile, lines)]
    for stack in stacks:
        if len(stack) < MIN_BOOKTABS_RULES:
            continue
        box = hull(stack)
        # The header, between the first two rules, is set in columns; and so is most text.
        _, header = _split_rows(lines, hull(stack[:2]))
        rows, split = _split_rows(lines, box)
        if header and split >= 2 and 2 * split >= rows:
            areas.append(TableArea(_padded(box), False))
    return areas


def table_areas(drawings: list[dict[str, Any]], lines: list[Line]) -> list[TableArea]:
    """Return the areas of a page that show signs of a table, top to bottom."""
    rules = _page_rules(drawings)
    if len(rules) < 2:
        return []
    horizontal = _merge_horizontal([b for kind, b in rules if kind == "h"])
    items = [("h", b) for b in horizontal] + [(k, b) for k, b in rules if k != "h"]
    areas: list[TableArea] = []
    loose: list[Box] = []
    for group in _components(items):
        area = _grid_area(group)
        if area is not None:
            areas.append(area)
        elif all(kind == "h" for kind, _ in group):
            loose.extend(b for _, b in group)
    areas.extend(_booktabs_areas(loose, [a.box for a in areas], lines))
    return sorted(areas, key=lambda a: a.box[1])


def separators(drawings: list[dict[str, Any]]) -> list[tuple[float, float, float]]:
    """Return (x0, y, x1) of every horizontal rule and box edge: lines that part blocks.

    Boxes stacked edge to edge at one width (the shaded background of a code listing,
    drawn line by line) count as one box: only its top and bottom part blocks.
    """
    out: list[tuple[float, float, float]] = []
    boxes: list[Box] = []
    for kind, (x0, y0, x1, y1) in _page_rules(drawings):
        if kind == "h":
            out.append((x0, (y0 + y1) / 2, x1))
        elif kind == "box":
            boxes.append((x0, y0, x1, y1))
    merged: list[Box] = []
    for box in sorted(boxes, key=lambda b: (b[1], b[0])):
        last = merged[-1] if merged else None
        if (
            last is not None
            and abs(last[0] - box[0]) <= 1
            and abs(last[2] - box[2]) <= 1
            and last[1] <= box[1] <= last[3] + 1
        ):
            merged[-1] = (last[0], last[1], last[2], max(last[3], box[3]))
        else:
            merged.append(box)
    for x0, y0, x1, y1 in merged:
        out.extend([(x0, y0, x1), (x0, y1, x1)])
    return out


def vertical_rules(drawings: list[dict[str, Any]]) -> list[tuple[float, float, float]]:
    """Return (x, top, bottom) of every vertical rule on a page."""
    return [((b[0] + b[2]) / 2, b[1], b[3]) for kind, b in _page_rules(drawings) if kind == "v"]
