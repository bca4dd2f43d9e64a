"""Blocks from runs and tables in reading order: paragraphs, list items, code, whole tables."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from policy_assistant.boxes import page_boxes
from policy_assistant.parse.builder import BLOCK_SEPARATOR, DocumentBuilder
from policy_assistant.parse.pdf.lines import (
    Line,
    is_glyph_bullet,
    join_wrapped,
    list_marker,
    strip_glyph_bullet,
)
from policy_assistant.parse.pdf.structure import Run
from policy_assistant.parse.pdf.tables import Table, same_row, table_text
from policy_assistant.parse.pdf.words import Vocabulary
from policy_assistant.records import BlockKind, Dropped, PageBox

_CLOSERS = "'\"”’)]"
"""Quotes and brackets that may close a sentence after its final stop."""
_MID_CLAUSE = re.compile(r"(?:\b[a-z]+|,)$")
HANGING_INDENT = 0.5
"""A line indented this many ems past its item's marker continues the item."""
FOOT_SHARE = 0.6
"""A sentence cut off mid-clause goes on over a capital only from this far down its page."""
MIN_SEPARATOR = 40.0
"""A horizontal rule this long (points) or longer between two lines parts their blocks."""


def ends_sentence(text: str) -> bool:
    """Whether text ends with a sentence stop (. ! ? : ;), closing quotes or brackets aside.

    Read from the end, so a growing paragraph costs nothing per line added to it.
    """
    # A regular expression's "$" also matches before one final newline.
    body = (text[:-1] if text.endswith("\n") else text).rstrip(_CLOSERS)
    return body[-1:] in (".", "!", "?", ":", ";")


@dataclass(slots=True)
class _Pending:
    """The block being built; it may still grow on the next page."""

    kind: BlockKind
    pages: list[int]
    text: str = ""
    level: int | None = None
    indent: float = 0.0
    lines: list[Line] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    marks: list[tuple[int, int]] = field(default_factory=list)
    """(page, position) where a page's content begins inside the block: a character
    offset for prose, a line index for code, a row index for a table."""
    areas: list[PageBox] = field(default_factory=list)
    """Areas the block covers besides its lines': a table's, one a page."""


def _boxes(pending: _Pending) -> tuple[PageBox, ...]:
    """Return the boxes of a block: its lines' and its other areas', one a page."""
    lines = [(ln.page, ln.x0, ln.y0, ln.x1, ln.y1) for ln in pending.lines]
    return page_boxes(lines + pending.areas)


def _code_rows(lines: list[Line]) -> list[list[Line]]:
    """Group code lines into visual rows: MuPDF splits a row at wide gaps."""
    rows: list[list[Line]] = []
    for line in lines:
        last = rows[-1][0] if rows else None
        if last is not None and last.page == line.page and abs(line.y0 - last.y0) < 0.5 * line.size:
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def _code_text(lines: list[Line]) -> tuple[str, list[int]]:
    """Return code as text, indentation and columns rebuilt from x; and each line's offset."""
    base = min(line.x0 for line in lines)
    widths = sorted((ln.x1 - ln.x0) / len(ln.text) for ln in lines if ln.text)
    char = widths[len(widths) // 2] or 1.0
    out: list[str] = []
    starts: list[int] = []
    offset = 0
    previous: Line | None = None
    wrapped = False
    for row in _code_rows(lines):
        first = row[0]
        if wrapped and out:
            # The rest of a line the layout wrapped: it goes back on the end of its line.
            rest = " " + " ".join(line.text.strip() for line in sorted(row, key=lambda ln: ln.x0))
            starts.extend([offset - len(out[-1]) - 1] * len(row))
            out[-1] += rest
            offset += len(rest)
            wrapped = any(line.wraps for line in row)
            previous = first
            continue
        if previous and previous.page == first.page and first.y0 - previous.y1 > 0.8 * first.size:
            # Keep the blank line that separated two parts of one listing.
            out.append("")
            offset += 1
        previous = first
        starts.extend([offset] * len(row))
        text = ""
        for line in sorted(row, key=lambda ln: ln.x0):
            column = round((line.x0 - base) / char)
            text += " " * max(column - len(text), 1 if text else 0) + line.text
        out.append(text)
        offset += len(text) + 1
        wrapped = any(line.wraps for line in row)
    return "\n".join(out), starts


def _row_starts(rows: list[list[str]]) -> list[int]:
    starts, offset = [], 0
    for row in rows:
        starts.append(offset)
        offset += len(table_text([row])) + 1
    return starts


class BlockAssembler:
    """Turn a document's runs and tables, page by page, into the builder's blocks."""

    def __init__(self, builder: DocumentBuilder, vocabulary: Vocabulary | None = None) -> None:
        self._builder = builder
        self._vocabulary = vocabulary
        self._pending: _Pending | None = None
        self._waiting: list[int] = []
        self._left: dict[int, float] = {}
        self._separators: dict[int, list[tuple[float, float, float]]] = {}
        self._height: dict[int, float] = {}
        self.dropped: list[Dropped] = []
        """Text left out while assembling: a table's header row repeated on a new page."""

    def start_page(
        self,
        page: int,
        left: float,
        separators: list[tuple[float, float, float]] | None = None,
        height: float = 0.0,
    ) -> None:
        """Note that page begins; left is its text's left margin, separators its rules."""
        self._height[page] = height
        self._waiting.append(page)
        self._left[page] = left
        self._separators[page] = separators or []

    def _parted(self, last: Line, line: Line) -> bool:
        """Whether a rule or box edge, or a blank line's gap, lies between two lines."""
        if last.page != line.page or line.y0 < last.y1 - 1:
            return False
        for x0, y, x1 in self._separators.get(line.page, ()):
            # Text underlined for a link has its rule inside its own line's box.
            long = x1 - x0 >= MIN_SEPARATOR
            if long and last.y1 - 0.5 <= y <= line.y0 + 1 and x0 < line.x1 and line.x0 < x1:
                return True
        return False

    def finish(self) -> None:
        """Emit the last block and place pages that held no text at the end."""
        self._flush()
        end = self._builder.offset - (len(BLOCK_SEPARATOR) if self._builder.blocks else 0)
        for page in self._waiting:
            self._builder.begin_page(page, end)
        self._waiting.clear()

    def _mark(self, pending: _Pending, position: int, page: int) -> None:
        for waiting in self._waiting:
            pending.marks.append((waiting, position))
        self._waiting.clear()
        if page not in pending.pages:
            pending.pages.append(page)

    def _start(self, pending: _Pending, page: int) -> None:
        self._flush()
        self._mark(pending, 0, page)
        self._pending = pending

    def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        text, marks = pending.text, pending.marks
        if pending.kind == "code":
            text, line_starts = _code_text(pending.lines)
            marks = [(page, line_starts[line]) for page, line in marks]
        elif pending.kind == "table":
            text, row_starts = table_text(pending.rows), _row_starts(pending.rows)
            marks = [(page, row_starts[row]) for page, row in marks]
        begin = self._builder.offset
        for page, position in marks:
            self._builder.begin_page(page, begin + position)
        pages = tuple(sorted(pending.pages))
        if pending.kind == "heading":
            self._builder.heading(text, pending.level or 1, pages, _boxes(pending))
        else:
            self._builder.add(pending.kind, text, pages, _boxes(pending))

    def add_table(self, table: Table, first_on_page: bool) -> None:
        """Add a table, merging it into the previous one if it continues it on a new page."""
        pending = self._pending
        if (
            pending is not None
            and pending.kind == "table"
            and first_on_page
            and max(pending.pages) == table.page - 1
            and max(len(r) for r in pending.rows) == table.columns
        ):
            rows = table.rows
            if same_row(table.rows[0], pending.rows[0]):
                rows = table.rows[1:]
                header = table_text(table.rows[:1])
                self.dropped.append(Dropped(header, "repeated table header", table.page))
            self._mark(pending, len(pending.rows), table.page)
            pending.rows.extend(rows)
            pending.areas.append(_table_area(table))
            return
        rows = [list(r) for r in table.rows]
        self._start(_Pending("table", [], rows=rows, areas=[_table_area(table)]), table.page)

    def add_runs(self, runs: list[Run], first_on_page: bool) -> None:
        """Add the runs of one region."""
        for index, run in enumerate(runs):
            if run.kind == "heading":
                heading = _Pending(
                    "heading", [], text=run.text, level=run.level, lines=list(run.lines)
                )
                self._start(heading, run.lines[0].page)
                self._flush()
            elif run.kind == "code" and self._pending and self._completes_sentence(run.lines):
                self._append(self._pending, run.lines[0])
            elif run.kind == "code":
                # MuPDF may give a row's pieces out of order; within one block, y then x.
                ordered = sorted(run.lines, key=lambda ln: (round(ln.y0), ln.x0))
                self._add_code(ordered, first_on_page and index == 0)
            else:
                self._add_text(run.lines, index == 0)

    def _completes_sentence(self, lines: list[Line]) -> bool:
        """Whether a lone monospaced line ends the pending unfinished sentence: inline code."""
        pending = self._pending
        if len(lines) != 1 or pending is None or pending.kind not in ("paragraph", "list_item"):
            return False
        return not ends_sentence(pending.text)

    def _add_code(self, lines: list[Line], first_on_page: bool) -> None:
        pending = self._pending
        if pending is not None and pending.kind == "code":
            last = pending.lines[-1]
            near = lines[0].page == last.page and lines[0].y0 - last.y1 < 3 * last.size
            if near or (first_on_page and lines[0].page == last.page + 1):
                self._mark(pending, len(pending.lines), lines[0].page)
                pending.lines.extend(lines)
                return
        self._start(_Pending("code", [], lines=list(lines)), lines[0].page)

    def _add_text(self, lines: list[Line], region_start: bool) -> None:
        prev: Line | None = None
        for line in lines:
            marker = list_marker(line.text)
            pending = self._pending
            if marker and self._starts_item(marker, prev):
                relative = line.x0 - self._left.get(line.page, line.x0)
                text = strip_glyph_bullet(line.text)
                item = _Pending("list_item", [], text=text, indent=relative, lines=[line])
                self._start(item, line.page)
            elif pending is not None and self._continues(line, prev, region_start and prev is None):
                self._append(pending, line)
            else:
                self._start(_Pending("paragraph", [], text=line.text, lines=[line]), line.page)
            prev = line

    def _append(self, pending: _Pending, line: Line) -> None:
        """Add a wrapped line to the pending paragraph or list item."""
        joined = join_wrapped(pending.text, line.text, self._vocabulary)
        self._mark(pending, len(joined) - len(line.text), line.page)
        pending.text = joined
        pending.lines.append(line)

    def _starts_item(self, marker: str, prev: Line | None) -> bool:
        """Whether a line that begins like a list item really starts one."""
        if prev is None or is_glyph_bullet(marker):
            return True
        pending = self._pending
        if pending is not None and pending.kind == "list_item":
            return True
        # "2." or "-" at the start of a wrapped line is usually just the next word.
        return ends_sentence(prev.text) or prev.text.endswith(":")

    def _continues(self, line: Line, prev: Line | None, new_region: bool) -> bool:
        """Whether a line without a marker continues the pending paragraph or item."""
        pending = self._pending
        if pending is None or pending.kind not in ("paragraph", "list_item"):
            return False
        last = pending.lines[-1]
        if self._parted(last, line):
            # A note, tip or warning box below a list or paragraph starts afresh.
            return False
        if pending.kind == "list_item" and line.page == last.page:
            gap = line.y0 - last.y1
            if gap > 0.9 * line.size and line.x0 <= pending.indent + self._left.get(line.page, 0):
                # A blank line's gap and no indent past the marker: the item has ended.
                return False
        if not new_region:
            if prev is None or pending.kind == "list_item":
                return True
            return not self._paragraph_break(prev, line)
        # A sentence cut off at the foot of a column or page goes on at the top of the next:
        # the text flows up or onto a new page; a region lower down starts afresh.
        flowed = line.page != last.page or line.y0 < last.y0 - 1
        # A capital may start the next line ("in the" / "Warranty Policy table"), but not
        # after a sentence cut off mid-clause, on a lowercase word or a comma.
        low = last.y1 > FOOT_SHARE * self._height.get(last.page, 0.0)
        cut = low and bool(_MID_CLAUSE.search(pending.text))
        unfinished = (
            flowed and not ends_sentence(pending.text) and (cut or not line.text[:1].isupper())
        )
        if pending.kind == "paragraph":
            return unfinished
        relative = line.x0 - self._left.get(line.page, line.x0)
        return unfinished or relative > pending.indent + HANGING_INDENT * line.size

    @staticmethod
    def _paragraph_break(prev: Line, line: Line) -> bool:
        """Whether a first-line indent after a finished sentence starts a new paragraph."""
        indented = line.x0 > prev.x0 + 0.8 * line.size
        return indented and ends_sentence(prev.text)


def _table_area(table: Table) -> PageBox:
    """Return the area of a table on its page."""
    return (table.page, table.x0, table.y0, table.x1, table.y1)
